"""Near-duplicate detection: MinHash estimates, LSH banding, first one wins."""

from __future__ import annotations

import random

import numpy as np
import pytest

from corpuscrawl.export.dedup import MinHasher, NearDuplicateIndex, lsh_bands

WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi "
         "rho sigma tau upsilon phi chi psi omega river bridge market school").split()


def text(seed: int, n: int = 300) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(n))


def edit(original: str, fraction: float, seed: int = 0) -> str:
    """Replace a share of the words in one contiguous run (a changed sentence or two)."""
    words = original.split()
    k = int(len(words) * fraction)
    start = random.Random(seed).randrange(0, len(words) - k)
    words[start:start + k] = ["changed"] * k
    return " ".join(words)


def jaccard(a: str, b: str, hasher: MinHasher) -> float:
    sa, sb = set(hasher.shingles(a).tolist()), set(hasher.shingles(b).tolist())  # distinct
    return len(sa & sb) / len(sa | sb)


def test_signature_estimates_jaccard():
    hasher = MinHasher(num_perm=256)
    a = text(1)
    for fraction in (0.02, 0.1, 0.3):
        b = edit(a, fraction)
        true = jaccard(a, b, hasher)
        estimate = MinHasher.similarity(hasher.signature(a), hasher.signature(b))
        assert abs(true - estimate) < 0.1, (fraction, true, estimate)


def test_identical_and_unrelated_texts():
    hasher = MinHasher()
    a = text(1)
    assert MinHasher.similarity(hasher.signature(a), hasher.signature(a)) == 1.0
    assert MinHasher.similarity(hasher.signature(a), hasher.signature(text(2))) < 0.1
    assert hasher.signature("").dtype == np.uint32


def test_short_texts_are_one_shingle():
    hasher = MinHasher()
    assert hasher.shingles("two words").size == 1
    assert hasher.shingles("").size == 0


def test_first_document_wins_and_duplicates_are_not_kept():
    index = NearDuplicateIndex(threshold=0.8)
    a = text(1)
    assert index.add("a", a) is None
    assert index.add("b", edit(a, 0.02)) == "a"
    assert index.add("c", text(2)) is None
    assert index.add("a", a) is None  # the same document again is not its own duplicate
    assert len(index) == 2


def test_threshold_separates_light_and_heavy_edits():
    index = NearDuplicateIndex(threshold=0.8)
    a = text(3, 600)
    index.add("a", a)
    assert index.query(edit(a, 0.01))[0] == "a"
    assert index.query(edit(a, 0.5))[0] is None


@pytest.mark.parametrize("threshold", [0.5, 0.8, 0.9])
def test_lsh_bands_put_the_step_near_the_threshold(threshold):
    bands, rows = lsh_bands(threshold, 128)
    assert bands * rows <= 128
    step = (1 / bands) ** (1 / rows)  # where the S-curve rises fastest
    assert abs(step - threshold) < 0.12


def test_invalid_threshold_is_rejected():
    with pytest.raises(ValueError, match="threshold"):
        NearDuplicateIndex(threshold=1.0)


def test_word_hashes_hash_each_word_alone():
    from corpuscrawl.export.dedup import word_hashes

    words = ["naïve", "café", "a", "b", "a", "Привет", "42"]
    together = word_hashes(" ".join(words))
    alone = np.concatenate([word_hashes(w) for w in words])
    assert together.tolist() == alone.tolist()
    assert together[2] == together[4] and len(set(together.tolist())) == 6
    assert word_hashes("").size == 0


def test_spaced_text_gives_the_same_signature():
    hasher = MinHasher()
    a = text(5)
    assert (hasher.signature(" ".join(a.split()), spaced=True) == hasher.signature(a)).all()
    assert (hasher.signature(a.split()) == hasher.signature(a)).all()


def test_documents_sharing_a_band_are_all_compared():
    """Kept documents that share a band key (similar, below the threshold) sit in one
    bucket together; a copy of the later one is still found through that bucket."""
    index = NearDuplicateIndex(threshold=0.5)  # 25 bands of 5 rows: collisions are common
    texts = {"a": text(3)}
    texts.update((f"v{seed}", edit(texts["a"], 0.5, seed)) for seed in range(8))
    for key, value in texts.items():
        index.add(key, value)
    shared = [keys for bucket in index._buckets for keys in bucket.values()
              if isinstance(keys, list)]
    assert shared, "no two kept documents share a band key: the test lost its point"
    later = shared[0][-1]
    assert index.add("copy", texts[later]) == later
