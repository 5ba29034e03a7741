"""The crawl-state add-on: wires the durable frontier, the run generation and the export ledger.

Installed by :class:`corpuscrawl.Addon`.  When the crawl names a collection
(``CORPUSCRAWL_COLLECTION``, which the corpus spider sets), the add-on's
``update_settings`` sets, at add-on priority, ``SCHEDULER`` and ``DUPEFILTER_CLASS``
to the durable ones (:mod:`corpuscrawl.crawlstate.scrapy_glue.frontier`), adds the
:class:`~corpuscrawl.crawlstate.scrapy_glue.ledger.ExportLedgerPipeline` and the
:class:`CrawlStateOpener` extension; it touches no file.  The opener, the first
extension Scrapy builds (after every add-on, before the settings freeze):

1. locks the collection's state directory
   (:func:`corpuscrawl.crawlstate.scrapy_glue.location.state_dir`) and opens its state
   database (:mod:`corpuscrawl.crawlstate.store`);
2. decides whether this run resumes or starts a new generation
   (:mod:`corpuscrawl.crawlstate.runs`) — the decision is :func:`corpuscrawl.crawlstate.lookup.run_info`;
3. prepares the local feed files (:func:`corpuscrawl.crawlstate.export_ledger.repair_feeds`)
   and, on a resume, switches their ``overwrite`` off so ``-O`` appends (the feed
   exporter, built after it, reads the result).

During the crawl :class:`RunState` commits the state database every
``CORPUSCRAWL_STATE_COMMIT_INTERVAL`` seconds; when the engine stops it
commits a last time and records the run's end and reason.  With
``CORPUSCRAWL_STATE_TEMPORARY`` (the demo crawl) the state lives in a
temporary directory removed at the end.
"""

from __future__ import annotations

import json
import logging
import shutil
import statistics
import tempfile
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from twisted.internet.task import LoopingCall

from corpuscrawl.crawlstate.completion import CompletionTracker
from corpuscrawl.crawlstate.export_ledger import ExportLedger, FeedNotDurable, repair_feeds
from corpuscrawl.crawlstate.export_state import existing_state
from corpuscrawl.crawlstate.feed_paths import local_feed_path
from corpuscrawl.crawlstate.frontier import Frontier
from corpuscrawl.crawlstate.hosts import SqliteHostRecords
from corpuscrawl.crawlstate.lookup import StateConfigError, attach_host_records, attach_run_state
from corpuscrawl.crawlstate.runs import RunInfo, RunLock, begin_run, finish_run
from corpuscrawl.crawlstate.scrapy_glue.frontier import FRONTIER_META
from corpuscrawl.crawlstate.scrapy_glue.location import state_dir
from corpuscrawl.crawlstate.scrapy_glue.output_failure import failure_of, output_failed
from corpuscrawl.crawlstate.state_paths import COLLECTION_SETTING, STATE_DIR_SETTING
from corpuscrawl.crawlstate.store import STATE_FILE, StateStore
from corpuscrawl.items import Document

__all__ = ["CrawlStateAddon", "CrawlStateOpener", "RunState", "StateConfig", "StateConfigError",
           "local_feeds"]

logger = logging.getLogger("corpuscrawl.crawlstate")

#: Seconds between two commits of the state database (the most work a kill can lose).
COMMIT_INTERVAL_DEFAULT = 1.0
#: Requests done since the last commit that bring the next commit forward (0 = by time only).
COMMIT_PAGES_DEFAULT = 1
#: Least seconds between two commits brought forward by done requests (at most 50 a second).
COMMIT_MIN_GAP = 0.02
#: Most of the crawl's time that commits brought forward may take: the gap after a commit is
#: at least its duration (the median of the last :data:`COMMIT_COST_WINDOW`: each fsyncs the
#: feeds) divided by this share, so on a slow disk commits are further apart and a kill
#: redoes a little more.
COMMIT_TIME_SHARE = 0.05
COMMIT_COST_WINDOW = 15
LEDGER_PIPELINE = "corpuscrawl.crawlstate.scrapy_glue.ledger.ExportLedgerPipeline"
#: Before the export stage (900): a document exported before never reaches it again.
LEDGER_PIPELINE_ORDER = 850
OPENER = "corpuscrawl.crawlstate.scrapy_glue.state_addon.CrawlStateOpener"
#: The first extension built (Scrapy's own start at 0): the state is open before the feed
#: exporter reads FEEDS and before any other component looks it up.
OPENER_ORDER = -1000


