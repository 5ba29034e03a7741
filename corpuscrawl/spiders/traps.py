"""Link traps and link floods: limits on the requests one page may add to the crawl.

A calendar whose every month links to the next one, a relative link that
grows the path at every hop (``/a/b/`` → ``/a/b/a/b/``), a session id
appended to every URL: each page is new, so a seen-set never stops them.
Heuristics in the spirit of Heritrix's decide rules and Nutch's default URL
filters bound them, each counted under ``corpuscrawl/trap/<rule>`` and logged
once per host and rule:

* ``url_too_long`` — a URL longer than ``CORPUSCRAWL_MAX_URL_LENGTH``;
* ``path_repeats`` — one path segment more than ``CORPUSCRAWL_MAX_PATH_REPEATS`` times;
* ``path_segments`` — more than ``CORPUSCRAWL_MAX_PATH_SEGMENTS`` segments;
* ``pattern_run`` — more than ``CORPUSCRAWL_TRAP_MAX_RUN`` consecutive hops
  between URLs of one *pattern* (:func:`url_pattern`: host, path and query keys
  with digit runs masked), as in a "next month" or "next page" chain; a link
  to another pattern starts a new run, so articles linked from a long listing
  are not affected.

A page with more links than ``CORPUSCRAWL_MAX_LINKS_PER_PAGE`` has its most
relevant ones followed (by request priority) and the others counted
(``corpuscrawl/links/over_page_cap``): only those kept are held while the page's
links go by (a bounded heap).  Requests from anything but an HTML page (sitemaps,
feeds: capped by ``CORPUSCRAWL_MAX_URLS_PER_SOURCE`` in the spider) are passed on
as they come, never held, so a source of any size streams through.
"""

from __future__ import annotations

import heapq
import logging
import re
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from scrapy import Request
from scrapy.http import HtmlResponse, Response

from corpuscrawl.config.setting_values import whole_number_setting

logger = logging.getLogger("corpuscrawl.traps")

#: Request meta key: consecutive hops so far within the request URL's pattern.
RUN_META = "corpuscrawl_pattern_run"
#: Response meta key set by the spider on a sitemap or feed: its requests are never held.
SOURCE_META = "corpuscrawl_source"
_DIGITS_RE = re.compile(r"\d+")


@dataclass(frozen=True)
class TrapConfig:
    """Typed view of the link-trap settings (0 turns a rule off)."""

    max_url_length: int = 2083
    max_path_repeats: int = 3
    max_path_segments: int = 32
    max_run: int = 50
    max_links: int = 1000

    @classmethod
    def from_settings(cls, settings: Any) -> TrapConfig:
        """Read and validate the ``CORPUSCRAWL_*`` keys named in the module docstring."""
        return cls(**{name: whole_number_setting(settings, key, getattr(cls, name))
                      for key, name in (("CORPUSCRAWL_MAX_URL_LENGTH", "max_url_length"),
                                        ("CORPUSCRAWL_MAX_PATH_REPEATS", "max_path_repeats"),
                                        ("CORPUSCRAWL_MAX_PATH_SEGMENTS", "max_path_segments"),
                                        ("CORPUSCRAWL_TRAP_MAX_RUN", "max_run"),
                                        ("CORPUSCRAWL_MAX_LINKS_PER_PAGE", "max_links"))})


def url_pattern(url: str) -> str:
    """Host, path and sorted query keys of ``url`` with digit runs masked: ``h/cal/#?month``."""
    parts = urlsplit(url)
    keys = sorted({_DIGITS_RE.sub("#", k) for k, _ in parse_qsl(parts.query,
                                                                keep_blank_values=True)})
    return f"{parts.hostname or ''}{_DIGITS_RE.sub('#', parts.path)}?{'&'.join(keys)}"


def trap_rule(url: str, config: TrapConfig) -> str:
    """The rule a URL breaks on its own ("" when none): url_too_long, path_repeats, path_segments."""
    if config.max_url_length and len(url) > config.max_url_length:
        return "url_too_long"
    segments = [s for s in urlsplit(url).path.split("/") if s]
    if config.max_path_segments and len(segments) > config.max_path_segments:
        return "path_segments"
    if config.max_path_repeats and segments and \
            Counter(segments).most_common(1)[0][1] > config.max_path_repeats:
        return "path_repeats"
    return ""


