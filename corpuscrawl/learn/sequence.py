"""Training ``sequence`` (:mod:`corpuscrawl.extract.learned.sequence`): block labels from
the gold text, the unary and pairwise MLP potentials fitted on them.

Labels: a block is content when more than half of its words are matched by a
monotone alignment of the page's words with the gold words
(:func:`corpuscrawl.learn.alignment.sequence_coverage`).  Potentials: the
unary model predicts a block's label, the pairwise model the labels of two
neighbouring blocks (4 classes), as in Web2Text (Vogels, Ganea & Eickhoff
2018), with scikit-learn MLPs standing in for the paper's CNNs.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from corpuscrawl.extract.learned.sequence import LAMBDA_DEFAULT, page_inputs
from corpuscrawl.extract.segment.cdom import Block
from corpuscrawl.learn.alignment import BLOCK_THRESHOLD_DEFAULT, sequence_coverage
from corpuscrawl.learn.trainset import BaseOutputs, Doc, Progress, no_progress

#: Hidden layers of the potentials (Web2Text: CNN layers of 50, 50, 50, 10 channels).
HIDDEN_DEFAULT = (50, 50, 50, 10)
#: L2 penalty (Web2Text: 1e-4).
ALPHA_DEFAULT = 1e-4
#: Most rows used to fit the pairwise model (a deterministic sample; keeps training short).
MAX_PAIR_ROWS_DEFAULT = 150_000


def block_labels(doc: Doc, blocks: Sequence[Block], threshold: float) -> np.ndarray:
    """0/1 content labels of a training page's blocks from its gold text."""
    cov = sequence_coverage([b.text.split() for b in blocks], doc.gold_words)
    return (np.asarray(cov) > threshold).astype(np.int8)


def collect(docs: Sequence[Doc], votes: BaseOutputs | None, threshold: float,
            progress: Progress = no_progress, pair_columns: int | None = None,
            blocks_out: list[list[Block]] | None = None, title: bool = False,
            relative_masks: bool = False
            ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Per page (in ``docs`` order, empty arrays for a page without blocks): unary rows,
    labels, pair rows and the block word counts; the blocks go to ``blocks_out`` if given;
    ``title`` and ``relative_masks`` as in :func:`page_inputs`."""
    xs, ys, ps, ws = [], [], [], []
    for doc in progress(docs):
        outputs = votes.all(doc) if votes is not None else ()
        inputs = page_inputs(doc.page, outputs, pair_columns, title, relative_masks)
        if blocks_out is not None:
            blocks_out.append(inputs.blocks)
        xs.append(inputs.unary)
        ys.append(block_labels(doc, inputs.blocks, threshold) if inputs.blocks
                  else np.zeros(0, dtype=np.int8))
        ps.append(inputs.pairs)
        ws.append(np.asarray([b.words for b in inputs.blocks], dtype=np.float32))
        doc.release()
    return xs, ys, ps, ws


def pair_targets(labels: np.ndarray) -> np.ndarray:
    """Pair class of each neighbour pair: 2·l_i + l_i+1."""
    return (2 * labels[:-1] + labels[1:]).astype(np.int8)


def sample_rows(n: int, limit: int, seed: int = 7) -> np.ndarray:
    """Sorted indices of a deterministic sample of at most ``limit`` of ``n`` rows."""
    if n <= limit:
        return np.arange(n)
    return np.asarray(sorted(random.Random(seed).sample(range(n), limit)))


def mlp(hidden: Sequence[int] = HIDDEN_DEFAULT, alpha: float = ALPHA_DEFAULT) -> Any:
    """The potential model of ``sequence``: standardisation + MLP (see module docstring)."""
    return make_pipeline(StandardScaler(), MLPClassifier(
        hidden_layer_sizes=tuple(hidden), alpha=alpha, early_stopping=True, max_iter=60,
        random_state=0))


def fit_sequence(docs: Sequence[Doc], threshold: float = BLOCK_THRESHOLD_DEFAULT,
                 lam: float = LAMBDA_DEFAULT, hidden: Sequence[int] = HIDDEN_DEFAULT,
                 alpha: float = ALPHA_DEFAULT, max_pair_rows: int = MAX_PAIR_ROWS_DEFAULT,
                 progress: Progress = no_progress) -> dict[str, Any]:
    """Train the Web2Text-style unary and pairwise MLPs on ``docs``."""
    xs, ys, ps, _ = collect(docs, None, threshold, progress)
    x, y = np.vstack(xs), np.concatenate(ys)
    unary = mlp(hidden, alpha).fit(x, y)
    p = np.vstack([pp for pp in ps if len(pp)])
    py = np.concatenate([pair_targets(yy) for yy in ys if len(yy) > 1])
    keep = sample_rows(len(py), max_pair_rows)
    pairwise = mlp(hidden, alpha).fit(p[keep], py[keep])
    return {"kind": "sequence", "unary": unary, "pairwise": pairwise, "votes": [],
            "lambda": lam, "bias": 0.0,
            "params": {"threshold": threshold, "lambda": lam, "hidden": list(hidden),
                       "alpha": alpha, "max_pair_rows": max_pair_rows},
            "label_counts": {"content": int(y.sum()), "boilerplate": int(len(y) - y.sum())}}


__all__ = [
    "ALPHA_DEFAULT",
    "HIDDEN_DEFAULT",
    "MAX_PAIR_ROWS_DEFAULT",
    "block_labels",
    "collect",
    "fit_sequence",
    "mlp",
    "pair_targets",
    "sample_rows",
]