@dataclass(frozen=True)
class StateConfig:
    """The crawl-state settings, read once and validated (documented in corpuscrawl/settings.py)."""

    resume: str = "auto"
    commit_interval: float = COMMIT_INTERVAL_DEFAULT
    temporary: bool = False
    commit_pages: int = COMMIT_PAGES_DEFAULT

    @classmethod
    def from_settings(cls, settings: Any) -> StateConfig:
        """Read and validate; errors name the key."""
        resume = str(settings.get("CORPUSCRAWL_RESUME") or "auto").lower()
        if resume not in ("auto", "never"):
            raise StateConfigError(f"CORPUSCRAWL_RESUME must be 'auto' or 'never', got {resume!r}")
        raw = settings.get("CORPUSCRAWL_STATE_COMMIT_INTERVAL", COMMIT_INTERVAL_DEFAULT)
        try:
            interval = float(raw)
        except (TypeError, ValueError):
            interval = -1.0
        if not 0 < interval <= 3600:
            raise StateConfigError("CORPUSCRAWL_STATE_COMMIT_INTERVAL must be a number of "
                                   f"seconds in (0, 3600], got {raw!r}")
        raw_pages = settings.get("CORPUSCRAWL_STATE_COMMIT_PAGES", COMMIT_PAGES_DEFAULT)
        try:
            pages = int(raw_pages)
        except (TypeError, ValueError):
            pages = -1
        if pages < 0:
            raise StateConfigError("CORPUSCRAWL_STATE_COMMIT_PAGES must be a whole number of "
                                   f"requests >= 0, got {raw_pages!r}")
        return cls(resume=resume, commit_interval=interval,
                   temporary=settings.getbool("CORPUSCRAWL_STATE_TEMPORARY"), commit_pages=pages)