class LinkTrapMiddleware:
    """Spider middleware dropping (and counting) requests that look like a link trap or flood."""

    def __init__(self, config: TrapConfig, stats: Any):
        self.config = config
        self.stats = stats
        self._logged: set[tuple[str, str]] = set()

    @classmethod
    def from_crawler(cls, crawler: Any) -> LinkTrapMiddleware:
        """Build from the crawler's settings and stats."""
        return cls(TrapConfig.from_settings(crawler.settings), crawler.stats)

    def process_spider_output(self, response: Response, result: Iterable[Any],
                              spider: Any = None) -> Iterator[Any]:
        """Pass items; pass, cap or drop requests (synchronous spider callbacks)."""
        page = _PageOutput(self, response)
        for obj in result:
            passed = page.take(obj)
            if passed is not None:
                yield passed
        yield from page.rest()

    async def process_spider_output_async(self, response: Response, result: AsyncIterator[Any],
                                          spider: Any = None) -> AsyncIterator[Any]:
        """Pass items; pass, cap or drop requests (asynchronous spider callbacks)."""
        page = _PageOutput(self, response)
        async for obj in result:
            passed = page.take(obj)
            if passed is not None:
                yield passed
        for request in page.rest():
            yield request

    def _capped(self, response: Response | None) -> bool:
        """True for the links of an HTML page under a links-per-page cap (not a sitemap or
        feed served as HTML, which the spider marks with :data:`SOURCE_META`)."""
        return (bool(self.config.max_links) and isinstance(response, HtmlResponse)
                and not response.meta.get(SOURCE_META))

    def _top_requests(self, response: Response | None) -> _TopRequests | None:
        return _TopRequests(self.config.max_links) if self._capped(response) else None

    def check(self, request: Request, response: Response | None,
              pattern: str = "") -> Request | None:
        """``request`` with its pattern run in meta, or None when it breaks a rule (counted).

        ``pattern``: :func:`url_pattern` of the response's URL when the caller has it (one
        for all the links of a page)."""
        if response is None or request.url == response.url:
            return request  # start requests, and re-requests of the same page (rendering)
        rule = trap_rule(request.url, self.config)
        run = 0
        if url_pattern(request.url) == (pattern or url_pattern(response.url)):
            run = response.meta.get(RUN_META, 0) + 1
            if not rule and self.config.max_run and run > self.config.max_run:
                rule = "pattern_run"
        if rule:
            self._count(rule, request.url, f"corpuscrawl/trap/{rule}")
            return None
        request.meta[RUN_META] = run
        return request

    def cap(self, requests: list[Request], response: Response | None) -> list[Request]:
        """The ``max_links`` highest-priority requests of an HTML page (all for other responses)."""
        if not self._capped(response):
            return requests
        kept = _TopRequests(self.config.max_links)
        for request in requests:
            kept.add(request)
        return list(self._release(kept, response))

    def _release(self, kept: _TopRequests, response: Response) -> Iterator[Request]:
        """The requests kept for a page, in the page's order; the cap counted when it bit."""
        if kept.dropped:
            self.stats.inc_value("corpuscrawl/links/over_page_cap", kept.dropped)
            logger.info("%s has %d links: following the %d most relevant "
                        "(CORPUSCRAWL_MAX_LINKS_PER_PAGE), %d not followed",
                        response.url, kept.seen, kept.limit, kept.dropped)
        return kept.in_order()

    def _count(self, rule: str, url: str, key: str) -> None:
        self.stats.inc_value(key)
        host = urlsplit(url).hostname or ""
        if (host, rule) not in self._logged:
            self._logged.add((host, rule))
            logger.info("link trap suspected on %s (%s): %s not followed; further ones are "
                        "counted in %s", host, rule, url[:200], key)


class _PageOutput:
    """What one response's callback yields, through the middleware's rules."""

    def __init__(self, middleware: LinkTrapMiddleware, response: Response) -> None:
        self.middleware = middleware
        self.response = response
        self.kept: _TopRequests | None = None
        self.pattern = ""
        self.started = False

    def take(self, obj: Any) -> Any:
        """The object to pass on now (an item, a request not held), or None."""
        if not isinstance(obj, Request):
            return obj
        if not self.started:  # decided when the callback has started: a source marks it
            self.started = True
            self.kept = self.middleware._top_requests(self.response)
            self.pattern = url_pattern(self.response.url) if self.response is not None else ""
        request = self.middleware.check(obj, self.response, self.pattern)
        if request is None or self.kept is None:
            return request
        self.kept.add(request)
        return None

    def rest(self) -> Iterator[Request]:
        """The requests held for the page's cap, once its callback has ended."""
        if self.kept is None:
            return iter(())
        return self.middleware._release(self.kept, self.response)


class _TopRequests:
    """The ``limit`` highest-priority requests seen so far (earlier first among equals).

    A min-heap of (priority, -arrival) keys: memory is bounded by ``limit`` however many
    requests go by.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.seen = 0
        self.dropped = 0
        self._heap: list[tuple[int, int, Request]] = []

    def add(self, request: Request) -> None:
        """Keep ``request`` if it is among the ``limit`` best so far (dropping the worst)."""
        entry = (request.priority, -self.seen, request)
        self.seen += 1
        if len(self._heap) < self.limit:
            heapq.heappush(self._heap, entry)
            return
        self.dropped += 1
        if entry[:2] > self._heap[0][:2]:
            heapq.heapreplace(self._heap, entry)

    def in_order(self) -> Iterator[Request]:
        """The kept requests in the order they arrived."""
        for _, _, request in sorted(self._heap, key=lambda e: -e[1]):
            yield request
