"""``max_pages`` over all the workers of a cluster: one Redis counter per run generation.

On one machine the spider counts the pages that gave a document and stops at
``max_pages``.  In cluster mode each page that gave a document is counted in
``corpuscrawl:<collection>:gen<N>:documents`` (``INCR``), so the limit holds
for the whole cluster: the worker whose count reaches it closes with the
reason ``max_pages``; every other worker sees the total at its next count or
at its next commit round (:class:`corpuscrawl.cluster.scrapy_glue.lease.LeasingScheduler`,
every ``CORPUSCRAWL_CLUSTER_COMMIT_INTERVAL`` seconds), stops taking requests
from the queue and closes with the same reason, which completes the
generation.  A worker restarted in the same generation continues the count.
As on one machine, pages already in flight when the limit is reached may
still be exported (at most the workers' concurrent requests).
"""

from __future__ import annotations

import weakref
from typing import Any

from corpuscrawl.cluster.config import redis_retry
from corpuscrawl.cluster.generation import active_config

__all__ = ["SharedDocumentCount", "shared_document_count"]

_COUNTS: weakref.WeakKeyDictionary[Any, SharedDocumentCount | None] = weakref.WeakKeyDictionary()


class SharedDocumentCount:
    """The generation's count of pages that gave a document, over all workers."""

    def __init__(self, client: Any, key: str) -> None:
        self.client = client
        self.key = key
        #: The latest total this worker saw.
        self.latest = 0

    def add(self, count: int = 1) -> int:
        """Count ``count`` more documents; the cluster's total."""
        self.latest = int(redis_retry(lambda: self.client.incrby(self.key, count),
                                      "counting documents"))
        return self.latest

    def total(self) -> int:
        """The cluster's total now."""
        raw = redis_retry(lambda: self.client.get(self.key), "reading the document count")
        self.latest = max(self.latest, int(raw or 0))
        return self.latest


def shared_document_count(crawler: Any) -> SharedDocumentCount | None:
    """The crawl's shared count in cluster mode (one per crawler), else None."""
    if crawler in _COUNTS:
        return _COUNTS[crawler]

    config = active_config(crawler)
    count = None
    if config is not None:
        import redis

        count = SharedDocumentCount(redis.Redis.from_url(config.url),
                                    config.run_prefix + "documents")
    _COUNTS[crawler] = count
    return count
