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


# Text as the web writes it: ASCII with typographic punctuation (the fast path's
# separator characters), a few letters and digits of other scripts, combining marks.
_WEB_ALPHABET = st.sampled_from(
    list("aZ09 _-,.\t\r\x1f©") + list("’“”—–…‘•«»·´¨\xa0\u2028\u200b\u00ad€£°±�₨²")
    + list("éßİΩ٣\u0301"))


@given(st.text(alphabet=_WEB_ALPHABET))
def test_typographic_fast_path_equals_the_plain_rules(text):
    assert normalize(text) == reference_normalize(text)
    assert Paragraph.of(text).fingerprint == fingerprint(reference_normalize(text))


def test_repeated_lines_fold_alike():
    text = "© 2020 Example — “All rights reserved”\nSecond line\n© 2020 Example — “All rights reserved”"
    first, again = split_paragraphs(text), split_paragraphs(text)
    assert first == again == [Paragraph.of(line) for line in text.split("\n")]
    assert first[0].fingerprint == first[2].fingerprint


_LINE = st.lists(st.sampled_from(["may", "May,", "3", "2019", "sun", "märz", "Mai", "—", "  ",
                                  "\x01", "\r", "word", "©", "naïve"]) | st.text(_WEB_ALPHABET),
                 max_size=8).map("".join)


@given(st.lists(_LINE, max_size=12).map("\n".join))
def test_documents_fold_like_their_lines(text):
    expected = [Paragraph.of(line.strip()) for line in text.split("\n") if line.strip()]
    assert split_paragraphs(text) == expected


# Web text: ASCII, typographic separators, calendar words, digits, notice keywords and
# their case variants, letters that case folding changes (ß, İ, K, ſ), other scripts.
_PIECES = st.sampled_from(
    ["may", "May,", "MARCH", "sun", "3", "2019", "00", "—", "“", "…", "\xa0", "  ", "\t", "\r",
     "\x01", "©", "(c)", "(C)", "Copyright", "all rights reserved", "RIGHTS", "cookie",
     "Cookies", "jog ", "JOG", "autor", "Rechte", "práva", "PRÁVA", "права", "sütik",
     "版权", "ß", "İ", "\u212a", "ſ", "naïve", "é", "٣", "\u0301", "x" * 140, "\U0001f600"])
_LINE = st.lists(_PIECES | st.text(max_size=6), max_size=10).map("".join)
_TEXT = st.lists(_LINE, max_size=12).map("\n".join)


@given(_TEXT | st.text())
def test_split_paragraphs_equals_paragraph_of_each_line(text):
    expected = [Paragraph.of(line.strip()) for line in text.split("\n") if line.strip()]
    assert split_paragraphs(text) == expected


def test_every_ascii_character_splits_like_paragraph_of():
    for code in range(128):
        text = f"a{chr(code)}b {chr(code)}12{chr(code)}"
        assert split_paragraphs(text) == [Paragraph.of(line.strip())
                                          for line in text.split("\n") if line.strip()], code


def test_fingerprints_of_long_lines_are_blake2b():
    import hashlib

    # BLAKE2b blocks are 128 bytes: lines of 0 to 3 blocks and the edges between them.
    for length in (1, 2, 127, 128, 129, 255, 256, 257, 383, 384, 385, 1000):
        line = ("ab " * length)[:length].strip() or "a"
        form = normalize(line).encode("ascii")
        digest = hashlib.blake2b(form, digest_size=8).digest()
        (paragraph,) = split_paragraphs(line)
        assert paragraph.fingerprint == int.from_bytes(digest, "big", signed=True)
