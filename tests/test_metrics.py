"""Word-level LCS scoring of one document and summed aggregation over a set."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpuscrawl.evaluation.lcs import lcs_length_dp
from corpuscrawl.evaluation.metrics import Score, score, summarize, tokenize


def test_tokenize_strips_tags_and_splits_on_whitespace() -> None:
    assert tokenize("<p>Hello  <b>big</b>\nworld</p>") == ["Hello", "big", "world"]
    assert tokenize("a<br>b") == ["a", "b"]
    assert tokenize("1 < 2 and 3 > 2") == ["1", "<", "2", "and", "3", ">", "2"]
    assert tokenize("x <!-- hidden --> y") == ["x", "y"]
    assert tokenize("") == []


def test_tokenize_ascii_only_drops_high_characters() -> None:
    assert tokenize("Größe café ok") == ["Größe", "café", "ok"]
    assert tokenize("Größe café — ok", ascii_only=True) == ["Gre", "caf", "ok"]
    assert tokenize("日本 語", ascii_only=True) == []


def test_hand_computed_score() -> None:
    # extracted: 5 words, gold: 4 words, LCS "the cat sat" = 3 words.
    s = score("menu the cat sat home", "the cat sat down")
    assert (s.tp, s.fp, s.fn) == (3, 2, 1)
    assert s.precision == pytest.approx(3 / 5)
    assert s.recall == pytest.approx(3 / 4)
    assert s.f1 == pytest.approx(2 * 0.6 * 0.75 / (0.6 + 0.75))


def test_levenshtein_of_hand_case() -> None:
    # menu the cat sat home -> the cat sat down: delete "menu", substitute "home" -> "down".
    assert score("menu the cat sat home", "the cat sat down").levenshtein == 2


def test_order_matters_for_lcs() -> None:
    s = score("c b a", "a b c")
    assert (s.tp, s.fp, s.fn) == (1, 2, 2)


def test_empty_extraction_is_a_valid_answer() -> None:
    nothing = score("", "")
    assert (nothing.precision, nothing.recall, nothing.f1) == (1.0, 1.0, 1.0)
    missed = score("", "gold words here")
    assert (missed.tp, missed.fp, missed.fn) == (0, 0, 3)
    assert (missed.precision, missed.recall, missed.f1) == (0.0, 0.0, 0.0)
    spurious = score("junk", "")
    assert (spurious.precision, spurious.recall, spurious.f1) == (0.0, 0.0, 0.0)


def test_summed_aggregation_weights_documents_by_length() -> None:
    long_good = Score(tp=90, fp=10, fn=0)  # P .9, R 1
    short_bad = Score(tp=0, fp=10, fn=10)  # P 0, R 0
    total = summarize([long_good, short_bad])
    assert (total.tp, total.fp, total.fn, total.documents) == (90, 20, 10, 2)
    assert total.precision == pytest.approx(90 / 110)
    assert total.recall == pytest.approx(90 / 100)
    assert total.f1 == pytest.approx(180 / 210)
    assert total.mean_f1 == pytest.approx((180 / 190 + 0.0) / 2)
    assert total.levenshtein is None  # the hand-made scores carry no distance


def test_summarize_sums_levenshtein_and_handles_empty_sets() -> None:
    total = summarize([score("a b", "a c"), score("x", "x y")])
    assert total.levenshtein == 2
    empty = summarize([])
    assert empty.documents == 0 and empty.mean_f1 == 0.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "<p>", "d"]), max_size=30),
       st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=30))
def test_score_agrees_with_plain_dp(ext: list[str], gold: list[str]) -> None:
    s = score(" ".join(ext), " ".join(gold))
    ext_words = [w for w in ext if w != "<p>"]
    assert s.tp == lcs_length_dp(ext_words, gold)
    assert s.tp + s.fp == len(ext_words)
    assert s.tp + s.fn == len(gold)
    assert 0.0 <= s.f1 <= 1.0
