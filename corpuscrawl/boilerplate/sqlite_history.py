"""The default domain-history backend: one SQLite file next to the job, no server.

See :mod:`corpuscrawl.boilerplate.history` for what a history holds.  The
file (schema version 2, ``PRAGMA user_version``) has three tables: ``domains``
(an integer id per domain name, its document and error-page counts),
``documents`` (the document keys counted, per domain id) and ``paragraphs``
(per domain id and fingerprint: documents, template flag, first/last seen).
Rows are keyed by the domain's integer id, not its name: smaller keys, cheaper
comparisons, a smaller file to checkpoint (benchmarks/results/boilerplate.md,
"Reading the numbers").  A version-1 file
(keyed by domain name) is converted in place when opened.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from corpuscrawl.boilerplate.history import (
    DomainHistory,
    Floor,
    HistoryError,
    ParagraphStats,
    observation,
)
from corpuscrawl.boilerplate.normalize import Paragraph

__all__ = ["COMMIT_EVERY_DEFAULT", "SCHEMA_VERSION", "SQLiteHistory"]

#: SQLite commits after this many recorded documents (and on close): a crash loses at
#: most that many documents of history, and a longer interval saves little (cost per
#: document by interval: benchmarks/results/boilerplate.md, "commit interval").
COMMIT_EVERY_DEFAULT = 100

#: ``PRAGMA user_version`` of the files this module writes.
SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS domains (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    documents INTEGER NOT NULL DEFAULT 0,
    error_pages INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS documents (
    domain INTEGER NOT NULL,
    doc INTEGER NOT NULL,
    PRIMARY KEY (domain, doc)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS paragraphs (
    domain INTEGER NOT NULL,
    fp INTEGER NOT NULL,
    documents INTEGER NOT NULL DEFAULT 0,
    template INTEGER NOT NULL DEFAULT 0,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,
    PRIMARY KEY (domain, fp)
) WITHOUT ROWID;
"""

_SCHEMA_STATEMENTS = [statement.strip() for statement in _SCHEMA.split(";") if statement.strip()]

# Version 1 (keyed by domain name) -> version 2, inside the caller's transaction.
_MIGRATE_V1 = [
    "ALTER TABLE domains RENAME TO v1_domains",
    "ALTER TABLE documents RENAME TO v1_documents",
    "ALTER TABLE paragraphs RENAME TO v1_paragraphs",
    *_SCHEMA_STATEMENTS,
    "INSERT INTO domains (name, documents, error_pages) "
    "SELECT domain, documents, error_pages FROM v1_domains ORDER BY domain",
    "INSERT OR IGNORE INTO domains (name) SELECT DISTINCT domain FROM v1_paragraphs",
    "INSERT OR IGNORE INTO domains (name) SELECT DISTINCT domain FROM v1_documents",
    "INSERT INTO documents (domain, doc) SELECT d.id, o.doc FROM v1_documents AS o "
    "JOIN domains AS d ON d.name = o.domain",
    "INSERT INTO paragraphs (domain, fp, documents, template, first_seen, last_seen) "
    "SELECT d.id, o.fp, o.documents, o.template, o.first_seen, o.last_seen "
    "FROM v1_paragraphs AS o JOIN domains AS d ON d.name = o.domain",
    "DROP TABLE v1_domains",
    "DROP TABLE v1_documents",
    "DROP TABLE v1_paragraphs",
]

# Fingerprint lists travel to SQLite as one JSON array read by json_each (the JSON1
# functions, built into SQLite since 3.38 and enabled in most earlier builds): the
# statements' text is then fixed, so the sqlite3 module compiles each once and reuses
# it, where a statement with one "?" per fingerprint had to be compiled again for
# almost every document.  Measured cheaper than one VALUES row per fingerprint;
# executemany was no faster, INSERT ... RETURNING of every row slower than the upsert
# plus a look-up (figures: benchmarks/results/boilerplate.md).  ("WHERE true" is required by SQLite's
# grammar for an upsert whose rows come from a SELECT.)
_UPSERT_SQL = (
    "INSERT INTO paragraphs (domain, fp, documents, first_seen, last_seen) "
    "SELECT ?1, value, 1, ?2, ?2 FROM json_each(?3) WHERE true "
    "ON CONFLICT(domain, fp) DO UPDATE SET documents = documents + 1, "
    "last_seen = excluded.last_seen")
_LOOKUP_SQL = (
    "SELECT fp, documents, template, first_seen, last_seen FROM paragraphs "
    "WHERE domain = ?1 AND fp IN (SELECT value FROM json_each(?2)) "
    "AND (template OR documents >= ?3)")

