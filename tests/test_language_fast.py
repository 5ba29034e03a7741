"""py3langid's feature walk in C gives the library's counts, and the identifier the same answers."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpuscrawl.html import language

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
    nextmove, states = fast._tables
    assert list(states[:6]) == [v for pair in zip(fast._rowbase[:3], fast.tk_output[:3],
                                                  strict=True) for v in pair]
    with pytest.raises(ValueError, match="4-byte"):
        _langid.visit_counts(array("q", [0]), states, b"abc")
    with pytest.raises(ValueError, match="4-byte"):
        _langid.visit_counts(nextmove, array("i", [0, -1, 0]), b"abc")  # not pairs
    with pytest.raises(ValueError, match="state 5 out of range"):
        _langid.visit_counts(array("I", [5] * 256), array("i", [0, -1]), b"ab")
    with pytest.raises(ValueError, match="state 1 out of range"):
        _langid.visit_counts(array("I", [1] * 256), array("i", [0, -1]), b"ab")
    with pytest.raises(ValueError, match="out of range"):
        _langid.visit_counts(array("I", [0] * 10), array("i", [0, -1]), b"\xff")
    with pytest.raises(ValueError, match="2 row offsets for 1 state outputs"):
        language.automaton_states([0, 1], [-1])
    with pytest.raises(ValueError, match="31-bit"):
        language.automaton_states([2**31], [-1])


@pytest.mark.datasets
@pytest.mark.slow
def test_same_answers_on_every_dataset_page(identifiers, datasets_dir) -> None:
    """The sample ``auto`` identifies on every gold page (its longest blocks) gets the same
    language and probability from the accelerated identifier as from py3langid's."""
    from corpuscrawl.evaluation.names import GOLD_DATASETS
    from corpuscrawl.extract.segment.cdom import page_blocks
    from corpuscrawl.html.page import Page
    from corpuscrawl.learn.trainset import documents

    fast, plain = identifiers
    pages = 0
    for ds in GOLD_DATASETS:
        for split in ("test", "train"):
            for doc in documents([datasets_dir / ds], split):
                blocks = page_blocks(Page.from_html(doc.dataset.read_html(doc.id)))
                sample = " ".join(b.text for b in sorted(blocks, key=lambda b: -b.words)[:8])
                sample = sample[:language.SAMPLE_CHARS_DEFAULT]
                assert fast.classify(sample) == plain.classify(sample), doc.key
                pages += 1
    assert pages > 2000
