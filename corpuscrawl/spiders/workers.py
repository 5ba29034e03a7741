"""Extraction off the reactor: a pool of worker processes that turn a page's bytes into its
extraction result and links.

A crawl process spends most of its CPU on one page at a time: parsing, the extractor,
metadata, language identification.  On the reactor thread that work is serial with the
downloads, and the machine's other cores stay idle.  :class:`ExtractionPool` hands it to
``CORPUSCRAWL_WORKERS`` processes (``"auto"``: one per core but one, the crawl process
keeping a core for Scrapy; 0 = in the crawl process, as before) while everything that
must happen exactly once stays in the crawl process: requests, items, pipelines, the
export stage, the ledger, the page store and the feeds.

What a worker runs is what the spider runs in-process (:func:`extract_page`:
:class:`~corpuscrawl.html.page.Page` from the bytes with the HTTP charset as a hint,
the page's unreadable verdict (binary, undecodable charset), whether its body came cut
short, its robots meta directives, static overlays removed, the crawl's
:class:`~corpuscrawl.pagetext.extraction.Extraction` built from the same settings, the page's
links and feeds), so the documents are the same, byte for byte.  What the crawl process
does with the verdicts (drops recorded, the one refetch, robots counts, the scope's
per-domain cap, focus learning) it does as for a page it extracts itself.

Back-pressure: a response stays in Scrapy's scraper slot while its callback awaits its
worker, and Scrapy stops taking requests from the scheduler while the slot holds more
than ``SCRAPER_SLOT_MAX_ACTIVE_SIZE`` bytes of responses, so the downloader runs ahead of
the workers by at most that much.  A worker that dies (a crashed extractor, the kernel's
OOM killer) breaks the pool: the page is extracted in the crawl process, counted in
``corpuscrawl/workers/fallback``, and the pool is started again.  The crawl process builds
its own Extraction (the models loaded a second time) only for a page it extracts itself,
counted in ``corpuscrawl/workers/extraction_built_here``.
"""

from __future__ import annotations

import asyncio
import logging
import logging.handlers
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from corpuscrawl.browse.static import without_overlays
from corpuscrawl.config.setting_values import yes_no
from corpuscrawl.html.page import Page
from corpuscrawl.html.robots_meta import RobotsDirectives, page_directives
from corpuscrawl.html.scrapy_glue import body_cut_short
from corpuscrawl.pagetext.extraction import ConfigError, Extraction, ExtractionResult, TextShapes
from corpuscrawl.spiders.discovery import Link, feed_links, page_links

logger = logging.getLogger("corpuscrawl.workers")

#: Settings read by the extraction, handed to each worker (their values must pickle).
SETTINGS_PREFIX = "CORPUSCRAWL_"


@dataclass(frozen=True)
class PageJob:
    """What a worker needs of a fetched page."""

    body: bytes
    url: str
    status: int
    encoding: str | None
    feeds: bool = True
    #: The response's ``dataloss`` flag, and whether it is the one refetch of a cut page.
    dataloss: bool = False
    refetched: bool = False
    #: Our robots token (``None``: robots meta not obeyed, the page's tags are not read),
    #: and the directives found already (``X-Robots-Tag``, carried from a plain version).
    robots_token: str | None = None
    robots: RobotsDirectives = field(default_factory=RobotsDirectives)


@dataclass
class PageDone:
    """A worker's answer: the page's verdicts; when extracted, its HTML as extracted, its
    extraction, links and feeds.

    ``unreadable``: "binary" or "charset_undecodable" (:attr:`Page.unreadable`), nothing
    else is filled; ``cut``: "certain", "likely" or "" (:func:`corpuscrawl.html.scrapy_glue.cut_short`),
    not extracted when the page is to be refetched or dropped for it; ``robots``: the job's
    directives and the page's own; not extracted when they are ``none``.
    """

    unreadable: str = ""
    cut: str = ""
    robots: RobotsDirectives = field(default_factory=RobotsDirectives)
    extracted: bool = False
    html: str = ""
    result: ExtractionResult = field(default_factory=ExtractionResult)
    links: list[Link] = field(default_factory=list)
    feeds: list[str] = field(default_factory=list)


