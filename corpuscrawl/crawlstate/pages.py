"""The page store of a collection: what the last crawls learnt about each URL.

One record per *document key* (the normalised URL; a page split into coherent
texts adds ``#unit=N`` for its later units):

* ``etag`` / ``last_modified`` — the validators of the response whose text
  was recorded, sent back as ``If-None-Match`` / ``If-Modified-Since`` on a
  recrawl (:mod:`corpuscrawl.crawlstate.scrapy_glue.recrawl`);
* ``text_hash`` / ``words`` — SHA-1 and word count of the page's *extracted*
  text (before the export stage's boilerplate removal; see the README,
  "Incremental recrawls");
* ``hashed_in`` / ``prior_hash`` — the generation that recorded ``text_hash``
  and the hash before it: a run resuming that generation compares with the
  prior hash (:meth:`PageRecord.baseline`), so it decides as the killed run did
  — the killed run may have stored a hash whose document never reached the
  corpus;
* ``shape`` — a digest of what shaped that text (:meth:`corpuscrawl.pagetext.extraction.Extraction.shape_for`:
  the extractor, its model file, the domain's template file, the settings
  that change the text); a recrawl does not send the validators of a page
  whose shape changed, so the page is downloaded and extracted again ("" for a
  record written before shapes were kept: such a page is asked conditionally
  and gets its shape on its next full download);
* ``status`` — the last HTTP status seen;
* ``first_seen`` / ``last_seen`` — run generations (a recrawl starts a new
  generation; a resumed run keeps its generation);
* ``gone`` — the page answered 404 or 410 in generation ``last_seen``;
* ``source`` — a sitemap or feed that listed pages: refetched in full by a
  recrawl, like the seeds;
* ``children`` — documents first reached through this page's links, over all
  generations.  A page is a *hub* (refetched unconditionally by a recrawl)
  when it led to at least ``min_children`` documents and has fewer than
  ``words_per_child`` words of its own per document it led to
  (:func:`is_hub`): a front or section page of links and teasers, not an
  article with a "related stories" box.

:class:`PageStore` is the interface (plain library code, no Scrapy); the
default backend is :class:`SQLitePageStore`, one file in the collection's
state directory.  A shared backend (Redis, for crawlers of one collection on
several machines) implements the same methods.
"""

from __future__ import annotations

import sqlite3
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["COMMIT_EVERY_DEFAULT", "PAGES_FILE", "PageRecord", "PageStore",
           "PageStoreError", "SQLitePageStore", "is_hub", "open_page_store", "unit_key"]

#: File name of the SQLite page store inside a collection's state directory.
PAGES_FILE = "pages.sqlite3"
#: Writes between two commits (and a commit at least every COMMIT_SECONDS_DEFAULT):
#: a kill loses at most that many records, which only makes the next recrawl
#: refetch and export those pages again (nothing is lost).
COMMIT_EVERY_DEFAULT = 200
COMMIT_SECONDS_DEFAULT = 2.0
#: ``PRAGMA user_version`` of the files this module writes (2: the ``shape`` column; a
#: version-1 file gets it when opened).
SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pages (
    key TEXT PRIMARY KEY,
    etag TEXT NOT NULL DEFAULT '',
    last_modified TEXT NOT NULL DEFAULT '',
    text_hash TEXT NOT NULL DEFAULT '',
    words INTEGER NOT NULL DEFAULT 0,
    status INTEGER NOT NULL DEFAULT 0,
    first_seen INTEGER NOT NULL,
    last_seen INTEGER NOT NULL,
    gone INTEGER NOT NULL DEFAULT 0,
    children INTEGER NOT NULL DEFAULT 0,
    hashed_in INTEGER NOT NULL DEFAULT 0,
    prior_hash TEXT NOT NULL DEFAULT '',
    source INTEGER NOT NULL DEFAULT 0,
    shape TEXT NOT NULL DEFAULT ''
)
"""


class PageStoreError(RuntimeError):
    """The page store cannot be opened or written; the message names the file and why."""


def unit_key(url: str, unit_index: int = 0) -> str:
    """The document key of one coherent text of a page: the URL, ``#unit=N`` for N > 0."""
    return url if not unit_index else f"{url}#unit={unit_index}"


@dataclass(frozen=True, slots=True)
class PageRecord:
    """What the store knows about one document key."""

    key: str
    etag: str = ""
    last_modified: str = ""
    text_hash: str = ""
    words: int = 0
    status: int = 0
    first_seen: int = 0
    last_seen: int = 0
    gone: bool = False
    children: int = 0
    hashed_in: int = 0
    prior_hash: str = ""
    source: bool = False
    shape: str = ""

    def baseline(self, generation: int) -> str:
        """The hash a document of ``generation`` is compared with ("" = never recorded)."""
        return self.prior_hash if self.hashed_in == generation else self.text_hash

    @property
    def has_validators(self) -> bool:
        """True when a conditional request can be made for this page."""
        return bool(self.etag or self.last_modified)

    def reshaped(self, shape: str) -> bool:
        """True when the stored text was shaped otherwise than ``shape`` would shape it now
        (False when either is unknown, "")."""
        return bool(self.shape and shape and self.shape != shape)

    def is_hub(self, min_children: int, words_per_child: int) -> bool:
        """True for a page whose links led to documents more than it is one (see the module)."""
        return is_hub(self.children, self.words, min_children, words_per_child)


