"""The domain history: which paragraphs each domain's documents contained, persistently.

Source: SPEC §6 (seed 002, end; 003 §6): "make the algorithm aware, as it is
cleaning an article, of previous articles coming from that domain"; the
history "must persist between crawls and be shared by parallel crawlers".

Per domain the store keeps

* the set of documents already counted (by a 64-bit key of the URL's path
  and query), so a page crawled again — in this crawl or a later one, over
  http or https, from another port — is counted once.  A copy of a page
  under another path is kept out of the history by the export stage's
  duplicate check within a crawl; in a later crawl it would count again
  (its paragraphs then look repeated — harmless, it duplicates exported
  text);
* per paragraph fingerprint (:mod:`corpuscrawl.boilerplate.normalize`): the
  number of *distinct documents* containing it, first and last time seen, and
  a ``template`` flag set when the paragraph was seen on one of the domain's
  HTTP error pages (:meth:`DomainHistory.seed_from_error_page`).

Two backends share one interface: :class:`SQLiteHistory` (the default, an
embedded file next to the job; no server) and :class:`RedisHistory` (a Redis
server, so parallel crawlers share one history; a Lua script counts a
document atomically).  :func:`open_history` picks one from a path or URL.
Plain library code: no Scrapy.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

from corpuscrawl.boilerplate.normalize import Paragraph, split_paragraphs

__all__ = [
    "COMMIT_EVERY_DEFAULT",
    "DomainHistory",
    "HistoryError",
    "ParagraphStats",
    "RedisHistory",
    "SQLiteHistory",
    "document_key",
    "open_history",
]

#: SQLite commits after this many recorded documents (and on close).  Measured
#: (benchmarks/results/boilerplate.md, 2026-11-22 06:17): recording a document costs
#: 0.37 ms with a commit each, 0.24 ms with one per 100 and 0.23 ms with one per
#: 1000; a crash loses at most 100 documents of history.
COMMIT_EVERY_DEFAULT = 100

# Fingerprint lists travel to SQLite as one JSON array read by json_each (the JSON1
# functions, built into SQLite since 3.38 and enabled in most earlier builds): the
# statements' text is then fixed, so the sqlite3 module compiles each once and reuses
# it, where a statement with one "?" per fingerprint had to be compiled again for
# almost every document.  Measured on the benchmark pages (bte output, 73 lines):
# recording a document costs 0.18 ms this way against 0.29 ms with one VALUES row
# per fingerprint.  ("WHERE true" is required by SQLite's grammar for an upsert
# whose rows come from a SELECT.)
_UPSERT_SQL = (
    "INSERT INTO paragraphs (domain, fp, documents, first_seen, last_seen) "
    "SELECT ?1, value, 1, ?2, ?2 FROM json_each(?3) WHERE true "
    "ON CONFLICT(domain, fp) DO UPDATE SET documents = documents + 1, "
    "last_seen = excluded.last_seen")
_RETURNING_SQL = " RETURNING fp, documents, template, first_seen, last_seen"
_LOOKUP_SQL = (
    "SELECT fp, documents, template, first_seen, last_seen FROM paragraphs "
    "WHERE domain = ?1 AND fp IN (SELECT value FROM json_each(?2)) "
    "AND (template OR documents >= ?3)")


def _json_list(values: Iterable[int]) -> str:
    """A JSON array of integers (what json_each reads)."""
    return "[" + ",".join(map(str, values)) + "]"


class HistoryError(RuntimeError):
    """The history store cannot be opened or used (bad path, unreachable server)."""


class ParagraphStats(NamedTuple):
    """What the history knows of one paragraph fingerprint in one domain.

    A named tuple (immutable, like the frozen dataclass it replaced): a look-up
    builds one per paragraph, and a tuple is ~4 times cheaper to create.
    """

    documents: int = 0
    template: bool = False
    first_seen: float = 0.0
    last_seen: float = 0.0


def document_key(url: str, text: str = "") -> int:
    """The signed 64-bit identity of a document: its URL, or its text when it has no URL.

    Only the path and query count (the history is already per domain), so the
    same page fetched over http and https, with or without ``www.``, or from a
    server on another port, is one document and re-crawls never inflate counts.
    """
    if url:
        parts = urlsplit(url)
        url = (parts.path or "/") + ("?" + parts.query if parts.query else "")
    source = url or "text:" + text
    digest = hashlib.blake2b(source.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _observation(paragraphs: Iterable[Paragraph],
                 now: float | None) -> tuple[list[int], float]:
    """A document's distinct fingerprints (sorted) and the time it is counted at."""
    return sorted({p.fingerprint for p in paragraphs}), time.time() if now is None else now