class RunState:
    """Everything durable of one run: state database, run info, frontier, completion, ledger."""

    def __init__(self, crawler: Any, directory: Path, config: StateConfig,
                 temporary_root: Path | None = None) -> None:
        self.crawler = crawler
        self.directory = directory
        self.config = config
        self._temporary_root = temporary_root
        self.lock = RunLock(directory)
        try:
            self.store = StateStore(directory / STATE_FILE)
            self.run: RunInfo = begin_run(
                self.store, config.resume, crawler.settings.get(COLLECTION_SETTING) or "",
                str(directory))
        except Exception:
            self.lock.release()
            raise
        self.frontier = Frontier(self.store)
        self.tracker = CompletionTracker(self._done)
        self.ledger = ExportLedger(self.store, self.run.run_id)
        self.ledger.on_failure = lambda path, exc: output_failed(crawler, path, exc)
        self.reason: str | None = None
        #: Local feed files of this crawl: (path, format, overwrite).
        self.feeds: list[tuple[Path, str, bool]] = []
        self._loop: LoopingCall | None = None
        self._settle_loop: LoopingCall | None = None
        self._closed = False
        #: Requests done since the last commit, and the commit they brought forward (if any).
        self._done_since_commit = 0
        self._early_commit: Any = None
        #: Seconds the last commits took, whose median spaces the commits brought forward (a
        #: median: one slow commit, the first ones' or a disk's hiccup, does not stretch it).
        self._commit_costs: deque[float] = deque(maxlen=COMMIT_COST_WINDOW)
        crawler.signals.connect(self.open, signal=signals.spider_opened)
        crawler.signals.connect(self.closing, signal=signals.spider_closed)
        crawler.signals.connect(self._engine_stopped, signal=signals.engine_stopped)

    def open(self, spider: Any = None) -> None:
        """Start committing; watch responses and items (connected now, after the feed
        exporter's handlers, so a document is written before it is accounted)."""
        if self._loop is not None:
            return
        stats = self.crawler.stats
        stats.set_value("corpuscrawl/state/generation", self.run.generation)
        stats.set_value("corpuscrawl/state/resumed", int(self.run.resumed))
        stats.set_value("corpuscrawl/state/carried_requests", self.run.carried_requests)
        signals_ = self.crawler.signals
        signals_.connect(self._response_received, signal=signals.response_received)
        signals_.connect(self._item_scraped, signal=signals.item_scraped)
        self._loop = LoopingCall(self.commit)
        self._loop.start(self.config.commit_interval, now=False)
        if self.config.commit_pages:
            self._settle_loop = LoopingCall(self._settle)
            self._settle_loop.start(COMMIT_MIN_GAP, now=False)
        if self.run.resumed:
            self._remember_exported()

    def _remember_exported(self) -> None:
        """Feed the documents exported before the restart to the export stage's near-duplicate
        index, read back from a JSON Lines feed (cut to the committed size already)."""
        export = existing_state(self.crawler)
        path = next((p for p, fmt, _ in self.feeds if fmt in ("jsonl", "jsonlines")), None)
        if export is None or export.stage.dedup is None or path is None or not path.is_file():
            return
        remembered = 0
        with path.open("rb") as fh:
            for line in fh:
                try:
                    record = json.loads(line)
                    key = (str(record["url"]), int(record.get("unit_index") or 0))
                except (ValueError, KeyError, TypeError):
                    continue
                if self.ledger.exported(key):
                    export.stage.remember(Document(url=key[0], unit_index=key[1],
                                                   text=str(record.get("text") or "")))
                    remembered += 1
        logger.info("resuming: %d documents exported before the restart join the "
                    "near-duplicate index (from %s)", remembered, path)

    def commit(self) -> None:
        """Make everything done so far durable (feeds flushed first, then one SQLite commit).

        Nothing once an output failed (:mod:`corpuscrawl.crawlstate.scrapy_glue.output_failure`)."""
        if self._closed or failure_of(self.crawler):
            return
        self.tracker.settle()
        started = time.monotonic()
        try:
            self.store.commit()
        except FeedNotDurable:
            return  # reported; the batch stays uncommitted
        self._commit_costs.append(time.monotonic() - started)
        self._done_since_commit = 0

    def closing(self, reason: str = "", spider: Any = None) -> None:
        """The spider is closing for ``reason`` (recorded when the engine stops)."""
        self.reason = reason or self.reason

    def _done(self, row_id: int) -> None:
        self.frontier.done(row_id)
        self.crawler.stats.inc_value("corpuscrawl/frontier/done")
        self._done_since_commit += 1
        pages = self.config.commit_pages
        if pages and self._done_since_commit >= pages and self._early_commit is None \
                and self._loop is not None:
            self._bring_commit_forward()

    def commit_before_hand_out(self) -> None:
        """Called by the scheduler before it hands out a request: commit now the requests done
        since the last commit when the gap of :meth:`_bring_commit_forward` has passed.  The
        request whose end freed the host's slot is then durable before the next one leaves,
        so a kill landing on that next request does not fetch the finished one again."""
        if self._early_commit is None or not self._early_commit.active():
            return
        if self._commit_wait() > 0:
            return
        self._early_commit.cancel()
        self._early_commit = None
        self.commit()

    def _commit_wait(self) -> float:
        """Seconds until a commit brought forward may run: the gap after the last commit is
        at least :data:`COMMIT_MIN_GAP` and its cost over :data:`COMMIT_TIME_SHARE`."""
        cost = statistics.median(self._commit_costs) if self._commit_costs else 0.0
        gap = max(COMMIT_MIN_GAP, cost / COMMIT_TIME_SHARE)
        return max(0.0, gap - (time.monotonic() - self.store.last_commit))

    def _bring_commit_forward(self) -> None:
        """Commit soon after ``CORPUSCRAWL_STATE_COMMIT_PAGES`` requests are done, not only
        every ``CORPUSCRAWL_STATE_COMMIT_INTERVAL``: a kill redoes the requests done since
        the last commit, and a fast site serves several a second, each fetched again
        against the resumed run's budget.  The commit runs on a later reactor turn (never
        inside the code that just finished a request: a fingerprint may be written before
        its request), at least :data:`COMMIT_MIN_GAP` seconds after the last one and so that
        commits take at most :data:`COMMIT_TIME_SHARE` of the time.  Requests in flight at a
        kill are fetched again whatever the gap; the gap adds those done since the last
        commit."""
        from twisted.internet import reactor

        self._early_commit = reactor.callLater(self._commit_wait(), self._commit_early)

    def _settle(self) -> None:
        """Notice the requests whose objects died since the last look (every
        :data:`COMMIT_MIN_GAP` seconds): a done one brings the next commit forward at once,
        not only when the periodic commit finds it."""
        if not self._closed and not failure_of(self.crawler):
            self.tracker.settle()

    def _commit_early(self) -> None:
        self._early_commit = None
        self.commit()

    def _response_received(self, response: Any, request: Any, spider: Any) -> None:
        self.tracker.reached(request, FRONTIER_META)

    def _item_scraped(self, item: Any, response: Any, spider: Any) -> None:
        """Account documents the export stage holds or released with ``item`` (already written;
        nothing once an output failed)."""
        if not isinstance(item, Document) or failure_of(self.crawler):
            return

        export = existing_state(self.crawler)
        outcomes = export.released_with(item) if export is not None else None
        if outcomes is not None:
            self.tracker.account_released(item, outcomes, response, FRONTIER_META)

    def _engine_stopped(self) -> None:
        if self._closed:
            return
        for loop in (self._loop, self._settle_loop):
            if loop is not None and loop.running:
                loop.stop()
        if self._early_commit is not None and self._early_commit.active():
            self._early_commit.cancel()
        self._early_commit = None
        try:
            if not failure_of(self.crawler):
                try:
                    self.tracker.settle()
                    finish_run(self.store, self.run, self.reason or "shutdown")
                    self.store.close()
                except FeedNotDurable:  # the last flush failed (reported): not committed
                    pass
            if failure_of(self.crawler):
                self.store.abandon()  # the next run resumes from the last good commit
                logger.info("crawl state %s left at its last commit: an output failed; "
                            "the next run resumes from there", self.directory)
        finally:
            self._closed = True
            self.lock.release()
            if self._temporary_root is not None:
                shutil.rmtree(self._temporary_root, ignore_errors=True)


