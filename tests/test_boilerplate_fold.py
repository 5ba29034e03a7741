"""The C accelerator of the export stage gives exactly what its pure-Python references give."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpuscrawl.boilerplate import normalize, patterns
from corpuscrawl.boilerplate.normalize import Paragraph, split_paragraphs
from corpuscrawl.boilerplate.patterns import keyword_lines, notice_candidates, notice_kind

_fold = pytest.importorskip("corpuscrawl.boilerplate._fold",
                            reason="the optional C accelerator is not built")

# Web text: ASCII, typographic separators, calendar words, digits, notice keywords and
# their case variants, letters that case folding changes (ß, İ, K, ſ), other scripts.
_PIECES = st.sampled_from(
    ["may", "May,", "MARCH", "sun", "3", "2019", "00", "—", "“", "…", "\xa0", "  ", "\t", "\r",
     "\x01", "©", "(c)", "(C)", "Copyright", "all rights reserved", "RIGHTS", "cookie",
     "Cookies", "jog ", "JOG", "autor", "Rechte", "práva", "PRÁVA", "права", "sütik",
     "版权", "ß", "İ", "\u212a", "ſ", "naïve", "é", "٣", "\u0301", "x" * 140, "\U0001f600"])
_LINE = st.lists(_PIECES | st.text(max_size=6), max_size=10).map("".join)
_TEXT = st.lists(_LINE, max_size=12).map("\n".join)


@settings(max_examples=300)
@given(_TEXT | st.text())
def test_split_paragraphs_equals_the_python_reference(text):
    assert _fold.split_paragraphs(text) == normalize._split_paragraphs_py(text)


@given(_TEXT)
def test_split_paragraphs_equals_paragraph_of_each_line(text):
    expected = [Paragraph.of(line.strip()) for line in text.split("\n") if line.strip()]
    assert split_paragraphs(text) == expected


def test_fingerprints_of_long_lines_are_blake2b():
    # BLAKE2b blocks are 128 bytes: lines of 0 to 3 blocks and the edges between them.
    for length in (1, 2, 127, 128, 129, 255, 256, 257, 383, 384, 385, 1000):
        line = ("ab " * length)[:length].strip() or "a"
        form = normalize.normalize(line).encode("ascii")
        digest = hashlib.blake2b(form, digest_size=8).digest()
        (paragraph,) = split_paragraphs(line)
        assert paragraph.fingerprint == int.from_bytes(digest, "big", signed=True)


def test_every_ascii_character_folds_like_the_reference():
    for code in range(128):
        text = f"a{chr(code)}b {chr(code)}12{chr(code)}"
        assert _fold.split_paragraphs(text) == normalize._split_paragraphs_py(text), code


@settings(max_examples=300)
@given(st.lists(_LINE.map(lambda line: line.replace("\n", " ")), max_size=12))
def test_notice_candidates_include_every_keyword_line(lines):
    found = notice_candidates(lines)
    exact = patterns._notice_candidates_py(lines)
    assert found == sorted(set(found))
    assert set(exact) <= set(found)
    for index in set(found) - set(exact):  # the extra lines are no notices
        assert notice_kind(lines[index]) is None


def test_notice_candidates_on_plain_lines():
    lines = ["intro", "© 2020 x and cookies", "nothing here", "ALL RIGHTS RESERVED", "end",
             "Copyright (C) 2021", "a jog through the park", "x" * 5000 + " cookie"]
    assert notice_candidates(lines) == [1, 3, 5, 6, 7]
    assert keyword_lines("\n".join(lines).casefold()) == [1, 3, 5, 6, 7]


def test_benchmark_like_texts_fold_like_the_reference():
    # Real extractor output when the shared datasets are there (a few hundred lines).
    root = Path(__file__).parent / "data" / "boilerplate"
    texts = [p.read_text(encoding="utf-8") for p in sorted(root.glob("*.txt"))]
    for text in texts:
        assert _fold.split_paragraphs(text) == normalize._split_paragraphs_py(text)
        lines = [p.text for p in split_paragraphs(text)]
        assert set(patterns._notice_candidates_py(lines)) <= set(notice_candidates(lines))


def test_configuration_is_validated():
    try:
        with pytest.raises(ValueError):
            _fold.configure_keywords("", (b"UPPER",))
        with pytest.raises(ValueError):
            _fold.configure_fold({b"x" * 40: b"m"}, "", Paragraph, normalize._digest)
        with pytest.raises(TypeError):
            _fold.configure_fold(normalize._ASCII_MASKS, "", list, normalize._digest)
        with pytest.raises(TypeError, match="digest must be callable"):
            _fold.configure_fold(normalize._ASCII_MASKS, "", Paragraph, None)
        with pytest.raises(RuntimeError):  # a failed configuration is not half used
            _fold.split_paragraphs("text")
    finally:  # the real tables again, for the other tests of this process
        _fold.configure_keywords(patterns._inert_chars(), patterns._ASCII_KEYWORDS)
        _fold.configure_fold(normalize._ASCII_MASKS, normalize._SEPARATOR_CHARS, Paragraph,
                             normalize._digest)
    assert json.dumps(_fold.split_paragraphs("Monday, 3 May")[0][0].normalized) == '"d 0 m"'


def test_finished_paragraphs_are_not_tracked_by_the_garbage_collector():
    import gc

    paragraphs, pending = _fold.split_paragraphs("plain line\nnaïve café\n(c) 2020 x")
    assert [type(p) for p in paragraphs] == [Paragraph] * 3 and pending == [1]
    assert not gc.is_tracked(paragraphs[0]) and not gc.is_tracked(paragraphs[2])
    assert paragraphs[1] == Paragraph("naïve café", None, None)  # finished by normalize.py
    assert split_paragraphs("naïve café") == [Paragraph.of("naïve café")]
