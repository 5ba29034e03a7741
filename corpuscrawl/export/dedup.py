"""Near-duplicate documents: MinHash signatures of word shingles with LSH banding.

Source: Broder (1997), "On the resemblance and containment of documents"
(MinHash of w-shingles estimates their Jaccard similarity) and the banding
scheme of Leskovec, Rajaraman & Ullman, *Mining of Massive Datasets* §3.4
(candidates are documents agreeing on all rows of at least one band; the
band/row split is chosen to put the S-curve's step at the threshold).  The
issue asks for MinHash/LSH or SimHash; MinHash was taken because its threshold
*is* a Jaccard similarity, which a user can reason about.

Implementation (vectorized with numpy, no Python step per word): the text's
words, joined by single spaces and encoded as UTF-8, are hashed all at once —
each word by a polynomial hash of its bytes mod 2**64, read off prefix sums
of the whole buffer, then finalized by MurmurHash3's 64-bit mixer;
shingles of ``shingle_words`` consecutive words are combined by a polynomial
hash and mixed.  Deviation from Broder's ``num_perm``
independent permutations: the signature is a *one permutation hash* with
densification by rotation (Li, Owen & Zhang 2012; Shrivastava & Li 2014) —
each shingle lands in one of ``num_perm`` bins and each bin keeps its minimum
— which estimates the same Jaccard similarity at O(shingles) instead of
O(shingles × num_perm) cost (the export stage must stay under 10 % of the
extraction time; benchmarks/results/boilerplate.md).  Candidates from the LSH
buckets are confirmed by the signature agreement (the Jaccard estimate), so
a document is a near-duplicate only when its estimated similarity to an
earlier one is at least ``threshold``.  Texts shorter than one shingle are
one shingle.  Everything is in memory: about ``4·num_perm`` bytes of
signature per kept document plus the band buckets.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "NUM_PERM_DEFAULT",
    "SHINGLE_WORDS_DEFAULT",
    "THRESHOLD_DEFAULT",
    "MinHasher",
    "NearDuplicateIndex",
    "lsh_bands",
    "word_hashes",
]

#: Jaccard similarity of shingle sets at and above which a document is a duplicate.
#: 0.8 is the document-level threshold of web-corpus deduplication such as Gopher's
#: (Rae et al. 2021).  On the gold texts it gives no false positive among the pairs of
#: distinct texts of one domain and finds most copies with a run of their words replaced
#: (benchmarks/results/boilerplate.md, "near-duplicates").
THRESHOLD_DEFAULT = 0.8
#: Words per shingle: 5-word shingles are short enough that an edited sentence breaks
#: few of them and long enough that common phrases do not make distinct texts similar.
SHINGLE_WORDS_DEFAULT = 5
#: Hash functions in a signature: the standard error of the Jaccard estimate is
#: sqrt(J(1-J)/num_perm) = 0.035 at J = 0.8 with 128.
NUM_PERM_DEFAULT = 128

_SHINGLE_BASE = np.uint64(1_000_003)
# Word hashes: a polynomial over the UTF-8 bytes with an odd 64-bit base (odd, so that its
# powers are invertible mod 2**64 and a word's hash can be read off prefix sums).
_BYTE_BASE = 0x9E37_79B9_7F4A_7C15
_BYTE_BASE_INVERSE = pow(_BYTE_BASE, -1, 1 << 64)
# MurmurHash3's fmix64 constants (Appleby): every output bit depends on every input bit.
_FMIX_1 = np.uint64(0xFF51_AFD7_ED55_8CCD)
_FMIX_2 = np.uint64(0xC4CE_B9FE_1A85_EC53)
_SHIFT_33 = np.uint64(33)
_SPACE = ord(" ")


class _Powers:
    """``base**i`` and ``base**-i`` mod 2**64 for i < len, grown by doubling as texts need."""

    def __init__(self) -> None:
        self.forward = np.ones(1, dtype=np.uint64)
        self.inverse = np.ones(1, dtype=np.uint64)

    def ensure(self, n: int) -> None:
        """Make at least ``n`` powers available."""
        if n <= len(self.forward):
            return
        size = max(n, 2 * len(self.forward))
        for name, base in (("forward", _BYTE_BASE), ("inverse", _BYTE_BASE_INVERSE)):
            steps = np.full(size, base, dtype=np.uint64)
            steps[0] = 1
            setattr(self, name, np.cumprod(steps))  # wraps mod 2**64, as wanted


_POWERS = _Powers()


def _fmix64(h: np.ndarray) -> np.ndarray:
    h = h ^ (h >> _SHIFT_33)
    h = h * _FMIX_1
    h = h ^ (h >> _SHIFT_33)
    h = h * _FMIX_2
    return h ^ (h >> _SHIFT_33)


def word_hashes(spaced: str) -> np.ndarray:
    """64-bit hashes of the words of ``spaced`` (words separated by single spaces).

    ``h(word) = fmix64(sum(byte_j * B**j))`` over the word's UTF-8 bytes,
    all words at once from prefix sums of the whole buffer.  An empty string
    has no words.
    """
    if not spaced:
        return np.zeros(0, dtype=np.uint64)
    data = np.frombuffer(spaced.encode("utf-8"), dtype=np.uint8)
    n = data.size
    _POWERS.ensure(n + 1)
    prefix = np.zeros(n + 1, dtype=np.uint64)
    weighted = data.astype(np.uint64)  # widen first: mixed-type multiplies are slower
    np.multiply(weighted, _POWERS.forward[:n], out=weighted)
    np.add.accumulate(weighted, out=prefix[1:])
    spaces = np.flatnonzero(data == _SPACE)
    starts = np.concatenate(([0], spaces + 1))
    ends = np.concatenate((spaces, [n]))
    # sum over the word of byte_j * B**(j - start), shifted down by B**-start
    return _fmix64((prefix[ends] - prefix[starts]) * _POWERS.inverse[starts])


def lsh_bands(threshold: float, num_perm: int) -> tuple[int, int]:
    """(bands, rows) with bands·rows <= num_perm minimizing false positives + negatives.

    The probability that two documents of similarity s share a band is
    ``1 - (1 - s**rows)**bands``; the integral of it below the threshold
    (false positives) plus the integral of its complement above (false
    negatives) is minimized, as in datasketch's ``_optimal_param``.
    """
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"near-duplicate threshold must be in (0, 1), got {threshold}")
    best, best_error = (1, num_perm), float("inf")
    below = np.linspace(0.0, threshold, 200)
    above = np.linspace(threshold, 1.0, 200)
    for bands in range(1, num_perm + 1):
        rows = num_perm // bands
        fp = np.trapezoid(1 - (1 - below**rows) ** bands, below)
        fn = np.trapezoid((1 - above**rows) ** bands, above)
        if fp + fn < best_error:
            best, best_error = (bands, rows), float(fp + fn)
    return best


def _spaced(text: str | Sequence[str], spaced: bool) -> str:
    """The words of ``text`` case-folded and joined by single spaces (see MinHasher.shingles)."""
    if isinstance(text, str):
        return text if spaced else " ".join(text.casefold().split())
    return " ".join(text)


@dataclass(frozen=True)
class MinHasher:
    """Computes MinHash signatures of texts (one fixed family of hash functions per seed)."""

    num_perm: int = NUM_PERM_DEFAULT
    shingle_words: int = SHINGLE_WORDS_DEFAULT
    seed: int = 1
    _a: np.ndarray = field(init=False, repr=False)
    _b: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.num_perm < 2 or self.shingle_words < 1:
            raise ValueError("num_perm must be >= 2 and shingle_words >= 1")
        rng = np.random.default_rng(self.seed)
        # One odd 64-bit multiplier mixes the shingle hashes (multiplicative hashing).
        object.__setattr__(self, "_a", rng.integers(0, 1 << 63, dtype=np.uint64) * 2 + 1)
        object.__setattr__(self, "_b", rng.integers(0, 1 << 63, dtype=np.uint64))

    def shingles(self, text: str | Sequence[str], *, spaced: bool = False) -> np.ndarray:
        """64-bit hashes of the word shingles (repeats kept).

        ``text`` is a string (case-folded and split on whitespace here) or an
        already folded sequence of words; ``spaced=True`` says the string is
        already case-folded words separated by single spaces (as the export
        stage's normalized paragraphs are), which skips splitting it again.
        """
        h = word_hashes(_spaced(text, spaced))
        if not h.size:
            return h
        n = min(self.shingle_words, len(h))
        count = len(h) - n + 1
        acc = np.zeros(count, dtype=np.uint64)
        for k in range(n):  # polynomial hash of each window, wrapping mod 2**64
            acc = acc * _SHINGLE_BASE + h[k:k + count]
        mixed = acc * self._a + self._b
        return mixed ^ (mixed >> np.uint64(29))

    def signature(self, text: str | Sequence[str], *, spaced: bool = False) -> np.ndarray:
        """The MinHash signature (uint32 array of ``num_perm``); all-max for an empty text.

        One permutation hashing: a shingle's hash picks a bin (its value mod
        ``num_perm``) and the bin keeps its smallest value (the top 32 bits);
        empty bins borrow from the next non-empty bin to the right, shifted by
        the distance, so every position stays a valid min-hash.
        """
        shingles = self.shingles(text, spaced=spaced)
        k = self.num_perm
        if shingles.size == 0:
            return np.full(k, 0xFFFF_FFFF, dtype=np.uint32)
        bins = (shingles % np.uint64(k)).astype(np.intp)
        values = (shingles >> np.uint64(32)).astype(np.uint32)
        sig = np.full(k, 0xFFFF_FFFF, dtype=np.uint32)
        np.minimum.at(sig, bins, values)
        filled = np.zeros(k, dtype=bool)
        filled[bins] = True
        if not filled.all():
            full_idx = np.flatnonzero(filled)
            idx = np.arange(k)
            nxt = np.searchsorted(full_idx, idx) % len(full_idx)  # next filled bin, circular
            source = full_idx[nxt]
            distance = ((source - idx) % k).astype(np.uint32)
            sig = np.where(filled, sig, sig[source] ^ (distance * np.uint32(0x9E3779B1)))
        return sig

    @staticmethod
    def similarity(sig_a: np.ndarray, sig_b: np.ndarray) -> float:
        """Estimated Jaccard similarity of two signatures (share of equal values)."""
        return float(np.count_nonzero(sig_a == sig_b)) / len(sig_a)


class NearDuplicateIndex:
    """Documents kept so far; ``add`` tells whether a new text near-duplicates one of them.

    The first document wins: a near-duplicate is reported (with the key of
    the document it duplicates) and not added.
    """

    def __init__(self, threshold: float = THRESHOLD_DEFAULT,
                 num_perm: int = NUM_PERM_DEFAULT,
                 shingle_words: int = SHINGLE_WORDS_DEFAULT, seed: int = 1) -> None:
        self.threshold = threshold
        self.hasher = MinHasher(num_perm, shingle_words, seed)
        self.bands, self.rows = lsh_bands(threshold, num_perm)
        # Per band: band key -> the key of the one document with it, or a list of keys
        # when several share it.  Most band keys belong to one document, and a list per
        # band and document (~12 per document) would be that many more objects for every
        # full garbage collection to traverse, for the whole crawl.
        self._buckets: list[dict[bytes, Hashable | list[Hashable]]] = [
            {} for _ in range(self.bands)]
        self._signatures: dict[Hashable, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self._signatures)

    def _band_keys(self, sig: np.ndarray) -> list[bytes]:
        raw, step = sig.tobytes(), self.rows * sig.itemsize  # one copy, then bytes slices
        return [raw[i * step:(i + 1) * step] for i in range(self.bands)]

    def query(self, text: str | Sequence[str]) -> tuple[Hashable | None, float]:
        """The earliest kept document at or above the threshold and its similarity."""
        return self._query(self.hasher.signature(text))[:2]

    def _query(self, sig: np.ndarray) -> tuple[Hashable | None, float, list[bytes]]:
        keys = self._band_keys(sig)
        seen: set[Hashable] = set()
        best: tuple[Hashable | None, float] = (None, 0.0)
        for bucket, band_key in zip(self._buckets, keys, strict=True):
            found = bucket.get(band_key)
            if found is None:
                continue
            for other in found if type(found) is list else (found,):
                if other in seen:
                    continue
                seen.add(other)
                sim = MinHasher.similarity(sig, self._signatures[other])
                if sim >= self.threshold and sim > best[1]:
                    best = (other, sim)
        return best[0], best[1], keys

    def remove(self, key: Hashable) -> bool:
        """Forget a kept document (a richer version replaces it); False when unknown."""
        sig = self._signatures.pop(key, None)
        if sig is None:
            return False
        for bucket, band_key in zip(self._buckets, self._band_keys(sig), strict=True):
            found = bucket.get(band_key)
            if found is None:
                continue
            if type(found) is list:
                if key in found:
                    found.remove(key)
                if len(found) == 1:
                    bucket[band_key] = found[0]
                elif not found:
                    del bucket[band_key]
            elif found == key:
                del bucket[band_key]
        return True

    def add(self, key: Hashable, text: str | Sequence[str], *,
            spaced: bool = False) -> Hashable | None:
        """Keep ``text`` under ``key`` unless it near-duplicates a kept one (then return that key).

        Adding a key that is already kept returns None and changes nothing, so
        the same document offered twice is not its own duplicate.  ``spaced``:
        as in :meth:`MinHasher.shingles`.
        """
        if key in self._signatures:
            return None
        sig = self.hasher.signature(text, spaced=spaced)
        duplicate_of, _, band_keys = self._query(sig)
        if duplicate_of is not None:
            return duplicate_of
        self._signatures[key] = sig
        for bucket, band_key in zip(self._buckets, band_keys, strict=True):
            found = bucket.get(band_key)
            if found is None:
                bucket[band_key] = key
            elif type(found) is list:
                found.append(key)
            else:
                bucket[band_key] = [found, key]
        return None