class DomainHistory(ABC):
    """Paragraph fingerprints per domain with distinct-document counts (a backend interface)."""

    def observe(self, domain: str, doc_key: int, paragraphs: Iterable[Paragraph],
                now: float | None = None) -> bool:
        """Count one document's paragraphs; False (and nothing counted) if it was counted before."""
        return self._observe(domain, doc_key, *_observation(paragraphs, now))

    def observe_counted(self, domain: str, doc_key: int, paragraphs: Iterable[Paragraph],
                        now: float | None = None) -> int:
        """:meth:`observe`, then return the domain's document count (a backend may read it
        while counting: the export stage needs it right after, and saves a round trip)."""
        self.observe(domain, doc_key, paragraphs, now)
        return self.document_count(domain)

    def record(self, domain: str, doc_key: int, paragraphs: Sequence[Paragraph],
               now: float | None = None) -> dict[int, ParagraphStats]:
        """:meth:`observe` a document, then return its paragraphs' stats (one step if possible)."""
        self.observe(domain, doc_key, paragraphs, now)
        return self.lookup(domain, (p.fingerprint for p in paragraphs))

    def seed_from_error_page(self, domain: str, paragraphs: Iterable[str | Paragraph],
                             now: float | None = None) -> int:
        """Mark the paragraphs of one of the domain's HTTP error pages as its template.

        An error page (404 ...) of a site carries only the site's template —
        navigation, footer, notices — so every paragraph on it is boilerplate
        for that domain.  Accepts texts (split into lines) or Paragraphs and
        returns how many distinct fingerprints were marked.
        """
        fps: set[int] = set()
        for p in paragraphs:
            if isinstance(p, Paragraph):
                fps.add(p.fingerprint)
            else:
                fps.update(q.fingerprint for q in split_paragraphs(p))
        self._seed(domain, sorted(fps), time.time() if now is None else now)
        return len(fps)

    @abstractmethod
    def _observe(self, domain: str, doc_key: int, fps: Sequence[int], now: float) -> bool:
        """Backend part of :meth:`observe` (``fps`` distinct and sorted)."""

    @abstractmethod
    def _seed(self, domain: str, fps: Sequence[int], now: float) -> None:
        """Backend part of :meth:`seed_from_error_page`."""

    @abstractmethod
    def document_count(self, domain: str) -> int:
        """Number of distinct documents of ``domain`` counted so far."""

    @abstractmethod
    def error_pages(self, domain: str) -> int:
        """How many error pages have seeded ``domain``'s template."""

    @abstractmethod
    def lookup(self, domain: str, fps: Iterable[int],
               min_documents: float = 0.0) -> dict[int, ParagraphStats]:
        """Stats of the given fingerprints in ``domain`` (fingerprints never seen are absent).

        ``min_documents`` > 0 leaves out the fingerprints found in fewer
        documents and not on an error page (the detector asks only for those
        that can be boilerplate: on the benchmark pages ~6 % of a look-up).
        """

    def flush(self) -> None:  # noqa: B027 - optional hook, backends that buffer override it
        """Make everything recorded so far durable (no-op for write-through backends)."""

    @abstractmethod
    def close(self) -> None:
        """Flush and release the store."""

    def __enter__(self) -> DomainHistory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_SCHEMA = """
CREATE TABLE IF NOT EXISTS domains (
    domain TEXT PRIMARY KEY,
    documents INTEGER NOT NULL DEFAULT 0,
    error_pages INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS documents (
    domain TEXT NOT NULL,
    doc INTEGER NOT NULL,
    PRIMARY KEY (domain, doc)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS paragraphs (
    domain TEXT NOT NULL,
    fp INTEGER NOT NULL,
    documents INTEGER NOT NULL DEFAULT 0,
    template INTEGER NOT NULL DEFAULT 0,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,
    PRIMARY KEY (domain, fp)
) WITHOUT ROWID;
"""


