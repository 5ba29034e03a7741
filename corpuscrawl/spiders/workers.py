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
OOM killer) fails the pages it had: each is extracted in the crawl process, counted in
``corpuscrawl/workers/fallback``, and another worker is started in its place.  The crawl process builds
its own Extraction (the models loaded a second time) only for a page it extracts itself,
counted in ``corpuscrawl/workers/extraction_built_here``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import logging.handlers
import multiprocessing
import os
import pickle
import threading
import time
from collections import deque
from collections.abc import Callable
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


class PoolBroken(RuntimeError):
    """A worker process ended (a crashed extractor, the kernel's OOM killer) with pages in hand."""


#: Bytes a pipe between the crawl process and a worker holds (Linux raises it to this, up
#: to ``/proc/sys/fs/pipe-max-size``): a page and its answer are written at once, without
#: waiting for the other side to read.
PIPE_BYTES = 1 << 20
#: Pages handed to one worker at once: the next one waits in its pipe while it extracts.
PAGES_IN_HAND = 2


def _widen(connection: Any) -> int:
    """Raise the pipe buffer of ``connection`` to :data:`PIPE_BYTES` where the system lets
    us (Linux's ``F_SETPIPE_SZ``); the bytes it holds (64 KiB, a pipe's default, otherwise)."""
    try:
        import fcntl

        return fcntl.fcntl(connection.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
    except (ImportError, OSError):
        return 64 * 1024


def _serve(jobs: Any, answers: Any, settings: dict[str, Any], extractor: str | None,
           comments: str | None, log_queue: Any, log_level: int) -> None:
    """A worker process: build the Extraction once, then answer each message on ``jobs``
    on ``answers``, in order, until ``jobs`` is closed (the crawl process closed it or ended).

    Messages are pickled ``(kind, payload)``: ``("started", None)`` is answered with
    :func:`_started`'s pair, ``("page", PageJob)`` with ``("done", PageDone)`` or, when
    the extraction raised, ``("error", the exception)``.
    """
    _start_worker(settings, extractor, comments, log_queue, log_level)
    while True:
        try:
            kind, payload = pickle.loads(jobs.recv_bytes())
        except (EOFError, OSError):
            return
        if kind == "started":
            answer: tuple[str, Any] = ("started", _started())
        else:
            try:
                answer = ("done", _work(payload))
            except Exception as exc:  # handed to the crawl process, raised there
                answer = ("error", exc)
        try:
            data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # an answer that does not pickle: told as text
            failed = answer[1] if answer[0] == "error" else exc
            data = pickle.dumps(("error", RuntimeError(f"{type(failed).__name__}: {failed}")),
                                protocol=pickle.HIGHEST_PROTOCOL)
        answers.send_bytes(data)


class _Worker:
    """One worker process, its two pipes and the pages it has in hand (oldest first)."""

    def __init__(self, context: Any, initargs: tuple[Any, ...]) -> None:
        jobs_reader, self.jobs = context.Pipe(duplex=False)
        self.answers, answers_writer = context.Pipe(duplex=False)
        self.capacity = min(_widen(self.jobs), _widen(answers_writer))
        self.process = context.Process(target=_serve, daemon=True,
                                       args=(jobs_reader, answers_writer, *initargs))
        self.process.start()
        jobs_reader.close()
        answers_writer.close()
        #: (the page's job, its size in bytes, its future) for each page handed over.
        self.in_hand: deque[tuple[PageJob, int, asyncio.Future[PageDone]]] = deque()
        #: The event loop watching :attr:`answers` (set once a page was handed over).
        self.reading: asyncio.AbstractEventLoop | None = None

    def fits(self, size: int) -> bool:
        """Whether a job of ``size`` bytes can be handed over now without waiting on the pipe."""
        if not self.in_hand:
            return True
        held = sum(pending for _, pending, _ in self.in_hand)
        return len(self.in_hand) < PAGES_IN_HAND and held + size <= self.capacity // 2

    def ask(self, kind: str, payload: Any = None) -> Any:
        """Send a message and wait for its answer (before any page is in hand: at start)."""
        self.jobs.send_bytes(pickle.dumps((kind, payload), protocol=pickle.HIGHEST_PROTOCOL))
        return pickle.loads(self.answers.recv_bytes())[1]

    def stop(self) -> None:
        """Close the pipes (the worker ends on the next read) and end the process."""
        if self.reading is not None:
            with contextlib.suppress(Exception):
                self.reading.remove_reader(self.answers.fileno())
            self.reading = None
        for connection in (self.jobs, self.answers):
            with contextlib.suppress(OSError):
                connection.close()
        self.process.join(STOP_SECONDS)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(STOP_SECONDS)


#: Seconds a worker is given to end once its pipes are closed, before it is terminated.
STOP_SECONDS = 2.0


class ExtractionPool:
    """Worker processes running :func:`extract_page` for the spider (see the module docstring).

    The reactor thread writes each page to a worker's pipe and reads the answers when the
    event loop sees them arrive: no thread of this process sits between the two
    (:class:`concurrent.futures.ProcessPoolExecutor` keeps two, and every hand-off then
    waits for the interpreter lock behind them).  Each worker has at most
    :data:`PAGES_IN_HAND` pages at once; the others wait here, first come first served.
    """

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
        # spawn: a fork of a process running Twisted's reactor and threads is not safe
        self._workers = [_Worker(self._context, self._initargs) for _ in range(workers)]
        self._waiting: deque[tuple[PageJob, bytes, asyncio.Future[PageDone]]] = deque()
        self._closed = False

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

    def check_started(self) -> None:
        """Wait for the workers to have built their Extraction (models loaded, warmed up); a
        :class:`~corpuscrawl.pagetext.extraction.ConfigError` with its message when one could not."""
        for worker in self._workers:
            try:
                error, self.extractor_shapes = worker.ask("started")
            except (EOFError, OSError) as exc:
                error = f"an extraction worker ended before it started ({exc!r})"
            if error:
                self.close()
                raise ConfigError(error)

    async def extract(self, job: PageJob,
                      fallback: Callable[[], Extraction | LazyExtraction]) -> PageDone:
        """The page's extraction by a worker; in this process (``fallback()``'s Extraction,
        built only then) when its worker died (the worker is started again)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[PageDone] = loop.create_future()
        data = pickle.dumps(("page", job), protocol=pickle.HIGHEST_PROTOCOL)
        self._waiting.append((job, data, future))
        self._hand_out(loop)
        try:
            return await future
        except PoolBroken as exc:
            if self.crawler is not None:
                self.crawler.stats.inc_value("corpuscrawl/workers/fallback")
            logger.error("an extraction worker died (%s) on %s: extracting it here",
                         exc, job.url)
            return extract_page(job, fallback())

    def _hand_out(self, loop: asyncio.AbstractEventLoop) -> None:
        """Give waiting pages to the workers with room for them, oldest page first."""
        while self._waiting and not self._closed:
            size = len(self._waiting[0][1])
            worker = min((w for w in self._workers if w.fits(size)),
                         key=lambda w: len(w.in_hand), default=None)
            if worker is None:
                return
            job, data, future = self._waiting.popleft()
            if future.cancelled():
                continue
            try:
                worker.jobs.send_bytes(data)
            except OSError:  # the worker is gone: its pages (this one too) are failed
                worker.in_hand.append((job, len(data), future))
                self._replace(worker, "its pipe closed")
                continue
            worker.in_hand.append((job, len(data), future))
            if worker.reading is None:
                worker.reading = loop
                loop.add_reader(worker.answers.fileno(), self._read, worker)

    def _read(self, worker: _Worker) -> None:
        """Take every answer the worker has written (the event loop saw its pipe readable)."""
        try:
            while worker.in_hand and worker.answers.poll(0):
                kind, payload = pickle.loads(worker.answers.recv_bytes())
                _, _, future = worker.in_hand.popleft()
                if future.cancelled():
                    continue
                if kind == "error":
                    future.set_exception(payload)
                else:
                    future.set_result(payload)
        except (EOFError, OSError) as exc:
            self._replace(worker, repr(exc))
            return
        if not worker.in_hand and not worker.process.is_alive():
            self._replace(worker, f"exit code {worker.process.exitcode}")
            return
        if worker.reading is not None:
            self._hand_out(worker.reading)

    def _replace(self, worker: _Worker, why: str) -> None:
        """A worker ended: fail the pages it had (they fall back here) and start another."""
        loop = worker.reading
        in_hand = list(worker.in_hand)
        worker.in_hand.clear()
        worker.stop()
        for _, _, future in in_hand:
            if not future.done():
                future.set_exception(PoolBroken(f"extraction worker ended: {why}"))
        if self._closed or worker not in self._workers:
            return
        self._workers[self._workers.index(worker)] = _Worker(self._context, self._initargs)
        if loop is not None:
            self._hand_out(loop)

    def close(self) -> None:
        """Stop the workers (pending pages are not waited for: the crawl is closing)."""
        self._closed = True
        for _, _, future in self._waiting:
            future.cancel()
        self._waiting.clear()
        for worker in self._workers:
            for _, _, future in worker.in_hand:
                future.cancel()
            worker.in_hand.clear()
            worker.stop()
        if self._log_listener is not None:
            self._log_listener.stop()  # the records the workers sent so far are logged
            self._log_listener = None
