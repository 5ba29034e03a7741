"""Training ``auto``: :class:`AutoEstimator`, the predictor
:class:`corpuscrawl.extract.learned.auto.AutoModel` with ``fit``.

Features are computed once per page; the decoding parameters (pairwise weight
λ and decision bias) are chosen on out-of-fold decoding of every training
page (the whole fit repeated without each fold, :mod:`corpuscrawl.learn.folds`);
then the first stage (histogram gradient boosting over block features), an
optional second stage (stacked generalisation over the first stage's
out-of-fold probabilities of the block's surroundings) and the pairwise
logistic regression are fitted on all pages.  The model's parameters and their
measured defaults are on :class:`~corpuscrawl.extract.learned.auto.AutoModel`.
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
    AutoModel,
    Potentials,
    decoded_labels,
    page_probabilities,
)
from corpuscrawl.extract.learned.block_features import TEXT_FEATURES
from corpuscrawl.extract.learned.columns import NamedMatrix
from corpuscrawl.extract.learned.page_check import PageCheck
from corpuscrawl.extract.learned.sequence import PageInputs
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
from corpuscrawl.learn.estimator import Estimator
from corpuscrawl.learn.folds import FOLDS_DEFAULT, cross_fit, out_of_fold
from corpuscrawl.learn.page_check_trainer import fit_page_check
from corpuscrawl.learn.sequence_trainer import PageRows, collect, pair_targets, sample_rows
from corpuscrawl.learn.trainset import (
    BaseOutputs,
    Doc,
    Progress,
    available_base,
    no_progress,
    required_base,
)

#: Unary columns repeated in the pairwise rows: the block's own text features.
PAIR_COLUMNS_DEFAULT = TEXT_FEATURES
#: Candidate pairwise weights and decision biases searched on the out-of-fold decoding.
#: λ = 0 only: with λ > 0 the pairwise term's features, model and Viterbi pass take ``auto``
#: below twice trafilatura's fast mode (``benchmarks/results/wholeweb.md``, the retraining
#: on all gold data).
LAMBDA_GRID_DEFAULT = (0.0,)
BIAS_GRID_DEFAULT = (-0.4, -0.2, 0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
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


def _fit(model: AutoModel, keys: Sequence[str], xs: Sequence[np.ndarray],
         ys: Sequence[np.ndarray], ps: Sequence[np.ndarray],
         blocks: Sequence[Sequence[Block]]) -> Potentials:
    """First-stage, (optional) second-stage and pairwise models fitted on the given pages
    with ``model``'s parameters."""
    def fit_unary(x: np.ndarray, y: np.ndarray) -> Any:
        return unary_model(model.max_iter, model.max_leaf_nodes,
                           model.learning_rate).fit(x, y)

    def fit_fold(x: np.ndarray, y: np.ndarray) -> Any:
        if len(np.unique(y)) < 2:  # a fold of a tiny data set with one class only
            return _Constant(float(y.mean()) if len(y) else 0.0)
        return fit_unary(x, y)

    # The saved models are scikit-learn's only (skops loads them as trusted types);
    # _Constant lives only inside out_of_fold.
    unary = fit_unary(np.vstack(xs), np.concatenate(ys))
    stage2 = None
    if model.stacking:
        oof = out_of_fold(keys, xs, ys, fit_fold)
        rows = [stage2_rows(x, b, p) for x, b, p in zip(xs, blocks, oof, strict=True)
                if len(p)]
        labels = [y for y, p in zip(ys, oof, strict=True) if len(p)]
        y2 = np.concatenate(labels) if labels else np.zeros(0)
        if len(np.unique(y2)) > 1:  # else (a tiny data set) the model stays one-stage
            stage2 = unary_model(model.stage2_max_iter, model.max_leaf_nodes,
                                 model.learning_rate).fit(np.vstack(rows), y2)
    p = np.vstack([pp for pp in ps if len(pp)])
    py = np.concatenate([pair_targets(y) for y in ys if len(y) > 1])
    keep = sample_rows(len(py), model.max_pair_rows)
    return Potentials(unary, stage2, pair_model().fit(p[keep], py[keep]))


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
    pair probabilities (None: a page without blocks, whose text is empty), and that F1.

    The decoding is the model's own, without the container fill
    (:func:`~corpuscrawl.extract.segment.container.fill_container`): the fill reads the
    labels this threshold gives, and with it inside the choice the summed F1 is flat over
    the upper biases, so the choice would flip on noise (figures in
    ``benchmarks/results/wholeweb.md``, "The bias is chosen without the fill").  The
    tail trim (:mod:`corpuscrawl.extract.segment.edges`), a step after the decoding like
    the fill, is left out for the same reason."""
    best = (-1.0, LAMBDA_GRID_DEFAULT[0], 0.0)
    for lam in lambdas:
        for bias in biases:
            scores = []
            for page_blocks, gold, probs in zip(blocks, golds, probabilities, strict=True):
                text = ""
                if probs is not None:
                    labels = decoded_labels(page_blocks, *probs, lam, bias,
                                            container_fill=False, tail_trim=False)
                    text = "\n".join(b.text for b, lab in zip(page_blocks, labels, strict=True)
                                     if lab)
                scores.append(score(text, gold, with_levenshtein=False))
            f1 = summarize(scores).f1
            if f1 > best[0]:
                best = (f1, lam, bias)
    return best[1], best[2], best[0]


def _held_out_probabilities(keys: Sequence[str], rows: PageRows,
                            blocks: Sequence[Sequence[Block]], folds: int,
                            fit: Callable[[list[int]], Potentials]
                            ) -> list[tuple[np.ndarray, np.ndarray] | None]:
    """Block and pair probabilities of every page from the whole fit (``fit`` of the page
    indices it may use) repeated without that page's fold (pair probabilities are always
    computed: λ is not chosen yet)."""
    xs, ys, ps = rows.xs, rows.ys, rows.ps

    def fit_fold(train: list[int]) -> Potentials | None:
        both_classes = len({int(v) for i in train for v in np.unique(ys[i])}) > 1
        return fit(train) if both_classes else None  # a tiny data set's one-class fold

    def predict(models: Potentials | None, i: int) -> tuple[np.ndarray, np.ndarray] | None:
        if models is None:
            return None
        inputs = PageInputs(list(blocks[i]), NamedMatrix(xs[i], rows.unary_names),
                            NamedMatrix(ps[i], rows.pair_names))
        return page_probabilities(models, inputs, lam=1.0)

    return cross_fit(keys, [bool(len(y)) for y in ys], folds, DECODING_FOLD_SEED, fit_fold,
                     predict)


def _fit_check(docs: Sequence[Doc], blocks: Sequence[Sequence[Block]],
               held_out: Sequence[tuple[np.ndarray, np.ndarray] | None], lam: float,
               bias: float, check: BaseOutputs) -> tuple[PageCheck | None, dict[str, Any]]:
    """The page-level check (:mod:`corpuscrawl.learn.page_check_trainer`) learned on the held-out
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