class CrawlStateAddon:
    """Scrapy add-on wiring the crawl state (see the module docstring).

    ``update_settings`` only sets settings: the durable scheduler, duplicate filter and
    ledger pipeline, and :class:`CrawlStateOpener`, which opens the state when the
    crawl's extensions are built.  Nothing is read, locked or created before that.
    """

    def __init__(self, crawler: Any = None) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Any) -> CrawlStateAddon:
        """Build for ``crawler`` (Scrapy passes it to add-ons)."""
        return cls(crawler)

    def update_settings(self, settings: Any) -> None:
        """Plug the durable components at add-on priority (no file touched here)."""
        if not settings.get(COLLECTION_SETTING):
            raise NotConfigured("no collection named (CORPUSCRAWL_COLLECTION)")
        if settings.get("CORPUSCRAWL_REDIS_URL"):  # cluster mode keeps the state in Redis
            raise NotConfigured("cluster mode (CORPUSCRAWL_REDIS_URL): see corpuscrawl.cluster")
        StateConfig.from_settings(settings)  # a bad value fails here, naming the key
        settings.set("SCHEDULER", "corpuscrawl.crawlstate.scrapy_glue.frontier.DurableScheduler",
                     priority="addon")
        settings.set("DUPEFILTER_CLASS", "corpuscrawl.crawlstate.scrapy_glue.frontier.DurableDupeFilter",
                     priority="addon")
        _setdefault_component(settings, "ITEM_PIPELINES", LEDGER_PIPELINE, LEDGER_PIPELINE_ORDER)
        _setdefault_component(settings, "EXTENSIONS", OPENER, OPENER_ORDER)


