"""Training labels from gold text: how much of a segment or block the gold text covers.

Source: Bakić's thesis §4.2.3: a segment is content when the LCS of its words with
the gold text's words, divided by its word count, exceeds a threshold
(0.9 in the thesis, chosen among 0.5–0.9 whose results were "very similar").
:func:`lcs_coverage` is exactly that, used for the thesis' segments.

Blocks are much shorter than segments, and a short block ("Home", "Share")
is always fully covered by *some* words of a long gold text.  For blocks,
:func:`sequence_coverage` therefore aligns the page's whole word sequence
(all blocks in order) with the gold word sequence once, monotonically, and
counts per block the words that the alignment matched.  The alignment is
:class:`difflib.SequenceMatcher`'s (longest matching runs first, then
recursively left and right), which equals the LCS on the long shared
passages that decide labels and costs far less than a full LCS traceback.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from corpuscrawl.evaluation.metrics import tokenize
from corpuscrawl.extract.learned.agreement import lcs_coverage
from corpuscrawl.extract.learned.hybrid import SEGMENT_THRESHOLD_DEFAULT
from corpuscrawl.extract.learned.sequence import BLOCK_THRESHOLD_DEFAULT


def sequence_coverage(units: Sequence[Sequence[str]], gold: Sequence[str]) -> list[float]:
    """For each unit (a block's words), the share of its words matched by a monotone alignment
    of all units' words, in order, with the gold words."""
    ids: dict[str, int] = {}
    flat: list[int] = []
    owner: list[int] = []
    for k, unit in enumerate(units):
        for w in unit:
            flat.append(ids.setdefault(w, len(ids)))
            owner.append(k)
    gold_ids = [ids.setdefault(w, len(ids)) for w in gold]
    matched = [0] * len(units)
    if flat and gold_ids:
        matcher = SequenceMatcher(None, flat, gold_ids, autojunk=False)
        for a, _, size in matcher.get_matching_blocks():
            for pos in range(a, a + size):
                matched[owner[pos]] += 1
    return [m / len(u) if u else 0.0 for m, u in zip(matched, units, strict=True)]


def gold_words(gold: str) -> list[str]:
    """The gold text's words as the evaluation sees them (leftover tags removed)."""
    return tokenize(gold)


__all__ = [
    "BLOCK_THRESHOLD_DEFAULT",
    "SEGMENT_THRESHOLD_DEFAULT",
    "gold_words",
    "lcs_coverage",
    "sequence_coverage",
]
