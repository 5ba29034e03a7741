"""A feed that fails mid-crawl stops the crawl, and what it did not write stays pending.

Before the crawl starts every output is opened once (:mod:`corpuscrawl.export.scrapy_glue.output_checks`);
what can still go wrong is a write later on: a full disk, a file system gone read-only,
a storage that raises.  Scrapy logs such an error and goes on crawling, so every later
page was fetched, accounted as exported (crawl state, recrawl page store, cluster
leases) and lost.  Here instead:

* the corpus exporters (:mod:`corpuscrawl.export.scrapy_glue.exporters`) catch the failed write and call
  :func:`output_failed`: one ERROR line names the output and the reason, the stat
  ``corpuscrawl/export/feed_errors`` counts it and the spider is closed with the finish
  reason :data:`FEED_FAILED_REASON`;
* from then on nothing is accounted: the crawl state stops committing and rolls back what
  it had not committed (as after a kill, so the next run resumes: it cuts the feed files
  back to their committed sizes and fetches again every request whose documents were not
  durably written), the recrawl page store records no more texts, the cluster commits no
  more leases;
* the crawl commands end with one line and :data:`EXIT_OUTPUT_FAILED` — also when a
  storage failed to store a feed at the end (an FTP, S3 or GCS upload: Scrapy logs it;
  those documents are accounted as exported, the one case not covered above).
"""

from __future__ import annotations

import logging
import sys
import weakref
from typing import Any

__all__ = ["EXIT_OUTPUT_FAILED", "FEED_FAILED_REASON", "failure_of", "output_failed",
           "output_failure_exit"]

logger = logging.getLogger("corpuscrawl.export")

#: Finish reason of a crawl stopped because an output could not be written.
FEED_FAILED_REASON = "output_failed"
#: Exit status of the crawl commands for such a crawl.
EXIT_OUTPUT_FAILED = 5

_FAILED: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def failure_of(crawler: Any) -> str | None:
    """Why an output of ``crawler`` failed (None while every output works)."""
    return _FAILED.get(crawler) if crawler is not None else None


def output_failed(crawler: Any, output: str, exc: BaseException) -> None:
    """An output could not be written: record it, log one line, close the spider (once)."""
    if crawler is None or crawler in _FAILED:
        return
    reason = (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__)
    message = f"cannot write output {output}: {reason}"
    _FAILED[crawler] = message
    logger.error("%s; stopping the crawl: the pages not written stay pending for the next "
                 "run", message)
    stats = getattr(crawler, "stats", None)
    if stats is not None:
        stats.inc_value("corpuscrawl/export/feed_errors")
    engine = getattr(crawler, "engine", None)
    if engine is not None and getattr(engine, "running", False):
        from scrapy.utils.defer import deferred_from_coro
        from twisted.internet import reactor

        def close() -> None:
            if engine.spider is not None:
                deferred_from_coro(engine.close_spider_async(reason=FEED_FAILED_REASON)
                                   ).addErrback(lambda _: None)  # already closed

        reactor.callLater(0, close)


def _store_failures(crawler: Any) -> int:
    """Feeds whose storage failed to store them at the end (Scrapy's failed_count stats:
    an FTP, S3 or GCS upload)."""
    try:
        stats = crawler.stats.get_stats() if crawler.stats is not None else {}
    except (AttributeError, RuntimeError):
        return 0
    return sum(int(v) for k, v in stats.items() if k.startswith("feedexport/failed_count/"))


def output_failure_exit(crawler: Any) -> int:
    """After the crawl: one line on standard error and :data:`EXIT_OUTPUT_FAILED` when an
    output failed, else 0."""
    message = failure_of(crawler)
    if message is None:
        failed = _store_failures(crawler)
        if not failed:
            return 0
        sys.stderr.write(f"corpuscrawl crawl: error: storing {failed} feed(s) failed at the end "
                         "of the crawl (see the log's 'Error storing' lines)\n")
        return EXIT_OUTPUT_FAILED
    sys.stderr.write(f"corpuscrawl crawl: error: {message}; the crawl stopped, and the pages "
                     "not written are fetched again by the next run\n")
    return EXIT_OUTPUT_FAILED
