"""py3langid's feature walk as array operations gives the library's counts, and the
identifier the same answers."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpuscrawl.html import langid_walk, language

langid = pytest.importorskip("py3langid.langid")


@pytest.fixture(scope="module")
def identifiers():
    """The identifier corpuscrawl uses and py3langid's own."""
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


def sequential_states(identifier, data: bytes) -> list[int]:
    """The automaton's state after each byte, walked one byte at a time."""
    state, out = 0, []
    for letter in data:
        state = identifier.tk_nextmove[identifier._rowbase[state] + letter]
        out.append(state)
    return out


def same_counts(identifier, data: bytes) -> bool:
    """The array walk's counts are py3langid's, in the same order."""
    expected = langid.visit_counts(identifier.tk_nextmove, identifier._rowbase,
                                   identifier.tk_output, data)
    got = langid_walk.feature_visits(identifier._automaton, data)
    return list((got or {}).items()) == list((expected or {}).items())


def test_the_identifier_in_use_walks_with_arrays(identifiers) -> None:
    fast, _ = identifiers
    assert isinstance(fast, langid_walk.ArrayWalkIdentifier)


def test_the_array_walk_gives_every_state_of_the_byte_walk(identifiers) -> None:
    fast, _ = identifiers
    for text in TEXTS:
        data = fast._encode(text)
        states = langid_walk.walk_states(fast._automaton, data)
        assert states is not None
        assert states.tolist() == sequential_states(fast, data)
        assert same_counts(fast, data)


def test_a_walk_that_has_not_settled_is_none_and_scored_by_py3langid(identifiers,
                                                                     monkeypatch) -> None:
    fast, plain = identifiers
    data = fast._encode(TEXTS[0])
    assert langid_walk.walk_states(fast._automaton, data, max_rounds=2) is None
    assert langid_walk.walk_states(fast._automaton, b"", max_rounds=1) is not None
    monkeypatch.setattr(langid_walk, "feature_visits", lambda automaton, data: None)
    assert np.array_equal(fast._decide(TEXTS[0]), plain._decide(TEXTS[0]))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_same_counts_on_random_bytes(identifiers, data: bytes) -> None:
    fast, _ = identifiers
    assert same_counts(fast, data)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_same_answers_as_py3langid_on_random_text(identifiers, text: str) -> None:
    fast, plain = identifiers
    assert fast.classify(text) == plain.classify(text)
    assert np.array_equal(fast._decide(text), plain._decide(text))


def test_same_answers_on_cases_and_through_detect(identifiers) -> None:
    fast, plain = identifiers
    for text in TEXTS:
        assert fast.classify(text) == plain.classify(text)
        assert fast.rank(text) == plain.rank(text)
    assert language.detect(TEXTS[1])[0] == "de"


def test_an_identifier_without_the_automaton_is_py3langids_own(monkeypatch, caplog) -> None:
    def missing(self, identifier):
        raise AttributeError("'LanguageIdentifier' object has no attribute '_rowbase'")

    monkeypatch.setattr(langid_walk.Automaton, "__init__", missing)
    with caplog.at_level(logging.WARNING, logger="corpuscrawl.html.langid_walk"):
        identifier = langid_walk.array_walk_identifier(langid.MODEL_FILE, norm_probs=True)
    assert type(identifier) is langid.LanguageIdentifier
    assert "_rowbase" in caplog.text


def test_a_walk_whose_counts_differ_is_not_used(monkeypatch, caplog) -> None:
    monkeypatch.setattr(langid_walk, "feature_visits", lambda automaton, data: {0: 1})
    with caplog.at_level(logging.WARNING, logger="corpuscrawl.html.langid_walk"):
        identifier = langid_walk.array_walk_identifier(langid.MODEL_FILE, norm_probs=True)
    assert type(identifier) is langid.LanguageIdentifier
    assert "differ" in caplog.text


@pytest.mark.datasets
@pytest.mark.slow
def test_same_answers_on_every_dataset_page(identifiers, datasets_dir) -> None:
    """The sample ``auto`` identifies on every gold page (its longest blocks) and the start
    of the page's text get the same language and probability from the array walk's
    identifier as from py3langid's."""
    from corpuscrawl.evaluation.names import GOLD_DATASETS, SNIPPET_DATASETS
    from corpuscrawl.extract.segment.cdom import page_blocks
    from corpuscrawl.html.page import Page
    from corpuscrawl.learn.trainset import documents

    fast, plain = identifiers
    pages = 0
    for ds in (*GOLD_DATASETS, *SNIPPET_DATASETS, "wcxb"):
        for doc in documents([datasets_dir / ds], "all"):
            blocks = page_blocks(Page.from_html(doc.dataset.read_html(doc.id)))
            longest = " ".join(b.text for b in sorted(blocks, key=lambda b: -b.words)[:8])
            for sample in (longest, "\n".join(b.text for b in blocks)):
                sample = sample[:language.SAMPLE_CHARS_DEFAULT]
                assert fast.classify(sample) == plain.classify(sample), doc.key
            pages += 1
    assert pages > 3000
