"""Block sequence labelling à la Web2Text: unary and pairwise potentials, Viterbi decoding.

Source: Web2Text (Vogels, Ganea & Eickhoff, ECIR 2018) §3.
A page becomes a sequence of collapsed-DOM blocks (:mod:`corpuscrawl.extract.segment.cdom`) with block
and edge features (:mod:`.block_features`).  A unary model gives
``p_i(l_i)`` for each block being content (1) or boilerplate (0); a pairwise
model gives ``p_i,i+1(l_i, l_i+1)`` over the four label pairs of neighbours.
The labelling maximises

    Σ_i log p_i(l_i) + λ · Σ_i log p_i,i+1(l_i, l_i+1)

found exactly with the Viterbi algorithm; λ = 0.1 as in the paper.

Deviations, stated: the paper's potentials are two 5-layer CNNs over the
block sequence (dropout 0.2, L2 1e-4).  Here they are scikit-learn
multi-layer perceptrons with the paper's layer widths (50, 50, 50, 10) and
L2 1e-4 on each block's features *plus its neighbours'* (±2 blocks: the
receptive field the convolutions give), on standardised inputs; sklearn's
MLP has no dropout, early stopping on 10 % of the rows regularises instead.
Block labels come from aligning the page's words with the gold words
(:func:`corpuscrawl.learn.alignment.sequence_coverage`, coverage > 0.5).  The same machinery,
with other models and extra vote features, is reused by :mod:`.auto`.

The model is :class:`SequenceModel`, the predictor (parameters and fitted
attributes, no ``fit``: its estimator, which adds ``fit``, is
``corpuscrawl.learn.sequence_trainer.SequenceEstimator``); :class:`SequenceExtractor`
is its registry entry.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from corpuscrawl.extract.learned.block_features import (
    edge_features,
    pair_features,
    unary_features,
    vote_features,
)
from corpuscrawl.extract.learned.columns import NamedMatrix, check_feature_names
from corpuscrawl.extract.learned.models import LearnedExtractor, LearnedModel, check_fitted
from corpuscrawl.extract.learned.title_features import headline_features
from corpuscrawl.extract.meta.title import extract_title
from corpuscrawl.extract.segment.cdom import Block, page_blocks
from corpuscrawl.html.language import detect, stoplist_name
from corpuscrawl.html.page import Page

#: Weight of the pairwise term in the Viterbi objective (Web2Text: λ = 0.1).
LAMBDA_DEFAULT = 0.1
#: Probabilities are clipped here before taking logarithms.
EPSILON = 1e-6
#: Stoplist used when the page language has none (most pages in the datasets are English).
FALLBACK_STOPLIST_DEFAULT = "English"
#: Coverage above which a training block is content (Bakić's thesis' segment rule, for
#: blocks aligned as a sequence: :func:`corpuscrawl.learn.alignment.sequence_coverage`).
BLOCK_THRESHOLD_DEFAULT = 0.5
#: Hidden layers of the potentials (Web2Text: CNN layers of 50, 50, 50, 10 channels).
HIDDEN_DEFAULT = (50, 50, 50, 10)
#: L2 penalty (Web2Text: 1e-4).
ALPHA_DEFAULT = 1e-4
#: Most rows the pairwise model is fitted on (a deterministic sample; keeps training short).
MAX_PAIR_ROWS_DEFAULT = 150_000


_STOPLISTS: dict[str, frozenset[str]] = {}
_STOPLIST_NAMES: dict[str, str] = {}
_CONTROLLER: Any = None


def single_threaded() -> Any:
    """Context limiting OpenMP/BLAS to one thread while a page's blocks are predicted.

    A page has a few hundred rows: worker threads cost more than they save,
    and on a busy machine (a crawl, other jobs) their spinning made prediction
    several times slower in our measurements.
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1)


def page_stopwords(blocks: Sequence[Block]) -> frozenset[str]:
    """The jusText stoplist of the language identified in the page's longest blocks."""
    import justext

    sample = " ".join(b.text for b in sorted(blocks, key=lambda b: -b.words)[:8])
    code, _ = detect(sample)
    name = _STOPLIST_NAMES.get(code)
    if name is None:  # stoplist_name lists jusText's stoplist directory: once per language
        try:
            name = stoplist_name(code) if code else FALLBACK_STOPLIST_DEFAULT
        except ValueError:
            name = FALLBACK_STOPLIST_DEFAULT
        _STOPLIST_NAMES[code] = name
    if name not in _STOPLISTS:
        try:
            _STOPLISTS[name] = frozenset(w.lower() for w in justext.get_stoplist(name))
        except ValueError:
            _STOPLISTS[name] = frozenset()
    return _STOPLISTS[name]


