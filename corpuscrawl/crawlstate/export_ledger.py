"""The export ledger: each document written exactly once per generation, no torn record.

The ledger is the ``exported`` table (URL and unit index of every document
written in this generation) and the ``feeds`` table (per local feed file,
the size up to which the file agrees with the ledger), in the collection's
state database.

* Writing.  The corpus exporters (:mod:`corpuscrawl.export.scrapy_glue.exporters`) register
  their file and report each document they write (:meth:`ExportLedger.written`);
  before every commit of the state database the ledger flushes and fsyncs
  those files and records their sizes (:meth:`ExportLedger.pre_commit`).
* Not twice.  :meth:`ExportLedger.take` claims a document for export and
  refuses one whose key is already in the ledger or was already taken in this
  run — a page fetched again after a kill, or the same URL reached twice;
  :class:`~corpuscrawl.crawlstate.scrapy_glue.ledger.ExportLedgerPipeline` (an
  item pipeline placed before the export stage) drops what it refuses.
* Repair at start.  On a resumed run, every local feed file is cut back to
  its recorded size (:func:`repair_feeds`): what lies beyond was written
  after the last commit — possibly a torn last record — and its requests
  were not yet done, so they are fetched and written again.  Over both runs
  every document is in the file once.  The feeds are opened for appending
  (Scrapy's ``-O`` would truncate them: the add-on switches ``overwrite``
  off on a resume).

Formats.  ``jsonl``/``jsonlines``, ``vertical``, ``txtdir`` (its index file;
text files are rewritten by key) and ``csv`` (no second header) resume this
way.  ``json`` and ``xml`` are single documents that cannot be appended to:
a resume with such a feed stops at start with an error.  Feeds that are not
local files (stdout, S3, FTP) are not tracked: their documents may repeat
after a kill.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from corpuscrawl.config.crawl_checks import CrawlSetupError
from corpuscrawl.crawlstate.store import StateStore
from corpuscrawl.items import Document

__all__ = ["APPENDABLE_FORMATS", "ExportLedger", "FeedNotDurable", "FeedRepairError",
           "repair_feeds"]

logger = logging.getLogger("corpuscrawl.crawlstate")

#: Feed formats that a resumed run appends to.
APPENDABLE_FORMATS = frozenset({"jsonl", "jsonlines", "vertical", "txtdir", "csv"})


class FeedNotDurable(OSError):
    """A feed file could not be flushed: the commit that would record its size must not
    happen (raised from the pre-commit hook once the failure was reported)."""


class FeedRepairError(CrawlSetupError):
    """A feed that a resumed run cannot continue (the message names it and says what to do)."""


def _doc_key(item: Any) -> tuple[str, int] | None:
    if isinstance(item, Document):
        return item.url, int(item.unit_index or 0)
    return None


class ExportLedger:
    """The ledger of one run (see the module docstring)."""

    def __init__(self, store: StateStore, run_id: int) -> None:
        self.store = store
        self.run_id = run_id
        self._files: list[tuple[IO[bytes], str]] = []
        self._taken: set[tuple[str, int]] = set()
        #: Called with (path, error) when a feed file cannot be flushed; the commit is then
        #: refused (:class:`FeedNotDurable`).  Without it the error is only logged.
        self.on_failure: Callable[[str, OSError], None] | None = None
        store.add_pre_commit(self.pre_commit)

    def register(self, file: Any) -> bool:
        """Track a feed file written by a corpus exporter; False when it is not a local file."""
        name = getattr(file, "name", None)
        if not isinstance(name, str) or not hasattr(file, "fileno"):
            return False
        try:
            if not Path(name).is_file():
                return False
        except OSError:
            return False
        self._files.append((file, str(Path(name).resolve())))
        return True

    def exported(self, key: tuple[str, int]) -> bool:
        """True when the document was written in this generation (committed or not)."""
        return self.store.read("SELECT 1 FROM exported WHERE url = ? AND unit = ?",
                               key).fetchone() is not None

    def take(self, item: Any) -> bool:
        """Claim a document for export; False when it was exported or claimed before."""
        key = _doc_key(item)
        if key is None:
            return True
        if key in self._taken or self.exported(key):
            return False
        self._taken.add(key)
        return True

    def written(self, item: Any) -> None:
        """A document was written to a feed."""
        key = _doc_key(item)
        if key is not None:
            self.store.write("INSERT OR IGNORE INTO exported VALUES (?, ?, ?)",
                             (*key, self.run_id))
            self._taken.discard(key)

    def count(self) -> int:
        """Documents written in this generation."""
        return self.store.read("SELECT COUNT(*) FROM exported").fetchone()[0]

    def feed_finished(self, file: Any) -> None:
        """Record a feed's final size before its storage closes the file."""
        for tracked, path in self._files:
            if tracked is file:
                self._record(tracked, path)

    def pre_commit(self) -> None:
        """Flush and fsync every open feed file and record its size (before each commit)."""
        for file, path in self._files:
            if not file.closed:
                self._record(file, path)

    def _record(self, file: Any, path: str) -> None:
        try:
            file.flush()
            os.fsync(file.fileno())
            size = file.tell()
        except (OSError, ValueError) as exc:
            if self.on_failure is not None and isinstance(exc, OSError):
                self.on_failure(path, exc)
                raise FeedNotDurable(exc.errno, f"feed {path} not durable: {exc}") from exc
            logger.error("cannot make feed %s durable: %s", path, exc)
            return
        self.store.write("INSERT INTO feeds VALUES (?, ?) ON CONFLICT (path) "
                         "DO UPDATE SET size = excluded.size", (path, size))


def repair_feeds(store: StateStore, feeds: Iterable[tuple[Path, str, bool]],
                 resumed: bool) -> None:
    """Prepare the local feed files ``(path, format, overwrite)`` for this run.

    A new generation records each file's starting size (0 when it will be
    overwritten).  A resume cuts each file back to its committed size and
    refuses formats that cannot be appended to.
    """
    for path, fmt, overwrite in feeds:
        key = str(path)
        row = store.read("SELECT size FROM feeds WHERE path = ?", (key,)).fetchone()
        size = path.stat().st_size if path.is_file() else 0
        if not resumed:
            store.write("INSERT OR REPLACE INTO feeds VALUES (?, ?)",
                        (key, 0 if overwrite else size))
            continue
        if fmt not in APPENDABLE_FORMATS and size:
            raise FeedRepairError(
                f"feed {path} ({fmt}) cannot be continued by a resumed crawl: a {fmt} file is "
                "one document. Use jsonl, or start a new crawl with -s CORPUSCRAWL_RESUME=never")
        if row is None:  # a feed this generation did not write before
            store.write("INSERT INTO feeds VALUES (?, ?)", (key, size))
            continue
        committed = int(row[0])
        if size > committed:
            with path.open("r+b") as fh:
                fh.truncate(committed)
                os.fsync(fh.fileno())
            logger.info("resuming: cut %d bytes written after the last commit from %s "
                        "(their documents are exported again)", size - committed, path)
        elif size < committed:
            logger.warning("feed %s is shorter (%d bytes) than the crawl state records (%d): "
                           "it was changed outside the crawl; documents may be missing",
                           path, size, committed)
            store.write("UPDATE feeds SET size = ? WHERE path = ?", (size, key))
