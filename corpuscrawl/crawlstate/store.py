"""The state database of a collection: one SQLite file, written in batches, durable at each commit.

Everything that must stay consistent across a kill lives in one file,
``<state dir>/state.sqlite3``, so that one SQLite transaction covers it:

* ``runs`` — one row per run: generation, resumed or not, start, finish and
  its reason (:mod:`corpuscrawl.crawlstate.runs`);
* ``requests`` and ``seen`` — the frontier (:mod:`corpuscrawl.crawlstate.frontier`) and
  the seen-set (:mod:`corpuscrawl.crawlstate.scrapy_glue.frontier`); ``focus_shapes``,
  ``focus_priors`` and ``focus_lines`` — what the focused crawl learned per URL
  shape, how far its link priors missed, and per text line it saw (a hash) the
  page that showed it first (:mod:`corpuscrawl.focus`);
* ``exported`` and ``feeds`` — the export ledger: the documents written in
  this generation and, per feed file, the byte offset up to which that file
  agrees with the ledger (:mod:`corpuscrawl.crawlstate.export_ledger`);
* ``robots_txt`` and ``error_probes`` — each host's robots.txt as fetched and
  its error-page probe, so a resumed run does not ask again
  (:mod:`corpuscrawl.crawlstate.hosts`).

Writes accumulate in one open transaction; :meth:`StateStore.commit` first
runs the *pre-commit hooks* (the ledger flushes and fsyncs the feed files
there) and then commits.  So a commit is a consistent snapshot: every
document the committed ledger lists is on disk in the feed files, and every
request it marks done has all its output in the feed files or in the
frontier.  A SIGKILL loses only the work since the last commit, which the
next run redoes (see :mod:`corpuscrawl.crawlstate.export_ledger` for how the feed
files are cut back to the snapshot).

SQLite runs in WAL mode with ``synchronous=NORMAL``: a commit survives the
death of the process at once, and a power loss at worst rolls the database
back to an earlier commit, which the same mechanism repairs (the feed files
were fsynced before the commit, so they are never *behind* the database).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["SCHEMA_VERSION", "STATE_FILE", "StateStore", "StateStoreError"]

logger = logging.getLogger("corpuscrawl.crawlstate")

#: File name of the state database inside a collection's state directory.
STATE_FILE = "state.sqlite3"
#: Version of the schema below; a database of another version is refused with a clear error.
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    generation INTEGER NOT NULL,
    resumed INTEGER NOT NULL,
    started_at REAL NOT NULL,
    finished_at REAL,
    reason TEXT,
    pid INTEGER
);
CREATE TABLE IF NOT EXISTS requests (
    id INTEGER PRIMARY KEY,
    state INTEGER NOT NULL,
    priority INTEGER NOT NULL,
    url TEXT NOT NULL,
    slot TEXT NOT NULL DEFAULT '',
    data TEXT NOT NULL,
    shape TEXT NOT NULL DEFAULT '',
    prior REAL
);
CREATE INDEX IF NOT EXISTS requests_queue ON requests (state, priority DESC, id);
CREATE INDEX IF NOT EXISTS requests_slot ON requests (state, slot, priority DESC, id);
CREATE TABLE IF NOT EXISTS seen (fingerprint BLOB PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS focus_shapes (
    shape TEXT PRIMARY KEY,
    pages INTEGER NOT NULL,
    total REAL NOT NULL,
    squares REAL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS focus_priors (
    key TEXT PRIMARY KEY,
    checked INTEGER NOT NULL,
    errors REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS focus_lines (
    hash INTEGER PRIMARY KEY,
    page INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS exported (
    url TEXT NOT NULL,
    unit INTEGER NOT NULL,
    run INTEGER NOT NULL,
    PRIMARY KEY (url, unit)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS feeds (path TEXT PRIMARY KEY, size INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS robots_txt (
    origin TEXT PRIMARY KEY,
    status INTEGER NOT NULL,
    body BLOB NOT NULL,
    fetched_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS error_probes (
    domain TEXT PRIMARY KEY,
    outcome TEXT NOT NULL,
    probed_at REAL NOT NULL
) WITHOUT ROWID;
"""

#: Columns added to a table after its first release: older databases get them when opened.
_ADDED_COLUMNS = {"requests": (("shape", "TEXT NOT NULL DEFAULT ''"), ("prior", "REAL")),
                  "focus_shapes": (("squares", "REAL"),)}
_INDEXES_OF_ADDED = "CREATE INDEX IF NOT EXISTS requests_shape ON requests (shape, state);"


class StateStoreError(RuntimeError):
    """The state database cannot be opened or has an unknown layout; the message says which."""


class StateStore:
    """One collection's state database (see the module docstring).

    Not thread-safe: used from the Twisted reactor thread only, like the rest
    of a Scrapy crawl.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(self.path), isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
            self._add_columns()
            self._check_version()
        except sqlite3.Error as exc:
            raise StateStoreError(f"cannot open the crawl state {self.path}: {exc}") from exc
        self._in_transaction = False
        self._pre_commit: list[Callable[[], None]] = []
        self.commits = 0
        self.last_commit = time.monotonic()

    def _add_columns(self) -> None:
        """Give a database written before a column existed that column (same schema version)."""
        for table, columns in _ADDED_COLUMNS.items():
            have = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            for name, declaration in columns:
                if name not in have:
                    self.db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {declaration}")
        self.db.executescript(_INDEXES_OF_ADDED)

    def _check_version(self) -> None:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None:
            self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        elif row[0] != str(SCHEMA_VERSION):
            raise StateStoreError(
                f"{self.path} has state schema {row[0]}, this corpuscrawl reads "
                f"{SCHEMA_VERSION}: use another CORPUSCRAWL_STATE_DIR or collection")

    def write(self, sql: str, params: tuple = ()) -> sqlite3.Cursor:
        """Run a write statement inside the open batch (opening it when needed)."""
        if not self._in_transaction:
            self.db.execute("BEGIN")
            self._in_transaction = True
        return self.db.execute(sql, params)

    def read(self, sql: str, params: tuple = ()) -> sqlite3.Cursor:
        """Run a query; it sees the batch's own uncommitted writes."""
        return self.db.execute(sql, params)

    def add_pre_commit(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` before every commit (it may write into the batch)."""
        self._pre_commit.append(hook)

    def commit(self) -> None:
        """Run the pre-commit hooks, then commit the batch (a no-op when nothing was written)."""
        for hook in self._pre_commit:
            hook()
        if self._in_transaction:
            self.db.execute("COMMIT")
            self._in_transaction = False
            self.commits += 1
        self.last_commit = time.monotonic()

    def abandon(self) -> None:
        """Drop the uncommitted batch and close the database (idempotent): the state stays
        as the last commit left it, as after a kill."""
        if self.db is None:
            return
        try:
            if self._in_transaction:
                self.db.execute("ROLLBACK")
                self._in_transaction = False
        finally:
            self.db.close()
            self.db = None  # type: ignore[assignment]

    def close(self) -> None:
        """Commit what is pending and close the database (idempotent)."""
        if self.db is None:
            return
        try:
            self.commit()
        finally:
            self.db.close()
            self.db = None  # type: ignore[assignment]
