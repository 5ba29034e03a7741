"""How much a difference in summed F1 owes to the sample of documents.

Summed (micro) F1 weighs a document by its words, so on a test split of a few
hundred pages one long page can decide which of two methods "wins" (a blog
post whose 13 000 words of reader comments one gold text keeps and another
drops).  Before a difference is read as a property of the methods it should
survive resampling the documents:

* :func:`bootstrap_difference`: the stratified bootstrap (documents drawn with
  replacement within each dataset, so every resample keeps the datasets'
  sizes) of ``F1(a) - F1(b)``, with its percentile interval;
* :func:`most_influential`: the documents whose removal moves the difference
  most (leave-one-out), to name the pages a result rests on.

Inputs are per-document ``(tp, fp, fn)`` counts (:class:`~.metrics.Score`)
of both methods on the same documents in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from corpuscrawl.evaluation.metrics import Score

#: Bootstrap resamples (the percentile interval's ends move by < 0.001 F1 beyond this).
RESAMPLES_DEFAULT = 2000
#: Coverage of the reported interval.
CONFIDENCE_DEFAULT = 0.95


@dataclass(frozen=True)
class DifferenceInterval:
    """Observed ``F1(a) - F1(b)`` and its bootstrap distribution."""

    observed: float
    low: float
    high: float
    samples: np.ndarray

    def share_at_least(self, margin: float) -> float:
        """Share of the resamples in which ``a`` leads ``b`` by at least ``margin``."""
        return float(np.mean(self.samples >= margin - 1e-12))


def _counts(scores: Sequence[Score]) -> np.ndarray:
    return np.array([(s.tp, s.fp, s.fn) for s in scores], dtype=np.int64).reshape(-1, 3)


def summed_f1(counts: np.ndarray) -> np.ndarray | float:
    """Summed F1 of ``(..., 3)`` summed counts (1 when nothing was extracted or expected)."""
    tp, fp, fn = counts[..., 0], counts[..., 1], counts[..., 2]
    den = 2 * tp + fp + fn
    return np.where(den > 0, 2 * tp / np.maximum(den, 1), 1.0)


def bootstrap_difference(a: Sequence[Score], b: Sequence[Score], strata: Sequence[str],
                         resamples: int = RESAMPLES_DEFAULT,
                         confidence: float = CONFIDENCE_DEFAULT,
                         seed: int = 0) -> DifferenceInterval:
    """Stratified bootstrap of the pooled summed-F1 difference ``a - b`` (see module doc)."""
    ca, cb = _counts(a), _counts(b)
    if not (len(ca) == len(cb) == len(strata)):
        raise ValueError(f"{len(ca)} and {len(cb)} scores for {len(strata)} documents")
    observed = float(summed_f1(ca.sum(0)) - summed_f1(cb.sum(0)))
    rng = np.random.default_rng(seed)
    sums_a = np.zeros((resamples, 3), dtype=np.int64)
    sums_b = np.zeros((resamples, 3), dtype=np.int64)
    labels = np.asarray(strata)
    for stratum in dict.fromkeys(strata):
        members = np.flatnonzero(labels == stratum)
        picks = members[rng.integers(0, len(members), size=(resamples, len(members)))]
        sums_a += ca[picks].sum(axis=1)
        sums_b += cb[picks].sum(axis=1)
    samples = np.asarray(summed_f1(sums_a) - summed_f1(sums_b), dtype=np.float64)
    tail = (1 - confidence) / 2
    low, high = np.quantile(samples, [tail, 1 - tail])
    return DifferenceInterval(observed, float(low), float(high), samples)


def most_influential(a: Sequence[Score], b: Sequence[Score], k: int = 5
                     ) -> list[tuple[int, float]]:
    """Up to ``k`` (document index, change of ``F1(a) - F1(b)`` when it is left out),
    largest absolute change first."""
    ca, cb = _counts(a), _counts(b)
    if len(ca) != len(cb):
        raise ValueError(f"{len(ca)} and {len(cb)} scores")
    observed = summed_f1(ca.sum(0)) - summed_f1(cb.sum(0))
    without = summed_f1(ca.sum(0) - ca) - summed_f1(cb.sum(0) - cb)
    change = np.asarray(without - observed, dtype=np.float64)
    order = np.argsort(-np.abs(change), kind="stable")[:k]
    return [(int(i), float(change[i])) for i in order]


def influential_pages(a: Sequence[Score], b: Sequence[Score], ids: Sequence[str],
                      k: int = 3) -> str:
    """:func:`most_influential` as text: "id ±change-in-points, …"."""
    return ", ".join(f"{ids[i]} {c * 100:+.2f}" for i, c in most_influential(a, b, k))


__all__ = ["DifferenceInterval", "bootstrap_difference", "influential_pages", "most_influential",
           "summed_f1"]