#: The pairwise rows of a decoding that reads none (λ = 0).
NO_PAIRS = NamedMatrix(np.zeros((0, 0), dtype=np.float32), ())


@dataclass
class PageInputs:
    """Everything the potentials read for one page: its blocks and named feature rows."""

    blocks: list[Block]
    unary: NamedMatrix
    pairs: NamedMatrix


def page_inputs(page: Page, outputs: Sequence[str] = (),
                pair_columns: Sequence[str] | None = None, title: bool = False,
                relative_masks: bool = False, pairs: bool = True,
                votes: Sequence[str] = (), page_wide_share: float | None = None) -> PageInputs:
    """Blocks, unary rows (with one vote column per base output of the ``votes``
    extractors, then the headline features when ``title``) and pairwise rows of a page.

    ``pair_columns`` names the unary columns the pairwise rows repeat (None = all);
    ``relative_masks``: tag and class-keyword bits relative to the page
    (:func:`.block_features.page_relative`); without ``pairs`` the pairwise rows are
    left empty (a decoding with λ = 0 does not read them); ``page_wide_share``: the class/id
    keyword bits that share of the blocks carry are cleared
    (:func:`.block_features.clear_page_wide`).
    """
    blocks = page_blocks(page)
    unary = unary_features(blocks, page_stopwords(blocks), relative_masks, page_wide_share)
    if outputs:
        unary = unary.hstack(vote_features(blocks, outputs, votes))
    if title:
        unary = unary.hstack(headline_features(blocks, extract_title(page)))
    if not pairs:
        return PageInputs(blocks, unary, NO_PAIRS)
    return PageInputs(blocks, unary, pair_features(unary, edge_features(blocks), pair_columns))


def viterbi(unary_p: np.ndarray, pair_p: np.ndarray, lam: float = LAMBDA_DEFAULT,
            bias: float = 0.0) -> list[int]:
    """Most probable 0/1 labels given p_i(1) (length n) and pair probabilities (n-1 × 4).

    Pair columns are ordered (0,0), (0,1), (1,0), (1,1).  ``bias`` is added
    to the log-potential of label 1 (a decision threshold; 0 = none).
    """
    n = len(unary_p)
    if n == 0:
        return []
    if lam == 0:
        # No pairwise term: each block's own potentials decide it (ties go to 0, as below).
        p = np.asarray(unary_p, dtype=np.float64)
        keep = np.log(np.maximum(p, EPSILON)) + bias > np.log(np.maximum(1 - p, EPSILON))
        return keep.astype(int).tolist()
    log = math.log
    u = [(log(max(1 - p, EPSILON)), log(max(p, EPSILON)) + bias) for p in unary_p.tolist()]
    pp = [[lam * log(max(x, EPSILON)) for x in row] for row in pair_p.tolist()]
    score0, score1 = u[0]
    back: list[tuple[int, int]] = []
    for i in range(1, n):
        p00, p01, p10, p11 = pp[i - 1]
        from0 = (score0 + p00, score1 + p10)
        from1 = (score0 + p01, score1 + p11)
        b0 = 0 if from0[0] >= from0[1] else 1
        b1 = 0 if from1[0] >= from1[1] else 1
        score0, score1 = from0[b0] + u[i][0], from1[b1] + u[i][1]
        back.append((b0, b1))
    label = 0 if score0 >= score1 else 1
    labels = [label]
    for b0, b1 in reversed(back):
        label = b1 if label == 1 else b0
        labels.append(label)
    labels.reverse()
    return labels


def pair_probabilities(model: Any, pairs: np.ndarray) -> np.ndarray:
    """``n-1 × 4`` pair probabilities in class order 0..3 (absent classes get EPSILON)."""
    out = np.full((len(pairs), 4), EPSILON)
    if len(pairs):
        proba = model.predict_proba(pairs)
        for col, cls in enumerate(model.classes_):
            out[:, int(cls)] = proba[:, col]
    return out


