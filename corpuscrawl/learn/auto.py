"""Training ``auto`` (:mod:`corpuscrawl.extract.learned.auto`).

Features are computed once per page; the decoding parameters (pairwise weight
λ and decision bias) are chosen on out-of-fold decoding of every training
page (the whole fit repeated without each fold, :mod:`corpuscrawl.learn.folds`);
then the first stage (histogram gradient boosting over block features), an
optional second stage (stacked generalisation over the first stage's
out-of-fold probabilities of the block's surroundings) and the pairwise
logistic regression are fitted on all pages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from corpuscrawl.evaluation.metrics import score, summarize
from corpuscrawl.extract.learned.auto import (
    PageInputs,
    decoded_labels,
    page_probabilities,
)
from corpuscrawl.extract.learned.block_features import TEXT_FEATURES
from corpuscrawl.extract.learned.stacking import stage2_rows
from corpuscrawl.extract.segment.cdom import Block
from corpuscrawl.extract.segment.sections import (
    COMMENT_HEADING_MAX_PROBABILITY_DEFAULT,
    COMMENT_HEADING_MAX_WORDS_DEFAULT,
    COMMENT_MIN_BEFORE_DEFAULT,
    COMMENT_MIN_BEFORE_WORDS_DEFAULT,
    THREAD_MAX_GAP_WORDS_DEFAULT,
    THREAD_MAX_HEADINGS_DEFAULT,
    THREAD_MIN_SIGNATURES_DEFAULT,
)
from corpuscrawl.learn.alignment import BLOCK_THRESHOLD_DEFAULT
from corpuscrawl.learn.folds import FOLDS_DEFAULT, cross_fit, out_of_fold
from corpuscrawl.learn.page_check import fit_page_check
from corpuscrawl.learn.sequence import collect, pair_targets, sample_rows
from corpuscrawl.learn.trainset import BaseOutputs, Doc, Progress, no_progress

#: Base extractors whose votes are features (none by default: they did not help, ``benchmarks/results/learned.md``).
VOTES_DEFAULT: tuple[str, ...] = ()
#: Gradient boosting: iterations, leaves per tree, learning rate (sklearn's defaults are
#: 100 / 31 / 0.1).  Chosen by a 4-fold cross-validation inside the train split (folds 1-4
#: of ``datasets.fold_of``; each fold's pages decoded by models fitted on the other three,
#: λ and bias chosen on those three's out-of-fold decoding), summed F1 over its 1 785 pages:
#: 200 / 31: 0.9326 (0.9342 with the second stage); 400 / 31: 0.9351 (0.9360 with the
#: second stage); 200 / 63: 0.9352; 800 / 31 at rate 0.05: 0.9359; 400 / 63: 0.9360.
MAX_ITER_DEFAULT = 400
MAX_LEAF_NODES_DEFAULT = 63
LEARNING_RATE_DEFAULT = 0.1
#: Second-stage ("auto-context") classifier over the first stage's out-of-fold probabilities
#: of the block's surroundings (:mod:`corpuscrawl.extract.learned.stacking`): inner validation 0.9410 → 0.9440 when the
#: first stage had 200 trees of 31 leaves; off since a first stage of 400 trees of 63 leaves
#: alone scores as well (0.9360, see above) at a quarter of the training fits (the second
#: stage needs three out-of-fold first stages in every decoding fold) and no second model to
#: apply per page.
STACKING_DEFAULT = False
#: Iterations of the second stage (inner validation 0.9440 with 100, 0.9442 with 200, 0.9431
#: with 100 in both stages): 100 halves its prediction time.
STAGE2_MAX_ITER_DEFAULT = 100
#: Headline features (:mod:`corpuscrawl.extract.learned.title_features`) join the block rows.
TITLE_FEATURES_DEFAULT = True
#: Ancestor-tag and class-keyword bits relative to the page
#: (:func:`~corpuscrawl.extract.learned.block_features.page_relative`).  Off: the whole fit
#: with them scored 0.9359 out of fold against the raw bits' 0.9379 (test split 0.9323 vs
#: 0.9375 pooled, 17 vs 14 lost articles; ``benchmarks/results/learned.md``).
RELATIVE_MASKS_DEFAULT = False
#: Learn the page-level check (:mod:`corpuscrawl.learn.page_check`) when training.
PAGE_CHECK_DEFAULT = True
#: Unary columns repeated in the pairwise rows: the block's own text features.
PAIR_COLUMNS_DEFAULT = len(TEXT_FEATURES)
#: Most rows used to fit the pairwise model.
MAX_PAIR_ROWS_DEFAULT = 200_000
#: Candidate pairwise weights and decision biases searched on the out-of-fold decoding.
LAMBDA_GRID_DEFAULT = (0.0, 0.1, 0.3, 0.6, 1.0)
BIAS_GRID_DEFAULT = (-0.4, -0.2, 0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
#: λ and the bias are chosen on out-of-fold predictions of *every* training page: the
#: whole fit is repeated on all but one of this many folds (by a hash of the page key) and
#: the held-out fold decoded; a single inner validation part (25 % of the pages) gave a
#: choice that flipped between training draws (λ 0.1 / 0.3, bias −0.2 / −0.4).
DECODING_FOLDS_DEFAULT = 3
#: Seed of the decoding folds (:func:`~corpuscrawl.evaluation.datasets.fold_of`): not the
#: stacking folds' seed, or a stacking fold would be empty inside every decoding fold.
DECODING_FOLD_SEED = "corpuscrawl-auto-decoding"


def unary_model(max_iter: int, max_leaf_nodes: int, learning_rate: float) -> Any:
    """The block classifier: histogram gradient boosting (deterministic)."""
    return HistGradientBoostingClassifier(max_iter=max_iter, max_leaf_nodes=max_leaf_nodes,
                                          learning_rate=learning_rate, early_stopping=False,
                                          random_state=0)


def pair_model() -> Any:
    """The pairwise potential: multinomial logistic regression on standardised features."""
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))


def _fit(keys: Sequence[str], xs: Sequence[np.ndarray], ys: Sequence[np.ndarray],
         ps: Sequence[np.ndarray], blocks: Sequence[Sequence[Block]], stacking: bool,
         max_iter: int, max_leaf_nodes: int, learning_rate: float,
         max_pair_rows: int, stage2_max_iter: int = STAGE2_MAX_ITER_DEFAULT) -> dict[str, Any]:
    """First-stage, (optional) second-stage and pairwise models fitted on the given pages."""
    def fit_unary(x: np.ndarray, y: np.ndarray) -> Any:
        return unary_model(max_iter, max_leaf_nodes, learning_rate).fit(x, y)

    def fit_fold(x: np.ndarray, y: np.ndarray) -> Any:
        if len(np.unique(y)) < 2:  # a fold of a tiny data set with one class only
            return _Constant(float(y.mean()) if len(y) else 0.0)
        return fit_unary(x, y)

    # The saved models are scikit-learn's only (skops loads them as trusted types);
    # _Constant lives only inside out_of_fold.
    models: dict[str, Any] = {"unary": fit_unary(np.vstack(xs), np.concatenate(ys)),
                              "stage2": None}
    if stacking:
        oof = out_of_fold(keys, xs, ys, fit_fold)
        rows = [stage2_rows(x, b, p) for x, b, p in zip(xs, blocks, oof, strict=True)
                if len(p)]
        labels = [y for y, p in zip(ys, oof, strict=True) if len(p)]
        y2 = np.concatenate(labels) if labels else np.zeros(0)
        if len(np.unique(y2)) > 1:  # else (a tiny data set) the model stays one-stage
            models["stage2"] = unary_model(stage2_max_iter, max_leaf_nodes,
                                           learning_rate).fit(np.vstack(rows), y2)
    p = np.vstack([pp for pp in ps if len(pp)])
    py = np.concatenate([pair_targets(y) for y in ys if len(y) > 1])
    keep = sample_rows(len(py), max_pair_rows)
    models["pairwise"] = pair_model().fit(p[keep], py[keep])
    return models


class _Constant:
    """A stand-in classifier predicting one probability (training folds with one class)."""

    def __init__(self, p: float):
        self.p = p

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """``[1 - p, p]`` for every row."""
        return np.tile([1.0 - self.p, self.p], (len(x), 1))


def _choose_decoding(blocks: Sequence[Sequence[Block]], golds: Sequence[str],
                     probabilities: Sequence[tuple[np.ndarray, np.ndarray] | None],
                     lambdas: Sequence[float], biases: Sequence[float]
                     ) -> tuple[float, float, float]:
    """The (λ, bias) with the best summed F1 over pages decoded from their held-out block and
    pair probabilities (None: a page without blocks, whose text is empty), and that F1."""
    best = (-1.0, LAMBDA_GRID_DEFAULT[1], 0.0)
    for lam in lambdas:
        for bias in biases:
            scores = []
            for page_blocks, gold, probs in zip(blocks, golds, probabilities, strict=True):
                text = ""
                if probs is not None:
                    labels = decoded_labels(page_blocks, *probs, lam, bias)
                    text = "\n".join(b.text for b, lab in zip(page_blocks, labels, strict=True)
                                     if lab)
                scores.append(score(text, gold, with_levenshtein=False))
            f1 = summarize(scores).f1
            if f1 > best[0]:
                best = (f1, lam, bias)
    return best[1], best[2], best[0]


def _held_out_probabilities(keys: Sequence[str], xs: Sequence[np.ndarray],
                            ys: Sequence[np.ndarray], ps: Sequence[np.ndarray],
                            blocks: Sequence[Sequence[Block]], folds: int,
                            fit: Callable[[list[int]], dict[str, Any]]
                            ) -> list[tuple[np.ndarray, np.ndarray] | None]:
    """Block and pair probabilities of every page from the whole fit (``fit`` of the page
    indices it may use) repeated without that page's fold."""
    def fit_fold(train: list[int]) -> dict[str, Any] | None:
        both_classes = len({int(v) for i in train for v in np.unique(ys[i])}) > 1
        return fit(train) if both_classes else None  # a tiny data set's one-class fold

    def predict(models: dict[str, Any] | None, i: int) -> tuple[np.ndarray, np.ndarray] | None:
        if models is None:
            return None
        return page_probabilities(models, PageInputs(list(blocks[i]), xs[i], ps[i]))

    return cross_fit(keys, [bool(len(y)) for y in ys], folds, DECODING_FOLD_SEED, fit_fold,
                     predict)


