"""What a crawl asked each host once and a resumed run need not ask again.

A resumed run (after a kill, a Ctrl-C, or a second cluster worker joining the
generation) would otherwise spend requests of its budget on answers the
generation already has, each one finding nothing:

* **robots.txt** — the file as fetched (status, body, fetch time) per origin
  (``scheme://host:port``).  :class:`corpuscrawl.net.scrapy_glue.robots.BoundedRobotsTxtMiddleware`
  answers from it while it is younger than ``CORPUSCRAWL_ROBOTSTXT_MAX_AGE``
  (24 h at most: RFC 9309 §2.4 lets a crawler cache robots.txt that long) and
  keeps what it fetched.  Only a file that was read is kept (2xx, or a 4xx
  meaning "no rules"); an unreachable or oversized one is asked again;
* **the error-page probe** of a domain
  (:class:`corpuscrawl.export.scrapy_glue.stage_pipeline.ErrorPageSeeder`) — recorded when the
  probe is scheduled, in the same batch as its frontier row, and again with its
  outcome (``seeded``, ``unusable``, ``failed``) once answered.  A probe whose
  record survived a kill is either answered or still in the frontier, so the
  resumed run never schedules another; a probe the frontier replays although its
  answer was recorded (answered just before the kill, its row not yet removed) is
  dropped before it is sent.

The records belong to a run generation: a new generation (a fresh crawl, a
recrawl) starts with none and asks again.  On one machine they are tables of the
state database (:mod:`corpuscrawl.crawlstate.store`), committed with the frontier;
in cluster mode, hashes under the generation's Redis prefix, shared by the workers.
A record that cannot be read (a damaged row, a time in the future) counts as
absent: the host is asked again and the record replaced.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from typing import Any, Protocol

from corpuscrawl.crawlstate.store import StateStore

__all__ = ["PROBE_OUTCOMES", "ROBOTS_MAX_AGE", "HostRecords", "RedisHostRecords",
           "SqliteHostRecords", "StoredRobots", "robots_origin"]

logger = logging.getLogger("corpuscrawl.crawlstate")

#: Longest a stored robots.txt is reused (RFC 9309 §2.4: a cache of at most 24 hours).
ROBOTS_MAX_AGE = 24 * 3600.0
#: A fetch time this far in the future is still believed (clocks of cluster workers).
CLOCK_SLACK = 300.0
#: What an error-page probe came to: scheduled, its page seeded the domain's history, its
#: answer could not seed it (not HTML, not an error status, empty), or it failed.
PROBE_OUTCOMES = ("scheduled", "seeded", "unusable", "failed")


def robots_origin(url: str) -> str:
    """``scheme://netloc`` of ``url``: the origin a robots.txt applies to (RFC 9309 §2.3)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


@dataclass(frozen=True)
class StoredRobots:
    """A robots.txt as fetched: its HTTP status, its body and when (Unix time)."""

    status: int
    body: bytes
    fetched_at: float

    def usable(self, max_age: float, now: float | None = None, max_size: int | None = None) -> bool:
        """Whether the copy may answer for the host now: a status that was read (2xx-4xx,
        not 429), fetched at most ``max_age`` seconds ago, not longer than ``max_size``."""
        now = time.time() if now is None else now
        if not (isinstance(self.status, int) and 200 <= self.status < 500 and self.status != 429):
            return False
        if not isinstance(self.body, bytes) or (max_size is not None and len(self.body) > max_size):
            return False
        age = now - self.fetched_at
        return math.isfinite(age) and -CLOCK_SLACK <= age <= max_age

    def pack(self) -> bytes:
        """One byte string: ``status fetched_at\\n`` then the body (the Redis value)."""
        return f"{self.status} {self.fetched_at:.3f}\n".encode() + self.body

    @classmethod
    def unpack(cls, raw: Any) -> StoredRobots | None:
        """The record packed by :meth:`pack`; None when ``raw`` is not one."""
        if not isinstance(raw, bytes):
            return None
        head, sep, body = raw.partition(b"\n")
        fields = head.split()
        if not sep or len(fields) != 2:
            return None
        try:
            return cls(int(fields[0]), body, float(fields[1]))
        except ValueError:
            return None


