"""Live progress of a crawl: a status line on a terminal, progress lines in a log, a timeline.

:class:`ProgressExtension` (``EXTENSIONS``) samples the crawl every
``CORPUSCRAWL_PROGRESS_INTERVAL`` seconds (default 1): pages fetched, documents exported,
the frontier (requests waiting in the scheduler) and those in flight, errors, the fetch
rate over the last ten seconds, the busiest host (most requests in the downloader) and,
under ``max_pages``, an ETA.

* On a terminal (standard error is a TTY, not under Scrapyd) it redraws one status line::

      fetched 1,204 (7.9/s) | exported 1,057 | frontier 3,311 (+16 in flight) | errors 12 | 0:02:41 | busiest example.org (8)

  A log record printed to the same terminal first clears the line, so the two never mix.
* Otherwise (a log file, a pipe, Scrapyd) it logs the same figures every
  ``LOGSTATS_INTERVAL`` seconds (Scrapy's, default 60) as ``progress: ...`` lines, next to
  Scrapy's own "Crawled N pages" line, which has no frontier, export or error figures.
* In both cases the samples become the summary's ``timeline`` (seconds since the start,
  fetched, exported, errors, frontier; at most :data:`TIMELINE_POINTS_DEFAULT` rows, thinned
  evenly over a long crawl), which ``corpuscrawl report`` plots as the fetch rate over time.

``CORPUSCRAWL_PROGRESS``: ``auto`` (default: the status line when on a terminal),
``always`` (the status line even when standard error is not a terminal), ``log`` (progress
lines only), ``off`` (no status line and no progress lines; the timeline is still kept).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
import weakref
from dataclasses import dataclass
from typing import IO, Any

from scrapy import signals
from scrapy.crawler import Crawler
from twisted.internet import task

logger = logging.getLogger("corpuscrawl.progress")

#: ``CORPUSCRAWL_PROGRESS`` values.
PROGRESS_MODES = ("auto", "always", "log", "off")
#: Most rows of the timeline kept for the summary.
TIMELINE_POINTS_DEFAULT = 720
#: Seconds over which the fetch rate of the status line is measured.
RATE_WINDOW_DEFAULT = 10.0
TIMELINE_COLUMNS = ("seconds", "fetched", "exported", "errors", "frontier")

_TIMELINES: weakref.WeakKeyDictionary[Crawler, list[list[float]]] = weakref.WeakKeyDictionary()


def timeline_of(crawler: Crawler) -> list[list[float]]:
    """The samples taken of ``crawler`` so far (rows of :data:`TIMELINE_COLUMNS`)."""
    return list(_TIMELINES.get(crawler, []))


class ProgressConfigError(ValueError):
    """A progress setting has a bad value; the message names the setting."""


@dataclass(frozen=True)
class ProgressConfig:
    """Typed view of the progress settings."""

    mode: str = "auto"
    interval: float = 1.0
    log_interval: float = 60.0

    @classmethod
    def from_settings(cls, settings: Any) -> ProgressConfig:
        """Read ``CORPUSCRAWL_PROGRESS``, ``CORPUSCRAWL_PROGRESS_INTERVAL``, ``LOGSTATS_INTERVAL``."""
        mode = str(settings.get("CORPUSCRAWL_PROGRESS", "auto") or "auto").strip().lower()
        mode = {"true": "always", "1": "always", "on": "always", "false": "off", "0": "off",
                "no": "off"}.get(mode, mode)
        if mode not in PROGRESS_MODES:
            raise ProgressConfigError(f"CORPUSCRAWL_PROGRESS must be one of {PROGRESS_MODES}, "
                                      f"got {settings.get('CORPUSCRAWL_PROGRESS')!r}")
        try:
            interval = float(settings.get("CORPUSCRAWL_PROGRESS_INTERVAL", 1.0))
            log_interval = float(settings.get("LOGSTATS_INTERVAL", 60.0) or 0)
        except (TypeError, ValueError) as exc:
            raise ProgressConfigError(f"CORPUSCRAWL_PROGRESS_INTERVAL and LOGSTATS_INTERVAL must "
                                      f"be numbers of seconds ({exc})") from exc
        if interval <= 0:
            raise ProgressConfigError("CORPUSCRAWL_PROGRESS_INTERVAL must be > 0")
        return cls(mode, interval, log_interval)


@dataclass
class Sample:
    """The crawl's figures at one moment."""

    seconds: float
    fetched: int
    exported: int
    errors: int
    frontier: int
    in_flight: int
    #: The host with the most requests in the downloader, and how many ("" when none).
    busiest: tuple[str, int] = ("", 0)


