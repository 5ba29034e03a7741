"""A page-level check on ``auto``: catch a model confidently wrong on a whole page.

Why: ``auto`` labels blocks one by one.  On a page whose every block the model
scores low — a site whose templates the gold sets never showed, a page-wide
class keyword (``<body class="... comments ...">``) — it keeps a teaser or
nothing, with no sign of doubt in any single block, while the classic
extractors, which judge text density and not learned cues, all return the
article.  Such a page is a *lost article* (:mod:`corpuscrawl.evaluation.lost`).

How, as an explicit cascade (:class:`PageCheck`; each step a small named
function that accepts or rejects):

1. :func:`unsure_of_running_text` (cheap, from ``auto``'s own decision): the
   page has running text (long, link-poor blocks), ``auto`` kept less than a
   share of it, and the model gave none of those blocks a high probability — a
   page it is wrong about as a whole, not one where it confidently dropped a
   comment thread.  Only then do the next steps run, so most pages pay nothing.
2. The robust extractors (:data:`ROBUST_DEFAULT`: ``bte``, ``boilerpipe-default``,
   ``readability`` — the cheap classic ones; all read the same parsed
   :class:`~corpuscrawl.html.page.Page`) run; :func:`consensus` picks the output that
   agrees best with the others (Dice overlap of their words) and
   :func:`robust_agree` rejects when it is short or agrees with nobody.
3. The consensus output replaces ``auto``'s text.

The two thresholds of step 1 (the kept share and the model's confidence) are
learned by ``corpuscrawl.learn.page_check_trainer.learn_thresholds`` on the
*out-of-fold* decoding of the training pages (``auto``'s decoding folds: every
page decoded by models that never saw it): the pair with the best summed F1
over all training pages after the replacement, fewer replacements on a tie;
when no pair beats "never replace" no check is kept.

A learned regression over page features in place of step 1's two thresholds
is measured in ``benchmarks/results/learned.md`` (page-level check section).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

from corpuscrawl.extract.learned.block_features import (
    LONG_BLOCK_LINK_DENSITY_DEFAULT,
    LONG_BLOCK_WORDS_DEFAULT,
)
from corpuscrawl.extract.learned.models import check_fitted
from corpuscrawl.extract.segment.cdom import Block

#: The robust extractors the check consults (cheap classic ones; jusText, as robust but
#: four times slower per page, is left out).
ROBUST_DEFAULT = ("bte", "boilerpipe-default", "readability")
#: Step 1 fires when the page has at least this many words in long blocks ...
MIN_RUNNING_WORDS_DEFAULT = 100
#: ... ``auto`` kept less than this share of them (the shipped model's own value is learned) ...
KEEP_SHARE_DEFAULT = 0.5
#: ... and no running-text block has this probability (likewise learned).
CONFIDENCE_DEFAULT = 0.5
#: Step 2: the consensus output has at least this many words ...
MIN_CONSENSUS_WORDS_DEFAULT = 50
#: ... and shares at least this much of its words with another robust output.
MIN_AGREEMENT_DEFAULT = 0.5


def words_of(text: str) -> Counter[str]:
    """The multiset of ``text``'s lower-cased words."""
    return Counter(text.lower().split())


def covers(a: Counter[str], b: Counter[str]) -> float:
    """Share of ``b``'s words (with multiplicity) also in ``a`` (1.0 when ``b`` is empty)."""
    total = sum(b.values())
    return sum((a & b).values()) / total if total else 1.0


def agreement(a: Counter[str], b: Counter[str]) -> float:
    """Dice overlap of two texts' words: shared words over their mean length (0 when both
    are empty).  Symmetric and length-aware: a teaser both long outputs contain agrees
    with neither of them."""
    total = sum(a.values()) + sum(b.values())
    return 2 * sum((a & b).values()) / total if total else 0.0


def running_words(blocks: Sequence[Block]) -> np.ndarray:
    """Each block's words if it is running text (long, few links), else 0."""
    return np.array([b.words if b.words >= LONG_BLOCK_WORDS_DEFAULT
                     and b.link_words <= LONG_BLOCK_LINK_DENSITY_DEFAULT * b.words else 0
                     for b in blocks], dtype=np.float64)


def unsure_of_running_text(blocks: Sequence[Block], unary_p: np.ndarray, labels: Sequence[int],
                           keep_share: float = KEEP_SHARE_DEFAULT,
                           confidence: float = CONFIDENCE_DEFAULT,
                           min_running_words: int = MIN_RUNNING_WORDS_DEFAULT) -> bool:
    """Step 1: the page has running text, ``auto`` kept less than ``keep_share`` of it and
    gave none of its blocks probability ``confidence`` or more."""
    running = running_words(blocks)
    total = float(running.sum())
    if total < min_running_words:
        return False
    kept = float(running[np.asarray(labels, dtype=bool)].sum()) if len(labels) else 0.0
    if kept >= keep_share * total:
        return False
    return float(np.asarray(unary_p)[running > 0].max()) < confidence


