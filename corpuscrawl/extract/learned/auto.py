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
   the best one.
5. **Section cuts** (:mod:`corpuscrawl.extract.segment.sections`): kept blocks
   after a reader-comment heading outside the article's element, and kept
   related-content regions, are dropped.
6. **Page-level check** (:mod:`corpuscrawl.extract.learned.page_check`, when the
   model carries one): on a page where ``auto`` keeps little of the running
   text and is unsure of all of it, the robust classic extractors' consensus
   replaces its text.

Ancestor-tag and class-keyword bits can be taken relative to the page
(``state["relative_masks"]``,
:func:`corpuscrawl.extract.learned.block_features.page_relative`): a keyword
shared by most of the page's blocks then no longer drags every block down.
The shipped model uses the raw bits (the relative ones scored lower overall,
:data:`corpuscrawl.learn.auto.RELATIVE_MASKS_DEFAULT`).

Training is :mod:`corpuscrawl.learn.auto`; the measurements behind each step are
in ``benchmarks/results/learned.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.learned.forest import compile_forest
from corpuscrawl.extract.learned.models import load_model
from corpuscrawl.extract.learned.page_check import PageCheck, Review
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
#: A page-wide class keyword (``<body class="... hidecomments ...">``) can pull every
#: article block of a site the gold sets do not have to 0.1-0.2; at 0.1 five trafilatura
#: snippet pages keep their article (snippet F1 0.9092 -> 0.9113) while the out-of-fold
#: decoding of the training pages stays at 0.9405 (``benchmarks/results/learned.md``).
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
        unary_p = block_probabilities(state, inputs)
        if state.get("lambda") == 0 and not len(inputs.pairs):  # Viterbi reads no pair terms
            return unary_p, np.full((max(len(unary_p) - 1, 0), 4), 0.25)
        return unary_p, pair_probabilities(state["pairwise"], inputs.pairs)


def decoded_labels(blocks: Sequence[Block], unary_p: np.ndarray, pair_p: np.ndarray,
                   lam: float, bias: float, fallback: bool = True,
                   comment_cut: bool = True, related_cut: bool = True) -> list[int]:
    """Block labels from the potentials: Viterbi with weight ``lam`` and ``bias``, then the
    fallback, the comment cut and the related-content cut (:mod:`corpuscrawl.extract.segment.sections`)."""
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
        check = self.state.get("page_check")
        self.check = PageCheck(check) if check else None

    def _outputs(self, page: Page) -> list[str]:
        outputs = []
        for extractor in self.voters:
            try:
                outputs.append(extractor.extract(page))
            except Exception:  # a failing voter is an empty vote, never a failed page
                outputs.append("")
        return outputs

    def extract(self, page: Page) -> str:
        """Text of the blocks labelled content, one per line; the robust extractors'
        consensus instead when the page-level check (:mod:`.page_check`) fires."""
        return self.review(page).text

    def review(self, page: Page) -> Review:
        """:meth:`extract` with what the page-level check decided."""
        state = self._predicting
        inputs = page_inputs(page, self._outputs(page), state.get("pair_columns"),
                             state.get("title_features", False), state.get("relative_masks", False),
                             pairs=state["lambda"] != 0)
        if not inputs.blocks:
            return Review("")
        unary_p, pair_p = page_probabilities(state, inputs)
        labels = decoded_labels(inputs.blocks, unary_p, pair_p, state["lambda"], state["bias"],
                                state.get("fallback", True), state.get("comment_cut", True),
                                state.get("related_cut", True))
        text = "\n".join(b.text for b, lab in zip(inputs.blocks, labels, strict=True) if lab)
        if self.check is None:
            return Review(text)
        return self.check.review(page, inputs.blocks, unary_p, labels, text)


__all__ = [
    "AutoExtractor",
    "block_probabilities",
    "decode",
    "decoded_labels",
    "fallback_region",
    "page_probabilities",
]
