"""The durable frontier: a SQLite-backed Scrapy scheduler and duplicate filter.

Plugged by Scrapy's own settings (the crawl-state add-on sets them at add-on
priority, so a project setting wins)::

    SCHEDULER = "corpuscrawl.crawlstate.scrapy_glue.frontier.DurableScheduler"
    DUPEFILTER_CLASS = "corpuscrawl.crawlstate.scrapy_glue.frontier.DurableDupeFilter"

Every request the engine schedules is written to the ``requests`` table of
the collection's state database (:mod:`corpuscrawl.crawlstate.store`) as
JSON (:mod:`corpuscrawl.crawlstate.scrapy_glue.requests_json`), with its state:

* **pending** (0) — waiting; handed out like Scrapy's
  ``DownloaderAwarePriorityQueue`` does: from the download slot (host) with
  the fewest active downloads (round-robin among equals), and within it the
  highest ``priority`` first, first-in first-out among equal priorities
  (breadth-first among equals); only to a slot that can start it now (its
  ``CONCURRENT_REQUESTS_PER_DOMAIN``), so requests wait here, ranked, rather
  than in the downloader's queues.  What the focused crawl learns re-ranks
  pending requests (``shape`` and ``prior`` columns,
  :meth:`~corpuscrawl.crawlstate.frontier.Frontier.rerank`,
  :data:`corpuscrawl.focus.FOCUS_LEARNED`);
* **in flight** (1) — given to the engine; the row is deleted (*done*) once
  the request and everything it produced are durable
  (:mod:`corpuscrawl.crawlstate.completion`).  A resumed run puts the
  in-flight rows of the killed run back to pending.

The seen-set is the ``seen`` table of request fingerprints (Scrapy's
``REQUEST_FINGERPRINTER``), so ``dont_filter`` and custom fingerprinters
work as in Scrapy.  A request and its fingerprint are written in the same
transaction as the export ledger, committed every
``CORPUSCRAWL_STATE_COMMIT_INTERVAL`` seconds: after a SIGKILL the frontier,
the seen-set and the exported documents agree.

The queue is the database itself: memory does not grow with the frontier
(only a count of pending requests per download slot is kept); its logic,
plain code over SQLite, is :class:`corpuscrawl.crawlstate.frontier.Frontier`.  A request
that cannot be stored (a callback that is not a spider method) is kept in
memory only, counted in ``corpuscrawl/frontier/unserializable``.
"""

from __future__ import annotations

import logging
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from typing import Any

from scrapy import Request, Spider
from scrapy.core.scheduler import BaseScheduler
from scrapy.dupefilters import BaseDupeFilter
from scrapy.utils.misc import build_from_crawler, load_object

from corpuscrawl.crawlstate.frontier import RERANK_HIGH_PRIOR
from corpuscrawl.crawlstate.lookup import crawl_state
from corpuscrawl.crawlstate.scrapy_glue.requests_json import (
    RequestCodecError,
    decode_request,
    encode_request,
)
from corpuscrawl.focus import FOCUS_LEARNED, followed_link

__all__ = ["FRONTIER_META", "DurableDupeFilter", "DurableScheduler"]

logger = logging.getLogger("corpuscrawl.crawlstate")

#: Request meta key holding the frontier row of a handed-out request.
FRONTIER_META = "corpuscrawl_frontier"
#: Meta keys never stored: per-process objects of scrapy-playwright and Scrapy.
TRANSIENT_META = (FRONTIER_META, "playwright_page", "download_slot", "_slot_proxy")


#: Fingerprints the duplicate filter remembers in memory, most recently met first: the
#: links every page of a site repeats (menus, footers) are told seen without a query.
RECENT_FINGERPRINTS = 20_000


