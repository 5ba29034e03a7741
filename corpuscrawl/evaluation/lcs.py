"""Exact word-level LCS length and Levenshtein distance, bit-parallel, in linear memory.

Source: SPEC §2 (seed 000 ch. 2 and §4.4): the thesis scores an extraction by
the longest common subsequence of the extracted and gold word sequences,
computed with Hirschberg's linear-space algorithm, plus the word-level
Levenshtein distance.

Deviation: instead of Hirschberg's O(n·m) divide and conquer we use the
bit-parallel algorithms, which give the same exact numbers (only lengths are
needed, never the alignment itself) in O(n·⌈m/w⌉) word operations:

* LCS: Hyyrö's formulation of the Allison–Dix bit-vector algorithm
  (H. Hyyrö, "Bit-parallel LCS-length computation revisited", AWOCA 2004):
  ``U = V & M[c]; V = (V + U) | (V - U)``; the LCS length is the number of
  zero bits of ``V``.
* Levenshtein: Myers' bit-vector algorithm (G. Myers, JACM 1999) in Hyyrö's
  global-distance form (H. Hyyrö, "Explaining and extending the bit-parallel
  approximate string matching algorithm of Myers", 2001).

Words play the role of characters: every distinct word gets a bit mask of the
positions where it occurs.  Python's arbitrary-precision integers are the bit
vectors, so the word size ``w`` is in effect the whole sequence and each step
is a handful of C-level big-int operations.  Memory is O(n + m) bits per
distinct word of the shorter sequence — linear, no n×m table.

Common prefixes and suffixes are stripped first; they are always part of an
optimal alignment and near-identical texts then cost almost nothing.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

__all__ = ["lcs_length", "levenshtein", "lcs_length_dp", "levenshtein_dp"]


def _strip_common_ends(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[int, int, int]:
    """Length of the common prefix and of the common suffix (not overlapping) of a and b.

    Returns ``(prefix, end_a, end_b)``: the remaining middles are
    ``a[prefix:end_a]`` and ``b[prefix:end_b]``.
    """
    n, m = len(a), len(b)
    limit = min(n, m)
    prefix = 0
    while prefix < limit and a[prefix] == b[prefix]:
        prefix += 1
    end_a, end_b = n, m
    while end_a > prefix and end_b > prefix and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    return prefix, end_a, end_b


def _position_masks(seq: Sequence[Hashable]) -> dict[Hashable, int]:
    """For every distinct item of ``seq``, an int whose bit ``j`` is set where ``seq[j]`` is it."""
    positions: dict[Hashable, list[int]] = {}
    for j, item in enumerate(seq):
        positions.setdefault(item, []).append(j)
    masks: dict[Hashable, int] = {}
    for item, where in positions.items():
        if len(where) == 1:
            masks[item] = 1 << where[0]
        else:
            # Build the bit string once instead of OR-ing growing integers in a loop.
            bits = bytearray(b"0") * (where[-1] + 1)
            for j in where:
                bits[-1 - j] = 0x31  # ord("1")
            masks[item] = int(bits, 2)
    return masks


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence of two sequences of words (exact).

    Any hashable items work (words, word ids).  Runs in
    O(len(a)·len(b)/machine-word) time and linear memory.
    """
    prefix, end_a, end_b = _strip_common_ends(a, b)
    common = prefix + (len(a) - end_a)
    a_mid, b_mid = a[prefix:end_a], b[prefix:end_b]
    if not a_mid or not b_mid:
        return common
    # Loop (Python-level) over the shorter sequence, bit vectors as long as the longer.
    if len(a_mid) > len(b_mid):
        a_mid, b_mid = b_mid, a_mid
    masks = _position_masks(b_mid)
    m = len(b_mid)
    full = (1 << m) - 1
    v = full
    get = masks.get
    for item in a_mid:
        match = get(item)
        if match is None:
            continue
        u = v & match
        v = ((v + u) | (v - u)) & full
    return common + m - v.bit_count()


def levenshtein(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Word-level edit distance: insertions, deletions and substitutions of whole items.

    Myers/Hyyrö bit-parallel algorithm, exact, linear memory.
    """
    prefix, end_a, end_b = _strip_common_ends(a, b)
    a_mid, b_mid = a[prefix:end_a], b[prefix:end_b]
    if not a_mid or not b_mid:
        return len(a_mid) + len(b_mid)
    # Bit vectors over the longer sequence (the "pattern"), loop over the shorter.
    if len(a_mid) < len(b_mid):
        a_mid, b_mid = b_mid, a_mid
    masks = _position_masks(a_mid)
    m = len(a_mid)
    full = (1 << m) - 1
    high = 1 << (m - 1)
    pv, mv, score = full, 0, m
    get = masks.get
    for item in b_mid:
        eq = get(item, 0)
        xv = eq | mv
        xh = ((((eq & pv) + pv) & full) ^ pv) | eq
        ph = mv | (~(xh | pv) & full)
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = ((ph << 1) | 1) & full  # row 0 of the DP is 0,1,2,...: shift in a +1
        mh = (mh << 1) & full
        pv = mh | (~(xv | ph) & full)
        mv = ph & xv
    return score


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
