"""Block sequence labelling à la Web2Text: unary and pairwise potentials, Viterbi decoding.

Source: seed 001 (Web2Text, Vogels, Ganea & Eickhoff 2018) §3; SPEC §4.
A page becomes a sequence of collapsed-DOM blocks (:mod:`.cdom`) with block
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
(:func:`.alignment.sequence_coverage`, coverage > 0.5).  The same machinery,
with other models and extra vote features, is reused by :mod:`.auto`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from corpuscrawl.extract.alignment import BLOCK_THRESHOLD_DEFAULT, sequence_coverage
from corpuscrawl.extract.block_features import edge_matrix, pair_matrix, unary_matrix, vote_matrix
from corpuscrawl.extract.cdom import Block, page_blocks
from corpuscrawl.extract.title import extract_title
from corpuscrawl.extract.title_features import title_matrix
from corpuscrawl.extract.trainset import BaseOutputs, Doc
from corpuscrawl.language import detect, stoplist_name
from corpuscrawl.models import load_model
from corpuscrawl.page import Page

#: Weight of the pairwise term in the Viterbi objective (seed 001: λ = 0.1).
LAMBDA_DEFAULT = 0.1
#: Hidden layers of the potentials (seed 001: CNN layers of 50, 50, 50, 10 channels).
HIDDEN_DEFAULT = (50, 50, 50, 10)
#: L2 penalty (seed 001: 1e-4).
ALPHA_DEFAULT = 1e-4
#: Most rows used to fit the pairwise model (a deterministic sample; keeps training short).
MAX_PAIR_ROWS_DEFAULT = 150_000
#: Probabilities are clipped here before taking logarithms.
EPSILON = 1e-6
#: Stoplist used when the page language has none (most pages in the datasets are English).
FALLBACK_STOPLIST_DEFAULT = "English"

Progress = Callable[[Iterable[Doc]], Iterable[Doc]]


def _identity(docs: Iterable[Doc]) -> Iterable[Doc]:
    return docs


_STOPLISTS: dict[str, frozenset[str]] = {}
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
    try:
        name = stoplist_name(code) if code else FALLBACK_STOPLIST_DEFAULT
    except ValueError:
        name = FALLBACK_STOPLIST_DEFAULT
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
                title: bool = False) -> PageInputs:
    """Blocks, unary rows (with one vote column per base output, then the headline
    features when ``title``) and pairwise rows of a page.

    ``pair_columns`` limits the unary columns the pairwise rows repeat (None = all).
    """
    blocks = page_blocks(page)
    unary = unary_matrix(blocks, page_stopwords(blocks))
    if outputs:
        unary = np.hstack([unary, vote_matrix(blocks, outputs)])
    if title:
        unary = np.hstack([unary, title_matrix(blocks, extract_title(page))])
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


def block_labels(doc: Doc, blocks: Sequence[Block], threshold: float) -> np.ndarray:
    """0/1 content labels of a training page's blocks from its gold text."""
    cov = sequence_coverage([b.text.split() for b in blocks], doc.gold_words)
    return (np.asarray(cov) > threshold).astype(np.int8)


def collect(docs: Sequence[Doc], votes: BaseOutputs | None, threshold: float,
            progress: Progress = _identity, pair_columns: int | None = None,
            blocks_out: list[list[Block]] | None = None, title: bool = False
            ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Per page (in ``docs`` order, empty arrays for a page without blocks): unary rows,
    labels, pair rows and the block word counts; the blocks go to ``blocks_out`` if given;
    ``title`` adds the headline features (:func:`page_inputs`)."""
    xs, ys, ps, ws = [], [], [], []
    for doc in progress(docs):
        outputs = votes.all(doc) if votes is not None else ()
        inputs = page_inputs(doc.page, outputs, pair_columns, title)
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
                 progress: Progress = _identity) -> dict[str, Any]:
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
    "ALPHA_DEFAULT",
    "HIDDEN_DEFAULT",
    "LAMBDA_DEFAULT",
    "PageInputs",
    "SequenceExtractor",
    "block_labels",
    "collect",
    "fit_sequence",
    "label_page",
    "page_inputs",
    "page_stopwords",
    "pair_probabilities",
    "pair_targets",
    "viterbi",
]
