"""``auto``: corpuscrawl's own learned extractor, built from what the measurements showed works.

Sources: seed 001 (Web2Text) for the block sequence, unary/pairwise potentials
and Viterbi decoding (:mod:`.sequence`); seed 000 §4.2.3 for base-extractor
agreement features (optional here, see below).  Measured on a validation part
of the *training* split (``benchmarks/results/learned.md`` has the numbers):

* a gradient-boosted tree classifier (scikit-learn's histogram GBDT, CPU-fast)
  on the collapsed-DOM block features plus context — neighbours, a ±3-block
  window and the subtree aggregates of the five ancestors above the block
  (how much of the page's running text sits in the same region) — beats
  every base extractor and peer tool on pooled F1;
* where the block stands relative to the page's headline
  (:mod:`.title_features`: its match with the ``<title>`` without the site
  name, the best-matching short block, the position and tree distance from
  it): inner validation 0.9450 → 0.9477 (five of six datasets higher); with the
  block-text fixes of :mod:`.cdom` 0.9493 (the shipped model's fit, with its own
  draw of λ and bias, 0.9491; test split 0.9357 and the cross-validation in
  ``benchmarks/results/learned.md`` and ``crossval.md``);
* the base extractors' votes (share of the block found in each one's output)
  did not improve it on the validation split and cost the time of running
  them, so by default ``auto`` uses none (``votes=`` re-enables them);
* a second stage (:mod:`.stacking`, off by default): a second gradient-boosted
  classifier over the block's features plus the first stage's (out-of-fold)
  probabilities of its neighbours and of the regions holding it; on the
  inner validation part summed F1 0.9410 → 0.9440 (test split: 0.9317 → 0.9325)
  with a first stage of 200 trees of 31 leaves; a first stage of 400 trees of 63
  leaves alone does as well (``MAX_ITER_DEFAULT``, ``STACKING_DEFAULT``);
* the pairwise potentials (a logistic regression over the two blocks' text
  features and the edge features) smooth the labels with Viterbi; λ and a
  decision bias are chosen on out-of-fold decoding of every training page (the
  whole fit repeated on two thirds of the pages, three times; before, one
  inner validation quarter chose them and the choice flipped between training
  draws), then the models are fitted on all pages;
* per-page fallback (:func:`fallback_region`): when the model keeps nothing
  on a page that has confident-enough blocks, it keeps the blocks within a
  factor of the best one instead of returning an empty text;
* reader comments inside the article container (:func:`.sections.cut_comments`): after
  a short comment heading ("Comments", "Leave a reply", "12 responses" ...)
  that follows enough kept text, kept blocks outside the element holding
  most of the kept text before it are dropped.  Block features alone could
  not separate such comments (same container and classes as the article); the
  heading counts once 15 % of the kept words or 100 kept words precede it;
  on the inner validation part this raised summed F1 0.9344 → 0.9410
  (l3s-gn1 0.885 → 0.944, no dataset lower).  On the test split it lowered
  pooled F1 0.9354 → 0.9317: CleanEval's gold keeps comments, so cleaneval
  lost more than dragnet and scrapinghub gained (``benchmarks/results/learned.md``).
  A heading the block model scores as content (p ≥ 0.5) starts no cut
  (:data:`COMMENT_HEADING_MAX_PROBABILITY_DEFAULT`).  Comment-context block
  features instead of the cut (heading seen before, its link share, blocks since
  it, same parent) left the model as unable to drop comments as before
  (out-of-fold, folds 1-4, without the cut 0.9225 → 0.9241; with it 0.9360 → 0.9359).
  When signature lines follow the heading ("Posted by X on <date>", "Report this comment",
  at least two, :func:`.sections.cut_comments`), every kept block after it goes, also in the
  article's element (Telegraph, Movable Type, TypePad threads): out-of-fold, folds
  1-4, 0.9392 → 0.9405 (l3s-gn1 0.962 → 0.969; five pages gain, none loses).
  ``state["comment_cut"] = False`` switches it off;
* related-content regions (:func:`.sections.cut_related`): after a heading such as "Also
  on HuffPost:" or "Related Coverage", the kept blocks it introduces outside the article's
  element are dropped up to the first link list or the article's element; on the
  out-of-fold predictions of cross-validation folds 1-4 (train split) summed F1
  0.9376 → 0.9392 (two HuffPost pages whose 2 300 and 4 300 words of slideshow captions the
  model kept at p 0.6-1.0; the dragnet pages whose gold keeps "Related Posts" lose 15-30
  words each).  ``state["related_cut"] = False`` switches it off.

Block labels: words aligned with the gold text (:mod:`.alignment`),
coverage > 0.5.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from corpuscrawl.evaluation.metrics import score, summarize
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.alignment import BLOCK_THRESHOLD_DEFAULT
from corpuscrawl.extract.block_features import TEXT_FEATURES
from corpuscrawl.extract.cdom import Block
from corpuscrawl.extract.forest import compile_forest
from corpuscrawl.extract.sections import (
    COMMENT_HEADING_MAX_PROBABILITY_DEFAULT,
    COMMENT_HEADING_MAX_WORDS_DEFAULT,
    COMMENT_MIN_BEFORE_DEFAULT,
    COMMENT_MIN_BEFORE_WORDS_DEFAULT,
    THREAD_MAX_GAP_WORDS_DEFAULT,
    THREAD_MAX_HEADINGS_DEFAULT,
    THREAD_MIN_SIGNATURES_DEFAULT,
    cut_comments,
    cut_related,
)
from corpuscrawl.extract.sequence import (
    PageInputs,
    collect,
    page_inputs,
    pair_probabilities,
    pair_targets,
    sample_rows,
    single_threaded,
    viterbi,
)
from corpuscrawl.extract.stacking import FOLDS_DEFAULT, cross_fit, out_of_fold, stage2_rows
from corpuscrawl.extract.trainset import BaseOutputs, Doc
from corpuscrawl.models import load_model
from corpuscrawl.page import Page

#: Base extractors whose votes are features (none by default: they did not help, see above).
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
#: of the block's surroundings (:mod:`.stacking`): inner validation 0.9410 → 0.9440 when the
#: first stage had 200 trees of 31 leaves; off since a first stage of 400 trees of 63 leaves
#: alone scores as well (0.9360, see above) at a quarter of the training fits (the second
#: stage needs three out-of-fold first stages in every decoding fold) and no second model to
#: apply per page.
STACKING_DEFAULT = False
#: Iterations of the second stage (inner validation 0.9440 with 100, 0.9442 with 200, 0.9431
#: with 100 in both stages): 100 halves its prediction time.
STAGE2_MAX_ITER_DEFAULT = 100
#: Headline features (:mod:`.title_features`) join the block rows.
TITLE_FEATURES_DEFAULT = True
#: Unary columns repeated in the pairwise rows: the block's own text features.
PAIR_COLUMNS_DEFAULT = len(TEXT_FEATURES)
#: Most rows used to fit the pairwise model.
MAX_PAIR_ROWS_DEFAULT = 200_000
#: Candidate pairwise weights and decision biases searched on the out-of-fold decoding.
LAMBDA_GRID_DEFAULT = (0.0, 0.1, 0.3, 0.6, 1.0)
BIAS_GRID_DEFAULT = (-0.4, -0.2, 0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
#: λ and the bias are chosen on out-of-fold predictions of *every* training page: the
#: whole fit is repeated on all but one of this many folds (by a hash of the page key) and
#: the held-out fold decoded.  Before, one inner validation part (25 % of the pages) chose
#: them, and the choice flipped between training draws (λ 0.1 / 0.3, bias −0.2 / −0.4).
DECODING_FOLDS_DEFAULT = 3
#: Seed of the decoding folds (:func:`~corpuscrawl.evaluation.datasets.fold_of`): not the
#: stacking folds' seed, or a stacking fold would be empty inside every decoding fold.
DECODING_FOLD_SEED = "corpuscrawl-auto-decoding"
#: Fallback: a page whose best block has at least this probability is never left empty ...
#: 0.2 before: on pages of sites and languages the gold sets do not have, a class keyword
#: of the whole page or of the article's region (``<body class="... hidecomments ...">``)
#: pulls every article block to 0.1-0.2 and the page came out empty.  On the trafilatura
#: snippet pages (never trained on) 0.1 gives five of them their article back (snippet F1
#: 0.9092 → 0.9113; a sixth page picks up a boilerplate line); 0.05 changes the same pages, 0
#: one more.  On the out-of-fold decoding of the training pages (folds 1-4) it changes six
#: pages at some λ/bias; summed F1 stays 0.9405 (cleaneval and readability +0.0001).  The
#: cost, seen under cross-validation (``benchmarks/results/crossval.md``): the two
#: CleanPortalEval pages without content (empty gold) now give 3 and 83 words instead of
#: nothing.  Chosen on the snippet pages, so their figure in ``learned.md`` is no longer blind.
FALLBACK_MIN_PROBABILITY_DEFAULT = 0.1
#: ... it keeps the blocks whose probability is at least this share of the best one.
FALLBACK_RELATIVE_DEFAULT = 0.5

Progress = Callable[[Iterable[Doc]], Iterable[Doc]]


def _identity(docs: Iterable[Doc]) -> Iterable[Doc]:
    return docs


def fallback_region(unary_p: np.ndarray, labels: list[int],
                    min_probability: float = FALLBACK_MIN_PROBABILITY_DEFAULT,
                    relative: float = FALLBACK_RELATIVE_DEFAULT) -> list[int]:
    """Keep the near-best blocks when the decoded labels keep nothing on a page with content."""
    if any(labels) or not len(unary_p):
        return labels
    best = float(unary_p.max())
    if best < min_probability:
        return labels
    return [int(p >= relative * best) for p in unary_p.tolist()]


def block_probabilities(state: dict[str, Any], inputs: PageInputs) -> np.ndarray:
    """Each block's probability of being content: the first stage, then (when the model has
    one) the second stage over the first stage's probabilities of the block's context."""
    if not inputs.blocks:
        return np.zeros(0)
    p = state["unary"].predict_proba(inputs.unary)[:, 1]
    if state.get("stage2") is not None:
        p = state["stage2"].predict_proba(stage2_rows(inputs.unary, inputs.blocks, p))[:, 1]
    return p


def page_probabilities(state: dict[str, Any], inputs: PageInputs
                       ) -> tuple[np.ndarray, np.ndarray]:
    """A page's block probabilities (:func:`block_probabilities`) and neighbour-pair
    probabilities, predicted with one thread (a page has a few hundred rows)."""
    with single_threaded():
        return (block_probabilities(state, inputs),
                pair_probabilities(state["pairwise"], inputs.pairs))


def decoded_labels(blocks: Sequence[Block], unary_p: np.ndarray, pair_p: np.ndarray,
                   lam: float, bias: float, fallback: bool = True,
                   comment_cut: bool = True, related_cut: bool = True) -> list[int]:
    """Block labels from the potentials: Viterbi with weight ``lam`` and ``bias``, then the
    fallback, the comment cut and the related-content cut (:mod:`.sections`)."""
    labels = viterbi(unary_p, pair_p, lam, bias)
    if fallback:
        labels = fallback_region(unary_p, labels)
    if comment_cut:
        labels = cut_comments(blocks, labels, unary_p)
    if related_cut:
        labels = cut_related(blocks, labels)
    return labels


def decode(state: dict[str, Any], inputs: PageInputs) -> list[int]:
    """Block labels of a page: unary and pairwise potentials, Viterbi, the fallback and the
    section cuts (:func:`decoded_labels`)."""
    if not inputs.blocks:
        return []
    return decoded_labels(inputs.blocks, *page_probabilities(state, inputs), state["lambda"],
                          state["bias"], state.get("fallback", True),
                          state.get("comment_cut", True), state.get("related_cut", True))


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


def fit_auto(docs: Sequence[Doc], votes: BaseOutputs | None = None,
             threshold: float = BLOCK_THRESHOLD_DEFAULT, max_iter: int = MAX_ITER_DEFAULT,
             max_leaf_nodes: int = MAX_LEAF_NODES_DEFAULT,
             learning_rate: float = LEARNING_RATE_DEFAULT,
             max_pair_rows: int = MAX_PAIR_ROWS_DEFAULT,
             decoding_folds: int = DECODING_FOLDS_DEFAULT,
             stacking: bool = STACKING_DEFAULT,
             stage2_max_iter: int = STAGE2_MAX_ITER_DEFAULT,
             title_features: bool = TITLE_FEATURES_DEFAULT,
             progress: Progress = _identity) -> dict[str, Any]:
    """Train ``auto`` on ``docs``: features once, λ and bias chosen on out-of-fold decoding
    of every page (``decoding_folds`` < 2 keeps λ 0.1 and bias 0), then the fit on all."""
    vote_names = list(votes.names) if votes is not None and votes.names else []
    blocks: list[list[Block]] = []
    xs, ys, ps, _ = collect(docs, votes if vote_names else None, threshold, progress,
                            PAIR_COLUMNS_DEFAULT, blocks, title_features)
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
              "title_features": title_features}
    state: dict[str, Any] = {"kind": "auto", "votes": vote_names, "lambda": 0.1, "bias": 0.0,
                             "pair_columns": PAIR_COLUMNS_DEFAULT, "fallback": True,
                             "comment_cut": True, "related_cut": True,
                             "title_features": title_features}

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
    state.update(fit(range(len(docs))))
    params.update({"lambda": state["lambda"], "bias": state["bias"]})
    y = np.concatenate(ys)
    state["params"] = params
    state["label_counts"] = {"content": int(y.sum()), "boilerplate": int(len(y) - y.sum())}
    return state


class AutoExtractor:
    """Learned block classifier with Viterbi smoothing and a per-page fallback."""

    name = "auto"
    kind = "auto"

    def __init__(self, model: str | None = None, models_dir: str | Path | None = None,
                 state: dict[str, Any] | None = None):
        self.state = state if state is not None else load_model(model or self.kind, self.kind,
                                                                 models_dir)
        self.voters = [get_extractor(n) for n in self.state.get("votes", [])]
        # The same state with its tree models compiled for one-call prediction (identical
        # probabilities, :mod:`.forest`); ``self.state`` keeps the fitted models.
        self._predicting = {**self.state, "unary": compile_forest(self.state["unary"])}
        if self.state.get("stage2") is not None:
            self._predicting["stage2"] = compile_forest(self.state["stage2"])

    def _outputs(self, page: Page) -> list[str]:
        outputs = []
        for extractor in self.voters:
            try:
                outputs.append(extractor.extract(page))
            except Exception:  # a failing voter is an empty vote, never a failed page
                outputs.append("")
        return outputs

    def extract(self, page: Page) -> str:
        """Text of the blocks labelled content, one per line."""
        inputs = page_inputs(page, self._outputs(page), self.state.get("pair_columns"),
                             self.state.get("title_features", False))
        labels = decode(self._predicting, inputs)
        return "\n".join(b.text for b, lab in zip(inputs.blocks, labels, strict=True) if lab)


__all__ = [
    "STACKING_DEFAULT",
    "VOTES_DEFAULT",
    "AutoExtractor",
    "block_probabilities",
    "decode",
    "decoded_labels",
    "fallback_region",
    "fit_auto",
    "page_probabilities",
]
