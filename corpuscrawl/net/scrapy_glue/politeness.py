"""Polite crawling: robots.txt ``Crawl-delay``, ``Retry-After``, a User-Agent with a contact.

Scrapy paces requests per download slot (one slot per host): ``slot.delay`` is
the least time between two requests to the host, and AutoThrottle moves it
with the server's latency.  This module only feeds what servers ask for into
those slots:

* ``Crawl-delay`` of a host's robots.txt (parsed by Protego, Scrapy's robots
  parser) becomes a floor of its slot's delay — applied when the robots.txt
  is parsed, again whenever the slot is (re)created, and after every
  AutoThrottle adjustment (:class:`PoliteAutoThrottle`), so requests to the
  host start at least that far apart.  Floors above
  ``CORPUSCRAWL_MAX_CRAWL_DELAY`` are capped (counted and logged).
* ``Retry-After`` on 429/503 (seconds or an HTTP date) pauses the host's
  slot that long and retries the request within Scrapy's ``RETRY_TIMES``
  (:class:`PoliteRetryMiddleware`, Scrapy's RetryMiddleware otherwise); a
  wait above ``CORPUSCRAWL_MAX_RETRY_AFTER`` gives up at once, counted.
* :class:`PolitenessAddon` names the tool, its version and
  ``CORPUSCRAWL_CONTACT`` in the User-Agent unless ``USER_AGENT`` is set.

The bundled demo site is crawled without AutoThrottle and with more
concurrency (:func:`relax_for_local_demo`): it is ours, on 127.0.0.1.
"""

from __future__ import annotations

import logging
import weakref
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from time import monotonic
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.extensions.throttle import AutoThrottle

import corpuscrawl
from corpuscrawl.config.crawl_checks import CrawlSetupError

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response

logger = logging.getLogger("corpuscrawl.net.politeness")

#: Longest robots.txt Crawl-delay honoured (seconds); above it the delay is capped.
MAX_CRAWL_DELAY_DEFAULT = 60.0
#: Longest Retry-After waited for (seconds); a longer one gives the request up.
MAX_RETRY_AFTER_DEFAULT = 120.0
#: Statuses whose Retry-After header is honoured (RFC 9110 §10.2.3, RFC 6585 §4).
RETRY_AFTER_STATUSES = frozenset((429, 503))
STATS_PREFIX = "corpuscrawl/politeness"


class PolitenessConfigError(CrawlSetupError):
    """A politeness setting is invalid; the message names it."""


@dataclass(frozen=True)
class PolitenessConfig:
    """The politeness settings, read and validated once."""

    max_crawl_delay: float = MAX_CRAWL_DELAY_DEFAULT
    max_retry_after: float = MAX_RETRY_AFTER_DEFAULT
    contact: str = ""

    @classmethod
    def from_settings(cls, settings: Any) -> PolitenessConfig:
        """``CORPUSCRAWL_MAX_CRAWL_DELAY``, ``CORPUSCRAWL_MAX_RETRY_AFTER``, ``CORPUSCRAWL_CONTACT``."""
        def seconds(key: str, default: float) -> float:
            value = settings.get(key, default)
            try:
                number = float(default if value in (None, "") else value)
            except (TypeError, ValueError):
                raise PolitenessConfigError(f"{key}={value!r}: expected seconds") from None
            if number < 0:
                raise PolitenessConfigError(f"{key}={value!r}: must be >= 0")
            return number

        contact = str(settings.get("CORPUSCRAWL_CONTACT") or "").strip()
        if any(c in contact for c in "()\r\n"):
            raise PolitenessConfigError(f"CORPUSCRAWL_CONTACT={contact!r}: a URL or e-mail "
                                        "address without parentheses or line breaks")
        return cls(seconds("CORPUSCRAWL_MAX_CRAWL_DELAY", MAX_CRAWL_DELAY_DEFAULT),
                   seconds("CORPUSCRAWL_MAX_RETRY_AFTER", MAX_RETRY_AFTER_DEFAULT), contact)