def _fit_check(docs: Sequence[Doc], blocks: Sequence[Sequence[Block]],
               held_out: Sequence[tuple[np.ndarray, np.ndarray] | None], lam: float,
               bias: float, check: BaseOutputs) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The page-level check (:mod:`corpuscrawl.learn.page_check`) learned on the held-out
    decoding of every training page with the chosen λ and bias."""
    labels: list[list[int]] = []
    texts: list[str] = []
    for page_blocks, probs in zip(blocks, held_out, strict=True):
        lab = decoded_labels(page_blocks, *probs, lam, bias) if probs is not None else []
        labels.append(lab)
        texts.append("\n".join(b.text for b, keep in zip(page_blocks, lab, strict=True) if keep))
    robust = [check.all(d) for d in docs]
    for d in docs:
        d.release()
    return fit_page_check(blocks, [p[0] if p is not None else None for p in held_out],
                          labels, texts, robust, [d.gold for d in docs], check.names)


def fit_auto(docs: Sequence[Doc], votes: BaseOutputs | None = None,
             threshold: float = BLOCK_THRESHOLD_DEFAULT, max_iter: int = MAX_ITER_DEFAULT,
             max_leaf_nodes: int = MAX_LEAF_NODES_DEFAULT,
             learning_rate: float = LEARNING_RATE_DEFAULT,
             max_pair_rows: int = MAX_PAIR_ROWS_DEFAULT,
             decoding_folds: int = DECODING_FOLDS_DEFAULT,
             stacking: bool = STACKING_DEFAULT,
             stage2_max_iter: int = STAGE2_MAX_ITER_DEFAULT,
             title_features: bool = TITLE_FEATURES_DEFAULT,
             relative_masks: bool = RELATIVE_MASKS_DEFAULT,
             check: BaseOutputs | None = None,
             progress: Progress = no_progress) -> dict[str, Any]:
    """Train ``auto`` on ``docs``: features once, λ and bias chosen on out-of-fold decoding
    of every page (``decoding_folds`` < 2 keeps λ 0.1 and bias 0), the page-level check
    learned on that decoding when ``check`` gives the robust extractors' outputs, then the
    fit on all."""
    vote_names = list(votes.names) if votes is not None and votes.names else []
    blocks: list[list[Block]] = []
    xs, ys, ps, _ = collect(docs, votes if vote_names else None, threshold, progress,
                            PAIR_COLUMNS_DEFAULT, blocks, title_features, relative_masks)
    keys = [d.key for d in docs]
    params = {"threshold": threshold, "max_iter": max_iter, "max_leaf_nodes": max_leaf_nodes,
              "learning_rate": learning_rate, "max_pair_rows": max_pair_rows,
              "decoding_folds": decoding_folds, "stacking": stacking,
              "stacking_folds": FOLDS_DEFAULT if stacking else 0,
              "stage2_max_iter": stage2_max_iter if stacking else 0, "pair_columns": PAIR_COLUMNS_DEFAULT,
              "comment_heading_max_words": COMMENT_HEADING_MAX_WORDS_DEFAULT,
              "comment_min_before": COMMENT_MIN_BEFORE_DEFAULT,
              "comment_min_before_words": COMMENT_MIN_BEFORE_WORDS_DEFAULT,
              "comment_heading_max_probability": COMMENT_HEADING_MAX_PROBABILITY_DEFAULT,
              "thread_min_signatures": THREAD_MIN_SIGNATURES_DEFAULT,
              "thread_max_gap_words": THREAD_MAX_GAP_WORDS_DEFAULT,
              "thread_max_headings": THREAD_MAX_HEADINGS_DEFAULT,
              "related_cut": True,
              "title_features": title_features, "relative_masks": relative_masks}
    state: dict[str, Any] = {"kind": "auto", "votes": vote_names, "lambda": 0.1, "bias": 0.0,
                             "pair_columns": PAIR_COLUMNS_DEFAULT, "fallback": True,
                             "comment_cut": True, "related_cut": True,
                             "title_features": title_features,
                             "relative_masks": relative_masks, "page_check": None}

    def fit(indices: Sequence[int]) -> dict[str, Any]:
        return _fit([keys[i] for i in indices], [xs[i] for i in indices],
                    [ys[i] for i in indices], [ps[i] for i in indices],
                    [blocks[i] for i in indices], stacking, max_iter, max_leaf_nodes,
                    learning_rate, max_pair_rows, stage2_max_iter)

    if decoding_folds >= 2:
        held_out = _held_out_probabilities(keys, xs, ys, ps, blocks, decoding_folds, fit)
        if any(p is not None for p in held_out):
            golds = [d.gold for d in docs]
            lam, bias, f1 = _choose_decoding(blocks, golds, held_out, LAMBDA_GRID_DEFAULT,
                                             BIAS_GRID_DEFAULT)
            state["lambda"], state["bias"] = lam, bias
            params["out_of_fold_f1"] = round(f1, 4)
            if check is not None and check.names:
                state["page_check"], info = _fit_check(docs, blocks, held_out, lam, bias,
                                                       check)
                params["page_check"] = info
    state.update(fit(range(len(docs))))
    params.update({"lambda": state["lambda"], "bias": state["bias"]})
    y = np.concatenate(ys)
    state["params"] = params
    state["label_counts"] = {"content": int(y.sum()), "boilerplate": int(len(y) - y.sum())}
    return state


__all__ = [
    "PAGE_CHECK_DEFAULT",
    "RELATIVE_MASKS_DEFAULT",
    "STACKING_DEFAULT",
    "VOTES_DEFAULT",
    "fit_auto",
]