def extract_page(job: PageJob, extraction: Extraction | LazyExtraction) -> PageDone:
    """Parse, judge, extract and list the links of one page, as the spider does in-process."""
    page = Page.from_html(job.body, url=job.url, status=job.status, encoding=job.encoding)
    if page.unreadable:
        return PageDone(unreadable=page.unreadable)
    cut = body_cut_short(page, job.dataloss)
    if cut and (not job.refetched or cut == "certain"):
        return PageDone(cut=cut)  # refetched or dropped: nothing to extract
    robots = job.robots
    if job.robots_token is not None:
        robots |= page_directives(page, job.robots_token)
    if robots.noindex and robots.nofollow:
        return PageDone(cut=cut, robots=robots)
    page = without_overlays(page)
    result = extraction.run(page)
    return PageDone(cut=cut, robots=robots, extracted=True, html=page.html, result=result,
                    links=list(page_links(page)), feeds=feed_links(page) if job.feeds else [])


_extraction: Extraction | None = None
_start_error = ""

#: How often a worker checks that the crawl process that started it is still there.
PARENT_CHECK_SECONDS = 1.0


def _watch_parent(parent: int) -> None:
    """End this worker as soon as ``parent`` (the crawl process) is gone.

    A crawl killed with SIGKILL closes nothing: its workers, blocked on the pool's queue,
    would live on with their models in memory (one per killed crawl, for ever, on a server
    that restarts crawls).  A daemon thread polls the parent pid, which the kernel changes
    when the parent dies; polling works for every way the parent can end, where
    ``PR_SET_PDEATHSIG`` follows the thread that started the worker, not the process.
    """
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="corpuscrawl-parent-watch", daemon=True).start()


def _start_worker(settings: dict[str, Any], extractor: str | None, comments: str | None,
                  log_queue: Any = None, log_level: int = logging.INFO) -> None:
    """Worker initializer: the crawl's Extraction, built (and warmed up) once per process.

    The worker's log records at ``log_level`` and above go to ``log_queue``, from which the
    crawl process logs them (:class:`ExtractionPool`): which model file was loaded, an
    extraction over its time budget.  A bad setting is kept (not raised: a failed
    initializer only breaks the pool) and handed back by :func:`_started`, so the crawl
    fails at start with its message.
    """
    global _extraction, _start_error
    _watch_parent(os.getppid())
    if log_queue is not None:
        root = logging.getLogger()
        root.handlers[:] = [logging.handlers.QueueHandler(log_queue)]
        root.setLevel(log_level)
    try:
        _extraction = Extraction.from_settings(_Settings(settings), extractor, comments)
    except ValueError as exc:  # ConfigError and the settings' own checks
        _start_error = str(exc)


def _started() -> tuple[str, dict[str, dict[str, Any]]]:
    """("", the extractors' shapes) when the worker's Extraction was built, else (why not, {}).

    The shapes (:meth:`~corpuscrawl.pagetext.extraction.TextShapes.extractor_shapes`) let the crawl
    process tell what shapes a page's text without importing the extractors' modules
    (a learned one's brings scikit-learn and SciPy, about 100 MB).
    """
    if _extraction is None:
        return _start_error, {}
    return _start_error, _extraction.shapes.extractor_shapes()


def _work(job: PageJob) -> PageDone:
    if _extraction is None:
        raise ConfigError(_start_error or "extraction worker started without its initializer")
    return extract_page(job, _extraction)


class _Settings(dict):
    """The ``get``/``getlist``/``getbool`` of Scrapy's settings over a plain dict."""

    def getlist(self, key: str, default: Any = None) -> list[Any]:
        value = self.get(key, default)
        if value is None:
            return []
        return value.split(",") if isinstance(value, str) else list(value)

    def getbool(self, key: str, default: bool = False) -> bool:
        return yes_no(self.get(key, default))


def worker_count(value: Any, cpus: int | None = None) -> int:
    """``CORPUSCRAWL_WORKERS`` as a number of processes: ``auto`` is one per core but one.

    A ``ValueError`` names the setting when the value is neither ``auto`` nor a whole
    number >= 0.
    """
    if cpus is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if value is None or str(value).strip().lower() in ("", "auto"):
        return max(0, cpus - 1)
    try:
        count = int(value)
    except (TypeError, ValueError):
        count = -1
    if count < 0:
        raise ValueError(f"CORPUSCRAWL_WORKERS must be 'auto' or a whole number >= 0, got {value!r}")
    return count


