"""Scoring against snippet data: texts that must appear and texts that must not.

Source: the trafilatura evaluation (``docs/evaluation.rst`` of adbar/trafilatura,
the 990 pages of ``datasets/trafilatura``).  For each page, every "with"
snippet found in the extraction is a true positive (missing: a false
negative); every "without" snippet found is a false positive (absent: a true
negative).  Precision, recall and F1 are computed from the counts summed over
all pages, as trafilatura's published table does; the issue's two shares are
reported as well: the share of "with" snippets found (= recall) and the share
of "without" snippets absent.

Matching is a substring test after collapsing all whitespace to single spaces
on both sides (extractors differ in how they break lines; that is not what
the snippets test).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from corpuscrawl.evaluation.datasets import Snippets
from corpuscrawl.evaluation.metrics import ratio

__all__ = ["SnippetScore", "SnippetSummary", "score_snippets", "summarize_snippets"]

_SPACE_RE = re.compile(r"\s+")


def _normalize(text: str) -> str:
    return _SPACE_RE.sub(" ", text).strip()


@dataclass(frozen=True, slots=True)
class SnippetScore:
    """Snippet counts of one page."""

    with_found: int
    with_total: int
    without_found: int
    without_total: int

    @property
    def tp(self) -> int:
        """"With" snippets found."""
        return self.with_found

    @property
    def fn(self) -> int:
        """"With" snippets missing."""
        return self.with_total - self.with_found

    @property
    def fp(self) -> int:
        """"Without" snippets present (boilerplate leaked into the extraction)."""
        return self.without_found

    @property
    def without_absent(self) -> int:
        """"Without" snippets correctly absent."""
        return self.without_total - self.without_found

    @property
    def precision(self) -> float:
        """TP / (TP + FP)."""
        return ratio(self.tp, self.tp + self.fp, self.tp + self.fp + self.fn == 0)

    @property
    def recall(self) -> float:
        """TP / (TP + FN): the share of "with" snippets found."""
        return ratio(self.tp, self.tp + self.fn, self.tp + self.fp + self.fn == 0)

    @property
    def f1(self) -> float:
        """2TP / (2TP + FP + FN)."""
        return ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn, self.tp + self.fp + self.fn == 0)


def score_snippets(extracted: str, snippets: Snippets) -> SnippetScore:
    """Count which of a page's snippets occur in the extracted text."""
    text = _normalize(extracted)
    found_with = sum(1 for s in snippets.with_ if _normalize(s) in text)
    found_without = sum(1 for s in snippets.without if _normalize(s) in text)
    return SnippetScore(with_found=found_with, with_total=len(snippets.with_),
                        without_found=found_without, without_total=len(snippets.without))


@dataclass(frozen=True, slots=True)
class SnippetSummary:
    """Snippet counts summed over pages, with the derived shares and P/R/F1."""

    documents: int
    total: SnippetScore
    mean_f1: float

    @property
    def with_found_share(self) -> float:
        """Share of "with" snippets found in the extractions."""
        return ratio(self.total.with_found, self.total.with_total, False)

    @property
    def without_absent_share(self) -> float:
        """Share of "without" snippets absent from the extractions."""
        return ratio(self.total.without_absent, self.total.without_total, False)

    @property
    def precision(self) -> float:
        """Precision from the summed counts."""
        return self.total.precision

    @property
    def recall(self) -> float:
        """Recall from the summed counts."""
        return self.total.recall

    @property
    def f1(self) -> float:
        """F1 from the summed counts."""
        return self.total.f1


def summarize_snippets(scores: Iterable[SnippetScore]) -> SnippetSummary:
    """Sum per-page snippet counts; the per-page mean F1 is the second figure."""
    items = list(scores)
    total = SnippetScore(
        with_found=sum(s.with_found for s in items),
        with_total=sum(s.with_total for s in items),
        without_found=sum(s.without_found for s in items),
        without_total=sum(s.without_total for s in items),
    )
    mean_f1 = sum(s.f1 for s in items) / len(items) if items else 0.0
    return SnippetSummary(documents=len(items), total=total, mean_f1=mean_f1)
