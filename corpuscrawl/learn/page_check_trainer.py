"""Learning the page-level check on ``auto``: :class:`PageCheckEstimator`, the predictor
:class:`corpuscrawl.extract.learned.page_check.PageCheck` with ``fit``.

The check's two step-1 thresholds are chosen on the *out-of-fold* decoding of
the training pages (``auto``'s decoding folds, :mod:`corpuscrawl.learn.auto_trainer`):
every candidate pair of :data:`KEEP_SHARE_GRID` × :data:`CONFIDENCE_GRID` is
applied to every training page, the pages where it fires and the robust
extractors agree get the consensus text, and the pair with the best summed F1
over all training pages wins (fewer replacements on a tie).  When no pair beats
never replacing, no check is kept.  Lost articles (F1 < 0.5 while a robust
extractor reaches 0.8, :mod:`corpuscrawl.evaluation.lost`) are counted before
and after for the model card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from corpuscrawl.evaluation.lost import LOST_BELOW_DEFAULT, OTHER_AT_LEAST_DEFAULT
from corpuscrawl.evaluation.metrics import score, summarize
from corpuscrawl.extract.learned.page_check import (
    ROBUST_DEFAULT,
    PageCheck,
    consensus,
    robust_agree,
    unsure_of_running_text,
    words_of,
)
from corpuscrawl.extract.segment.cdom import Block
from corpuscrawl.learn.estimator import Estimator

#: Candidate kept shares of step 1 (``auto`` kept less than this share of the running text).
KEEP_SHARE_GRID = (0.1, 0.25, 0.5)
#: Candidate confidences of step 1 (no running-text block at this probability or above).
CONFIDENCE_GRID = (0.1, 0.2, 0.3, 0.5, 0.7, 0.9)


def fit_page_check(blocks: Sequence[Sequence[Block]], unary_ps: Sequence[np.ndarray | None],
                   labels: Sequence[Sequence[int]], texts: Sequence[str],
                   robust_texts: Sequence[Sequence[str]], golds: Sequence[str],
                   robust: Sequence[str] = ROBUST_DEFAULT
                   ) -> tuple[PageCheck | None, dict[str, Any]]:
    """A :class:`PageCheck` of the ``robust`` extractors fitted on out-of-fold decoded
    training pages (:func:`learn_thresholds`), or None when no thresholds beat never
    replacing; and what the check does on these pages (``fit_info_``)."""
    check = PageCheckEstimator(robust=tuple(robust)).fit(blocks, unary_ps, labels, texts,
                                                        robust_texts, golds)
    return (check.predictor() if check.fit_info_["replaced"] else None), check.fit_info_


def learn_thresholds(check: PageCheck, blocks: Sequence[Sequence[Block]],
                     unary_ps: Sequence[np.ndarray | None], labels: Sequence[Sequence[int]],
                     texts: Sequence[str], robust_texts: Sequence[Sequence[str]],
                     golds: Sequence[str]) -> PageCheck:
    """Learn step 1's thresholds of ``check`` from out-of-fold decoded training pages.

    Per page: its blocks, ``auto``'s held-out block probabilities (None: no blocks), labels
    and text, the robust extractors' texts and the gold.  Sets ``keep_share_`` and
    ``confidence_`` (both 0, a check that never fires, when no thresholds beat never
    replacing) and ``fit_info_``: pages where it fires and replaces, lost articles and
    summed F1 before and after.
    """
    n = len(texts)
    auto_scores = [score(t, g, with_levenshtein=False) for t, g in zip(texts, golds, strict=True)]
    replacement: dict[int, Any] = {}
    agreeing: list[int] = []
    for i in range(n):
        if unary_ps[i] is None or not unsure_of_running_text(
                blocks[i], unary_ps[i], labels[i], max(KEEP_SHARE_GRID), max(CONFIDENCE_GRID),
                check.min_running_words):
            continue  # fires under no candidate thresholds
        outputs = [words_of(t) for t in robust_texts[i]]
        chosen, _ = consensus(outputs)
        if robust_agree(outputs, chosen, check.min_consensus_words, check.min_agreement):
            agreeing.append(i)
            replacement[i] = score(robust_texts[i][chosen], golds[i], with_levenshtein=False)
    best: tuple[float, int, float, float] = (summarize(auto_scores).f1, 0, 0.0, 0.0)
    for share in KEEP_SHARE_GRID:
        for confidence in CONFIDENCE_GRID:
            replaced = [i for i in agreeing if unsure_of_running_text(
                blocks[i], unary_ps[i], labels[i], share, confidence,  # type: ignore[arg-type]
                check.min_running_words)]
            after = list(auto_scores)
            for i in replaced:
                after[i] = replacement[i]
            f1 = summarize(after).f1
            if f1 > best[0] + 1e-9 or (abs(f1 - best[0]) <= 1e-9 and 0 < len(replaced) < best[1]):
                best = (f1, len(replaced), share, confidence)
    after = list(auto_scores)
    if best[1]:
        for i in agreeing:
            if unsure_of_running_text(blocks[i], unary_ps[i], labels[i], best[2],  # type: ignore[arg-type]
                                      best[3], check.min_running_words):
                after[i] = replacement[i]
    info: dict[str, Any] = {
        "pages": n, "candidates": len(agreeing), "replaced": best[1],
        "keep_share": best[2], "confidence": best[3],
        "f1_before": round(summarize(auto_scores).f1, 4), "f1_after": round(best[0], 4),
        "lost_before": sum(_lost(s, r, g) for s, r, g in zip(auto_scores, robust_texts, golds,
                                                             strict=True)),
        "lost_after": sum(_lost(s, r, g) for s, r, g in zip(after, robust_texts, golds,
                                                            strict=True))}
    if not best[1]:
        info["note"] = "no thresholds beat never replacing"
    check.keep_share_, check.confidence_ = best[2], best[3]
    check.fit_info_ = info
    return check


def _lost(s: Any, robust_texts: Sequence[str], gold: str) -> bool:
    """Is the page a lost article of ``s`` against the robust extractors' texts?"""
    if s.tp + s.fn == 0 or s.f1 >= LOST_BELOW_DEFAULT:
        return False
    return any(score(t, gold, with_levenshtein=False).f1 >= OTHER_AT_LEAST_DEFAULT
               for t in robust_texts)


class PageCheckEstimator(Estimator, PageCheck):
    """The page-level check with ``fit``: the parameters and fitted attributes of
    :class:`PageCheck`."""

    def fit(self, blocks: Sequence[Sequence[Block]], unary_ps: Sequence[np.ndarray | None],
            labels: Sequence[Sequence[int]], texts: Sequence[str],
            robust_texts: Sequence[Sequence[str]], golds: Sequence[str]
            ) -> PageCheckEstimator:
        """Learn step 1's thresholds from out-of-fold decoded training pages (per page:
        blocks, held-out probabilities, labels, text, the robust texts and the gold) with
        :func:`learn_thresholds`; returns ``self``."""
        learn_thresholds(self, blocks, unary_ps, labels, texts, robust_texts, golds)
        return self


__all__ = ["CONFIDENCE_GRID", "KEEP_SHARE_GRID", "PageCheckEstimator", "fit_page_check",
           "learn_thresholds"]