class LazyExtraction:
    """An :class:`~corpuscrawl.pagetext.extraction.Extraction` built on first use (models loaded then).

    The crawl process needs its own only for the pages it extracts itself (rendered ones,
    or when the pool broke); with workers it usually never does.  What shapes a page's
    text (:meth:`shape_for`, asked by the page store of every page) is told from the
    settings alone, without building it.
    """

    def __init__(self, build: Callable[[], Extraction], shapes: TextShapes | None = None) -> None:
        self._build = build
        self._built: Extraction | None = None
        self._shapes = shapes

    @property
    def built(self) -> bool:
        """True once the Extraction was built."""
        return self._built is not None

    def run(self, page: Page) -> ExtractionResult:
        """:meth:`Extraction.run` of the Extraction, built now if it was not."""
        return self.get().run(page)

    def shape_for(self, url: str) -> str:
        """:meth:`Extraction.shape_for` (the same digest), without building the Extraction."""
        if self._built is None and self._shapes is not None:
            return self._shapes.shape_for(url)
        return self.get().shape_for(url)

    def get(self) -> Extraction:
        """The Extraction, built now if it was not."""
        if self._built is None:
            self._built = self._build()
        return self._built

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)


class _ToLogger(logging.Handler):
    """Hands a worker's log record to this process's logger of the same name, so the crawl's
    own handlers (``LOG_FILE``, ``LOG_LEVEL``, a Scrapyd job's log) show it."""

    def emit(self, record: logging.LogRecord) -> None:
        logging.getLogger(record.name).handle(record)


def _log_level(crawler: Any) -> int:
    """The crawl's ``LOG_LEVEL`` as a number (INFO without a crawler)."""
    level = crawler.settings.get("LOG_LEVEL", "DEBUG") if crawler is not None else "INFO"
    number = level if isinstance(level, int) else logging.getLevelName(str(level).upper())
    return number if isinstance(number, int) else logging.INFO


class ExtractionPool:
    """Worker processes running :func:`extract_page` for the spider (see the module docstring)."""

    def __init__(self, workers: int, settings: dict[str, Any], extractor: str | None = None,
                 comments: str | None = None, crawler: Any = None) -> None:
        self.workers = workers
        self.crawler = crawler
        self._context = multiprocessing.get_context("spawn")
        self._log_queue = self._context.Queue()
        self._log_listener: logging.handlers.QueueListener | None = (
            logging.handlers.QueueListener(self._log_queue, _ToLogger()))
        self._log_listener.start()
        self._initargs = (settings, extractor, comments, self._log_queue, _log_level(crawler))
        #: The extractors' shapes as a worker told them (:func:`_started`).
        self.extractor_shapes: dict[str, dict[str, Any]] = {}
        self._executor = self._start()

    @classmethod
    def from_crawler(cls, crawler: Any, extractor: str | None = None,
                     comments: str | None = None) -> ExtractionPool | None:
        """The crawl's pool, or ``None`` when ``CORPUSCRAWL_WORKERS`` makes it 0 processes."""
        workers = worker_count(crawler.settings.get("CORPUSCRAWL_WORKERS", "auto"))
        if not workers:
            return None
        settings = {key: value for key, value in crawler.settings.copy_to_dict().items()
                    if key.startswith(SETTINGS_PREFIX)}
        pool = cls(workers, settings, extractor, comments, crawler)
        pool.check_started()
        return pool

    def _start(self) -> ProcessPoolExecutor:
        # spawn: a fork of a process running Twisted's reactor and threads is not safe
        return ProcessPoolExecutor(self.workers, mp_context=self._context,
                                   initializer=_start_worker, initargs=self._initargs)

    def check_started(self) -> None:
        """Wait for a worker to have built its Extraction (models loaded, warmed up); a
        :class:`~corpuscrawl.pagetext.extraction.ConfigError` with its message when it could not."""
        error, self.extractor_shapes = self._executor.submit(_started).result()
        if error:
            self.close()
            raise ConfigError(error)

    async def extract(self, job: PageJob,
                      fallback: Callable[[], Extraction | LazyExtraction]) -> PageDone:
        """The page's extraction by a worker; in this process (``fallback()``'s Extraction,
        built only then) when the pool broke."""
        executor = self._executor
        try:
            return await asyncio.wrap_future(executor.submit(_work, job))
        except BrokenProcessPool as exc:
            if self.crawler is not None:
                self.crawler.stats.inc_value("corpuscrawl/workers/fallback")
            logger.error("an extraction worker died (%s) on %s: extracting it here",
                         exc, job.url)
            if executor is self._executor:  # the first page to see it starts a new pool
                executor.shutdown(wait=False, cancel_futures=True)
                self._executor = self._start()
            return extract_page(job, fallback())

    def close(self) -> None:
        """Stop the workers (pending pages are not waited for: the crawl is closing)."""
        self._executor.shutdown(wait=False, cancel_futures=True)
        if self._log_listener is not None:
            self._log_listener.stop()  # the records the workers sent so far are logged
            self._log_listener = None