# What record() needs is a look-up of the document's paragraphs that are in at least
# `floor` documents or on an error page, right after counting them.  Every such
# paragraph was in the table before (a new row has documents = 1 and no template
# flag), so the upsert updates it: this connection's temporary trigger copies the
# updated rows that qualify into a temporary table, and the look-up becomes one read
# of that table — no second search of the paragraphs' index (the saving per document:
# benchmarks/results/boilerplate.md).  Temporary
# objects belong to this connection only; other writers of the file never see them.
_TEMP_SCHEMA = """
CREATE TEMP TABLE IF NOT EXISTS cc_floor (v REAL);
DELETE FROM cc_floor;
INSERT INTO cc_floor VALUES (NULL);
CREATE TEMP TABLE IF NOT EXISTS cc_found (
    fp INTEGER, documents INTEGER, template INTEGER, first_seen REAL, last_seen REAL);
CREATE TEMP TRIGGER IF NOT EXISTS cc_found_on_count AFTER UPDATE OF documents ON paragraphs
WHEN (SELECT v FROM cc_floor) IS NOT NULL
     AND (NEW.template OR NEW.documents >= (SELECT v FROM cc_floor))
BEGIN
    INSERT INTO cc_found VALUES (NEW.fp, NEW.documents, NEW.template, NEW.first_seen,
                                 NEW.last_seen);
END;
"""
_TAKE_FOUND_SQL = "DELETE FROM cc_found RETURNING fp, documents, template, first_seen, last_seen"


def _json_list(values: Iterable[int]) -> str:
    """A JSON array of integers (what json_each reads)."""
    return "[" + ",".join(map(str, values)) + "]"


def _stats(rows: Iterable[tuple[int, int, int, float, float]]) -> dict[int, ParagraphStats]:
    return {fp: ParagraphStats(docs, bool(template), first, last)
            for fp, docs, template, first, last in rows}