class DurableDupeFilter(BaseDupeFilter):
    """Scrapy duplicate filter over the collection's ``seen`` table (request fingerprints).

    The last :data:`RECENT_FINGERPRINTS` fingerprints met are kept in memory too (about
    2.5 MB): each is in the table already (rows of ``seen`` are never deleted), so a request
    met again is a duplicate without asking SQLite.
    """

    def __init__(self, crawler: Any) -> None:
        self.state = crawl_state(crawler, "DUPEFILTER_CLASS")
        self.fingerprinter = crawler.request_fingerprinter
        self.stats = crawler.stats
        self.debug = crawler.settings.getbool("DUPEFILTER_DEBUG")
        self._logged = False
        self._recent: OrderedDict[bytes, None] = OrderedDict()

    @classmethod
    def from_crawler(cls, crawler: Any) -> DurableDupeFilter:
        """Build on the crawl's state (the crawl-state add-on must be enabled)."""
        return cls(crawler)

    def request_seen(self, request: Request) -> bool:
        """Record the request's fingerprint; True when it was recorded before."""
        fingerprint = self.fingerprinter.fingerprint(request)
        recent = self._recent
        if fingerprint in recent:
            recent.move_to_end(fingerprint)
            return True
        cursor = self.state.store.write("INSERT OR IGNORE INTO seen VALUES (?)", (fingerprint,))
        recent[fingerprint] = None
        if len(recent) > RECENT_FINGERPRINTS:
            recent.popitem(last=False)
        return cursor.rowcount == 0

    def log(self, request: Request, spider: Spider) -> None:
        """Count a filtered request (and log the first, or all with DUPEFILTER_DEBUG)."""
        if self.debug or not self._logged:
            logger.debug("filtered duplicate request: %s%s", request,
                         "" if self.debug else " (no more duplicates will be shown; "
                         "set DUPEFILTER_DEBUG to show all)")
            self._logged = True
        if self.stats is not None:
            self.stats.inc_value("dupefilter/filtered")


