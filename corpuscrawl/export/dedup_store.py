"""The export stage's per-document memory kept in SQLite files: flat with the number of documents.

:class:`SQLiteNearDuplicateIndex` has the interface and the answers of
:class:`corpuscrawl.export.dedup.NearDuplicateIndex` (same MinHash signatures, LSH bands,
threshold, first document wins), but its signatures and band keys live in a SQLite
file instead of Python dicts.  In memory, the dict index grows with every kept
document (a signature array and nine band keys with their dict slots; per-document
figures in ``benchmarks/results/backbone.md``), more than a crawl of millions of
documents can hold; here memory is SQLite's page cache (:data:`CACHE_KIB_DEFAULT`), and
each ``add`` is one indexed lookup of the nine band keys and two inserts.

:class:`SQLitePageVersions` holds the stage's other per-document record, the words of
the version of each page it kept (a later, richer version of a page replaces a poorer
one): in memory only while the version is held for its domain's boilerplate verdict
(bounded by ``CORPUSCRAWL_BOILERPLATE_BUFFER_SIZE``), in its file once released.

Each file is the crawl's scratch space, not state: it is made empty when the crawl opens
and removed when it closes (a resumed crawl refills the index from its exported
documents, as it does the dict index), so it needs no journal and no fsync.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from corpuscrawl.export.dedup import (
    NUM_PERM_DEFAULT,
    SHINGLE_WORDS_DEFAULT,
    THRESHOLD_DEFAULT,
    MinHasher,
    lsh_bands,
)

__all__ = ["CACHE_KIB_DEFAULT", "SQLiteNearDuplicateIndex", "SQLitePageVersions"]

#: SQLite page cache of the index in KiB (SQLite's own default is 2 MiB).
CACHE_KIB_DEFAULT = 8 * 1024

_SCHEMA = """
CREATE TABLE docs (id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, sig BLOB NOT NULL);
CREATE TABLE bands (band BLOB NOT NULL, doc INTEGER NOT NULL);
CREATE INDEX bands_by_key ON bands (band);
"""


class SQLiteNearDuplicateIndex:
    """Documents kept so far, on disk; ``add`` tells whether a text near-duplicates one.

    ``directory``: where the scratch file goes (the system's temporary directory when
    ``None``).  Keys are strings (the export stage's document URLs or text hashes).
    """

    def __init__(self, threshold: float = THRESHOLD_DEFAULT, num_perm: int = NUM_PERM_DEFAULT,
                 shingle_words: int = SHINGLE_WORDS_DEFAULT, seed: int = 1,
                 directory: str | Path | None = None,
                 cache_kib: int = CACHE_KIB_DEFAULT) -> None:
        self.threshold = threshold
        self.hasher = MinHasher(num_perm, shingle_words, seed)
        self.bands, self.rows = lsh_bands(threshold, num_perm)
        self.path, self._db = _scratch_db("near-duplicates-", directory, cache_kib)
        self._db.executescript(_SCHEMA)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def _band_keys(self, sig: np.ndarray) -> list[bytes]:
        raw, step = sig.tobytes(), self.rows * sig.itemsize
        return [bytes((i,)) + raw[i * step:(i + 1) * step] for i in range(self.bands)]

    def query(self, text: str | Sequence[str]) -> tuple[str | None, float]:
        """The earliest kept document at or above the threshold and its similarity."""
        return self._query(self.hasher.signature(text))[:2]

    def _query(self, sig: np.ndarray) -> tuple[str | None, float, list[bytes]]:
        keys = self._band_keys(sig)
        marks = ",".join("?" * len(keys))
        rows = self._db.execute(
            f"SELECT docs.id, docs.key, docs.sig FROM docs WHERE docs.id IN "
            f"(SELECT doc FROM bands WHERE band IN ({marks})) ORDER BY docs.id", keys).fetchall()
        best: tuple[str | None, float] = (None, 0.0)
        for _, key, blob in rows:
            sim = MinHasher.similarity(sig, np.frombuffer(blob, dtype=sig.dtype))
            if sim >= self.threshold and sim > best[1]:
                best = (key, sim)
        return best[0], best[1], keys

    def add(self, key: str, text: str | Sequence[str], *, spaced: bool = False) -> str | None:
        """Keep ``text`` under ``key`` unless it near-duplicates a kept one (then return that key).

        Adding a key already kept returns None and changes nothing.
        """
        if self._db.execute("SELECT 1 FROM docs WHERE key = ?", (key,)).fetchone():
            return None
        sig = self.hasher.signature(text, spaced=spaced)
        duplicate_of, _, band_keys = self._query(sig)
        if duplicate_of is not None:
            return duplicate_of
        doc = self._db.execute("INSERT INTO docs (key, sig) VALUES (?, ?)",
                               (key, sig.tobytes())).lastrowid
        self._db.executemany("INSERT INTO bands (band, doc) VALUES (?, ?)",
                             [(band, doc) for band in band_keys])
        self._count += 1
        return None

    def remove(self, key: str) -> bool:
        """Forget a kept document (a richer version replaces it); False when unknown."""
        row = self._db.execute("SELECT id, sig FROM docs WHERE key = ?", (key,)).fetchone()
        if row is None:
            return False
        doc, blob = row
        self._db.executemany("DELETE FROM bands WHERE band = ? AND doc = ?", [
            (band, doc) for band in self._band_keys(np.frombuffer(blob, dtype=np.uint32))])
        self._db.execute("DELETE FROM docs WHERE id = ?", (doc,))
        self._count -= 1
        return True

    def close(self) -> None:
        """Close and remove the scratch file."""
        self._db.close()
        self.path.unlink(missing_ok=True)


def _scratch_db(prefix: str, directory: str | Path | None,
                cache_kib: int) -> tuple[Path, sqlite3.Connection]:
    """A new empty SQLite scratch file (no journal, no fsync) and its connection."""
    if directory is not None:
        Path(directory).mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=".sqlite3",
                                dir=None if directory is None else str(directory))
    os.close(fd)
    db = sqlite3.connect(name, isolation_level=None, check_same_thread=False)
    for pragma in ("journal_mode=OFF", "synchronous=OFF", f"cache_size=-{int(cache_kib)}",
                   "temp_store=FILE"):
        db.execute(f"PRAGMA {pragma}")
    return Path(name), db


class SQLitePageVersions:
    """Page slot -> (words of the kept version, its held item or None), for the export stage.

    The ``get`` and item assignment of the dict the stage would keep otherwise: entries
    with a held item stay in memory, released ones (item ``None``) go to the file.
    """

    def __init__(self, directory: str | Path | None = None, cache_kib: int = 2 * 1024) -> None:
        self.path, self._db = _scratch_db("page-versions-", directory, cache_kib)
        self._db.execute("CREATE TABLE versions (slot TEXT PRIMARY KEY, words INTEGER NOT NULL)"
                         " WITHOUT ROWID")
        self._held: dict[str, tuple[int, Any]] = {}

    def get(self, slot: str, default: Any = None) -> Any:
        """The slot's (words, held item or None), else ``default``."""
        held = self._held.get(slot)
        if held is not None:
            return held
        row = self._db.execute("SELECT words FROM versions WHERE slot = ?", (slot,)).fetchone()
        return default if row is None else (row[0], None)

    def __setitem__(self, slot: str, version: tuple[int, Any]) -> None:
        if version[1] is not None:
            self._held[slot] = version
            return
        self._held.pop(slot, None)
        self._db.execute("INSERT OR REPLACE INTO versions (slot, words) VALUES (?, ?)",
                         (slot, version[0]))

    def __len__(self) -> int:
        stored = self._db.execute("SELECT COUNT(*) FROM versions").fetchone()[0]
        return stored + sum(1 for slot in self._held if not self._stored(slot))

    def _stored(self, slot: str) -> bool:
        return self._db.execute("SELECT 1 FROM versions WHERE slot = ?", (slot,)).fetchone() \
            is not None

    def close(self) -> None:
        """Close and remove the scratch file."""
        self._db.close()
        self.path.unlink(missing_ok=True)