def user_agent(contact: str = "") -> str:
    """``corpuscrawl/VERSION (+CONTACT)``: who is crawling and how to reach them."""
    name = f"corpuscrawl/{corpuscrawl.__version__}"
    return f"{name} (+{contact})" if contact else name


def retry_after_seconds(value: bytes | str | None, now: datetime | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (delta-seconds or HTTP-date), else None."""
    if value is None:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    text = text.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


@dataclass
class SlotPacing:
    """A crawl's per-slot floors (Crawl-delay) and pauses (Retry-After)."""

    floors: dict[str, float] = field(default_factory=dict)
    #: slot key -> (pause seconds, pause end on the monotonic clock, delay and jitter before).
    paused: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)

    def enforce(self, key: str, slot: Any) -> None:
        """Keep ``slot``'s delay at or above its floor and any running pause, without jitter."""
        floor = self.floors.get(key, 0.0)
        pause = self.paused.get(key)
        if pause is not None and monotonic() < pause[1]:
            floor = max(floor, pause[0])
        if floor > 0 and (slot.delay < floor or slot.jitter):
            slot.delay = max(slot.delay, floor)
            slot.jitter = 0.0

    def pause(self, key: str, slot: Any, seconds: float) -> None:
        """Send nothing more to the slot's host for ``seconds``."""
        before = self.paused.get(key)
        delay, jitter = (before[2], before[3]) if before else (slot.delay, slot.jitter)
        self.paused[key] = (seconds, monotonic() + seconds, delay, jitter)
        slot.delay, slot.jitter = max(slot.delay, seconds), 0.0
        slot.lastseen = monotonic()

    def resume(self, key: str, slot: Any) -> None:
        """A normal answer after the pause is over: back to the delay from before it."""
        pause = self.paused.get(key)
        if pause is None or monotonic() < pause[1]:
            return
        del self.paused[key]
        slot.delay, slot.jitter = pause[2], pause[3]
        self.enforce(key, slot)


_PACING: weakref.WeakKeyDictionary[Any, SlotPacing] = weakref.WeakKeyDictionary()


def pacing_for(crawler: Crawler) -> SlotPacing:
    """The crawl's shared :class:`SlotPacing`."""
    return _PACING.setdefault(crawler, SlotPacing())


def _slot(crawler: Crawler, request: Request) -> tuple[str, Any]:
    downloader = crawler.engine.downloader if crawler.engine else None
    if downloader is None:
        return "", None
    key = downloader.get_slot_key(request)
    return key, downloader.slots.get(key)


