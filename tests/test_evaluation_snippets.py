"""Snippet scoring: "with" snippets found, "without" snippets absent, summed P/R/F1."""

from __future__ import annotations

import pytest

from corpuscrawl.evaluation.datasets import Snippets
from corpuscrawl.evaluation.snippets import score_snippets, summarize_snippets

MUSEUM = Snippets("s1", with_=("museum reopened its glass hall", "the whale   skeleton"),
                  without=("Subscribe now to read on",))


def test_found_and_absent_snippets_with_whitespace_normalised() -> None:
    s = score_snippets("The museum reopened its\nglass hall.\nVisitors see the whale skeleton.",
                       MUSEUM)
    assert (s.with_found, s.with_total, s.without_found, s.without_total) == (2, 2, 0, 1)
    assert (s.precision, s.recall, s.f1) == (1.0, 1.0, 1.0)


def test_boilerplate_leak_and_missed_text() -> None:
    s = score_snippets("Subscribe now to read on. The museum reopened its glass hall.", MUSEUM)
    assert (s.tp, s.fn, s.fp, s.without_absent) == (1, 1, 1, 0)
    assert s.precision == pytest.approx(0.5)
    assert s.recall == pytest.approx(0.5)


def test_empty_extraction() -> None:
    s = score_snippets("", MUSEUM)
    assert (s.tp, s.fn, s.fp) == (0, 2, 0)
    assert s.f1 == 0.0


def test_summary_sums_counts_and_gives_shares() -> None:
    good = score_snippets("museum reopened its glass hall the whale skeleton", MUSEUM)
    bad = score_snippets("Subscribe now to read on", MUSEUM)
    total = summarize_snippets([good, bad])
    assert total.documents == 2
    assert total.with_found_share == pytest.approx(2 / 4)
    assert total.without_absent_share == pytest.approx(1 / 2)
    assert total.precision == pytest.approx(2 / 3)
    assert total.recall == pytest.approx(2 / 4)
    assert total.f1 == pytest.approx(2 * 2 / (2 * 2 + 1 + 2))
    assert total.mean_f1 == pytest.approx((1.0 + 0.0) / 2)