class SQLiteHistory(DomainHistory):
    """The default store: one SQLite file (WAL mode), or ``":memory:"`` for a throwaway one."""

    def __init__(self, path: str | Path = ":memory:",
                 commit_every: int = COMMIT_EVERY_DEFAULT) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, timeout=30.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise HistoryError(f"cannot open boilerplate history {self.path!r}: {exc}") from exc
        try:
            self._db.execute("SELECT value FROM json_each('[1]')").fetchall()
        except sqlite3.OperationalError as exc:
            raise HistoryError(
                f"the SQLite library ({sqlite3.sqlite_version}) lacks the JSON1 functions the "
                "boilerplate history needs (built in since SQLite 3.38); use a newer Python or "
                "a redis:// CORPUSCRAWL_BOILERPLATE_HISTORY") from exc
        self.commit_every = max(1, commit_every)
        self._uncommitted = 0

    def _observe(self, domain: str, doc_key: int, fps: Sequence[int], now: float) -> bool:
        return self._add_document(domain, doc_key, fps, now) is not None

    def _add_document(self, domain: str, doc_key: int, fps: Sequence[int],
                      now: float) -> int | None:
        """Count a new document and its paragraphs; the domain's new document count, or
        None (and nothing counted) when the document was counted before."""
        if not self._new_document(domain, doc_key):
            return None
        documents = self._count_document(domain)
        self._db.execute(_UPSERT_SQL, (domain, now, _json_list(fps)))
        self._written()
        return documents

    def observe_counted(self, domain: str, doc_key: int, paragraphs: Iterable[Paragraph],
                        now: float | None = None) -> int:
        """:meth:`observe` and return the domain's document count (read while counting)."""
        documents = self._add_document(domain, doc_key, *_observation(paragraphs, now))
        return self.document_count(domain) if documents is None else documents

    def record(self, domain: str, doc_key: int, paragraphs: Sequence[Paragraph],
               now: float | None = None) -> dict[int, ParagraphStats]:
        """Count and look up in one statement (``INSERT ... RETURNING``)."""
        fps = sorted({p.fingerprint for p in paragraphs})
        now = time.time() if now is None else now
        if not self._new_document(domain, doc_key) or not fps:
            return self.lookup(domain, fps)
        self._count_document(domain)
        rows = self._db.execute(_UPSERT_SQL + _RETURNING_SQL, (domain, now, _json_list(fps)))
        found = {fp: ParagraphStats(docs, bool(template), first, last)
                 for fp, docs, template, first, last in rows}
        self._written()
        return found

    def _count_document(self, domain: str) -> int:
        """Add one document to the domain's count; return the new count."""
        return self._db.execute(
            "INSERT INTO domains (domain, documents) VALUES (?, 1) "
            "ON CONFLICT(domain) DO UPDATE SET documents = documents + 1 "
            "RETURNING documents", (domain,)).fetchone()[0]

    def _new_document(self, domain: str, doc_key: int) -> bool:
        return self._db.execute("INSERT OR IGNORE INTO documents (domain, doc) VALUES (?, ?)",
                                (domain, doc_key)).rowcount == 1

    def _seed(self, domain: str, fps: Sequence[int], now: float) -> None:
        self._db.execute(
            "INSERT INTO domains (domain, error_pages) VALUES (?, 1) "
            "ON CONFLICT(domain) DO UPDATE SET error_pages = error_pages + 1", (domain,))
        self._db.executemany(
            "INSERT INTO paragraphs (domain, fp, template, first_seen, last_seen) "
            "VALUES (?, ?, 1, ?, ?) ON CONFLICT(domain, fp) DO UPDATE SET "
            "template = 1, last_seen = excluded.last_seen",
            [(domain, fp, now, now) for fp in fps])
        self._written()

    def _written(self) -> None:
        self._uncommitted += 1
        if self._uncommitted >= self.commit_every:
            self.flush()

    def _domain_row(self, domain: str) -> tuple[int, int]:
        row = self._db.execute(
            "SELECT documents, error_pages FROM domains WHERE domain = ?", (domain,)).fetchone()
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
        rows = self._db.execute(_LOOKUP_SQL, (domain, _json_list(fps), min_documents))
        return {fp: ParagraphStats(docs, bool(template), first, last)
                for fp, docs, template, first, last in rows}

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


# KEYS: docs set, counts hash, first-seen hash, last-seen hash.  ARGV: doc key, now, fps...
_OBSERVE_LUA = """
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
for i = 3, #ARGV do
  redis.call('HINCRBY', KEYS[2], ARGV[i], 1)
  redis.call('HSETNX', KEYS[3], ARGV[i], ARGV[2])
  redis.call('HSET', KEYS[4], ARGV[i], ARGV[2])
end
return 1
"""


