"""Word-level precision, recall and F1 of an extraction against gold text.

Source: Bakić's thesis ch. 2, §4.4, §6.2.  Both texts lose any leftover
HTML tags and are split into words on whitespace (optionally dropping every
character above 127 first, as the thesis did).  TP is the length of the
longest common subsequence of the two word sequences, FP = |extracted| − TP,
FN = |gold| − TP.

A set of documents is scored by **summing** TP, FP and FN and computing P/R/F1
from the sums (each document weighted by its length); the per-document mean of
the ratios is reported as a second figure.

Conventions where a ratio is 0/0 (not fixed by the thesis): a ratio whose
denominator is zero is 1.0 when both texts are empty (an empty extraction of a
page without content is a perfect answer) and 0.0 otherwise.  So an empty
extraction against non-empty gold scores P = R = F1 = 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from corpuscrawl.evaluation.lcs import lcs_length, levenshtein

__all__ = ["Score", "Summary", "tokenize", "score", "summarize", "ratio"]

# Leftover markup in gold or extracted text: comments, then anything shaped like a tag
# (a "<" directly followed by a letter, "/" or "!").  A lone "<" as in "a < b" is kept.
_COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
_TAG_RE = re.compile(r"</?[A-Za-z][^<>]*>|<![^<>]*>")
_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]+")


def tokenize(text: str, ascii_only: bool = False) -> list[str]:
    """Words of ``text`` for scoring: leftover HTML tags removed, split on whitespace.

    A removed tag separates words (``a<br>b`` is two words).  With
    ``ascii_only`` every character above 127 is dropped before splitting (the
    thesis' preprocessing); words that become empty disappear.
    """
    if "<" in text:
        text = _TAG_RE.sub(" ", _COMMENT_RE.sub(" ", text))
    if ascii_only:
        text = _NON_ASCII_RE.sub("", text)
    return text.split()


def ratio(numerator: int, denominator: int, both_empty: bool) -> float:
    """``numerator / denominator``, or the 0/0 convention (1.0 if both texts are empty)."""
    if denominator:
        return numerator / denominator
    return 1.0 if both_empty else 0.0


@dataclass(frozen=True, slots=True)
class Score:
    """Word-level comparison of one extraction with its gold text."""

    tp: int
    fp: int
    fn: int
    levenshtein: int | None = None

    @property
    def both_empty(self) -> bool:
        """True when extraction and gold are both empty (a perfect "no content" answer)."""
        return self.tp == self.fp == self.fn == 0

    @property
    def precision(self) -> float:
        """Share of extracted words that are in the LCS with the gold text."""
        return ratio(self.tp, self.tp + self.fp, self.both_empty)

    @property
    def recall(self) -> float:
        """Share of gold words that the extraction recovered."""
        return ratio(self.tp, self.tp + self.fn, self.both_empty)

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall, computed as 2TP / (2TP + FP + FN)."""
        return ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn, self.both_empty)


def score(extracted: str, gold: str, ascii_only: bool = False,
          with_levenshtein: bool = True) -> Score:
    """Score one extracted text against its gold text (see the module docstring)."""
    ext_words = tokenize(extracted, ascii_only)
    gold_words = tokenize(gold, ascii_only)
    # Map words to small ints once: hashing and comparing ints is cheaper than strings.
    ids: dict[str, int] = {}
    ext_ids = [ids.setdefault(w, len(ids)) for w in ext_words]
    gold_ids = [ids.setdefault(w, len(ids)) for w in gold_words]
    tp = lcs_length(ext_ids, gold_ids)
    dist = levenshtein(ext_ids, gold_ids) if with_levenshtein else None
    return Score(tp=tp, fp=len(ext_ids) - tp, fn=len(gold_ids) - tp, levenshtein=dist)


@dataclass(frozen=True, slots=True)
class Summary:
    """Scores of a set of documents: summed counts (the headline) and per-document means."""

    documents: int
    tp: int
    fp: int
    fn: int
    mean_precision: float
    mean_recall: float
    mean_f1: float
    levenshtein: int | None = None

    @property
    def precision(self) -> float:
        """Precision from the summed counts (documents weighted by length)."""
        return ratio(self.tp, self.tp + self.fp, self.tp == self.fp == self.fn == 0)

    @property
    def recall(self) -> float:
        """Recall from the summed counts."""
        return ratio(self.tp, self.tp + self.fn, self.tp == self.fp == self.fn == 0)

    @property
    def f1(self) -> float:
        """F1 from the summed counts: 2TP / (2TP + FP + FN)."""
        return ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn,
                     self.tp == self.fp == self.fn == 0)


def summarize(scores: Iterable[Score]) -> Summary:
    """Aggregate per-document scores: sum TP/FP/FN, average the per-document ratios.

    The summed Levenshtein distance is given only when every score has one.
    An empty input gives a summary of zero documents with means of 0.0.
    """
    items = list(scores)
    n = len(items)
    distances = [s.levenshtein for s in items]
    return Summary(
        documents=n,
        tp=sum(s.tp for s in items),
        fp=sum(s.fp for s in items),
        fn=sum(s.fn for s in items),
        mean_precision=sum(s.precision for s in items) / n if n else 0.0,
        mean_recall=sum(s.recall for s in items) / n if n else 0.0,
        mean_f1=sum(s.f1 for s in items) / n if n else 0.0,
        levenshtein=sum(d for d in distances if d is not None)
        if n and None not in distances else None,
    )
