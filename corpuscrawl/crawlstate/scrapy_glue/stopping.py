"""A graceful stop that ends in bounded time, whatever the servers do, and loses nothing.

On SIGTERM or Ctrl-C Scrapy stops scheduling and waits for every request the
downloader holds: those queued behind a download slot's delay (a 429 storm's
``Retry-After`` pause is up to ``CORPUSCRAWL_MAX_RETRY_AFTER``, 120 s, per
request, one request after another) and those being transferred (a server that
never answers holds one for ``DOWNLOAD_TIMEOUT``).  Only then does the spider
close, the export stage release what it holds and the feeds get written.

:class:`BoundedStop` (an extension) watches for that stop and

1. at once takes every request still *queued* in a download slot out of the
   downloader and puts it back into the scheduler, so the durable frontier
   keeps it pending for the next run (:mod:`corpuscrawl.crawlstate.completion`:
   a re-enqueued copy continues the same row);
2. after ``CORPUSCRAWL_STOP_GRACE`` seconds cuts the downloads still being
   *transferred* the same way (each is requeued first, then its download is
   cancelled as ``DOWNLOAD_TIMEOUT`` would cancel it).

So the spider closes within about the grace period plus the time the pipelines
and feeds need; what the export stage held is released and written by the
normal close, and every request not fetched is pending for a resumed run.
Cutting transfers reads Scrapy's HTTP/1.1 handler (the timeout call it arms per
download, the agent's ``_cb_timeout``); with another download handler the
queued requests are still taken back and transfers end at their own timeout.
"""

from __future__ import annotations

import logging
from time import monotonic
from typing import Any

from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from twisted.internet import task
from twisted.internet.defer import Deferred

logger = logging.getLogger("corpuscrawl.crawlstate")

#: Seconds a graceful stop lets downloads in transfer finish before cutting them.
STOP_GRACE_DEFAULT = 10.0
#: Request meta key set on a download a graceful stop cut (its failure is not the server's).
STOPPED_META = "corpuscrawl_stopped"
#: How often the extension looks for a stop (seconds).
CHECK_INTERVAL = 0.5


class StoppedBeforeDownload(IgnoreRequest):
    """A request taken back from the downloader by a graceful stop; pending for the next run."""


def _requeue(engine: Any, request: Request) -> None:
    """Put a copy of ``request`` back into the scheduler (the frontier row stays pending)."""
    copy = request.replace(dont_filter=True)
    for key in ("download_slot", "download_latency"):
        copy.meta.pop(key, None)
    engine._slot.scheduler.enqueue_request(copy)


def _called_function(call: Any) -> Any:
    """The function a reactor's DelayedCall will call (the asyncio reactor wraps it in a
    closure, ``run``, whose cells hold it)."""
    func = call.func
    if isinstance(getattr(func, "__self__", None), Deferred):
        return func
    for cell in getattr(func, "__closure__", None) or ():
        try:
            inner = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(getattr(inner, "__self__", None), Deferred):
            return inner
    return None


def _timeout_calls(transferring: set[Request]) -> list[tuple[Any, Any, Request]]:
    """(armed DOWNLOAD_TIMEOUT call, the cancel it calls, request) of the HTTP/1.1 downloads
    of ``transferring``."""
    from twisted.internet import reactor

    calls = []
    for call in reactor.getDelayedCalls():  # type: ignore[attr-defined]
        cancel = _called_function(call)
        if cancel is None or getattr(cancel, "__name__", "") != "cancel":
            continue
        for (callback, args, _), _errback in cancel.__self__.callbacks:
            if getattr(callback, "__name__", "") == "_cb_timeout" and \
                    args and args[0] in transferring:
                calls.append((call, cancel, args[0]))
                break
    return calls


class BoundedStop:
    """Extension: a graceful stop takes queued and, after a grace, transferring downloads back."""

    def __init__(self, crawler: Any, grace: float):
        self.crawler = crawler
        self.grace = grace
        self.since: float | None = None
        self.requeued = 0
        self._cut = False
        self._loop: task.LoopingCall | None = None

    @classmethod
    def from_crawler(cls, crawler: Any) -> BoundedStop:
        """Build from ``CORPUSCRAWL_STOP_GRACE`` (negative: off, NotConfigured)."""
        raw = crawler.settings.get("CORPUSCRAWL_STOP_GRACE", STOP_GRACE_DEFAULT)
        try:
            grace = float(raw)
        except (TypeError, ValueError):
            raise ValueError(f"CORPUSCRAWL_STOP_GRACE must be a number of seconds, "
                             f"got {raw!r}") from None
        if grace < 0:
            raise NotConfigured("CORPUSCRAWL_STOP_GRACE < 0: a graceful stop waits for every download")
        ext = cls(crawler, grace)
        crawler.signals.connect(ext._opened, signal=signals.spider_opened)
        crawler.signals.connect(ext._closed, signal=signals.spider_closed)
        return ext

    def _opened(self) -> None:
        self._loop = task.LoopingCall(self.check)
        self._loop.start(CHECK_INTERVAL, now=False)

    def _closed(self) -> None:
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        if self.requeued:
            self.crawler.stats.set_value("corpuscrawl/stop/requeued", self.requeued)

    def stopping(self) -> bool:
        """True once the engine is stopping (a signal or ``crawler.stop()``), not finishing."""
        engine = self.crawler.engine
        slot = getattr(engine, "_slot", None)
        return engine is not None and not engine.running and slot is not None and \
            slot.closing is not None

    def check(self) -> None:
        """Take downloads back once the engine is stopping (see the module docstring)."""
        if not self.stopping():
            return
        if self.since is None:
            self.since = monotonic()
            logger.info("stopping: requests waiting in the downloader go back to the frontier; "
                        "downloads still running after %.0f s (CORPUSCRAWL_STOP_GRACE) are cut "
                        "and kept for the next run", self.grace)
        self.take_back_queued()
        if not self._cut and monotonic() - self.since >= self.grace:
            self._cut = True
            self.cut_transfers()

    def take_back_queued(self) -> None:
        """Requeue every request waiting in a download slot; fail its download quietly."""
        engine = self.crawler.engine
        for slot in engine.downloader.slots.values():
            if slot.latercall is not None:
                slot.latercall.cancel()
                slot.latercall = None
            while slot.queue:
                request, deferred = slot.queue.popleft()
                _requeue(engine, request)
                self.requeued += 1
                deferred.errback(StoppedBeforeDownload(f"crawl stopping: {request.url}"))

    def cut_transfers(self) -> None:
        """Requeue the requests still being transferred and cancel their downloads now."""
        engine = self.crawler.engine
        transferring = {r for slot in engine.downloader.slots.values() for r in slot.transferring}
        calls = _timeout_calls(transferring)
        if not calls:
            return
        logger.info("stopping: %d download(s) still running after %.0f s cut; kept for the "
                    "next run", len(calls), self.grace)
        for call, cancel, request in calls:
            if not call.active():
                continue
            _requeue(engine, request)
            request.meta["dont_retry"] = True  # the copy is pending; no retry of the original
            request.meta[STOPPED_META] = True
            self.requeued += 1
            call.cancel()  # the handler then reads the download as timed out ...
            cancel()  # ... and this aborts it now, as DOWNLOAD_TIMEOUT would have