class HostRecords(Protocol):
    """Where the records live (SQLite on one machine, Redis in cluster mode)."""

    def robots(self, origin: str) -> StoredRobots | None:
        """The stored robots.txt of ``origin`` (None: none, or not readable)."""

    def keep_robots(self, origin: str, robots: StoredRobots) -> None:
        """Store (or replace) the robots.txt of ``origin``."""

    def probe(self, domain: str) -> str | None:
        """The outcome recorded for ``domain``'s error-page probe (None: never probed)."""

    def claim_probe(self, domain: str) -> bool:
        """Record that ``domain`` is probed now; False when it was already (by anyone)."""

    def probe_outcome(self, domain: str, outcome: str) -> None:
        """Record what ``domain``'s probe came to (one of :data:`PROBE_OUTCOMES`)."""


class SqliteHostRecords:
    """The records in the state database: tables ``robots_txt`` and ``error_probes``, written
    into the open batch (durable at the next commit, with the frontier)."""

    def __init__(self, store: StateStore) -> None:
        self.store = store

    def robots(self, origin: str) -> StoredRobots | None:
        """See :class:`HostRecords`."""
        row = self.store.read("SELECT status, body, fetched_at FROM robots_txt WHERE origin = ?",
                              (origin,)).fetchone()
        if row is None:
            return None
        status, body, fetched_at = row
        if not isinstance(status, int) or not isinstance(body, bytes) \
                or not isinstance(fetched_at, (int, float)):
            logger.warning("stored robots.txt of %s is damaged: fetched again", origin)
            return None
        return StoredRobots(status, body, float(fetched_at))

    def keep_robots(self, origin: str, robots: StoredRobots) -> None:
        """See :class:`HostRecords`."""
        self.store.write("INSERT OR REPLACE INTO robots_txt VALUES (?, ?, ?, ?)",
                         (origin, robots.status, robots.body, robots.fetched_at))

    def probe(self, domain: str) -> str | None:
        """See :class:`HostRecords`."""
        row = self.store.read("SELECT outcome FROM error_probes WHERE domain = ?",
                              (domain,)).fetchone()
        return str(row[0]) if row is not None else None

    def claim_probe(self, domain: str) -> bool:
        """See :class:`HostRecords`."""
        cursor = self.store.write("INSERT OR IGNORE INTO error_probes VALUES (?, 'scheduled', ?)",
                                  (domain, time.time()))
        return cursor.rowcount == 1

    def probe_outcome(self, domain: str, outcome: str) -> None:
        """See :class:`HostRecords`."""
        self.store.write("INSERT OR REPLACE INTO error_probes VALUES (?, ?, ?)",
                         (domain, outcome, time.time()))


class RedisHostRecords:
    """The records of a cluster generation: hashes ``<run prefix>robots`` (origin -> packed
    :class:`StoredRobots`) and ``<run prefix>error_probes`` (domain -> outcome), shared by
    the workers and removed with the generation.  A Redis error reads as "no record"."""

    def __init__(self, client: Any, run_prefix: str) -> None:
        self.client = client
        self.robots_key = run_prefix + "robots"
        self.probes_key = run_prefix + "error_probes"

    def _call(self, what: str, call: Any, default: Any = None) -> Any:
        import redis

        try:
            return call()
        except redis.RedisError as exc:
            logger.warning("Redis: cannot %s (%s); going on without it", what, exc)
            return default

    def robots(self, origin: str) -> StoredRobots | None:
        """See :class:`HostRecords`."""
        raw = self._call("read a stored robots.txt", lambda: self.client.hget(self.robots_key, origin))
        if raw is None:
            return None
        stored = StoredRobots.unpack(raw)
        if stored is None:
            logger.warning("stored robots.txt of %s is damaged: fetched again", origin)
        return stored

    def keep_robots(self, origin: str, robots: StoredRobots) -> None:
        """See :class:`HostRecords`."""
        self._call("store a robots.txt",
                   lambda: self.client.hset(self.robots_key, origin, robots.pack()))

    def probe(self, domain: str) -> str | None:
        """See :class:`HostRecords`."""
        raw = self._call("read an error-page probe", lambda: self.client.hget(self.probes_key, domain))
        return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw

    def claim_probe(self, domain: str) -> bool:
        """See :class:`HostRecords` (one worker of the cluster wins)."""
        return bool(self._call("record an error-page probe",
                               lambda: self.client.hsetnx(self.probes_key, domain, "scheduled"),
                               default=True))

    def probe_outcome(self, domain: str, outcome: str) -> None:
        """See :class:`HostRecords`."""
        self._call("record an error-page probe",
                   lambda: self.client.hset(self.probes_key, domain, outcome))
