"""Training ``sequence`` (:class:`SequenceEstimator`, the predictor
:class:`corpuscrawl.extract.learned.sequence.SequenceModel` with ``fit``): block
labels from the gold text, the unary and pairwise MLP potentials fitted on them.

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
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from corpuscrawl.extract.learned.sequence import (
    ALPHA_DEFAULT,
    HIDDEN_DEFAULT,
    SequenceModel,
    page_inputs,
)
from corpuscrawl.extract.segment.cdom import Block
from corpuscrawl.learn.alignment import sequence_coverage
from corpuscrawl.learn.estimator import Estimator
from corpuscrawl.learn.trainset import BaseOutputs, Doc, Progress, no_progress


@dataclass
class PageRows:
    """The training rows of pages, one array per page (in ``docs`` order; empty arrays for
    a page without blocks): unary rows, labels, pair rows and block word counts, with the
    column names of the unary and pair rows (the same on every page)."""

    xs: list[np.ndarray] = field(default_factory=list)
    ys: list[np.ndarray] = field(default_factory=list)
    ps: list[np.ndarray] = field(default_factory=list)
    ws: list[np.ndarray] = field(default_factory=list)
    unary_names: tuple[str, ...] = ()
    pair_names: tuple[str, ...] = ()

    def names_from(self, unary: tuple[str, ...], pairs: tuple[str, ...]) -> None:
        """Record the pages' column names; a page with other names is a bug."""
        if not self.unary_names:
            self.unary_names, self.pair_names = unary, pairs
        elif (unary, pairs) != (self.unary_names, self.pair_names):
            raise ValueError("training pages have different feature columns")


def block_labels(doc: Doc, blocks: Sequence[Block], threshold: float) -> np.ndarray:
    """0/1 content labels of a training page's blocks from its gold text."""
    cov = sequence_coverage([b.text.split() for b in blocks], doc.gold_words)
    return (np.asarray(cov) > threshold).astype(np.int8)


def collect(docs: Sequence[Doc], votes: BaseOutputs | None, threshold: float,
            progress: Progress = no_progress, pair_columns: Sequence[str] | None = None,
            blocks_out: list[list[Block]] | None = None, title: bool = False,
            relative_masks: bool = False) -> PageRows:
    """The training rows of ``docs`` (:class:`PageRows`); the blocks go to ``blocks_out``
    if given; ``pair_columns``, ``title`` and ``relative_masks`` as in :func:`page_inputs`."""
    rows = PageRows()
    voters = tuple(votes.names) if votes is not None else ()
    for doc in progress(docs):
        outputs = votes.all(doc) if votes is not None else ()
        inputs = page_inputs(doc.page, outputs, pair_columns, title, relative_masks,
                             votes=voters)
        if blocks_out is not None:
            blocks_out.append(inputs.blocks)
        rows.names_from(inputs.unary.names, inputs.pairs.names)
        rows.xs.append(inputs.unary.values)
        rows.ys.append(block_labels(doc, inputs.blocks, threshold) if inputs.blocks
                       else np.zeros(0, dtype=np.int8))
        rows.ps.append(inputs.pairs.values)
        rows.ws.append(np.asarray([b.words for b in inputs.blocks], dtype=np.float32))
        doc.release()
    return rows


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


def fit_sequence(model: SequenceModel, docs: Sequence[Doc],
                 progress: Progress | None = None) -> SequenceModel:
    """Train ``model``'s Web2Text-style unary and pairwise MLPs on ``docs``; returns it."""
    rows = collect(docs, None, model.threshold, progress or no_progress)
    x, y = np.vstack(rows.xs), np.concatenate(rows.ys)
    model.unary_ = mlp(model.hidden, model.alpha).fit(x, y)
    p = np.vstack([pp for pp in rows.ps if len(pp)])
    py = np.concatenate([pair_targets(yy) for yy in rows.ys if len(yy) > 1])
    keep = sample_rows(len(py), model.max_pair_rows)
    model.pairwise_ = mlp(model.hidden, model.alpha).fit(p[keep], py[keep])
    model.feature_names_in_ = rows.unary_names
    model.pair_feature_names_ = rows.pair_names
    model.label_counts_ = {"content": int(y.sum()), "boilerplate": int(len(y) - y.sum())}
    model.fit_info_ = {}
    return model


class SequenceEstimator(Estimator, SequenceModel):
    """``sequence`` with ``fit``: the parameters and fitted attributes of
    :class:`SequenceModel`; :meth:`predictor` gives the :class:`SequenceModel` a model
    file holds."""

    def fit(self, docs: Sequence[Doc], y: None = None,
            progress: Progress | None = None) -> SequenceEstimator:
        """Learn from gold documents (``y`` is unused) with :func:`fit_sequence`; returns
        ``self``."""
        fit_sequence(self, docs, progress)
        return self


__all__ = [
    "PageRows",
    "SequenceEstimator",
    "block_labels",
    "collect",
    "fit_sequence",
    "mlp",
    "pair_targets",
    "sample_rows",
]