def consensus(outputs: Sequence[Counter[str]]) -> tuple[int, float]:
    """Index of the robust output agreeing best with the others, and that mean agreement."""
    best, best_score = -1, -1.0
    for i, a in enumerate(outputs):
        others = [agreement(a, b) for j, b in enumerate(outputs) if j != i]
        score = sum(others) / len(others) if others else 0.0
        if sum(a.values()) and score > best_score:
            best, best_score = i, score
    return best, max(best_score, 0.0)


def robust_agree(outputs: Sequence[Counter[str]], chosen: int,
                 min_words: int = MIN_CONSENSUS_WORDS_DEFAULT,
                 min_agreement: float = MIN_AGREEMENT_DEFAULT) -> bool:
    """Step 2: the consensus output is long enough and another robust output agrees with it."""
    if chosen < 0 or sum(outputs[chosen].values()) < min_words:
        return False
    return any(agreement(outputs[chosen], b) >= min_agreement
               for j, b in enumerate(outputs) if j != chosen)


@dataclass
class Review:
    """What the check decided on one page (for logging, tests and the benchmarks)."""

    text: str
    fired: bool = False
    replaced_by: str = ""


class PageCheck(BaseEstimator):
    """The cascade of :func:`unsure_of_running_text` and :func:`robust_agree`.

    Parameters: the ``robust`` extractors consulted, the running text a page needs
    (``min_running_words``), and step 2's ``min_consensus_words`` and ``min_agreement``.
    A predictor, no ``fit`` (its estimator: ``corpuscrawl.learn.page_check_trainer.PageCheckEstimator``).
    Fitted attributes (learned by ``corpuscrawl.learn.page_check_trainer.learn_thresholds`` on
    ``auto``'s out-of-fold decoding): step 1's ``keep_share_`` and ``confidence_``, and
    ``fit_info_`` (what the check does on the training pages).
    """

    def __init__(self, robust: Sequence[str] = ROBUST_DEFAULT,
                 min_running_words: int = MIN_RUNNING_WORDS_DEFAULT,
                 min_consensus_words: int = MIN_CONSENSUS_WORDS_DEFAULT,
                 min_agreement: float = MIN_AGREEMENT_DEFAULT):
        self.robust = robust
        self.min_running_words = min_running_words
        self.min_consensus_words = min_consensus_words
        self.min_agreement = min_agreement

    def with_extractors(self, extractors: Sequence[Any]) -> PageCheck:
        """Use these objects (each with ``extract(page)``) as the robust extractors."""
        self.__dict__["_runtime"] = list(extractors)
        return self

    @property
    def extractors(self) -> list[Any]:
        """The robust extractors, built from their names when first needed."""
        runtime = self.__dict__.get("_runtime")
        if runtime is None:
            from corpuscrawl.extract import get_extractor

            runtime = self.__dict__["_runtime"] = [get_extractor(n) for n in self.robust]
        return runtime

    def __getstate__(self) -> dict[str, Any]:
        state = dict(super().__getstate__())
        state.pop("_runtime", None)  # built extractors are never saved
        return state

    def robust_outputs(self, page: Any) -> list[str]:
        """The robust extractors' texts of ``page`` ("" for one that fails: never raises)."""
        out = []
        for extractor in self.extractors:
            try:
                out.append(extractor.extract(page))
            except Exception:  # a failing robust extractor is an empty opinion
                out.append("")
        return out

    def fires(self, blocks: Sequence[Block], unary_p: np.ndarray, labels: Sequence[int]) -> bool:
        """Step 1 with the learned thresholds."""
        check_fitted(self)
        return unsure_of_running_text(blocks, unary_p, labels, self.keep_share_,
                                      self.confidence_, self.min_running_words)

    def review(self, page: Any, blocks: Sequence[Block], unary_p: np.ndarray,
               labels: Sequence[int], text: str) -> Review:
        """``auto``'s ``text`` of ``page``, or the robust consensus when the check fires."""
        if not self.fires(blocks, unary_p, labels):
            return Review(text)
        return self.decide(text, self.robust_outputs(page))

    def decide(self, text: str, robust: Sequence[str]) -> Review:
        """Steps 2 and 3 given the robust outputs."""
        outputs = [words_of(t) for t in robust]
        chosen, _ = consensus(outputs)
        if not robust_agree(outputs, chosen, self.min_consensus_words, self.min_agreement):
            return Review(text, fired=True)
        return Review(robust[chosen], True, self.robust[chosen])


__all__ = [
    "ROBUST_DEFAULT",
    "PageCheck",
    "Review",
    "agreement",
    "consensus",
    "covers",
    "robust_agree",
    "unsure_of_running_text",
    "words_of",
]
