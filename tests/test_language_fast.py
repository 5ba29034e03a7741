"""py3langid's feature walk in C gives the library's counts, and the identifier the same answers."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpuscrawl import language

_langid = pytest.importorskip("corpuscrawl._langid", reason="the optional C accelerator is not built")
langid = pytest.importorskip("py3langid.langid")


@pytest.fixture(scope="module")
def identifiers():
    """The accelerated identifier corpuscrawl uses and py3langid's own."""
    fast = language._identifier()
    plain = langid.LanguageIdentifier.from_model_file(langid.MODEL_FILE, norm_probs=True)
    return fast, plain


TEXTS = [
    "This is an English sentence about the weather and the news of the day.",
    "Ein deutscher Satz mit Umlauten: Größe, Übung, Straße und noch mehr Wörter.",
    "Une phrase française avec des accents: été, garçon, où, déjà vu.",
    "Это предложение на русском языке о погоде и новостях дня.",
    "这是一个关于天气和新闻的中文句子。", "ひらがなとカタカナのにほんごのぶん。", "", " ", "1234 5678",
    "THE UPPER CASE TEXT IS LOWERED FIRST", "ab" * 2000, "\U0001F600 emoji \u00ad soft",
]


def test_the_c_walk_gives_the_librarys_counts_in_the_same_order(identifiers) -> None:
    fast, _ = identifiers
    for text in TEXTS:
        data = fast._encode(text)
        expected = langid.visit_counts(fast.tk_nextmove, fast._rowbase, fast.tk_output, data)
        got = _langid.visit_counts(*fast._tables, data)
        assert (got is None) == (expected is None)
        if got is not None:
            assert list(got.items()) == list(expected.items())


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_same_answers_as_py3langid_on_random_text(identifiers, text: str) -> None:
    fast, plain = identifiers
    assert fast.classify(text) == plain.classify(text)


def test_same_answers_on_cases_and_through_detect(identifiers) -> None:
    fast, plain = identifiers
    assert type(fast) is not langid.LanguageIdentifier
    for text in TEXTS:
        assert fast.classify(text) == plain.classify(text)
        assert fast.rank(text) == plain.rank(text)
    assert language.detect(TEXTS[1])[0] == "de"


def test_tables_that_do_not_fit_raise_instead_of_reading_out_of_bounds(identifiers) -> None:
    fast, _ = identifiers
    nextmove, rowbase, output = fast._tables
    with pytest.raises(ValueError, match="4-byte"):
        _langid.visit_counts(array("q", [0]), rowbase, output, b"abc")
    with pytest.raises(ValueError, match="no output"):
        _langid.visit_counts(array("I", [5] * 256), array("q", [0]), array("i", [-1]), b"ab")
    with pytest.raises(ValueError, match="state 1 out of range"):
        _langid.visit_counts(array("I", [1] * 256), array("q", [0]), array("i", [-1, -1]), b"ab")
    with pytest.raises(ValueError, match="out of range"):
        _langid.visit_counts(array("I", [0] * 10), array("q", [0]), array("i", [-1]), b"\xff")
