"""The shared domain-history backend: a Redis server, so parallel crawlers share one history.

See :mod:`corpuscrawl.boilerplate.history` for what a history holds.
Crawlers that set ``CORPUSCRAWL_BOILERPLATE_HISTORY`` to one ``redis://`` URL
count their documents in one history.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from corpuscrawl.boilerplate.history import DomainHistory, HistoryError, ParagraphStats

__all__ = ["RedisHistory"]

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
