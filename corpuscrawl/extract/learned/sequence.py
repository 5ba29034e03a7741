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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from corpuscrawl.extract.learned.block_features import (
    edge_matrix,
    pair_matrix,
    unary_matrix,
    vote_matrix,
)
from corpuscrawl.extract.learned.models import load_model
from corpuscrawl.extract.learned.title_features import title_matrix
from corpuscrawl.extract.meta.title import extract_title
from corpuscrawl.extract.segment.cdom import Block, page_blocks
from corpuscrawl.html.page import Page
from corpuscrawl.language import detect, stoplist_name

#: Weight of the pairwise term in the Viterbi objective (Web2Text: λ = 0.1).
LAMBDA_DEFAULT = 0.1
#: Probabilities are clipped here before taking logarithms.
EPSILON = 1e-6
#: Stoplist used when the page language has none (most pages in the datasets are English).
FALLBACK_STOPLIST_DEFAULT = "English"


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


@dataclass
class PageInputs:
    """Everything the potentials read for one page."""

    blocks: list[Block]
    unary: np.ndarray
    pairs: np.ndarray


def page_inputs(page: Page, outputs: Sequence[str] = (), pair_columns: int | None = None,
                title: bool = False, relative_masks: bool = False,
                pairs: bool = True) -> PageInputs:
    """Blocks, unary rows (with one vote column per base output, then the headline
    features when ``title``) and pairwise rows of a page.

    ``pair_columns`` limits the unary columns the pairwise rows repeat (None = all);
    ``relative_masks``: tag and class-keyword bits relative to the page
    (:func:`.block_features.page_relative`); without ``pairs`` the pairwise rows are
    left empty (a decoding with λ = 0 does not read them).
    """
    blocks = page_blocks(page)
    unary = unary_matrix(blocks, page_stopwords(blocks), relative_masks)
    if outputs:
        unary = np.hstack([unary, vote_matrix(blocks, outputs)])
    if title:
        unary = np.hstack([unary, title_matrix(blocks, extract_title(page))])
    if not pairs:
        return PageInputs(blocks, unary, np.zeros((0, 0), dtype=np.float32))
    return PageInputs(blocks, unary, pair_matrix(unary, edge_matrix(blocks), pair_columns))


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


def label_page(state: dict[str, Any], inputs: PageInputs) -> list[int]:
    """Viterbi labels of a page's blocks under a trained state."""
    if not inputs.blocks:
        return []
    with single_threaded():
        unary_p = state["unary"].predict_proba(inputs.unary)[:, 1]
        pair_p = pair_probabilities(state["pairwise"], inputs.pairs)
    return viterbi(unary_p, pair_p, state["lambda"], state.get("bias", 0.0))


class SequenceExtractor:
    """Web2Text-style block sequence labelling (unary + pairwise potentials, Viterbi)."""

    name = "sequence"
    kind = "sequence"

    def __init__(self, model: str | None = None, models_dir: str | Path | None = None,
                 state: dict[str, Any] | None = None, lam: float | None = None):
        self.state = state if state is not None else load_model(model or self.kind, self.kind,
                                                                 models_dir)
        if lam is not None:
            self.state = {**self.state, "lambda": float(lam)}

    def extract(self, page: Page) -> str:
        """Text of the blocks labelled content, one per line."""
        inputs = page_inputs(page, pair_columns=self.state.get("pair_columns"))
        labels = label_page(self.state, inputs)
        return "\n".join(b.text for b, lab in zip(inputs.blocks, labels, strict=True) if lab)


__all__ = [
    "LAMBDA_DEFAULT",
    "PageInputs",
    "SequenceExtractor",
    "label_page",
    "page_inputs",
    "page_stopwords",
    "pair_probabilities",
    "viterbi",
]
