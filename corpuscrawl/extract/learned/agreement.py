"""Agreement of a piece of a page with an extractor's output: the share of its words
that the output's words cover, in order.

Kohlschütter's thesis (§4.2.3) labels a segment by the longest common
subsequence (LCS) of its words with the gold text's words divided by its word
count; hybrid B uses the same measure against each base extractor's output as
a feature.  The LCS length comes from rapidfuzz's bit-parallel ``LCSseq``
(Hyyrö), exact on sequences of words.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from rapidfuzz.distance import LCSseq


def lcs_coverage(words: Sequence[Hashable], reference: Sequence[Hashable]) -> float:
    """LCS(words, reference) / len(words); 0 for an empty ``words`` (Bakić's thesis §4.2.3)."""
    if not words:
        return 0.0
    return LCSseq.similarity(words, reference) / len(words)


__all__ = ["lcs_coverage"]
