"""Paragraph normalization: years, dates, months and counters masked; fingerprints stable."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from corpuscrawl.boilerplate.normalize import (
    _CALENDAR,
    Paragraph,
    fingerprint,
    fingerprint_hex,
    normalize,
    split_paragraphs,
)


def same(a: str, b: str) -> bool:
    return Paragraph.of(a).fingerprint == Paragraph.of(b).fingerprint


def test_years_and_dates_are_masked():
    assert same("© 2019 Example Media. All rights reserved.",
                "© 2024 Example Media. All Rights Reserved")
    assert same("Updated March 5, 2019 at 10:45", "Updated April 12, 2024 at 9:05")
    assert same("Ažurirano 5. ožujka 2021.", "Ažurirano 17. prosinca 2023.")
    assert same("Copyright 2003–2019", "Copyright 2003-2024")
    assert same("12 comments", "3 comments")


def test_different_words_stay_different():
    assert not same("© 2019 Example Media", "© 2019 Other Media")
    assert not same("Share on Facebook", "Share on Twitter")


def test_normal_form_is_readable():
    assert normalize("  Hello,   WORLD!  © 2020 ") == "hello world © 0"
    assert normalize("Monday, 3 May") == "d 0 m"


def test_fingerprint_hex_is_16_digits_and_unsigned():
    for text in ("a", "b", "© 2020"):
        value = fingerprint(normalize(text))
        assert -(2**63) <= value < 2**63
        assert len(fingerprint_hex(value)) == 16
        assert int(fingerprint_hex(value), 16) == value & (2**64 - 1)


def test_split_paragraphs_drops_blank_lines():
    paragraphs = split_paragraphs("First line\n\n   \nSecond line \n")
    assert [p.text for p in paragraphs] == ["First line", "Second line"]
    assert paragraphs[0].words == 2


@given(st.text())
def test_normalize_is_idempotent(text):
    once = normalize(text)
    assert normalize(once) == once



def reference_normalize(text: str) -> str:
    """The rules of the module docstring, written plainly (no fast paths)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = re.sub(r"[^\w©]+", " ", re.sub(r"\d+", "0", folded))
    return " ".join(_CALENDAR.get(w, w) for w in folded.split())


@given(st.text() | st.text(alphabet=st.characters(max_codepoint=127)))
def test_fast_paths_equal_the_plain_rules(text):
    assert normalize(text) == reference_normalize(text)


def test_documents_split_like_single_paragraphs():
    text = "Updated May 5, 2019\n\n  © 2020 Ünïcode — naïve café\nplain ASCII line 12"
    assert split_paragraphs(text) == [Paragraph.of(line.strip())
                                      for line in text.split("\n") if line.strip()]
