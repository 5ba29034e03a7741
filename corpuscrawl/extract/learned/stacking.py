"""Second-stage ("auto-context") block features for :mod:`.auto`: what the first-stage
classifier believes about a block's surroundings.

Why: the first-stage block classifier sees a block's own features, a fixed
±2 neighbour window and subtree aggregates of raw text statistics, but not
*what was predicted* around the block.  Whether a short line, a caption or a
paragraph that looks like a reader comment is content depends mostly on
whether the blocks beside it and the region holding it are content.  The
second stage gets the first stage's probabilities of the ±3 neighbouring
blocks, the word-weighted mean and the maximum probability in each of the
five ancestor subtrees above the block (with the subtree's share of the
page's predicted content), the page's predicted-content share and best
probability, the predicted content before and after the block, and the
distance in blocks to the nearest confident block.  This is stacked
generalisation (Wolpert 1992), as in auto-context models for labelling.

The second stage must be trained on probabilities the first stage gives on
pages it was *not* trained on (out of fold), or it would learn to trust the
over-confident in-sample ones; :func:`out_of_fold` gives them, with folds by
a hash of the document key so they never change between runs or orders.
What the second stage gains on the training split's inner validation parts is measured
in ``benchmarks/results/learned.md``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from corpuscrawl.extract.learned.block_features import named_columns
from corpuscrawl.extract.segment.cdom import Block

#: Offsets of the neighbouring blocks whose first-stage probability is a feature.
CONTEXT_OFFSETS_DEFAULT = (-3, -2, -1, 1, 2, 3)
#: Ancestor levels above the container (1 = parent) whose subtree probabilities are features.
CONTEXT_LEVELS_DEFAULT = (1, 2, 3, 4, 5)
#: A block at least this probable is "confident" for the distance feature ...
CONFIDENT_DEFAULT = 0.5
#: ... and the distance is capped here (in blocks).
MAX_DISTANCE_DEFAULT = 20

CONTEXT_FEATURE_NAMES = (
    "p1",
    *(f"p1{o:+d}" for o in CONTEXT_OFFSETS_DEFAULT),
    *(f"up{k}_{f}" for k in CONTEXT_LEVELS_DEFAULT
      for f in ("mean_p1", "max_p1", "share_of_content")),
    "page_mean_p1", "page_max_p1", "content_before", "content_after", "blocks_to_confident",
)


def context_matrix(blocks: Sequence[Block], p: np.ndarray) -> np.ndarray:
    """The ``len(blocks) × len(CONTEXT_FEATURE_NAMES)`` context features from first-stage
    probabilities ``p`` (one per block); missing neighbours past the ends are -1."""
    n = len(blocks)
    if n == 0:
        return np.zeros((0, len(CONTEXT_FEATURE_NAMES)))
    p = np.asarray(p, dtype=np.float64)
    w = np.asarray([b.words for b in blocks], dtype=np.float64)
    pw = w * p
    predicted = float(pw.sum()) or 1.0
    cols = {"p1": p}
    for off in CONTEXT_OFFSETS_DEFAULT:
        q = np.full(n, -1.0)
        if off < 0:
            q[-off:] = p[:off]
        else:
            q[:-off] = p[off:]
        cols[f"p1{off:+d}"] = q
    for level in CONTEXT_LEVELS_DEFAULT:
        nodes = [b.path[min(level, len(b.path) - 1)] for b in blocks]
        words: dict[int, float] = defaultdict(float)
        content: dict[int, float] = defaultdict(float)
        best: dict[int, float] = defaultdict(float)
        for node, wi, pi, pwi in zip(nodes, w.tolist(), p.tolist(), pw.tolist(), strict=True):
            words[node] += wi
            content[node] += pwi
            best[node] = max(best[node], pi)
        cols[f"up{level}_mean_p1"] = np.asarray([content[x] / words[x] if words[x] else 0.0
                                                 for x in nodes])
        cols[f"up{level}_max_p1"] = np.asarray([best[x] for x in nodes])
        cols[f"up{level}_share_of_content"] = np.asarray([content[x] / predicted for x in nodes])
    cols["page_mean_p1"] = np.full(n, float(pw.sum() / (w.sum() or 1.0)))
    cols["page_max_p1"] = np.full(n, float(p.max()))
    cum = np.cumsum(pw)
    cols["content_before"] = (cum - pw) / predicted
    cols["content_after"] = (float(pw.sum()) - cum) / predicted
    cols["blocks_to_confident"] = _distance_to_confident(p)
    return np.vstack(named_columns(cols, CONTEXT_FEATURE_NAMES)).T


def _distance_to_confident(p: np.ndarray) -> np.ndarray:
    """Blocks to the nearest block with ``p > CONFIDENT_DEFAULT`` (0 for itself), capped."""
    n = len(p)
    conf = np.flatnonzero(p > CONFIDENT_DEFAULT)
    if not len(conf):
        return np.full(n, float(MAX_DISTANCE_DEFAULT))
    idx = np.arange(n)
    pos = np.searchsorted(conf, idx)
    left = np.where(pos > 0, idx - conf[np.maximum(pos - 1, 0)], MAX_DISTANCE_DEFAULT)
    right = np.where(pos < len(conf), conf[np.minimum(pos, len(conf) - 1)] - idx,
                     MAX_DISTANCE_DEFAULT)
    return np.minimum(np.minimum(left, right), MAX_DISTANCE_DEFAULT).astype(np.float64)


def stage2_rows(unary: np.ndarray, blocks: Sequence[Block], p: np.ndarray) -> np.ndarray:
    """Second-stage input of a page: its unary rows followed by the context features."""
    return np.hstack([np.asarray(unary, dtype=np.float64), context_matrix(blocks, p)])


__all__ = [
    "CONTEXT_FEATURE_NAMES",
    "context_matrix",
    "stage2_rows",
]