def is_hub(children: int, words: int, min_children: int, words_per_child: int) -> bool:
    """A page that led to ``children`` documents and has ``words`` of its own is a hub when
    ``children >= min_children`` and ``words < words_per_child * children``."""
    return children >= max(1, min_children) and words < words_per_child * children


class PageStore(ABC):
    """Per-URL state of a collection across crawls (see the module docstring).

    A backend is chosen by ``CORPUSCRAWL_PAGE_STORE_CLASS`` and built with
    :meth:`from_settings`.
    """

    @classmethod
    @abstractmethod
    def from_settings(cls, settings: Any, directory: Path) -> PageStore:
        """The store of the collection whose state directory is ``directory``."""

    @abstractmethod
    def get(self, key: str) -> PageRecord | None:
        """The record of ``key``, or None when the collection never saw it."""

    @abstractmethod
    def record_text(self, key: str, text_hash: str, generation: int, status: int = 200,
                    etag: str = "", last_modified: str = "", words: int = 0,
                    shape: str = "") -> None:
        """Record the extracted text's hash, what shaped it and the validators of the
        response it came from."""

    @abstractmethod
    def touch(self, key: str, generation: int, status: int) -> None:
        """The page was seen unchanged (304, or the same text) in ``generation``."""

    @abstractmethod
    def mark_gone(self, key: str, generation: int, status: int) -> bool:
        """A known page answered ``status`` (404/410); True when it was not gone before."""

    @abstractmethod
    def credit(self, key: str, generation: int, documents: int = 1) -> None:
        """``documents`` more documents were first reached through the page ``key``."""

    @abstractmethod
    def record_source(self, key: str, generation: int) -> None:
        """A sitemap or feed that listed pages: a recrawl fetches it again, in full."""

    @abstractmethod
    def revisit(self, min_children: int, words_per_child: int) -> Iterator[PageRecord]:
        """Pages a recrawl re-queues, not gone: sitemaps and feeds, hubs (:func:`is_hub`),
        then pages with a text."""

    @abstractmethod
    def last_generation(self) -> int:
        """The latest generation any record was seen in (0 for an empty store)."""

    @abstractmethod
    def __len__(self) -> int:
        """Number of records."""

    def flush(self) -> None:  # noqa: B027 - optional hook for buffering backends
        """Make every write so far durable."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Flush and release the store."""

    def __enter__(self) -> PageStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SQLitePageStore(PageStore):
    """The page store in one SQLite file (WAL, batched commits)."""

    @classmethod
    def from_settings(cls, settings: Any, directory: Path) -> SQLitePageStore:
        """``pages.sqlite3`` in the collection's state directory."""
        return cls(Path(directory) / PAGES_FILE)

    def __init__(self, path: str | Path, commit_every: int = COMMIT_EVERY_DEFAULT,
                 commit_seconds: float = COMMIT_SECONDS_DEFAULT) -> None:
        self.path = Path(path)
        self.commit_every = max(1, commit_every)
        self.commit_seconds = commit_seconds
        self._pending = 0
        self._last_commit = time.monotonic()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db: sqlite3.Connection | None = sqlite3.connect(str(self.path))
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise PageStoreError(f"page store {self.path}: written by a newer corpuscrawl "
                                     f"(schema {version}, this one reads {SCHEMA_VERSION})")
            with self._db:
                self._db.execute(_SCHEMA)
                columns = {row[1] for row in self._db.execute("PRAGMA table_info(pages)")}
                if "shape" not in columns:  # a version-1 file
                    self._db.execute("ALTER TABLE pages ADD COLUMN shape TEXT NOT NULL "
                                     "DEFAULT ''")
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except (sqlite3.DatabaseError, OSError) as exc:
            raise PageStoreError(f"page store {self.path}: {exc}") from exc

    @property
    def db(self) -> sqlite3.Connection:
        """The open connection (PageStoreError once closed)."""
        if self._db is None:
            raise PageStoreError(f"page store {self.path} is closed")
        return self._db

    def get(self, key: str) -> PageRecord | None:
        """The record of ``key``, or None."""
        row = self.db.execute(f"SELECT {_COLUMNS} FROM pages WHERE key = ?",
                              (key,)).fetchone()
        return _record(row) if row else None

    def record_text(self, key: str, text_hash: str, generation: int, status: int = 200,
                    etag: str = "", last_modified: str = "", words: int = 0,
                    shape: str = "") -> None:
        """Insert or update the text hash, shape and validators; the page is no longer gone."""
        self._write(
            "INSERT INTO pages (key, etag, last_modified, text_hash, words, status, first_seen, "
            "last_seen, gone, hashed_in, shape) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?) "
            "ON CONFLICT(key) DO UPDATE SET "
            "prior_hash = CASE WHEN hashed_in = excluded.hashed_in THEN prior_hash "
            "ELSE text_hash END, hashed_in = excluded.hashed_in, "
            "etag = excluded.etag, last_modified = excluded.last_modified, "
            "text_hash = excluded.text_hash, words = excluded.words, status = excluded.status, "
            "last_seen = excluded.last_seen, gone = 0, shape = excluded.shape",
            (key, etag, last_modified, text_hash, words, status, generation, generation,
             generation, shape))

    def touch(self, key: str, generation: int, status: int) -> None:
        """Seen unchanged: last generation and status updated, no longer gone."""
        self._write("UPDATE pages SET last_seen = ?, status = ?, gone = 0 WHERE key = ?",
                    (generation, status, key))

    def mark_gone(self, key: str, generation: int, status: int) -> bool:
        """Flag a known page as gone; True when it was not gone before."""
        cursor = self.db.execute(
            "UPDATE pages SET gone = 1, status = ?, last_seen = ? WHERE key = ? AND gone = 0",
            (status, generation, key))
        self._wrote()
        return cursor.rowcount > 0

    def credit(self, key: str, generation: int, documents: int = 1) -> None:
        """Count documents first reached through ``key`` (a row is made for a new page)."""
        self._write(
            "INSERT INTO pages (key, first_seen, last_seen, children) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(key) DO UPDATE SET children = children + excluded.children",
            (key, generation, generation, documents))

    def record_source(self, key: str, generation: int) -> None:
        """Mark ``key`` as a sitemap or feed (a row is made for a new one)."""
        self._write(
            "INSERT INTO pages (key, status, first_seen, last_seen, source) "
            "VALUES (?, 200, ?, ?, 1) ON CONFLICT(key) DO UPDATE SET source = 1, status = 200, "
            "last_seen = excluded.last_seen, gone = 0", (key, generation, generation))

    def revisit(self, min_children: int, words_per_child: int) -> Iterator[PageRecord]:
        """Known pages worth a recrawl: sources, hubs, pages; each in key order, in batches."""
        self.flush()
        hub = "(children >= ? AND words < ? * children)"
        hub_params = (max(1, min_children), words_per_child)
        for condition, params in (("source = 1", ()), (f"source = 0 AND {hub}", hub_params),
                                  (f"source = 0 AND NOT {hub} AND text_hash != ''", hub_params)):
            last = ""
            while True:
                rows = self.db.execute(
                    f"SELECT {_COLUMNS} FROM pages WHERE gone = 0 AND {condition} AND key > ? "
                    "AND instr(key, '#') = 0 ORDER BY key LIMIT 1000",
                    (*params, last)).fetchall()
                if not rows:
                    break
                for row in rows:
                    yield _record(row)
                last = rows[-1][0]

    def last_generation(self) -> int:
        """The latest generation any record was seen in (0 for an empty store)."""
        return int(self.db.execute("SELECT COALESCE(MAX(last_seen), 0) FROM pages").fetchone()[0])

    def __len__(self) -> int:
        """Number of records."""
        return int(self.db.execute("SELECT COUNT(*) FROM pages").fetchone()[0])

    def flush(self) -> None:
        """Commit pending writes."""
        if self._db is not None and self._pending:
            self._db.commit()
            self._pending = 0
            self._last_commit = time.monotonic()

    def close(self) -> None:
        """Commit and close (idempotent)."""
        if self._db is not None:
            self.flush()
            self._db.close()
            self._db = None

    def _write(self, sql: str, params: tuple) -> None:
        try:
            self.db.execute(sql, params)
        except sqlite3.DatabaseError as exc:
            raise PageStoreError(f"page store {self.path}: {exc}") from exc
        self._wrote()

    def _wrote(self) -> None:
        self._pending += 1
        if (self._pending >= self.commit_every
                or time.monotonic() - self._last_commit >= self.commit_seconds):
            self.flush()


_COLUMNS = ("key, etag, last_modified, text_hash, words, status, first_seen, last_seen, gone, "
            "children, hashed_in, prior_hash, source, shape")


def _record(row: tuple) -> PageRecord:
    (key, etag, last_modified, text_hash, words, status, first, last, gone, children,
     hashed_in, prior_hash, source, shape) = row
    return PageRecord(key, etag, last_modified, text_hash, words, status, first, last,
                      bool(gone), children, hashed_in, prior_hash, bool(source), shape)


def open_page_store(location: str | Path) -> PageStore:
    """The page store at ``location``: a state directory (its ``pages.sqlite3``) or a file."""
    path = Path(location)
    if path.is_dir() or not path.suffix:
        path = path / PAGES_FILE
    return SQLitePageStore(path)
