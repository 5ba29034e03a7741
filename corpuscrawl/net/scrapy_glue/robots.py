"""robots.txt read as RFC 9309 says, whatever the server does: never taken as allow-all when unread.

Scrapy's ``RobotsTxtMiddleware`` fetches a host's robots.txt like any page and,
when that fails, obeys nothing: a robots.txt over ``DOWNLOAD_MAXSIZE``, one
that times out, a server that resets the connection or answers 5xx all end
with a logged traceback and the host crawled as if it allowed everything.
:class:`BoundedRobotsTxtMiddleware` (in its place, same priority) fetches it
under its own rules:

* **Size**: at most ``CORPUSCRAWL_ROBOTSTXT_MAX_SIZE`` bytes are read (RFC 9309
  §2.5: crawlers must parse at least 500 KiB; Google reads that much); the
  download stops there whatever ``DOWNLOAD_MAXSIZE`` / ``DOWNLOAD_WARNSIZE``
  or the announced Content-Length say.  A longer file (or a compressed one
  inflating past ``DOWNLOAD_MAXSIZE``) is *oversized*: with
  ``CORPUSCRAWL_ROBOTSTXT_OVERSIZED = "disallow"`` (default) the host is not
  crawled, since rules past the cut are unknown; with ``"prefix"`` the complete
  lines of the first ``MAX_SIZE`` bytes are obeyed, as RFC 9309 allows.
* **Unreachable** (RFC 9309 §2.3.1.4): a network failure (timeout, refused
  or reset connection, DNS failure, a body cut short), after Scrapy's retries,
  or a 5xx or 429 answer means complete disallow for that host.
* **Unavailable** (4xx): no rules, everything allowed (RFC 9309 §2.3.1.3).
* **Requests waiting for the file**: every request that arrived while the
  host's robots.txt was being fetched gets the parser.  Scrapy's method
  returns the result of a shared Deferred, which the first waiter's asyncio
  adapter replaces by None, so under the asyncio reactor all the others were
  let through unchecked (seen: a resumed crawl's 14 queued requests, robots.txt
  disallowed pages included, fetched and exported).

Each case is one log line per host, no traceback, and a counter
``corpuscrawl/robotstxt/<oversized|unreachable>``; pages refused are counted
by Scrapy in ``robotstxt/forbidden``.

**Kept for a resumed run.**  A robots.txt that was read (2xx, or a 4xx: no rules) is
kept in the crawl state with its fetch time (:mod:`corpuscrawl.crawlstate.hosts`); a
resumed run of the same generation, or another cluster worker, answers from that copy
while it is younger than ``CORPUSCRAWL_ROBOTSTXT_MAX_AGE`` (24 h, RFC 9309 §2.4's
longest cache; 0 = always fetch) instead of spending a request of its budget, and
parses it exactly as if it had just been fetched (``robots_parsed`` is sent, so the
Crawl-delay and the Sitemap: lines apply again).  Counted in
``corpuscrawl/robotstxt/reused``.  An unreachable or oversized file is never kept: it
is asked again.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from scrapy import signals
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.exceptions import IgnoreRequest, StopDownload
from scrapy.http import Request, Response
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.misc import build_from_crawler
from twisted.internet.defer import Deferred

from corpuscrawl.config.setting_values import whole_number_setting
from corpuscrawl.crawlstate.hosts import ROBOTS_MAX_AGE, StoredRobots, robots_origin
from corpuscrawl.crawlstate.lookup import host_records

logger = logging.getLogger("corpuscrawl.robots")

#: Most bytes of a robots.txt read (RFC 9309 §2.5's minimum parsing limit, 500 KiB).
ROBOTSTXT_MAX_SIZE_DEFAULT = 500 * 1024
#: What an oversized robots.txt means: "disallow" (the host is not crawled) or "prefix".
OVERSIZED_CHOICES = ("disallow", "prefix")
#: Request meta key marking this middleware's robots.txt requests.
ROBOTS_META = "corpuscrawl_robotstxt"
_RECEIVED = "corpuscrawl_robotstxt_received"
_MAXSIZE = "corpuscrawl_robotstxt_maxsize"
DISALLOW_ALL = b"User-agent: *\nDisallow: /\n"
#: Answers meaning the server could not serve robots.txt now: complete disallow.
UNREACHABLE_STATUS = range(500, 600)


class HostClosedByRobots(IgnoreRequest):
    """A page of a host whose robots.txt could not be read: not fetched (see the module docstring).

    ``cause`` is what happened to the robots.txt (the failure's type, ``http 503``,
    ``RobotsTxtOversized``): the crawl summary counts the page's error under it, so
    "every seed failed" names the server's trouble, not robots.txt.
    """

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(message)
        self.cause = cause


def complete_lines(body: bytes) -> bytes:
    """``body`` without its last line when that line is unfinished (a rule cut in two)."""
    end = body.rfind(b"\n")
    return body[:end + 1] if end >= 0 else b""


def failure_reason(exc: BaseException) -> str:
    """A short description of a download failure for the log line (no traceback)."""
    text = str(exc).strip()
    name = type(exc).__name__
    return f"{name}: {text[:160]}" if text else name


class BoundedRobotsTxtMiddleware(RobotsTxtMiddleware):
    """Scrapy's robots.txt middleware with a size cap of its own and RFC 9309's failure rules.

    See the module docstring.  Settings: ``CORPUSCRAWL_ROBOTSTXT_MAX_SIZE``,
    ``CORPUSCRAWL_ROBOTSTXT_OVERSIZED``, ``CORPUSCRAWL_ROBOTSTXT_MAX_AGE``.
    """

    def __init__(self, crawler: Any):
        super().__init__(crawler)
        settings = crawler.settings
        self.max_size = whole_number_setting(settings, "CORPUSCRAWL_ROBOTSTXT_MAX_SIZE",
                                             ROBOTSTXT_MAX_SIZE_DEFAULT, minimum=1)
        oversized = str(settings.get("CORPUSCRAWL_ROBOTSTXT_OVERSIZED", "disallow")).lower()
        if oversized not in OVERSIZED_CHOICES:
            raise ValueError(f"CORPUSCRAWL_ROBOTSTXT_OVERSIZED must be one of "
                             f"{', '.join(OVERSIZED_CHOICES)}, got {oversized!r}")
        self.oversized = oversized
        self.max_age = whole_number_setting(settings, "CORPUSCRAWL_ROBOTSTXT_MAX_AGE",
                                            int(ROBOTS_MAX_AGE))
        if self.max_age > ROBOTS_MAX_AGE:
            raise ValueError(f"CORPUSCRAWL_ROBOTSTXT_MAX_AGE must be at most {int(ROBOTS_MAX_AGE)} "
                             f"seconds (RFC 9309: 24 hours), got {self.max_age}")
        self.download_maxsize = settings.getint("DOWNLOAD_MAXSIZE")
        crawler.signals.connect(self._headers_received, signal=signals.headers_received)
        crawler.signals.connect(self._bytes_received, signal=signals.bytes_received)

    # --- the download, bounded ---------------------------------------------------

    def _headers_received(self, headers: Any, body_length: int, request: Request,
                          spider: Any = None) -> None:
        """An announced length over DOWNLOAD_MAXSIZE must not abort the download: the first
        ``max_size`` bytes are read all the same (the cap is put back for decompression)."""
        if request.meta.get(ROBOTS_META) and self.download_maxsize and \
                isinstance(body_length, int) and body_length > self.download_maxsize:
            request.meta[_MAXSIZE] = request.meta.get("download_maxsize", self.download_maxsize)
            request.meta["download_maxsize"] = 0

    def _bytes_received(self, data: bytes, request: Request, spider: Any = None) -> None:
        """Stop a robots.txt download once ``max_size`` bytes have come."""
        if not request.meta.get(ROBOTS_META):
            return
        if _MAXSIZE in request.meta:  # the handler has read it; decompression reads it next
            request.meta["download_maxsize"] = request.meta.pop(_MAXSIZE)
        received = request.meta.get(_RECEIVED, 0) + len(data)
        request.meta[_RECEIVED] = received
        if received > self.max_size:
            raise StopDownload(fail=False)

    def robots_request(self, url: str) -> Request:
        """The request for ``url`` (a robots.txt): no warn size, marked for the size cap."""
        return Request(url, priority=self.DOWNLOAD_PRIORITY, callback=NO_CALLBACK,
                       meta={"dont_obey_robotstxt": True, ROBOTS_META: True,
                             "download_warnsize": 0})

    async def robot_parser(self, request: Request) -> Any:
        """The parser of ``request``'s host, fetching its robots.txt once (Scrapy's method,
        with this class's request and failure rules)."""
        url = urlparse_cached(request)
        netloc = url.netloc
        if netloc not in self._parsers:
            self._parsers[netloc] = Deferred()
            robots_url = f"{url.scheme}://{netloc}/robots.txt"
            stored = self._stored(robots_url)
            if stored is not None:
                await self._reuse(stored, netloc, request)
                return self._parsers[netloc]
            try:
                response = await self.crawler.engine.download_async(
                    self.robots_request(robots_url))
            except IgnoreRequest as exc:
                if "decompression" in str(exc):
                    self._oversized(netloc, robots_url, None, request,
                                    "over DOWNLOAD_MAXSIZE once decompressed")
                else:  # refused by another rule (network guard ...): as Scrapy does
                    self._robots_error(exc, netloc)
            except Exception as exc:  # noqa: BLE001 - any network failure: complete disallow
                self._stats.inc_value(f"robotstxt/exception_count/{type(exc)}")
                self._disallow(netloc, robots_url, "unreachable", failure_reason(exc),
                               type(exc).__name__)
            else:
                await self._read(response, netloc, request, robots_url)
            self._stats.inc_value("robotstxt/request_count")
        parser = self._parsers[netloc]
        if isinstance(parser, Deferred):
            # Not the Deferred's result: with several requests waiting for one robots.txt,
            # the first waiter's future adapter hands None (allow-all) on to the others.
            await maybe_deferred_to_future(parser)
            parser = self._parsers[netloc]
        return parser

    # --- a copy kept by an earlier run of the generation --------------------------

    def _stored(self, robots_url: str) -> StoredRobots | None:
        """The kept copy of ``robots_url`` when one may answer now, else None."""
        records = host_records(self.crawler)
        if records is None or not self.max_age:
            return None
        stored = records.robots(robots_origin(robots_url))
        if stored is None or not stored.usable(self.max_age, max_size=self.max_size):
            return None
        return stored

    def _keep(self, robots_url: str, status: int, body: bytes) -> None:
        records = host_records(self.crawler)
        if records is not None and self.max_age:
            records.keep_robots(robots_origin(robots_url), StoredRobots(status, body, time.time()))

    async def _reuse(self, stored: StoredRobots, netloc: str, request: Request) -> None:
        """Parse the kept copy as a fresh download would be (``robots_parsed`` sent)."""
        self._stats.inc_value("corpuscrawl/robotstxt/reused")
        logger.debug("robots.txt of %s: the copy fetched %.0f s ago is reused", netloc,
                     time.time() - stored.fetched_at)
        parser = build_from_crawler(self._parserimpl, self.crawler, stored.body)
        await self.crawler.signals.send_catch_log_async(
            signal=signals.robots_parsed, robotparser=parser, request=request)
        self._settle(netloc, parser)

    # --- what was received -------------------------------------------------------

    async def _read(self, response: Response, netloc: str, request: Request,
                    robots_url: str) -> None:
        if response.status in UNREACHABLE_STATUS or response.status == 429:
            self._stats.inc_value("robotstxt/response_count")
            self._stats.inc_value(f"robotstxt/response_status_count/{response.status}")
            self._disallow(netloc, response.url, "unreachable", f"HTTP {response.status}",
                           f"http {response.status}")
            return
        if 400 <= response.status < 500:  # unavailable: no rules
            self._keep(robots_url, response.status, b"")
            await self._parse_robots(response.replace(body=b""), netloc, request)
            return
        if "download_stopped" in response.flags or len(response.body) > self.max_size:
            self._oversized(netloc, response.url, response, request)
            return
        self._keep(robots_url, response.status, response.body)
        await self._parse_robots(response, netloc, request)

    def _oversized(self, netloc: str, url: str, response: Response | None,
                   request: Request, reason: str = "") -> None:
        reason = reason or f"over {self.max_size} bytes (CORPUSCRAWL_ROBOTSTXT_MAX_SIZE)"
        if self.oversized == "prefix" and response is not None:
            self._stats.inc_value("corpuscrawl/robotstxt/oversized")
            logger.warning("robots.txt %s %s: obeying the rules of its first %d bytes "
                           "(CORPUSCRAWL_ROBOTSTXT_OVERSIZED=prefix)", url, reason, self.max_size)
            prefix = complete_lines(response.body[:self.max_size])
            self._settle(netloc, build_from_crawler(self._parserimpl, self.crawler, prefix))
            self.crawler.signals.send_catch_log(signal=signals.robots_parsed,
                                                robotparser=self._parsers[netloc],
                                                request=request)
            return
        self._disallow(netloc, url, "oversized", reason, "RobotsTxtOversized")

    def _disallow(self, netloc: str, url: str, kind: str, reason: str, cause: str) -> None:
        """Complete disallow for ``netloc``: counted, one line, no traceback; its pages fail
        with :class:`HostClosedByRobots` naming ``cause``."""
        self._stats.inc_value(f"corpuscrawl/robotstxt/{kind}")
        hint = (" (CORPUSCRAWL_ROBOTSTXT_OVERSIZED=prefix obeys its first part instead)"
                if kind == "oversized" else " (RFC 9309: unreachable means complete disallow)")
        logger.warning("robots.txt %s %s (%s): no page of %s is fetched%s",
                       url, kind, reason, netloc, hint)
        parser = build_from_crawler(self._parserimpl, self.crawler, DISALLOW_ALL)
        parser.corpuscrawl_closed = (cause, f"robots.txt {url} {kind} ({reason})")
        self._settle(netloc, parser)

    def process_request_2(self, rp: Any, request: Request) -> None:
        """Scrapy's check; a page of a host closed by its unreadable robots.txt fails with
        :class:`HostClosedByRobots`."""
        closed = getattr(rp, "corpuscrawl_closed", None)
        if closed is None:
            super().process_request_2(rp, request)
            return
        self._stats.inc_value("robotstxt/forbidden")
        raise HostClosedByRobots(f"not fetched: {closed[1]}", closed[0])

    def _settle(self, netloc: str, parser: Any) -> None:
        waiting = self._parsers[netloc]
        self._parsers[netloc] = parser
        if isinstance(waiting, Deferred):
            waiting.callback(parser)

