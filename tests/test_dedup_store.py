"""The near-duplicate index on disk gives the in-memory index's answers."""

from __future__ import annotations

import random

from corpuscrawl.export.dedup import NearDuplicateIndex
from corpuscrawl.export.dedup_store import SQLiteNearDuplicateIndex

WORDS = [f"w{i}" for i in range(400)]


def texts(n: int, seed: int = 7) -> list[tuple[str, str]]:
    """``n`` texts, every fifth a light edit of an earlier one (a near-duplicate)."""
    rng = random.Random(seed)
    out: list[tuple[str, str]] = []
    for i in range(n):
        if i % 5 == 4:
            words = out[rng.randrange(len(out))][1].split()
            words[rng.randrange(len(words))] = "edited"
            out.append((f"http://a.com/{i}", " ".join(words)))
        else:
            out.append((f"http://a.com/{i}", " ".join(rng.choice(WORDS) for _ in range(200))))
    return out


def test_same_answers_as_the_index_in_memory(tmp_path) -> None:
    memory, disk = NearDuplicateIndex(), SQLiteNearDuplicateIndex(directory=tmp_path)
    answers = [(memory.add(key, text), disk.add(key, text)) for key, text in texts(400)]
    assert [a for a, _ in answers] == [b for _, b in answers]
    assert sum(a is not None for a, _ in answers) >= 70  # the edits were found
    assert len(memory) == len(disk)
    key, text = texts(400)[10]
    assert disk.add(key, text) is None  # a key already kept is not its own duplicate
    assert disk.query(text) == memory.query(text)


def test_removed_documents_are_forgotten_and_the_file_goes_on_close(tmp_path) -> None:
    disk = SQLiteNearDuplicateIndex(directory=tmp_path)
    first, copy = "one two three four five six seven eight nine ten " * 5, None
    assert disk.add("a", first) is None
    assert disk.add("b", first) == "a"
    assert disk.remove("a") and not disk.remove("a")
    assert disk.add("b", first, spaced=False) is copy and len(disk) == 1
    assert disk.path.exists()
    disk.close()
    assert not disk.path.exists() and not list(tmp_path.iterdir())


def test_page_versions_keep_held_items_in_memory_and_released_words_on_disk(tmp_path) -> None:
    from corpuscrawl.export.dedup_store import SQLitePageVersions

    versions = SQLitePageVersions(tmp_path)
    held = object()
    versions["http://a.com/1"] = (120, held)
    assert versions.get("http://a.com/1") == (120, held)
    versions["http://a.com/1"] = (120, None)  # released
    versions["http://a.com/2"] = (80, None)
    assert versions.get("http://a.com/1") == (120, None) and versions.get("nope") is None
    assert len(versions) == 2 and not versions._held
    versions.close()
    assert not list(tmp_path.iterdir())
