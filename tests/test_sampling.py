"""Bootstrap and leave-one-out views of a summed-F1 difference."""

from __future__ import annotations

import numpy as np
import pytest

from corpuscrawl.evaluation.metrics import Score, summarize
from corpuscrawl.evaluation.sampling import (
    bootstrap_difference,
    influential_pages,
    most_influential,
    summed_f1,
)


def test_summed_f1_matches_the_metrics_summary():
    scores = [Score(8, 2, 1), Score(0, 0, 5), Score(3, 0, 0)]
    counts = np.array([(s.tp, s.fp, s.fn) for s in scores]).sum(0)
    assert summed_f1(counts) == pytest.approx(summarize(scores).f1)
    assert summed_f1(np.zeros(3, dtype=int)) == 1.0


def test_identical_methods_differ_by_nothing_in_every_resample():
    a = [Score(10, 1, 2), Score(5, 5, 0), Score(0, 3, 7)]
    d = bootstrap_difference(a, list(a), ["x", "x", "y"], resamples=200)
    assert d.observed == d.low == d.high == 0.0
    assert d.share_at_least(0.0) == 1.0 and d.share_at_least(0.01) == 0.0


def test_a_method_better_on_every_page_leads_in_every_resample():
    a = [Score(9, 1, 1), Score(19, 1, 0), Score(4, 0, 1), Score(30, 2, 2)]
    b = [Score(7, 3, 3), Score(15, 5, 4), Score(3, 1, 2), Score(25, 6, 7)]
    d = bootstrap_difference(a, b, ["x", "x", "y", "y"], resamples=500, seed=3)
    assert 0 < d.low <= d.observed <= d.high
    assert d.share_at_least(0.0) == 1.0
    assert d.observed == pytest.approx(summarize(a).f1 - summarize(b).f1)


def test_one_long_page_decides_and_is_named():
    # b wins one huge page, a wins many small ones: the pooled lead is b's, and that page
    # is the one whose removal moves the difference most.
    a = [Score(10, 0, 0)] * 20 + [Score(100, 0, 9900)]
    b = [Score(6, 4, 4)] * 20 + [Score(9900, 0, 100)]
    strata = ["small"] * 20 + ["big"]
    d = bootstrap_difference(a, b, strata, resamples=300)
    assert d.observed < 0
    [(index, change), *_] = most_influential(a, b, k=3)
    assert index == 20 and change > 0.5
    ids = [f"small-{i}" for i in range(20)] + ["big"]
    assert influential_pages(a, b, ids, k=1) == f"big {change * 100:+.2f}"


def test_mismatched_inputs_are_refused_with_the_counts():
    with pytest.raises(ValueError, match="2 and 1 scores for 2 documents"):
        bootstrap_difference([Score(1, 0, 0)] * 2, [Score(1, 0, 0)], ["a", "a"])
    with pytest.raises(ValueError, match="1 and 2 scores"):
        most_influential([Score(1, 0, 0)], [Score(1, 0, 0)] * 2)