def _setdefault_component(settings: Any, name: str, path: str, order: int) -> None:
    """Add ``path`` at ``order`` to the component dict ``name`` unless it is named there
    already (a user's own order, or None to switch it off, wins)."""
    components = dict(settings.getdict(name))
    if path not in components:
        components[path] = order
        settings.set(name, components, priority=settings.getpriority(name) or 0)


class CrawlStateOpener:
    """Extension: opens the collection's state when the crawl's components are built.

    Extensions are built after every add-on's ``update_settings`` and before the
    settings freeze; this one comes first (``EXTENSIONS`` order
    :data:`OPENER_ORDER`), so the feed exporter built after it reads a resumed run's
    ``FEEDS`` (switched to append) and the engine's scheduler finds the frontier.
    It locks the state directory (a second crawl of the collection fails here with
    :class:`~corpuscrawl.crawlstate.runs.RunLock`'s message), decides resume or new
    generation, prepares the feed files and attaches the :class:`RunState` to the
    crawler (:mod:`corpuscrawl.crawlstate.lookup`).
    """

    def __init__(self, state: RunState) -> None:
        self.state = state

    @classmethod
    def from_crawler(cls, crawler: Any) -> CrawlStateOpener:
        """Open the run state of ``crawler`` (NotConfigured when the add-on declined)."""
        settings = crawler.settings
        if not settings.get(COLLECTION_SETTING) or settings.get("CORPUSCRAWL_REDIS_URL"):
            raise NotConfigured("no crawl state in this crawl")
        if settings.frozen:
            raise StateConfigError(
                f"{OPENER} must be built before the settings freeze: keep it in EXTENSIONS "
                "(the crawl-state add-on puts it there)")
        config = StateConfig.from_settings(settings)
        temporary_root = None
        if config.temporary and not settings.get(STATE_DIR_SETTING):
            temporary_root = Path(tempfile.mkdtemp(prefix="corpuscrawl-state-"))
            settings.set(STATE_DIR_SETTING, str(temporary_root), priority="spider")
        state = RunState(crawler, state_dir(settings), config, temporary_root)
        attach_run_state(crawler, state)
        attach_host_records(crawler, SqliteHostRecords(state.store))
        run = state.run
        logger.info("crawl state %s: generation %d, %s", state.directory, run.generation,
                    f"resuming ({run.carried_requests} requests left, "
                    f"{run.exported_before} documents exported before)"
                    if run.resumed else "new crawl")
        feeds = local_feeds(settings, run.resumed)
        repair_feeds(state.store, feeds, run.resumed)
        state.feeds = feeds
        state.store.commit()
        return cls(state)


def local_feeds(settings: Any, resumed: bool) -> list[tuple[Path, str, bool]]:
    """The local feed files; on a resume FEEDS is rewritten to append (and CSV without header)."""
    feeds = dict(settings.getdict("FEEDS"))
    out = []
    for uri, options in list(feeds.items()):
        path = local_feed_path(str(uri))
        if path is None:
            continue
        options = dict(options or {})
        fmt = str(options.get("format") or path.suffix.lstrip(".") or "jsonl")
        overwrite = bool(options.get("overwrite", False))
        out.append((path, fmt, overwrite))
        if resumed:
            options["overwrite"] = False
            if fmt == "csv" and path.is_file() and path.stat().st_size:
                kwargs = dict(options.get("item_export_kwargs") or {})
                kwargs.setdefault("include_headers_line", False)
                options["item_export_kwargs"] = kwargs
            feeds[uri] = options
    if resumed and feeds:
        settings.set("FEEDS", feeds, priority=settings.getpriority("FEEDS"))
    return out