def _int(stats: dict[str, Any], key: str) -> int:
    value = stats.get(key, 0)
    return int(value) if isinstance(value, int | float) else 0


def _late(crawler: Crawler, name: str) -> Any:
    """A crawler attribute set when the crawl starts (None before: Scrapy raises then)."""
    try:
        return getattr(crawler, name, None)
    except RuntimeError:
        return None


def format_duration(seconds: float) -> str:
    """``H:MM:SS``."""
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def status_line(sample: Sample, rate: float, eta: float | None = None) -> str:
    """The one-line status of a sample (see the module docstring)."""
    line = (f"fetched {sample.fetched:,} ({rate:.1f}/s) | exported {sample.exported:,} | "
            f"frontier {sample.frontier:,} (+{sample.in_flight} in flight) | "
            f"errors {sample.errors:,} | {format_duration(sample.seconds)}")
    if eta is not None:
        line += f" | ETA {format_duration(eta)}"
    if sample.busiest[1]:
        line += f" | busiest {sample.busiest[0]} ({sample.busiest[1]})"
    return line


class _ClearLine(logging.Filter):
    """Clears the status line on the terminal before a log record is written to it."""

    def __init__(self, stream: IO[str]):
        super().__init__()
        self.stream = stream

    def filter(self, record: logging.LogRecord) -> bool:
        with contextlib.suppress(OSError, ValueError):
            self.stream.write("\r\x1b[K")
        return True


