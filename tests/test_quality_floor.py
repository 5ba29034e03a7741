"""Quality gate: summed word-LCS F1 of every extractor on fixed benchmark samples.

The samples are the first 15 documents (by id) of the test part of the shared
split of CleanEval and Dragnet, so learned models are gated on pages they
were not trained on.  Floors are the F1 measured when the floor was set
(in the comment) minus a small margin; a drop below one fails CI.  The
floors of retrained models are set again from the retrained model (never the
other way round: a model is not chosen by these pages); the 18:39 retrain of
``auto`` and ``sequence`` lost most on Dragnet page 153, a comment thread the
gold leaves out (benchmarks/results/learned.md).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from corpuscrawl.evaluation.datasets import Dataset, split
from corpuscrawl.evaluation.metrics import score, summarize
from corpuscrawl.extract import get_extractor

pytestmark = [pytest.mark.datasets, pytest.mark.slow]

SAMPLE_SIZE = 15
#: (extractor, dataset) -> floor; measured on 2026-11-22 in the comment.
FLOORS = {
    ("bte", "cleaneval"): 0.90,  # 0.946
    ("bte", "dragnet"): 0.31,  # 0.355
    ("justext", "cleaneval"): 0.91,  # 0.950
    ("justext", "dragnet"): 0.42,  # 0.464
    ("boilerpipe-default", "cleaneval"): 0.91,  # 0.957
    ("boilerpipe-default", "dragnet"): 0.42,  # 0.460
    ("boilerpipe-article", "cleaneval"): 0.67,  # 0.719
    ("boilerpipe-article", "dragnet"): 0.57,  # 0.619
    ("readability", "cleaneval"): 0.92,  # 0.969
    ("readability", "dragnet"): 0.58,  # 0.625
    ("newsfeed", "cleaneval"): 0.57,  # 0.612
    ("newsfeed", "dragnet"): 0.53,  # 0.571
    ("energy", "cleaneval"): 0.92,  # 0.963
    ("energy", "dragnet"): 0.36,  # 0.400
    ("linkblocks", "cleaneval"): 0.91,  # 0.957
    ("linkblocks", "dragnet"): 0.55,  # 0.592
    ("hybrid-a", "cleaneval"): 0.91,  # 0.960 (retrained 2026-11-23 02:49; 0.958 before)
    ("hybrid-a", "dragnet"): 0.58,  # 0.628 (retrained 02:49: unchanged)
    ("sequence", "cleaneval"): 0.92,  # 0.969 (retrained 2026-11-23 00:11; 0.969 before)
    ("sequence", "dragnet"): 0.48,  # 0.528 (retrained 00:11; 0.537 before)
    ("auto", "cleaneval"): 0.92,  # 0.969 (retrained 00:21 and 01:55; 0.913 before)
    ("auto", "dragnet"): 0.57,  # 0.615 (retrained 00:21 and 01:55; 0.667 before, 0.522 earlier: page 153)
}


@cache
def sample(root: str, name: str) -> tuple[list, list[str]]:
    """Pages and gold texts of the fixed sample of one dataset (loaded once per session)."""
    ds = Dataset(Path(root) / name)
    with_gold = [i for i in ds.ids() if ds.gold(i) is not None]
    ids = split(with_gold)[1][:SAMPLE_SIZE]
    return [ds.load_page(i) for i in ids], [ds.gold(i) for i in ids]


@pytest.mark.parametrize("extractor,dataset", sorted(FLOORS), ids=lambda v: str(v))
def test_f1_stays_above_its_floor(datasets_dir, extractor, dataset):
    pages, golds = sample(str(datasets_dir), dataset)
    ex = get_extractor(extractor)
    result = summarize(score(ex.extract(p), g, with_levenshtein=False)
                       for p, g in zip(pages, golds, strict=True))
    assert result.f1 >= FLOORS[extractor, dataset], f"{extractor} on {dataset}: F1 {result.f1:.3f}"