def fit_auto(model: AutoModel, docs: Sequence[Doc], progress: Progress | None = None,
             check: BaseOutputs | None = None) -> AutoModel:
    """Train ``model`` on ``docs``: features once, λ and bias chosen on out-of-fold decoding
    of every page (``decoding_folds`` < 2 keeps λ 0 and bias 0), the page-level check
    learned on that decoding (when ``model.page_check``; ``check`` gives the robust
    extractors' outputs, cached ones by default), then the fit on all.  Returns ``model``
    with its fitted attributes set."""
    from corpuscrawl.extract.learned.page_check import ROBUST_DEFAULT

    progress = progress or no_progress
    wanted_votes = required_base(tuple(model.votes)) if model.votes else ()
    votes = BaseOutputs(wanted_votes) if wanted_votes else None
    if check is None and model.page_check:
        check = BaseOutputs(available_base(ROBUST_DEFAULT))
    blocks: list[list[Block]] = []
    rows = collect(docs, votes, model.threshold, progress, PAIR_COLUMNS_DEFAULT, blocks,
                   model.title_features, model.relative_masks)
    keys = [d.group for d in docs]  # folds keep a site's pages together
    xs, ys, ps = rows.xs, rows.ys, rows.ps
    info: dict[str, Any] = {
        "stacking_folds": FOLDS_DEFAULT if model.stacking else 0,
        "comment_heading_max_words": COMMENT_HEADING_MAX_WORDS_DEFAULT,
        "comment_min_before": COMMENT_MIN_BEFORE_DEFAULT,
        "comment_min_before_words": COMMENT_MIN_BEFORE_WORDS_DEFAULT,
        "comment_heading_max_probability": COMMENT_HEADING_MAX_PROBABILITY_DEFAULT,
        "thread_min_signatures": THREAD_MIN_SIGNATURES_DEFAULT,
        "thread_max_gap_words": THREAD_MAX_GAP_WORDS_DEFAULT,
        "thread_max_headings": THREAD_MAX_HEADINGS_DEFAULT}
    lam, bias, page_check = LAMBDA_GRID_DEFAULT[0], 0.0, None

    def fit(indices: Sequence[int]) -> Potentials:
        return _fit(model, [keys[i] for i in indices], [xs[i] for i in indices],
                    [ys[i] for i in indices], [ps[i] for i in indices],
                    [blocks[i] for i in indices])

    if model.decoding_folds >= 2:
        held_out = _held_out_probabilities(keys, rows, blocks, model.decoding_folds, fit)
        if any(p is not None for p in held_out):
            golds = [d.gold for d in docs]
            lam, bias, f1 = _choose_decoding(blocks, golds, held_out, LAMBDA_GRID_DEFAULT,
                                             BIAS_GRID_DEFAULT)
            info["out_of_fold_f1"] = round(f1, 4)
            if check is not None and check.names:
                page_check, info["page_check"] = _fit_check(docs, blocks, held_out, lam, bias,
                                                            check)
    potentials = fit(range(len(docs)))
    model.unary_, model.stage2_, model.pairwise_ = potentials
    model.lambda_, model.bias_ = lam, bias
    model.page_check_ = page_check
    model.votes_ = tuple(votes.names) if votes is not None else ()
    model.feature_names_in_ = rows.unary_names
    model.pair_columns_ = tuple(PAIR_COLUMNS_DEFAULT)
    model.pair_feature_names_ = rows.pair_names
    y = np.concatenate(ys)
    model.label_counts_ = {"content": int(y.sum()), "boilerplate": int(len(y) - y.sum())}
    model.fit_info_ = {**info, "lambda": lam, "bias": bias}
    model.__dict__.pop("_runtime", None)
    return model


class AutoEstimator(Estimator, AutoModel):
    """``auto`` with ``fit``: the parameters and fitted attributes of :class:`AutoModel`;
    :meth:`predictor` gives the :class:`AutoModel` a model file holds."""

    def fit(self, docs: Sequence[Doc], y: None = None,
            progress: Progress | None = None) -> AutoEstimator:
        """Learn from gold documents (each with its ``page`` and ``gold`` text; ``y`` is
        unused) with :func:`fit_auto`; returns ``self``."""
        fit_auto(self, docs, progress)
        return self


__all__ = [
    "BIAS_GRID_DEFAULT",
    "LAMBDA_GRID_DEFAULT",
    "PAIR_COLUMNS_DEFAULT",
    "AutoEstimator",
    "fit_auto",
    "pair_model",
    "unary_model",
]