def label_page(unary: Any, pairwise: Any, inputs: PageInputs, lam: float,
               bias: float = 0.0) -> list[int]:
    """Viterbi labels of a page's blocks under fitted unary and pairwise models."""
    if not inputs.blocks:
        return []
    with single_threaded():
        unary_p = unary.predict_proba(inputs.unary.values)[:, 1]
        pair_p = pair_probabilities(pairwise, inputs.pairs.values)
    return viterbi(unary_p, pair_p, lam, bias)


class SequenceModel(LearnedModel):
    """Web2Text-style block sequence labelling: MLP unary and pairwise potentials, Viterbi.

    Parameters: the gold coverage ``threshold`` above which a training block is content,
    the pairwise weight ``lam`` (λ), the MLPs' ``hidden`` layers and L2 ``alpha``, and the
    most rows the pairwise model is fitted on (``max_pair_rows``).  Fitted attributes:
    ``unary_`` and ``pairwise_`` (standardisation + MLP pipelines), ``feature_names_in_``,
    ``pair_feature_names_``, ``label_counts_``, ``fit_info_``.
    """

    name = "sequence"
    description = ("Web2Text-style block sequence labelling (Vogels, Ganea & Eickhoff 2018): "
                   "MLP unary and pairwise potentials over collapsed-DOM blocks, Viterbi "
                   "decoding.")

    def __init__(self, threshold: float = BLOCK_THRESHOLD_DEFAULT, lam: float = LAMBDA_DEFAULT,
                 hidden: Sequence[int] = HIDDEN_DEFAULT, alpha: float = ALPHA_DEFAULT,
                 max_pair_rows: int = MAX_PAIR_ROWS_DEFAULT):
        self.threshold = threshold
        self.lam = lam
        self.hidden = hidden
        self.alpha = alpha
        self.max_pair_rows = max_pair_rows

    def page_inputs(self, page: Page) -> PageInputs:
        """The page's blocks and feature rows, checked against the names fitted on."""
        check_fitted(self)
        inputs = page_inputs(page)
        check_feature_names(self.feature_names_in_, inputs.unary.names, self.name)
        check_feature_names(self.pair_feature_names_, inputs.pairs.names, self.name)
        return inputs

    def labels(self, page: Page) -> tuple[list[Block], list[int]]:
        """The page's blocks and their Viterbi labels (1 = content)."""
        inputs = self.page_inputs(page)
        return inputs.blocks, label_page(self.unary_, self.pairwise_, inputs, self.lam)

    def predict_proba(self, pages: Sequence[Page]) -> list[np.ndarray]:
        """Per page, its blocks' unary probabilities (``n_blocks × 2``: boilerplate, content)."""
        out = []
        for page in pages:
            inputs = self.page_inputs(page)
            if not inputs.blocks:
                out.append(np.zeros((0, 2)))
                continue
            with single_threaded():
                out.append(self.unary_.predict_proba(inputs.unary.values))
        return out

    def extract(self, page: Page) -> str:
        """Text of the blocks labelled content, one per line."""
        blocks, labels = self.labels(page)
        return "\n".join(b.text for b, lab in zip(blocks, labels, strict=True) if lab)


class SequenceExtractor(LearnedExtractor):
    """The ``sequence`` extractor: :class:`SequenceModel` loaded from
    ``models/sequence.skops``; ``lam`` overrides the pairwise weight λ it was trained with."""

    name = "sequence"
    model_class = SequenceModel
    estimator: SequenceModel

    def __init__(self, model: str | None = None, models_dir: str | Path | None = None,
                 estimator: SequenceModel | None = None, lam: float | None = None):
        super().__init__(model, models_dir, estimator)
        if lam is not None:
            self.estimator = clone_fitted(self.estimator, lam=float(lam))


def clone_fitted(model: LearnedModel, **params: Any) -> Any:
    """A shallow copy of a fitted ``model`` (fitted attributes shared) with ``params`` set."""
    import copy

    return copy.copy(model).set_params(**params)


__all__ = [
    "ALPHA_DEFAULT",
    "BLOCK_THRESHOLD_DEFAULT",
    "HIDDEN_DEFAULT",
    "LAMBDA_DEFAULT",
    "MAX_PAIR_ROWS_DEFAULT",
    "NO_PAIRS",
    "PageInputs",
    "SequenceExtractor",
    "SequenceModel",
    "clone_fitted",
    "label_page",
    "page_inputs",
    "page_stopwords",
    "pair_probabilities",
    "viterbi",
]
