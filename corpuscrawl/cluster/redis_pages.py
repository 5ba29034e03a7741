"""The recrawl page store in Redis, shared by the workers of a cluster (``CORPUSCRAWL_REDIS_URL``).

Same records and semantics as :class:`~corpuscrawl.crawlstate.pages.SQLitePageStore`
(see :mod:`corpuscrawl.crawlstate.pages`), kept in one Redis hash per
collection, ``corpuscrawl:<collection>:pages``: field = document key (the
URL, ``#unit=N`` for later units), value = the record as a compact JSON array
``[etag, last_modified, text_hash, words, status, first_seen, last_seen,
gone, children, hashed_in, prior_hash, source, shape]`` (a record written
before shapes were kept has no ``shape``: read as "").

* **Bounded per page.**  A record is the key plus about 150 bytes: two SHA-1
  hex digests, small integers, and validators capped at
  :data:`MAX_ETAG_CHARS` / :data:`MAX_LAST_MODIFIED_CHARS` (a longer one is
  not kept: that page is then fetched unconditionally).  Document keys are URLs,
  bounded by ``CORPUSCRAWL_MAX_URL_LENGTH``.  The worker holds no copy of the
  store: :meth:`RedisPageStore.revisit` streams it with ``HSCAN``.
* **Atomic across workers.**  Every change is one Lua script reading and
  rewriting one record in Redis (two workers crediting the same hub, or one
  recording a text while another marks the page gone, never lose an update).
* **Pipelined.**  Writes are buffered and sent as one ``MULTI``/``EXEC``
  pipeline every :data:`~corpuscrawl.crawlstate.pages.COMMIT_EVERY_DEFAULT`
  writes, every :data:`~corpuscrawl.crawlstate.pages.COMMIT_SECONDS_DEFAULT`
  seconds, at each commit round of the cluster and at close; a read of a key
  with a buffered write flushes first.  As with SQLite, a kill loses at most
  the buffered records, which only makes the next recrawl fetch and export
  those pages again.  :meth:`RedisPageStore.mark_gone` is sent at once (its
  answer — was the page not gone before — is counted once over all workers).
* **Redis away.**  Every call is retried with the cluster's logged back-off
  (:func:`corpuscrawl.cluster.config.redis_retry`).  A batch resent after a
  connection lost during ``EXEC`` may count a hub's children twice (a hint for
  the hub heuristic, nothing else).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from corpuscrawl.cluster.config import redis_retry
from corpuscrawl.crawlstate.pages import (
    COMMIT_EVERY_DEFAULT,
    COMMIT_SECONDS_DEFAULT,
    PageRecord,
    PageStore,
    PageStoreError,
    is_hub,
)

__all__ = ["MAX_ETAG_CHARS", "MAX_LAST_MODIFIED_CHARS", "RedisPageStore"]

#: Longest ETag kept (RFC 9110 sets no limit; real ones are quoted hashes of 10-70
#: characters).  A longer one is not stored: the page is fetched unconditionally.
MAX_ETAG_CHARS = 256
#: Longest Last-Modified kept (an HTTP-date is 29 characters).
MAX_LAST_MODIFIED_CHARS = 64

# One script for every change: ARGV[1] = operation, ARGV[2] = document key,
# ARGV[3] = generation, then the operation's own values.  A record is a JSON array
# (indices in the module docstring, 1-based here).
_CHANGE_LUA = """
local op, key, gen = ARGV[1], ARGV[2], tonumber(ARGV[3])
local raw = redis.call('HGET', KEYS[1], key)
local r
if raw then
  r = cjson.decode(raw)
else
  if op == 'touch' or op == 'gone' then return 0 end
  r = {'', '', '', 0, 0, gen, gen, 0, 0, 0, '', 0, ''}
end
local result = 1
if op == 'text' then
  if r[10] ~= gen then r[11] = r[3] end
  r[10] = gen; r[3] = ARGV[4]; r[5] = tonumber(ARGV[5]); r[1] = ARGV[6]; r[2] = ARGV[7]
  r[4] = tonumber(ARGV[8]); r[7] = gen; r[8] = 0; r[13] = ARGV[9] or ''

elseif op == 'touch' then
  r[7] = gen; r[5] = tonumber(ARGV[4]); r[8] = 0
elseif op == 'gone' then
  if r[8] == 1 then return 0 end
  r[8] = 1; r[5] = tonumber(ARGV[4]); r[7] = gen
elseif op == 'credit' then
  r[9] = r[9] + tonumber(ARGV[4])
elseif op == 'source' then
  r[12] = 1; r[5] = 200; r[7] = gen; r[8] = 0
else
  return redis.error_reply('unknown page store operation ' .. op)