class ProgressExtension:
    """Samples the crawl; draws the status line or logs progress lines (module docstring)."""

    def __init__(self, crawler: Crawler, config: ProgressConfig, stream: IO[str] | None = None):
        self.crawler = crawler
        self.config = config
        self.stream = stream or sys.stderr
        self.samples: list[Sample] = []
        self.timeline: list[list[float]] = []
        _TIMELINES[crawler] = self.timeline
        self._every = 1  # keep every n-th sample in the timeline (doubles when thinned)
        self._count = 0
        self._start = 0.0
        self._last_log = 0.0
        self._loop: task.LoopingCall | None = None
        self._filters: list[tuple[logging.Handler, _ClearLine]] = []
        self.draw = False
        self.log_lines = config.mode != "off"
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ProgressExtension:
        """Build from the crawler's settings (a bad value fails naming the setting)."""
        return cls(crawler, ProgressConfig.from_settings(crawler.settings))

    def _on_terminal(self, spider: Any) -> bool:
        if self.config.mode == "always":
            return True
        if self.config.mode != "auto" or getattr(spider, "_job", None):  # Scrapyd passes _job
            return False
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def spider_opened(self, spider: Any) -> None:
        """Start sampling."""
        self.spider = spider
        self._start = self._last_log = time.monotonic()
        self.draw = self._on_terminal(spider)
        self.log_lines = self.config.mode in ("auto", "log") and not self.draw
        if self.draw:
            for handler in logging.getLogger().handlers:
                if getattr(handler, "stream", None) is self.stream:
                    clear = _ClearLine(self.stream)
                    handler.addFilter(clear)
                    self._filters.append((handler, clear))
        self._loop = task.LoopingCall(self.tick)
        self._loop.start(self.config.interval, now=False)

    def sample(self) -> Sample:
        """The crawl's figures now."""
        stats_collector = _late(self.crawler, "stats")
        stats = stats_collector.get_stats() if stats_collector is not None else {}
        exported = (_int(stats, "corpuscrawl/export/exported")
                    if "corpuscrawl/export/documents" in stats else _int(stats, "item_scraped_count"))
        errors = (_int(stats, "corpuscrawl/request_errors")
                  - _int(stats, "corpuscrawl/request_errors/IgnoreRequest")
                  + _int(stats, "corpuscrawl/extraction_errors"))
        engine = _late(self.crawler, "engine")
        slot = getattr(engine, "_slot", None) or getattr(engine, "slot", None)
        scheduler = getattr(slot, "scheduler", None)
        try:
            frontier = len(scheduler) if scheduler is not None else 0
        except TypeError:  # a scheduler without a length
            frontier = 0
        downloader = getattr(engine, "downloader", None)
        in_flight = len(getattr(downloader, "active", ()) or ())
        busiest = ("", 0)
        for key, slot in list((getattr(downloader, "slots", None) or {}).items()):
            load = len(getattr(slot, "active", ())) + len(getattr(slot, "queue", ()))
            if load > busiest[1]:
                busiest = (str(key), load)
        return Sample(time.monotonic() - self._start, _int(stats, "response_received_count"),
                      exported, max(0, errors), frontier, in_flight, busiest)

    def rate(self, now: Sample) -> float:
        """Pages fetched per second over the last :data:`RATE_WINDOW_DEFAULT` seconds."""
        window = [s for s in self.samples if now.seconds - s.seconds <= RATE_WINDOW_DEFAULT]
        first = window[0] if window else None
        if first is None or now.seconds <= first.seconds:
            return now.fetched / now.seconds if now.seconds > 0 else 0.0
        return (now.fetched - first.fetched) / (now.seconds - first.seconds)

    def eta(self, now: Sample, rate: float) -> float | None:
        """Seconds left until ``max_pages`` documents at the current export pace (None
        without ``max_pages``)."""
        limit = getattr(getattr(self, "spider", None), "max_pages", None)
        if not limit or now.exported <= 0 or now.seconds <= 0:
            return None
        return max(0.0, (limit - now.exported) * now.seconds / now.exported)

    def record(self, now: Sample) -> None:
        """Keep ``now`` for the rate window and (thinned) the timeline."""
        self.samples = [s for s in self.samples if now.seconds - s.seconds <= RATE_WINDOW_DEFAULT]
        self.samples.append(now)
        if self._count % self._every == 0:
            self.timeline.append([round(now.seconds, 1), now.fetched, now.exported, now.errors,
                                  now.frontier])
            if len(self.timeline) >= 2 * TIMELINE_POINTS_DEFAULT:
                del self.timeline[1::2]
                self._every *= 2
        self._count += 1

    def tick(self) -> None:
        """Take a sample; redraw the status line or log a progress line when due."""
        now = self.sample()
        rate = self.rate(now)
        self.record(now)
        if self.draw:
            try:
                self.stream.write("\r\x1b[K" + status_line(now, rate, self.eta(now, rate)))
                self.stream.flush()
            except (OSError, ValueError):
                self.draw = False
        elif self.log_lines and self.config.log_interval and \
                time.monotonic() - self._last_log >= self.config.log_interval:
            self._last_log = time.monotonic()
            logger.info("progress: %s", status_line(now, rate, self.eta(now, rate)))

    def spider_closed(self, spider: Any) -> None:
        """Stop sampling; the last sample closes the timeline; the terminal gets its line back."""
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        now = self.sample()
        self.timeline.append([round(now.seconds, 1), now.fetched, now.exported, now.errors,
                              now.frontier])
        if self.draw:
            with contextlib.suppress(OSError, ValueError):
                self.stream.write("\r\x1b[K" + status_line(now, self.rate(now)) + "\n")
                self.stream.flush()
        for handler, clear in self._filters:
            handler.removeFilter(clear)
