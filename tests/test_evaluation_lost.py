"""Lost articles: a page where one method fails (F1 < 0.5) while another gets it (F1 ≥ 0.8)."""

from __future__ import annotations

import pytest

from corpuscrawl.evaluation.lost import format_lost, lost_articles, lost_flags
from corpuscrawl.evaluation.metrics import score, summarize
from corpuscrawl.evaluation.scoring import DocResult, MethodEvaluation
from corpuscrawl.evaluation.tables import format_table, lost_by_method

ARTICLE = " ".join(f"word{i}" for i in range(100))
TEASER = " ".join(f"word{i}" for i in range(10))


def test_a_page_is_lost_only_when_another_method_gets_it() -> None:
    gold = [ARTICLE, ARTICLE, ARTICLE]
    outputs = {"a": [TEASER, ARTICLE, TEASER],
               "b": [ARTICLE, ARTICLE, TEASER + " " + TEASER]}
    scores = {m: [score(t, g, with_levenshtein=False) for t, g in zip(v, gold, strict=True)]
              for m, v in outputs.items()}
    flags = lost_flags(scores)
    # page 0: a fails and b gets it; page 2: both fail, so nobody lost an article there
    assert flags == {"a": [True, False, False], "b": [False, False, False]}
    lost = lost_articles(scores)
    assert lost["a"].pages == 1 and lost["a"].gold_words == 90 and lost["a"].documents == 3
    assert lost["b"].pages == 0 and lost["b"].gold_words == 0
    assert format_lost(lost["a"]) == "1 (90)"
    assert lost["a"].per_200 == pytest.approx(200 / 3)


def test_a_page_without_gold_text_is_never_lost() -> None:
    scores = {"a": [score("menu home", "", with_levenshtein=False)],
              "b": [score("", "", with_levenshtein=False)]}
    assert lost_flags(scores) == {"a": [False], "b": [False]}


def test_methods_on_different_pages_are_refused() -> None:
    with pytest.raises(ValueError, match="same pages"):
        lost_flags({"a": [score("x", "x")], "b": []})


def _evaluation(method: str, texts: dict[str, str], gold: dict[str, str]) -> MethodEvaluation:
    docs = tuple(DocResult(d, score(texts[d], gold[d], with_levenshtein=False), bool(texts[d]))
                 for d in sorted(gold))
    return MethodEvaluation("set", method, "gold", docs, summarize([d.score for d in docs]))


def test_comparison_table_has_the_lost_column() -> None:
    gold = {"p1": ARTICLE, "p2": ARTICLE}
    evs = [_evaluation("good", {"p1": ARTICLE, "p2": ARTICLE}, gold),
           _evaluation("bad", {"p1": TEASER, "p2": ARTICLE}, gold)]
    lost = lost_by_method(evs)
    assert lost["set", "bad"].pages == 1 and lost["set", "good"].pages == 0
    table = format_table(evs, markdown=True)
    assert "lost (gold words)" in table.splitlines()[0]
    bad_row = next(line for line in table.splitlines() if "| bad |" in line)
    assert "| 1 (90) |" in bad_row