class RedisHistory(DomainHistory):
    """A history in Redis, shared by parallel crawlers.

    Keys per domain (the ``{domain}`` hash tag keeps them in one cluster slot):
    ``<prefix>{domain}:docs`` (set of document keys), ``:n`` (fingerprint ->
    documents), ``:first`` / ``:last`` (fingerprint -> time), ``:tpl``
    (template fingerprints, a hash of 1s), ``:err`` (error pages seen).  A
    document is counted by one Lua script, so two crawlers that fetch the same
    page at once count it once.
    """

    def __init__(self, url: str = "redis://127.0.0.1:6379/0",
                 prefix: str = "corpuscrawl:bp:") -> None:
        try:
            import redis
        except ImportError as exc:  # pragma: no cover - redis is a declared dependency
            raise HistoryError("the Redis history needs the 'redis' package") from exc
        self.url = url
        self.prefix = prefix
        self._redis = redis.Redis.from_url(url)
        try:
            self._redis.ping()
        except redis.RedisError as exc:
            raise HistoryError(f"cannot reach the boilerplate history at {url}: {exc}") from exc
        self._observe_script = self._redis.register_script(_OBSERVE_LUA)

    def _key(self, domain: str, part: str) -> str:
        return f"{self.prefix}{{{domain}}}:{part}"

    def _observe(self, domain: str, doc_key: int, fps: Sequence[int], now: float) -> bool:
        keys = [self._key(domain, part) for part in ("docs", "n", "first", "last")]
        added = self._observe_script(keys=keys, args=[doc_key, repr(now), *fps])
        return bool(added)

    def _seed(self, domain: str, fps: Sequence[int], now: float) -> None:
        pipe = self._redis.pipeline(transaction=True)
        pipe.incr(self._key(domain, "err"))
        if fps:
            pipe.hset(self._key(domain, "tpl"), mapping=dict.fromkeys(fps, 1))
            for fp in fps:
                pipe.hsetnx(self._key(domain, "first"), fp, repr(now))
            pipe.hset(self._key(domain, "last"), mapping=dict.fromkeys(fps, repr(now)))
        pipe.execute()

    def document_count(self, domain: str) -> int:
        """Number of distinct documents of ``domain`` counted so far."""
        return int(self._redis.scard(self._key(domain, "docs")))

    def error_pages(self, domain: str) -> int:
        """How many error pages have seeded ``domain``'s template."""
        return int(self._redis.get(self._key(domain, "err")) or 0)

    def lookup(self, domain: str, fps: Iterable[int],
               min_documents: float = 0.0) -> dict[int, ParagraphStats]:
        """Stats of the given fingerprints in ``domain`` (see :meth:`DomainHistory.lookup`)."""
        wanted = list(dict.fromkeys(fps))
        if not wanted:
            return {}
        pipe = self._redis.pipeline(transaction=False)
        for part in ("n", "tpl", "first", "last"):
            pipe.hmget(self._key(domain, part), wanted)
        counts, templates, firsts, lasts = pipe.execute()
        found: dict[int, ParagraphStats] = {}
        for fp, n, tpl, first, last in zip(wanted, counts, templates, firsts, lasts,
                                           strict=True):
            if tpl is None and (n is None or int(n) < min_documents):
                continue
            found[fp] = ParagraphStats(int(n or 0), tpl is not None,
                                       float(first or 0.0), float(last or 0.0))
        return found

    def clear(self, domain: str) -> None:
        """Forget everything about ``domain`` (tests and manual resets)."""
        parts = ("docs", "n", "first", "last", "tpl", "err")
        self._redis.delete(*(self._key(domain, part) for part in parts))

    def close(self) -> None:
        """Release the connection pool."""
        self._redis.close()


def open_history(location: str | Path, commit_every: int = COMMIT_EVERY_DEFAULT,
                 redis_prefix: str = "corpuscrawl:bp:") -> DomainHistory:
    """Open the store at ``location``: a ``redis://``/``rediss://``/``unix://`` URL, else a SQLite path.

    ``":memory:"`` gives a throwaway in-memory SQLite history.
    """
    text = str(location)
    if text.startswith(("redis://", "rediss://", "unix://")):
        return RedisHistory(text, prefix=redis_prefix)
    return SQLiteHistory(text, commit_every=commit_every)