end
redis.call('HSET', KEYS[1], key, cjson.encode(r))
return result
"""


class RedisPageStore(PageStore):
    """The page store of a collection in one Redis hash (see the module docstring)."""

    @classmethod
    def from_settings(cls, settings: Any, directory: Path | None = None) -> RedisPageStore:
        """``corpuscrawl:<CORPUSCRAWL_COLLECTION>:pages`` on ``CORPUSCRAWL_REDIS_URL``."""
        url = str(settings.get("CORPUSCRAWL_REDIS_URL") or "").strip()
        collection = str(settings.get("CORPUSCRAWL_COLLECTION") or "").strip()
        if not url:
            raise PageStoreError("CORPUSCRAWL_PAGE_STORE_CLASS=RedisPageStore needs "
                                 "CORPUSCRAWL_REDIS_URL")
        if not collection:
            raise PageStoreError("the Redis page store needs a collection "
                                 "(CORPUSCRAWL_COLLECTION / -a collection=NAME)")
        import redis

        return cls(redis.Redis.from_url(url), f"corpuscrawl:{collection}:pages")

    def __init__(self, client: Any, key: str, commit_every: int = COMMIT_EVERY_DEFAULT,
                 commit_seconds: float = COMMIT_SECONDS_DEFAULT) -> None:
        self.redis = client
        self.key = key
        self.commit_every = max(1, commit_every)
        self.commit_seconds = commit_seconds
        self._script = client.register_script(_CHANGE_LUA)
        self._pending: list[list[Any]] = []
        self._pending_keys: set[str] = set()
        self._last_flush = time.monotonic()
        self._closed = False

    # --- reading ------------------------------------------------------------------------

    def get(self, key: str) -> PageRecord | None:
        """The record of ``key`` (buffered writes to it are sent first), or None."""
        if key in self._pending_keys:
            self.flush()
        raw = redis_retry(lambda: self.redis.hget(self.key, key), "reading the page store")
        return _record(key, raw) if raw is not None else None

    def revisit(self, min_children: int, words_per_child: int) -> Iterator[PageRecord]:
        """Sources and hubs in a first pass over the hash, then pages with a text (HSCAN)."""
        self.flush()

        def first(r: PageRecord) -> bool:
            return r.source or is_hub(r.children, r.words, min_children, words_per_child)

        for wanted in (first, lambda r: not first(r) and bool(r.text_hash)):
            for record in self._scan():
                if not record.gone and "#" not in record.key and wanted(record):
                    yield record

    def _scan(self) -> Iterator[PageRecord]:
        cursor: int = 0
        while True:
            cursor, batch = redis_retry(
                lambda c=cursor: self.redis.hscan(self.key, c, count=1000),
                "reading the page store")
            for field, raw in batch.items():
                yield _record(field.decode("utf-8") if isinstance(field, bytes) else field, raw)
            if not cursor:
                return

    def last_generation(self) -> int:
        """The latest generation any record was seen in (a full scan; cluster workers read
        the generation from Redis instead)."""
        self.flush()
        return max((r.last_seen for r in self._scan()), default=0)

    def __len__(self) -> int:
        """Number of records."""
        self.flush()
        return int(redis_retry(lambda: self.redis.hlen(self.key), "reading the page store"))

    # --- writing ------------------------------------------------------------------------

    def record_text(self, key: str, text_hash: str, generation: int, status: int = 200,
                    etag: str = "", last_modified: str = "", words: int = 0,
                    shape: str = "") -> None:
        """Store the text hash, shape and validators (over-long validators are not kept)."""
        if len(etag) > MAX_ETAG_CHARS:
            etag = ""
        if len(last_modified) > MAX_LAST_MODIFIED_CHARS:
            last_modified = ""
        self._queue("text", key, generation, text_hash, int(status), etag, last_modified,
                    int(words), shape)

    def touch(self, key: str, generation: int, status: int) -> None:
        """Seen unchanged in ``generation``."""
        self._queue("touch", key, generation, int(status))

    def mark_gone(self, key: str, generation: int, status: int) -> bool:
        """Flag a known page as gone (sent at once); True when it was not gone before."""
        self.flush()
        return bool(redis_retry(
            lambda: self._script(keys=[self.key], args=["gone", key, generation, int(status)]),
            "writing the page store"))

    def credit(self, key: str, generation: int, documents: int = 1) -> None:
        """``documents`` more documents first reached through ``key``."""
        self._queue("credit", key, generation, int(documents))

    def record_source(self, key: str, generation: int) -> None:
        """Mark ``key`` as a sitemap or feed."""
        self._queue("source", key, generation)

    def _queue(self, op: str, key: str, generation: int, *values: Any) -> None:
        if self._closed:
            raise PageStoreError(f"page store {self.key} is closed")
        self._pending.append([op, key, int(generation), *values])
        self._pending_keys.add(key)
        if (len(self._pending) >= self.commit_every
                or time.monotonic() - self._last_flush >= self.commit_seconds):
            self.flush()

    def flush(self) -> None:
        """Send the buffered writes in one MULTI/EXEC pipeline."""
        if not self._pending:
            self._last_flush = time.monotonic()
            return
        batch = list(self._pending)

        def send() -> None:
            with self.redis.pipeline(transaction=True) as pipe:
                for args in batch:
                    self._script(keys=[self.key], args=args, client=pipe)
                pipe.execute()

        redis_retry(send, "writing the page store")
        del self._pending[:len(batch)]
        self._pending_keys = {args[1] for args in self._pending}
        self._last_flush = time.monotonic()

    def close(self) -> None:
        """Send what is buffered (idempotent)."""
        if not self._closed:
            self.flush()
            self._closed = True


def _record(key: str, raw: bytes | str) -> PageRecord:
    try:
        values = json.loads(raw)
        (etag, last_modified, text_hash, words, status, first, last, gone, children,
         hashed_in, prior_hash, source) = values[:12]
        shape = values[12] if len(values) > 12 else ""
    except (ValueError, TypeError) as exc:
        raise PageStoreError(f"page store record of {key!r} is not readable: {exc}") from exc
    return PageRecord(key, etag, last_modified, text_hash, int(words), int(status), int(first),
                      int(last), bool(gone), int(children), int(hashed_in), prior_hash,
                      bool(source), str(shape or ""))
