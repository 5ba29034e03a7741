"""Exact word-level LCS length and Levenshtein distance (rapidfuzz), plus textbook references.

The evaluation scores an extraction by the longest common subsequence of the
extracted and gold word sequences, plus the word-level Levenshtein distance
(Kohlschütter's thesis, ch. 2 and §4.4; it computes them with Hirschberg's
linear-space algorithm).  Only the lengths are needed, never the alignment, so
the bit-parallel algorithms give the same exact numbers faster: rapidfuzz's
``LCSseq`` (Hyyrö's bit-vector LCS) and ``Levenshtein`` (Myers/Hyyrö), which
accept sequences of hashable items, so words play the role of characters.

rapidfuzz maps each word to a 64-bit hash; two distinct words of one page
pair would have to collide for a figure to change.  The dynamic programmes
below are the references the tests compare against.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from rapidfuzz.distance import LCSseq, Levenshtein

__all__ = ["lcs_length", "levenshtein", "lcs_length_dp", "levenshtein_dp"]


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence of two sequences of words (exact)."""
    return LCSseq.similarity(a, b)


def levenshtein(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Word-level edit distance: insertions, deletions and substitutions of whole items."""
    return Levenshtein.distance(a, b)


def lcs_length_dp(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Reference LCS length by the textbook row-by-row dynamic programme (slow; for tests)."""
    prev = [0] * (len(b) + 1)
    for x in a:
        row = [0]
        for j, y in enumerate(b):
            row.append(prev[j] + 1 if x == y else max(prev[j + 1], row[j]))
        prev = row
    return prev[-1]


def levenshtein_dp(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Reference edit distance by the textbook dynamic programme (slow; for tests)."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        row = [i]
        for j, y in enumerate(b, 1):
            row.append(min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = row
    return prev[-1]
