"""``auto``: block sequence labelling with gradient-boosted potentials and section cuts.

The page becomes the sequence of its collapsed-DOM blocks
(:mod:`corpuscrawl.extract.segment.cdom`), as in Web2Text (Vogels, Ganea &
Eickhoff 2018); each block is labelled content or boilerplate in five steps,
each a function one can call alone:

1. **Unary potential** (:func:`block_probabilities`): a histogram gradient-boosted
   tree classifier (scikit-learn) gives each block's probability of being
   content from its features (:mod:`corpuscrawl.extract.learned.block_features`:
   its text, its ±2 neighbours, a ±3-block window and the subtree aggregates of
   the five ancestors above it; :mod:`corpuscrawl.extract.learned.title_features`:
   where it stands relative to the page's headline).  Base-extractor votes
   (the share of the block found in each one's output, the agreement features
   of Bakić's thesis §4.2.3) can be added; the shipped model has none.  An
   optional second stage (stacked generalisation, Wolpert 1992;
   :mod:`corpuscrawl.extract.learned.stacking`) re-scores each block from the
   first stage's probabilities around it.
2. **Pairwise potential** (:func:`page_probabilities`): a logistic regression
   over two neighbouring blocks' text and edge features gives the
   probabilities of their four label pairs.
3. **Viterbi decoding** (:func:`decoded_labels`): the most probable label
   sequence under both potentials, with the pairwise term weighted by λ and a
   decision bias on the unary term (both chosen when the model is trained).
4. **Fallback** (:func:`fallback_region`): a page on which nothing was kept but
   whose best block is confident enough keeps the blocks within a factor of
   the best one.  Then the lists, tables and code blocks inside the element that
   holds the kept text, between its first and last kept block, are kept unless
   the model is nearly sure they are not text
   (:func:`~corpuscrawl.extract.segment.container.fill_container`), and so are the
   lists between a kept heading or lead-in line and kept text after them
   (:func:`~corpuscrawl.extract.segment.container.fill_list_gaps`).  On a page typed
   ``service`` (:mod:`corpuscrawl.extract.page_typing.page_type`, read from
   ``Page.page_type`` when the crawl has typed the page, else typed here when the step
   would change a label) every kind of block there is kept above a lower floor
   (:data:`~corpuscrawl.extract.segment.container.WHOLE_FILL_TYPES`).
5. **Section cuts** (:mod:`corpuscrawl.extract.segment.sections`): kept blocks
   after a reader-comment heading outside the article's element, and kept
   related-content regions, are dropped.  The comment bodies of the section the
   heading opens are the page's reader comments (:meth:`AutoModel.extract_parts`),
   given apart from the text.  Last, the kept blocks after the article that sit in
   another region of the page, and the headings that end the text, are dropped
   (:mod:`corpuscrawl.extract.segment.edges`).
Before step 1, a page sent by streamed server rendering gets its hidden streamed
segments moved where its inline script would move them
(:func:`corpuscrawl.html.streamed.completed_stream`): the text a browser shows is read,
other hidden elements stay out.

6. **Page-level check** (:mod:`corpuscrawl.extract.learned.page_check`, when the
   model carries one): on a page where ``auto`` keeps little of the running
   text and is unsure of all of it, the robust classic extractors' consensus
   replaces its text.

Ancestor-tag and class-keyword bits can be taken relative to the page
(:class:`AutoModel`'s ``relative_masks``,
:func:`corpuscrawl.extract.learned.block_features.page_relative`): a keyword
shared by most of the page's blocks then no longer drags every block down.
The shipped model uses the raw bits (the relative ones scored lower overall,
:data:`RELATIVE_MASKS_DEFAULT`).  Class/id keyword bits that (nearly) every
block of the page carries can be cleared at prediction time (``page_wide_share``,
e.g. :data:`PAGE_WIDE_SHARE_CHOSEN`; off by default): a page-wide keyword
(``<body class="... comments ...">``) then no longer drags every block down, and
the model reads rows of a kind it was trained on.

The model is :class:`AutoModel`, the predictor (parameters in ``__init__``,
fitted attributes ``unary_``, ``pairwise_``, ``lambda_``, ... and the feature
names it was fitted on; no ``fit``: its estimator, which adds ``fit``, is
``corpuscrawl.learn.auto_trainer.AutoEstimator``); :class:`AutoExtractor` is its
registry entry.  The measurements behind each step and each default are in
``benchmarks/results/learned.md``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import Extracted, ExtractorError
from corpuscrawl.extract.learned.columns import check_feature_names
from corpuscrawl.extract.learned.forest import compile_forest
from corpuscrawl.extract.learned.models import LearnedExtractor, LearnedModel, check_fitted
from corpuscrawl.extract.learned.page_check import Review
from corpuscrawl.extract.learned.sequence import (
    BLOCK_THRESHOLD_DEFAULT,
    PageInputs,
    page_inputs,
    pair_probabilities,
    single_threaded,
    viterbi,
)
from corpuscrawl.extract.learned.stacking import stage2_rows
from corpuscrawl.extract.page_typing.page_type import MODEL_FILE as PAGE_TYPE_MODEL_FILE
from corpuscrawl.extract.page_typing.page_type import page_type
from corpuscrawl.extract.segment.cdom import Block
from corpuscrawl.extract.segment.container import (
    WHOLE_FILL_MIN_PROBABILITY,
    WHOLE_FILL_TYPES,
    fill_container,
    fill_list_gaps,
)
from corpuscrawl.extract.segment.edges import trim_tail
from corpuscrawl.extract.segment.sections import (
    COMMENT_LINK_HEADINGS_DEFAULT,
    apply_comment_cut,
    comment_blocks,
    cut_related,
    find_comment_cut,
)
from corpuscrawl.html.page import Page
from corpuscrawl.html.streamed import completed_stream

#: Fallback: a page whose best block has at least this probability is never left empty ...
#: A page-wide class keyword (``<body class="... hidecomments ...">``) can pull every
#: article block of a site the gold sets do not have far under the threshold; this value
#: keeps such articles without changing the out-of-fold decoding of the training pages
#: (measured in ``benchmarks/results/learned.md``).
FALLBACK_MIN_PROBABILITY_DEFAULT = 0.1
#: ... it keeps the blocks whose probability is at least this share of the best one.
FALLBACK_RELATIVE_DEFAULT = 0.5

#: Decoding: lists, tables and code blocks inside the main container that the model scored
#: just under the threshold are kept (:mod:`corpuscrawl.extract.segment.container`).
CONTAINER_FILL_DEFAULT = True
#: ... and with it the lists that fill a gap of the kept text inside that container
#: (:func:`~corpuscrawl.extract.segment.container.fill_list_gaps`).
LIST_GAPS_DEFAULT = True
#: Decoding, last step: kept blocks after the article in another region of the page, and
#: headings that end the text, are dropped (:mod:`corpuscrawl.extract.segment.edges`).
TAIL_TRIM_DEFAULT = True

#: Base extractors whose votes are features (none by default: measured in
#: ``benchmarks/results/learned.md``).
VOTES_DEFAULT: tuple[str, ...] = ()
#: Gradient boosting: iterations, leaves per tree, learning rate (sklearn's defaults are
#: 100 / 31 / 0.1).  Chosen by a 4-fold cross-validation inside the train split (folds 1-4
#: of ``datasets.fold_of``; each fold's pages decoded by models fitted on the other three,
#: λ and bias chosen on those three's out-of-fold decoding), on summed F1; measured in
#: ``benchmarks/results/learned.md``.
MAX_ITER_DEFAULT = 400
MAX_LEAF_NODES_DEFAULT = 63
LEARNING_RATE_DEFAULT = 0.1
#: Most rows the pairwise model is fitted on.
MAX_PAIR_ROWS_DEFAULT = 200_000
#: λ and the bias are chosen on out-of-fold predictions of *every* training page: the
#: whole fit is repeated on all but one of this many folds (by a hash of the page key) and
#: the held-out fold decoded, so the choice does not hang on one validation draw
#: (``benchmarks/results/learned.md``).
DECODING_FOLDS_DEFAULT = 3
#: Second-stage ("auto-context") classifier over the first stage's out-of-fold probabilities
#: of the block's surroundings (:mod:`corpuscrawl.extract.learned.stacking`).  Off: the
#: first stage of :data:`MAX_ITER_DEFAULT` trees of :data:`MAX_LEAF_NODES_DEFAULT` leaves
#: alone scores as well at a quarter of the training fits (the second stage needs three
#: out-of-fold first stages in every decoding fold) and no second model to apply per page
#: (measured in ``benchmarks/results/learned.md``).
STACKING_DEFAULT = False
#: Iterations of the second stage: 100 scores as 200 does at half its prediction time
#: (``benchmarks/results/learned.md``).
STAGE2_MAX_ITER_DEFAULT = 100
#: Headline features (:mod:`corpuscrawl.extract.learned.title_features`) join the block rows.
TITLE_FEATURES_DEFAULT = True
#: Ancestor-tag and class-keyword bits relative to the page
#: (:func:`~corpuscrawl.extract.learned.block_features.page_relative`).  Off: the whole fit
#: with them scores lower out of fold and on the test split than with the raw bits
#: (``benchmarks/results/learned.md``).
RELATIVE_MASKS_DEFAULT = False
#: Learn the page-level check (:mod:`corpuscrawl.extract.learned.page_check`) when training.
#: Off: the shipped models were trained without it (so ``corpuscrawl train auto`` with its
#: defaults rebuilds the shipped file), and on the article sets' train split it kept no
#: thresholds (``benchmarks/results/layout.md``).
PAGE_CHECK_DEFAULT = False
#: The share of a page's blocks at which a class/id keyword bit is page-wide and cleared
#: (:func:`~corpuscrawl.extract.learned.block_features.clear_page_wide`, parameter
#: ``page_wide_share``), chosen on the train split only (``benchmarks/page_wide_bits.py``:
#: the shipped first stage refitted on two of its three decoding folds, each third decoded as
#: shipped).  It sits inside the flat part of the shares tried and tolerates a stray block
#: outside a page-wide wrapper; a lower share clears a "content" wrapper that is
#: information, and clearing the ancestor-tag bits as well loses F1 at every share
#: (measured in ``benchmarks/results/learned.md``).
PAGE_WIDE_SHARE_CHOSEN = 0.98
#: ... by default: off.  On the test split the chosen share raises pooled F1 but lowers the
#: per-page mean F1 and leaves the lost articles as many (measured once, in
#: ``benchmarks/results/learned.md``), so it is off.
PAGE_WIDE_SHARE_DEFAULT: float | None = None
#: The extractor whose text a page gets when the decoding (and its fallback) kept nothing:
#: the best of the classic extractors on the wcxb pages where ``auto`` returned nothing
#: (figures in ``benchmarks/results/wholeweb.md``).  None: leave such a page empty.
EMPTY_FALLBACK: str | None = "boilerpipe-article"
#: ``AutoExtractor(page_wide_share=...)`` value meaning "as the loaded model says".
FROM_MODEL = "model"


class Potentials(NamedTuple):
    """The fitted models a decoding reads: the first-stage block classifier, the optional
    second stage, and the pairwise model."""

    unary: Any
    stage2: Any
    pairwise: Any


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


def block_probabilities(models: Potentials, inputs: PageInputs) -> np.ndarray:
    """Each block's probability of being content: the first stage, then (when the model has
    one) the second stage over the first stage's probabilities of the block's context."""
    if not inputs.blocks:
        return np.zeros(0)
    p = models.unary.predict_proba(inputs.unary.values)[:, 1]
    if models.stage2 is not None:
        p = models.stage2.predict_proba(stage2_rows(inputs.unary.values, inputs.blocks,
                                                    p))[:, 1]
    return p


def page_probabilities(models: Potentials, inputs: PageInputs, lam: float
                       ) -> tuple[np.ndarray, np.ndarray]:
    """A page's block probabilities (:func:`block_probabilities`) and neighbour-pair
    probabilities, predicted with one thread (a page has a few hundred rows)."""
    with single_threaded():
        unary_p = block_probabilities(models, inputs)
        if lam == 0 and not len(inputs.pairs):  # Viterbi reads no pair terms
            return unary_p, np.full((max(len(unary_p) - 1, 0), 4), 0.25)
        return unary_p, pair_probabilities(models.pairwise, inputs.pairs.values)


class Decoding(NamedTuple):
    """A page's decoded block ``labels`` (1 = text) and the indices of the blocks that are
    its reader ``comments`` (never labelled text)."""

    labels: list[int]
    comments: list[int]


def decoded_parts(blocks: Sequence[Block], unary_p: np.ndarray, pair_p: np.ndarray,
                  lam: float, bias: float, fallback: bool = True,
                  comment_cut: bool = True, related_cut: bool = True,
                  comment_link_headings: bool = COMMENT_LINK_HEADINGS_DEFAULT,
                  container_fill: bool = CONTAINER_FILL_DEFAULT,
                  tail_trim: bool = TAIL_TRIM_DEFAULT,
                  page_type: str | Callable[[], str] = "") -> Decoding:
    """Block labels from the potentials: Viterbi with weight ``lam`` and ``bias``, then the
    fallback, the lists, tables and code blocks of the main container and the lists that
    fill a gap of the kept text there (``container_fill``,
    :func:`~corpuscrawl.extract.segment.container.fill_container`,
    :func:`~corpuscrawl.extract.segment.container.fill_list_gaps`; on a page whose
    ``page_type`` is one of
    :data:`~corpuscrawl.extract.segment.container.WHOLE_FILL_TYPES`, every kind of block
    of the main container between its first and last kept block; ``page_type`` may be a
    function giving it, called only when that step would change a label), the comment cut
    (``comment_link_headings``: may a link be its heading), the related-content cut
    (:mod:`corpuscrawl.extract.segment.sections`) and the tail trim (``tail_trim``,
    :func:`~corpuscrawl.extract.segment.edges.trim_tail`); with the comment bodies of
    the section the comment cut found."""
    labels = viterbi(unary_p, pair_p, lam, bias)
    if fallback:
        labels = fallback_region(unary_p, labels)
    if container_fill:
        labels = fill_container(blocks, labels, unary_p)
        if LIST_GAPS_DEFAULT:
            labels = fill_list_gaps(blocks, labels, unary_p)
        filled = fill_container(blocks, labels, unary_p,
                                min_probability=WHOLE_FILL_MIN_PROBABILITY,
                                structured_only=False)
        if filled != labels and (page_type if isinstance(page_type, str)
                                 else page_type()) in WHOLE_FILL_TYPES:
            labels = filled
    comments: list[int] = []
    if comment_cut:
        cut = find_comment_cut(blocks, labels, unary_p, link_headings=comment_link_headings)
        if cut is not None:
            labels = apply_comment_cut(blocks, labels, cut)
            comments = comment_blocks(blocks, labels, cut)
    if related_cut:
        labels = cut_related(blocks, labels)
    if tail_trim:
        labels = trim_tail(blocks, labels)
    return Decoding(labels, comments)


def decoded_labels(blocks: Sequence[Block], unary_p: np.ndarray, pair_p: np.ndarray,
                   lam: float, bias: float, fallback: bool = True,
                   comment_cut: bool = True, related_cut: bool = True,
                   comment_link_headings: bool = COMMENT_LINK_HEADINGS_DEFAULT,
                   container_fill: bool = CONTAINER_FILL_DEFAULT,
                   tail_trim: bool = TAIL_TRIM_DEFAULT,
                   page_type: str | Callable[[], str] = "") -> list[int]:
    """The labels of :func:`decoded_parts`."""
    return decoded_parts(blocks, unary_p, pair_p, lam, bias, fallback, comment_cut,
                         related_cut, comment_link_headings, container_fill, tail_trim,
                         page_type).labels


class AutoModel(LearnedModel):
    """``auto``: gradient-boosted block classifier, pairwise potentials and Viterbi decoding,
    fallback, section cuts and the page-level check (the module docstring has the steps).

    Parameters: the base extractors whose ``votes`` join the block features, the gold
    coverage ``threshold`` above which a training block is content, the boosted trees'
    ``max_iter`` / ``max_leaf_nodes`` / ``learning_rate``, the pairwise model's
    ``max_pair_rows``, the ``decoding_folds`` on whose out-of-fold decoding λ, the bias and
    the page check are chosen, the optional second stage (``stacking``,
    ``stage2_max_iter``), the feature switches ``title_features`` and ``relative_masks``,
    whether to learn a ``page_check``, the decoding steps ``fallback``,
    ``comment_cut``, ``related_cut`` and whether a link may head a comment section
    (``comment_link_headings``), and the share of a page's blocks at which a class/id
    keyword bit is cleared before prediction (``page_wide_share``, None: never).

    Fitted attributes (set by ``corpuscrawl.learn.auto_trainer.fit_auto``): ``unary_``, ``stage2_``
    (None without stacking), ``pairwise_``, ``lambda_``, ``bias_``, ``page_check_`` (a :class:`PageCheck` or None),
    ``feature_names_in_`` (the block columns, votes and headline features included),
    ``pair_columns_`` (the block columns the pairwise rows repeat),
    ``pair_feature_names_``, ``label_counts_`` and ``fit_info_`` (what fitting chose and
    measured, for the card).
    """

    name = "auto"
    description = (
        "corpuscrawl's learned extractor: gradient-boosted block classifier over block, "
        "context and headline features (optionally base-extractor votes and a second "
        "stage over the first stage's probabilities of the block's neighbours and "
        "regions), smoothed by pairwise potentials with Viterbi (λ and bias chosen on "
        "out-of-fold decoding of the training pages), with a per-page fallback, a "
        "comment cut, a related-content cut and a page-level check that replaces a lost "
        "article by the robust extractors' consensus (thresholds learned on the "
        "out-of-fold decoding).")
    base_param = "votes"

    def __init__(self, votes: Sequence[str] = VOTES_DEFAULT,
                 threshold: float = BLOCK_THRESHOLD_DEFAULT,
                 max_iter: int = MAX_ITER_DEFAULT,
                 max_leaf_nodes: int = MAX_LEAF_NODES_DEFAULT,
                 learning_rate: float = LEARNING_RATE_DEFAULT,
                 max_pair_rows: int = MAX_PAIR_ROWS_DEFAULT,
                 decoding_folds: int = DECODING_FOLDS_DEFAULT,
                 stacking: bool = STACKING_DEFAULT,
                 stage2_max_iter: int = STAGE2_MAX_ITER_DEFAULT,
                 title_features: bool = TITLE_FEATURES_DEFAULT,
                 relative_masks: bool = RELATIVE_MASKS_DEFAULT,
                 page_check: bool = PAGE_CHECK_DEFAULT,
                 fallback: bool = True, comment_cut: bool = True, related_cut: bool = True,
                 comment_link_headings: bool = COMMENT_LINK_HEADINGS_DEFAULT,
                 page_wide_share: float | None = PAGE_WIDE_SHARE_DEFAULT):
        self.votes = votes
        self.threshold = threshold
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.learning_rate = learning_rate
        self.max_pair_rows = max_pair_rows
        self.decoding_folds = decoding_folds
        self.stacking = stacking
        self.stage2_max_iter = stage2_max_iter
        self.title_features = title_features
        self.relative_masks = relative_masks
        self.page_check = page_check
        self.fallback = fallback
        self.comment_cut = comment_cut
        self.related_cut = related_cut
        self.comment_link_headings = comment_link_headings
        self.page_wide_share = page_wide_share

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A model file without these decoding parameters decodes with their defaults.
        state.setdefault("comment_link_headings", COMMENT_LINK_HEADINGS_DEFAULT)
        state.setdefault("page_wide_share", PAGE_WIDE_SHARE_DEFAULT)
        super().__setstate__(state)

    @property
    def potentials(self) -> Potentials:
        """The fitted models as fitted (scikit-learn's own prediction)."""
        check_fitted(self)
        return Potentials(self.unary_, self.stage2_, self.pairwise_)

    @property
    def compiled_potentials(self) -> Potentials:
        """The fitted models as predicted with: tree models compiled (:mod:`.forest`)."""
        return self._runtime_parts()["potentials"]

    def _runtime_parts(self) -> dict[str, Any]:
        """What prediction derives from the fitted attributes once: the tree models compiled
        for one-call prediction (identical probabilities, :mod:`.forest`), the vote and
        robust extractors."""
        runtime = self.__dict__.get("_runtime")
        if runtime is None:
            check_fitted(self)
            runtime = {
                "potentials": Potentials(
                    compile_forest(self.unary_),
                    compile_forest(self.stage2_) if self.stage2_ is not None else None,
                    self.pairwise_),
                "voters": [get_extractor(n) for n in self.votes_],
            }
            self.__dict__["_runtime"] = runtime
        return runtime

    def _outputs(self, page: Page) -> list[str]:
        outputs = []
        for extractor in self._runtime_parts()["voters"]:
            try:
                outputs.append(extractor.extract(page))
            except Exception:  # a failing voter is an empty vote, never a failed page
                outputs.append("")
        return outputs

    def page_inputs(self, page: Page) -> PageInputs:
        """The page's blocks and feature rows, checked against the names fitted on."""
        inputs = page_inputs(page, self._outputs(page), self.pair_columns_, self.title_features,
                             self.relative_masks, pairs=self.lambda_ != 0,
                             votes=self.votes_, page_wide_share=self.page_wide_share)
        check_feature_names(self.feature_names_in_, inputs.unary.names, self.name)
        if len(inputs.pairs.names):
            check_feature_names(self.pair_feature_names_, inputs.pairs.names, self.name)
        return inputs

    def decode(self, inputs: PageInputs, potentials: Potentials | None = None
               ) -> tuple[np.ndarray, list[int]]:
        """Block probabilities and labels of a page: unary and pairwise potentials, Viterbi,
        the fallback and the section cuts (:func:`decoded_labels`)."""
        unary_p, decoding = self.decode_parts(inputs, potentials)
        return unary_p, decoding.labels

    def decode_parts(self, inputs: PageInputs, potentials: Potentials | None = None,
                     page_type: str | Callable[[], str] = "") -> tuple[np.ndarray, Decoding]:
        """:meth:`decode` with the reader-comment blocks (:func:`decoded_parts`; ``page_type``:
        the page's type, or a function giving it, which a decoding step depends on)."""
        if not inputs.blocks:
            return np.zeros(0), Decoding([], [])
        models = potentials or self.compiled_potentials
        unary_p, pair_p = page_probabilities(models, inputs, self.lambda_)
        return unary_p, decoded_parts(inputs.blocks, unary_p, pair_p, self.lambda_,
                                      self.bias_, self.fallback, self.comment_cut,
                                      self.related_cut, self.comment_link_headings,
                                      page_type=page_type)

    def predict_proba(self, pages: Sequence[Page]) -> list[np.ndarray]:
        """Per page, its blocks' probabilities of being content (``n_blocks × 2``, columns
        boilerplate and content), from the first stage (and the second when there is one)."""
        out = []
        for page in pages:
            inputs = self.page_inputs(completed_stream(page))
            with single_threaded():
                p = block_probabilities(self.compiled_potentials, inputs)
            out.append(np.column_stack([1 - p, p]) if len(p) else np.zeros((0, 2)))
        return out

    def extract(self, page: Page) -> str:
        """Text of the blocks labelled content, one per line; the robust extractors'
        consensus instead when the page-level check (:mod:`.page_check`) fires; the
        :data:`EMPTY_FALLBACK`'s text when nothing was kept (:meth:`extract_parts`)."""
        return self.extract_parts(page).text

    def review(self, page: Page) -> Review:
        """:meth:`extract` with what the page-level check decided."""
        return self._reviewed(page)[0]

    def extract_parts(self, page: Page) -> Extracted:
        """:meth:`extract`'s text and the page's reader comments: the comment bodies of the
        section the comment cut found.  When the page-level check replaces the text, the
        decoding it rejected found no comments either: there are none.  A page where
        nothing was kept gets :data:`EMPTY_FALLBACK`'s text (and no comments)."""
        review, comments = self._reviewed(page)
        if not review.text.strip() and EMPTY_FALLBACK:
            return Extracted(self._empty_fallback(page), "")
        if review.replaced_by:
            return Extracted(review.text, "")
        return Extracted(review.text, comments)

    def _empty_fallback(self, page: Page) -> str:
        """The text of :data:`EMPTY_FALLBACK` on a page where the decoding kept nothing
        ("" when it fails too)."""
        runtime = self._runtime_parts()
        if "empty_fallback" not in runtime:
            runtime["empty_fallback"] = get_extractor(EMPTY_FALLBACK)
        try:
            return runtime["empty_fallback"].extract(page)
        except Exception:  # a failing fallback leaves the page empty, as before
            return ""

    def _reviewed(self, page: Page) -> tuple[Review, str]:
        served = page
        page = completed_stream(page)  # streamed segments where the browser puts them
        inputs = self.page_inputs(page)
        if not inputs.blocks:
            return Review(""), ""
        # The type of the page as served, as the crawl's document records it (typed once:
        # Page.page_type), asked only when the decoding depends on it.
        unary_p, (labels, comment_ids) = self.decode_parts(
            inputs, page_type=lambda: page_type(served))
        text = "\n".join(b.text for b, lab in zip(inputs.blocks, labels, strict=True) if lab)
        comments = "\n".join(inputs.blocks[j].text for j in comment_ids)
        if self.page_check_ is None:
            return Review(text), comments
        return self.page_check_.review(page, inputs.blocks, unary_p, labels, text), comments


def _share(value: Any) -> float | None:
    """A valid ``page_wide_share`` option, or :class:`ExtractorError` saying what is wrong."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise ExtractorError(f"auto: page_wide_share must be a share of blocks in (0, 1], "
                             f"None or {FROM_MODEL!r}; got {value!r}")
    return float(value)


class AutoExtractor(LearnedExtractor):
    """The ``auto`` extractor: :class:`AutoModel` loaded from ``models/auto.skops``.

    ``page_wide_share`` (an extractor option, e.g. ``CORPUSCRAWL_EXTRACTOR_OPTIONS =
    {"auto": {"page_wide_share": 0.98}}``): clear the class/id keyword bits that at least
    this share of a page's blocks carry (:data:`PAGE_WIDE_SHARE_CHOSEN`; None: never;
    ``"model"``: as the loaded model says, off by default).
    """

    name = "auto"
    model_class = AutoModel
    estimator: AutoModel
    #: The model files besides its own that shape its text (the page types a decoding step
    #: reads), for the digest of what shapes a page's text (``pagetext.extraction``).
    other_model_files: tuple[str, ...] = (PAGE_TYPE_MODEL_FILE,)

    def __init__(self, model: str | None = None, models_dir: str | Path | None = None,
                 estimator: AutoModel | None = None,
                 page_wide_share: float | str | None = FROM_MODEL):
        super().__init__(model, models_dir, estimator)
        if page_wide_share != FROM_MODEL:
            # A copy: the loaded model (and its compiled trees) is shared, never changed.
            self.estimator = copy.copy(self.estimator).set_params(
                page_wide_share=_share(page_wide_share))

    def review(self, page: Page) -> Review:
        """:meth:`AutoModel.review` of the loaded model."""
        return self.estimator.review(page)

    def extract_parts(self, page: Page) -> Extracted:
        """:meth:`AutoModel.extract_parts` of the loaded model: text and reader comments."""
        return self.estimator.extract_parts(page)


__all__ = [
    "CONTAINER_FILL_DEFAULT",
    "FROM_MODEL",
    "LIST_GAPS_DEFAULT",
    "PAGE_WIDE_SHARE_CHOSEN",
    "PAGE_WIDE_SHARE_DEFAULT",
    "TAIL_TRIM_DEFAULT",
    "AutoExtractor",
    "AutoModel",
    "Decoding",
    "Potentials",
    "block_probabilities",
    "decoded_labels",
    "decoded_parts",
    "fallback_region",
    "page_probabilities",
]
