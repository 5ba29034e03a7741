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

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.learned.forest import compile_forest
from corpuscrawl.extract.learned.models import load_model
from corpuscrawl.extract.learned.sequence import (
    PageInputs,
    page_inputs,
    pair_probabilities,
    single_threaded,
    viterbi,
)
from corpuscrawl.extract.learned.stacking import stage2_rows
from corpuscrawl.extract.segment.cdom import Block
from corpuscrawl.extract.segment.sections import (
    cut_comments,
    cut_related,
)
from corpuscrawl.html.page import Page

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
    "AutoExtractor",
    "block_probabilities",
    "decode",
    "decoded_labels",
    "fallback_region",
    "page_probabilities",
]
