"""Document-level de-duplication shared by the workers of a cluster, in Redis.

:class:`RedisNearDuplicateIndex` has the interface of
:class:`corpuscrawl.export.dedup.NearDuplicateIndex` (the export stage calls
``add(key, text)``) with the same signatures, LSH bands and threshold, but its
documents live in Redis under the collection's prefix:

* ``exact:<sha1>`` — the document key that first had this exact text;
* ``band:<i>:<hex>`` — a set of document keys per LSH band value;
* ``doc:<key>`` — a hash with the document's signature (``sig``) and worker;
* ``pending:<worker>`` — the worker's *claims* that are not committed yet.

A document is claimed in one optimistic transaction (``WATCH`` on its exact
key, its own key and its band keys, then ``MULTI``): when another worker adds
a document to any of the same buckets in between, the transaction is retried
and sees it, so two workers exporting near-identical documents at once do not
both export.  A claim stays *pending* until the worker's feeds holding the
document are flushed (:meth:`commit`); when a worker dies, its pending claims
are released (:func:`release_claims`) before its leased requests go back into
the queue, so a document claimed but never written is exported by whoever
fetches the page again, and a document written is never written twice.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from corpuscrawl.cluster.config import redis_retry
from corpuscrawl.export.dedup import MinHasher, lsh_bands

__all__ = ["RedisNearDuplicateIndex", "release_claims"]


class RedisNearDuplicateIndex:
    """A near-duplicate index shared through Redis (see the module docstring)."""

    def __init__(self, client: Any, prefix: str, worker: str, threshold: float,
                 num_perm: int, shingle_words: int, seed: int = 1) -> None:
        self.redis = client
        self.prefix = prefix
        self.worker = worker
        self.threshold = threshold
        self.hasher = MinHasher(num_perm, shingle_words, seed)
        self.bands, self.rows = lsh_bands(threshold, num_perm)
        #: Keys claimed by this process and not committed yet (a page's other units).
        self._mine: set[str] = set()
        #: Claims whose documents are final (written or dropped), committed at the next flush.
        self._final: set[str] = set()

    def __len__(self) -> int:
        return len(self._mine)

    def _band_keys(self, sig: np.ndarray) -> list[str]:
        raw, step = sig.tobytes(), self.rows * sig.itemsize
        return [f"{self.prefix}band:{i}:{raw[i * step:(i + 1) * step].hex()}"
                for i in range(self.bands)]

    def add(self, key: Hashable, text: str | Sequence[str], *,
            spaced: bool = False) -> Hashable | None:
        """Claim ``text`` under ``key`` unless an earlier document (of any worker) has it or
        one near it; then return that document's key.  A key claimed by this process before
        is not its own duplicate (another unit of the same page); a key committed before
        (a page fetched again after a worker died) is."""
        doc = str(key)
        if doc in self._mine:
            return None
        sig = self.hasher.signature(text, spaced=spaced)
        words = text if isinstance(text, str) else " ".join(text)
        exact = f"{self.prefix}exact:{hashlib.sha1(words.encode('utf-8')).hexdigest()}"
        bands = self._band_keys(sig)
        found = redis_retry(lambda: self._claim(doc, sig, exact, bands), "de-duplication")
        if found is None:
            self._mine.add(doc)
        return found

    def _claim(self, doc: str, sig: np.ndarray, exact: str, bands: list[str]) -> str | None:
        import redis

        doc_key = f"{self.prefix}doc:{doc}"
        pending = f"{self.prefix}pending:{self.worker}"
        with self.redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(exact, doc_key, *bands)
                    if pipe.exists(doc_key):
                        # Still pending under this worker: this process's own claim, whose
                        # transaction went through while its reply was lost.
                        return None if pipe.hexists(pending, doc) else doc
                    other = pipe.get(exact)
                    if other is not None:
                        return other.decode() if isinstance(other, bytes) else str(other)
                    best, best_sim = None, 0.0
                    candidates: set[bytes] = set()
                    for band in bands:
                        candidates.update(pipe.smembers(band))
                    for candidate in sorted(candidates):
                        raw = pipe.hget(self.prefix.encode() + b"doc:" + candidate, "sig")
                        if raw is None:
                            continue
                        sim = MinHasher.similarity(sig, np.frombuffer(raw, dtype=np.uint32))
                        if sim >= self.threshold and sim > best_sim:
                            best, best_sim = candidate.decode(), sim
                    if best is not None:
                        return best
                    pipe.multi()
                    pipe.set(exact, doc)
                    pipe.hset(doc_key, mapping={"sig": sig.tobytes(), "worker": self.worker})
                    for band in bands:
                        pipe.sadd(band, doc)
                    pipe.hset(pending, doc, json.dumps({"exact": exact, "bands": bands}))
                    pipe.execute()
                    return None
                except redis.WatchError:
                    continue

    def final(self, keys: Iterable[str]) -> None:
        """These documents are final in this worker (exported or dropped by the stage)."""
        self._final.update(k for k in keys if k in self._mine)

    def all_final(self) -> None:
        """Every claimed document is final (the export stage was flushed at the crawl's end)."""
        self._final.update(self._mine)

    def commit(self, feeds_key: str = "", sizes: dict[str, int] | None = None) -> None:
        """Commit the final claims, with the sizes of the flushed feed files holding them
        (one transaction: a claim is committed exactly when its document is in a size)."""
        done = list(self._final)
        if not done and not sizes:
            return

        def run() -> None:
            pipe = self.redis.pipeline(transaction=True)
            if done:
                pipe.hdel(f"{self.prefix}pending:{self.worker}", *done)
            if sizes and feeds_key:
                pipe.hset(feeds_key, mapping=sizes)
            pipe.execute()

        redis_retry(run, "committing claims")
        self._final.difference_update(done)
        self._mine.difference_update(done)


_RELEASE_LUA = """
local prefix = ARGV[1]
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local doc, info = all[i], cjson.decode(all[i + 1])
  if redis.call('GET', info['exact']) == doc then redis.call('DEL', info['exact']) end
  for _, band in ipairs(info['bands']) do redis.call('SREM', band, doc) end
  redis.call('DEL', prefix .. 'doc:' .. doc)
end
redis.call('DEL', KEYS[1])
return #all / 2
"""


def release_claims(client: Any, prefix: str, worker: str) -> int:
    """Forget the uncommitted claims of a dead ``worker``; return how many."""
    script = client.register_script(_RELEASE_LUA)
    return int(script(keys=[f"{prefix}pending:{worker}"], args=[prefix]))