class DurableScheduler(BaseScheduler):
    """Scrapy scheduler over :class:`~corpuscrawl.crawlstate.frontier.Frontier` (see the module docstring).

    Uses the duplicate filter named by ``DUPEFILTER_CLASS`` (the durable one
    by default) and counts Scrapy's ``scheduler/*`` stats.
    """

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.state = crawl_state(crawler, "SCHEDULER")
        self.frontier = self.state.frontier
        self.tracker = self.state.tracker
        self.stats = crawler.stats
        self.df: BaseDupeFilter = build_from_crawler(
            load_object(crawler.settings["DUPEFILTER_CLASS"]), crawler)
        self.spider: Spider | None = None
        self._memory: deque[Request] = deque()  # requests that cannot be stored
        #: shape -> ranks (at the lowest and a high prior) last applied to its pending rows
        self._ranked: dict[str, tuple[int, int]] = {}
        crawler.signals.connect(self._focus_learned, signal=FOCUS_LEARNED)

    @classmethod
    def from_crawler(cls, crawler: Any) -> DurableScheduler:
        """Build on the crawl's state (the crawl-state add-on must be enabled)."""
        return cls(crawler)

    def open(self, spider: Spider) -> Any:
        """Open the duplicate filter (the crawl state commits on its own from spider_opened)."""
        self.spider = spider
        if self.frontier.pending:
            logger.info("resuming: %d requests left in the frontier", self.frontier.pending)
        focus = getattr(spider, "focus", None)
        if focus is not None:  # the lines seen by this generation's runs, and seen from now on
            focus.novelty.memory = self.frontier
        learning = getattr(focus, "learning", None)
        learned = self.frontier.learned()
        if learning is not None and learned:  # a resumed run goes on from what was learned
            learning.load(learned, self.frontier.learned_squares(), self.frontier.learned_misses())
            logger.info("resuming: the focus knows %d URL shapes", len(learned))
        return self.df.open()

    def _focus_learned(self, shape: str, pages: int, total: float,
                       rank: Callable[[float], int], squares: float | None = None,
                       misses: tuple[int, float] | None = None) -> None:
        """Keep what the focus learned of a URL shape and re-rank that shape's pending requests.

        ``rank(prior)`` is a link's priority now (:meth:`corpuscrawl.focus.Focus.rank`:
        its prior shrunk towards the shape's mean); pending rows are rewritten
        only when it moved by a priority unit, so a shape whose mean has settled
        costs nothing.
        """
        self.frontier.save_learned(shape, pages, total, squares)
        if misses is not None:
            self.frontier.save_misses(*misses)
        ranks = (rank(0.0), rank(RERANK_HIGH_PRIOR))
        if self._ranked.get(shape) == ranks:
            return
        self._ranked[shape] = ranks
        changed = self.frontier.rerank(shape, rank)
        if changed:
            self.stats.inc_value("corpuscrawl/frontier/reranked", changed)

    def close(self, reason: str) -> Any:
        """Close the duplicate filter (the crawl state records the reason from spider_closed)."""
        return self.df.close(reason)

    def has_pending_requests(self) -> bool:
        """True while a request waits in the frontier (or in memory)."""
        return self.frontier.pending > 0 or bool(self._memory)

    def __len__(self) -> int:
        return self.frontier.pending + len(self._memory)

    def enqueue_request(self, request: Request) -> bool:
        """Store a request unless the duplicate filter knows it; False when filtered."""
        if not request.dont_filter and self.df.request_seen(request):
            self.df.log(request, self.spider)  # type: ignore[arg-type]
            return False
        self.tracker.settle()
        try:
            data, dropped = encode_request(request, self.spider, TRANSIENT_META)
        except RequestCodecError as exc:
            self._memory.append(request)
            self.stats.inc_value("corpuscrawl/frontier/unserializable")
            logger.warning("%s: kept in memory only (lost if the crawl is killed)", exc)
            return True
        if dropped:
            self.stats.inc_value("corpuscrawl/frontier/meta_dropped", len(dropped))
            logger.debug("meta %s of %s not stored: not JSON data", dropped, request.url)
        row_id = request.meta.get(FRONTIER_META)
        slot = self._slot_key(request)
        shape, prior = followed_link(request.meta)
        if isinstance(row_id, int) and self.tracker.continues(row_id):
            self.frontier.requeue(row_id, request.priority, request.url, data, slot, shape, prior)
        else:
            self.frontier.push(request.priority, request.url, data, slot, shape, prior)
        self.stats.inc_value("scheduler/enqueued/disk")
        self.stats.inc_value("scheduler/enqueued")
        return True

    def _downloader(self) -> Any:
        engine = getattr(self.crawler, "engine", None)
        return getattr(engine, "downloader", None)

    def _slot_key(self, request: Request) -> str:
        """The download slot Scrapy will use for ``request`` (its host, or meta download_slot)."""
        downloader = self._downloader()
        return downloader.get_slot_key(request) if downloader is not None else ""

    def _active_downloads(self, slot: str) -> int:
        downloader = self._downloader()
        found = downloader.slots.get(slot) if downloader is not None else None
        return len(found.active) if found is not None else 0

    def _busy_slots(self) -> Counter[str]:
        """Per download slot, the requests handed out, downloading or being parsed.

        Scrapy's engine takes requests while the downloader holds fewer than
        ``CONCURRENT_REQUESTS``, parking the surplus in the slot's own queue,
        and downloads run ahead of the spider's parsing; kept here instead,
        requests stay ranked and are re-ranked by what the pages before them
        teach the focus.  The engine asks again whenever a request is over.

        A request counts from the moment it is handed out: the engine takes
        several in one turn, and a request enters its download slot only once
        the downloader middlewares (robots.txt among them) let it through, so
        the slot's own ``active`` set alone let a whole burst of one unproven
        URL shape out before the first of them taught anything.  Counted are
        the engine's requests in progress, the downloader's and the scraper's
        (once each; computed once per hand-out, whatever the number of slots).
        """
        downloader = self._downloader()
        engine = getattr(self.crawler, "engine", None)
        if downloader is None or engine is None:
            return Counter()
        busy: dict[int, Request] = {}
        for requests in (getattr(getattr(engine, "_slot", None), "inprogress", ()),
                         getattr(downloader, "active", ()),
                         getattr(getattr(getattr(engine, "scraper", None), "slot", None),
                                 "active", ())):
            busy.update((id(request), request) for request in requests)
        return Counter(downloader.get_slot_key(request) for request in busy.values())

    def _slot_full(self, slot: str, busy: Counter[str]) -> bool:
        """The slot has as many requests handed out and not yet parsed (``busy``) as it
        downloads at once (a slot not made yet: the downloader's per-domain concurrency)."""
        downloader = self._downloader()
        if downloader is None:
            return False
        found = downloader.slots.get(slot)
        concurrency = found.concurrency if found is not None else (
            getattr(downloader, "ip_concurrency", 0) or getattr(downloader, "domain_concurrency", 0))
        return busy[slot] >= max(1, concurrency or 1)

    def next_request(self) -> Request | None:
        """The best pending request, now in flight (its row id in ``meta['corpuscrawl_frontier']``)."""
        self.tracker.settle()
        self.state.commit_before_hand_out()
        if self._memory:
            self.stats.inc_value("scheduler/dequeued/memory")
            self.stats.inc_value("scheduler/dequeued")
            return self._memory.popleft()
        busy = self._busy_slots()
        while (row := self.frontier.pop(self._active_downloads,
                                        lambda slot: self._slot_full(slot, busy))) is not None:
            row_id, data = row
            try:
                request = decode_request(data, self.spider)
            except RequestCodecError as exc:
                logger.error("frontier row %d dropped: %s", row_id, exc)
                self.stats.inc_value("corpuscrawl/frontier/unreadable")
                self.frontier.done(row_id)
                continue
            request.meta[FRONTIER_META] = row_id
            self.tracker.handed_out(row_id, request)
            self.stats.inc_value("scheduler/dequeued/disk")
            self.stats.inc_value("scheduler/dequeued")
            return request
        return None