class SQLiteHistory(DomainHistory):
    """The default store: one SQLite file (WAL mode), or ``":memory:"`` for a throwaway one."""

    def __init__(self, path: str | Path = ":memory:",
                 commit_every: int = COMMIT_EVERY_DEFAULT) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, timeout=30.0)
        except sqlite3.DatabaseError as exc:
            raise HistoryError(f"cannot open boilerplate history {self.path!r}: {exc}") from exc
        try:
            self._open()
        except BaseException:
            self._db.close()
            raise
        self.commit_every = max(1, commit_every)
        self._uncommitted = 0
        # Domain name -> id.  Ids never change once written, so the cache stays true
        # when other crawlers write the same file; only ids read or created are kept.
        self._ids: dict[str, int] = {}

    def _open(self) -> None:
        """Set the connection up; HistoryError when the file cannot serve as a history."""
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._prepare()
        except sqlite3.DatabaseError as exc:
            raise HistoryError(f"cannot open boilerplate history {self.path!r}: {exc}") from exc
        try:
            self._db.execute("SELECT value FROM json_each('[1]')").fetchall()
        except sqlite3.OperationalError as exc:
            raise HistoryError(
                f"the SQLite library ({sqlite3.sqlite_version}) lacks the JSON1 functions the "
                "boilerplate history needs (built in since SQLite 3.38); use a newer Python or "
                "a redis:// CORPUSCRAWL_BOILERPLATE_HISTORY") from exc

    def _prepare(self) -> None:
        """Create or convert the tables (one writer at a time), then this connection's
        temporary objects."""
        db = self._db
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            if version > SCHEMA_VERSION:
                raise HistoryError(
                    f"boilerplate history {self.path!r} has schema version {version}, newer "
                    f"than this corpuscrawl reads ({SCHEMA_VERSION}); use a newer corpuscrawl "
                    "or another CORPUSCRAWL_BOILERPLATE_HISTORY file")
            db.isolation_level = None  # explicit transaction: create or convert once
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    self._create_or_convert()
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
            finally:
                db.isolation_level = ""
        db.executescript(_TEMP_SCHEMA)

    def _create_or_convert(self) -> None:
        db = self._db
        if db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return  # another process got there first
        columns = {row[1] for row in db.execute("PRAGMA table_info(domains)")}
        if "domain" in columns:  # version 1: keyed by domain name
            for statement in _MIGRATE_V1:
                db.execute(statement)
        elif columns and "name" not in columns:
            raise HistoryError(f"{self.path!r} is not a corpuscrawl boilerplate history "
                               f"(its 'domains' table has columns {sorted(columns)})")
        else:
            for statement in _SCHEMA_STATEMENTS:
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # -- domain ids -------------------------------------------------------------------

    def _id(self, domain: str) -> int | None:
        """The domain's id, or None when the file has never seen it (reads only)."""
        did = self._ids.get(domain)
        if did is None:
            row = self._db.execute("SELECT id FROM domains WHERE name = ?", (domain,)).fetchone()
            if row is not None:
                did = self._ids[domain] = row[0]
        return did

    def _new_id(self, domain: str) -> int:
        """The domain's id, created when missing (a write)."""
        did = self._id(domain)
        if did is None:
            self._db.execute("INSERT OR IGNORE INTO domains (name) VALUES (?)", (domain,))
            did = self._id(domain)
            assert did is not None
        return did

    # -- counting -----------------------------------------------------------------------

    def _observe(self, domain: str, doc_key: int, fps: Sequence[int], now: float) -> bool:
        return self._add_document(self._new_id(domain), doc_key, fps, now)[0] is not None

    def _add_document(self, did: int, doc_key: int, fps: Sequence[int], now: float,
                      floor: Floor | None = None,
                      ) -> tuple[int | None, dict[int, ParagraphStats] | None]:
        """Count a new document and its paragraphs: the domain's new document count and,
        when ``floor`` asks for a look-up with a floor above 1, the paragraphs found while
        counting (else None); (None, None) and nothing counted when the document was
        counted before."""
        if self._db.execute("INSERT OR IGNORE INTO documents (domain, doc) VALUES (?, ?)",
                            (did, doc_key)).rowcount != 1:
            return None, None
        documents = self._db.execute(
            "UPDATE domains SET documents = documents + 1 WHERE id = ? RETURNING documents",
            (did,)).fetchone()[0]
        least = None if floor is None else floor(documents)
        # Only rows seen before can qualify (see _TEMP_SCHEMA), unless the floor is <= 1.
        least = None if least is None or least <= 1 else least
        # Set for every document (not only when it changes): a transaction SQLite rolls
        # back on its own would otherwise leave the trigger with another document's floor.
        self._db.execute("UPDATE cc_floor SET v = ?", (least,))
        self._db.execute(_UPSERT_SQL, (did, now, _json_list(fps)))
        found = None if least is None else _stats(self._db.execute(_TAKE_FOUND_SQL))
        self._written()
        return documents, found

    def record(self, domain: str, doc_key: int, paragraphs: Iterable[Paragraph],
               floor: Floor | None = None,
               now: float | None = None) -> tuple[int, dict[int, ParagraphStats] | None]:
        """Count and look up (see :meth:`DomainHistory.record`): the count read while
        counting, the qualifying paragraphs found while counting them."""
        fps, when = observation(paragraphs, now)
        documents, found = self._add_document(self._new_id(domain), doc_key, fps, when, floor)
        if documents is None:  # counted before: read the count
            documents = self.document_count(domain)
        if found is not None:
            return documents, found
        # Counted before, or a floor of at most 1 (new rows qualify too): a plain look-up.
        least = None if floor is None else floor(documents)
        return documents, None if least is None else self.lookup(domain, fps, least)

    def _seed(self, domain: str, fps: Sequence[int], now: float) -> None:
        did = self._new_id(domain)
        self._db.execute("UPDATE domains SET error_pages = error_pages + 1 WHERE id = ?",
                         (did,))
        self._db.executemany(
            "INSERT INTO paragraphs (domain, fp, template, first_seen, last_seen) "
            "VALUES (?, ?, 1, ?, ?) ON CONFLICT(domain, fp) DO UPDATE SET "
            "template = 1, last_seen = excluded.last_seen",
            [(did, fp, now, now) for fp in fps])
        self._written()

    def _written(self) -> None:
        self._uncommitted += 1
        if self._uncommitted >= self.commit_every:
            self.flush()

    # -- reading ------------------------------------------------------------------------

    def _domain_row(self, domain: str) -> tuple[int, int]:
        did = self._id(domain)
        row = None if did is None else self._db.execute(
            "SELECT documents, error_pages FROM domains WHERE id = ?", (did,)).fetchone()
        return (row[0], row[1]) if row else (0, 0)

    def document_count(self, domain: str) -> int:
        """Number of distinct documents of ``domain`` counted so far."""
        return self._domain_row(domain)[0]

    def error_pages(self, domain: str) -> int:
        """How many error pages have seeded ``domain``'s template."""
        return self._domain_row(domain)[1]

    def lookup(self, domain: str, fps: Iterable[int],
               min_documents: float = 0.0) -> dict[int, ParagraphStats]:
        """Stats of the given fingerprints in ``domain`` (see :meth:`DomainHistory.lookup`)."""
        did = self._id(domain)
        if did is None:
            return {}
        return _stats(self._db.execute(_LOOKUP_SQL, (did, _json_list(fps), min_documents)))

    def flush(self) -> None:
        """Commit pending writes."""
        self._db.commit()
        self._uncommitted = 0

    def close(self) -> None:
        """Commit and close the database (idempotent)."""
        if self._db is not None:
            self.flush()
            self._db.close()
            self._db = None  # type: ignore[assignment]