class PoliteRetryMiddleware(RetryMiddleware):
    """Scrapy's RetryMiddleware that waits as long as ``Retry-After`` asks (within a cap).

    Also applies robots.txt ``Crawl-delay`` to the download slots (signals
    ``robots_parsed`` and ``request_reached_downloader``).
    """

    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        self.config = PolitenessConfig.from_settings(settings)
        self.robots_agent = settings.get("ROBOTSTXT_USER_AGENT") or settings.get("USER_AGENT")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PoliteRetryMiddleware:
        """Build from settings and listen for parsed robots.txt files and new requests."""
        middleware = super().from_crawler(crawler)
        middleware.pacing = pacing_for(crawler)
        crawler.signals.connect(middleware._robots_parsed, signal=signals.robots_parsed)
        crawler.signals.connect(middleware._reached_downloader,
                                signal=signals.request_reached_downloader)
        return middleware

    # --- Crawl-delay -------------------------------------------------------------

    def _robots_parsed(self, robotparser: Any, request: Request) -> None:
        crawl_delay = getattr(robotparser, "crawl_delay", None)
        delay = crawl_delay(self.robots_agent) if callable(crawl_delay) else None
        if not delay or delay <= 0:
            return
        stats = self.crawler.stats
        key, slot = _slot(self.crawler, request)
        if delay > self.config.max_crawl_delay:
            stats.inc_value(f"{STATS_PREFIX}/crawl_delay_capped")
            logger.warning("%s asks for Crawl-delay %.0f s; using CORPUSCRAWL_MAX_CRAWL_DELAY "
                           "= %.0f s", key, delay, self.config.max_crawl_delay)
            delay = self.config.max_crawl_delay
        stats.inc_value(f"{STATS_PREFIX}/crawl_delay_hosts")
        logger.info("%s: robots.txt Crawl-delay %.1f s honoured", key, delay)
        self.pacing.floors[key] = delay
        if slot is not None:
            self.pacing.enforce(key, slot)

    def _reached_downloader(self, request: Request) -> None:
        key = request.meta.get("download_slot")
        if key in self.pacing.floors or key in self.pacing.paused:
            slot = self.crawler.engine.downloader.slots.get(key)
            if slot is not None:
                self.pacing.enforce(key, slot)

    # --- Retry-After -------------------------------------------------------------

    def process_response(self, request: Request, response: Response) -> Request | Response:
        """Retry a 429/503 after its ``Retry-After``; give up when it exceeds the cap."""
        key, slot = _slot(self.crawler, request)
        if response.status not in RETRY_AFTER_STATUSES:
            if slot is not None and key in self.pacing.paused:
                self.pacing.resume(key, slot)  # once the pause is over
            return super().process_response(request, response)
        wait = retry_after_seconds(response.headers.get("Retry-After"))
        if wait is None or request.meta.get("dont_retry", False):
            return super().process_response(request, response)
        stats = self.crawler.stats
        if wait > self.config.max_retry_after:
            stats.inc_value(f"{STATS_PREFIX}/retry_after_too_long")
            logger.warning("giving up %s: Retry-After %.0f s is over CORPUSCRAWL_MAX_RETRY_AFTER "
                           "(%.0f s)", request.url, wait, self.config.max_retry_after)
            return response
        retry = self._retry(request, f"{response.status} Retry-After {wait:.0f}s")
        if retry is None:
            return response
        stats.inc_value(f"{STATS_PREFIX}/retry_after")
        if slot is not None and wait > 0:
            self.pacing.pause(key, slot, wait)
        return retry


class PoliteAutoThrottle(AutoThrottle):
    """Scrapy's AutoThrottle that never brings a slot below its Crawl-delay or a running pause.

    Rendered requests (``meta["playwright"]``) do not move the delay: their
    latency is the time our browser spends loading and running the page, not
    how fast the server answers (they are still bounded by the per-host
    concurrency, the Crawl-delay floor and Retry-After pauses).
    """

    def _response_downloaded(self, response: Response, request: Request, spider: Any) -> None:
        if not request.meta.get("playwright"):
            super()._response_downloaded(response, request, spider)
        key, slot = self._get_slot(request, spider)
        if key is not None and slot is not None:
            pacing_for(self.crawler).enforce(key, slot)


def relax_for_local_demo(settings: Any) -> None:
    """The bundled demo site is ours: no AutoThrottle, more requests at once (spider priority)."""
    if settings.frozen:
        return
    settings.set("AUTOTHROTTLE_ENABLED", False, priority="spider")
    settings.set("CONCURRENT_REQUESTS_PER_DOMAIN", 8, priority="spider")


class PolitenessAddon:
    """Scrapy add-on: a User-Agent naming corpuscrawl, its version and ``CORPUSCRAWL_CONTACT``.

    Leaves ``USER_AGENT`` alone when it was set (a project's settings, ``-s
    USER_AGENT=…``, a spider's ``custom_settings``): it is set at add-on priority.
    """

    def update_settings(self, settings: Any) -> None:
        """Set ``USER_AGENT`` from ``CORPUSCRAWL_CONTACT`` (validated)."""
        config = PolitenessConfig.from_settings(settings)
        settings.set("USER_AGENT", user_agent(config.contact), priority="addon")
        if not config.contact:
            logger.info("CORPUSCRAWL_CONTACT is not set: set it to a URL or e-mail address so "
                        "that site owners can reach whoever runs this crawl")
