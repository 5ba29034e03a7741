"""Conditional requests of a recrawl: validators out, 304s and gone pages in, pages' origins.

:class:`ConditionalRequests` (downloader middleware) and :class:`FoundOn`
(spider middleware) of :mod:`corpuscrawl.crawlstate.scrapy_glue.recrawl`, whose module
docstring tells the whole story.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.http.request import NO_CALLBACK

from corpuscrawl.crawlstate.pages import PageRecord
from corpuscrawl.crawlstate.scrapy_glue.recrawl import (
    Fetched,
    NotModified,
    RecrawlState,
    required_state,
)

__all__ = ["CONDITIONAL_META", "FOUND_ON_META", "GONE_STATUSES", "PROBE_META",
           "ConditionalRequests", "FoundOn"]

logger = logging.getLogger("corpuscrawl.recrawl")

#: Request meta key: the URL of the page a request was found on.
FOUND_ON_META = "corpuscrawl_found_on"
#: Request meta key set when validators were sent (a 304 then means "not modified").
CONDITIONAL_META = "corpuscrawl_conditional"
#: Request meta key of the plain conditional GET that precedes rendering a known page.
PROBE_META = "corpuscrawl_recrawl_probe"
#: Statuses that mark a known page as gone.
GONE_STATUSES = frozenset({404, 410})


def _validators(record: PageRecord) -> dict[str, str]:
    """The conditional-request headers for a stored page."""
    headers = {}
    if record.etag:
        headers["If-None-Match"] = record.etag
    if record.last_modified:
        headers["If-Modified-Since"] = record.last_modified
    return headers


def _moved_from(request: Request) -> str:
    """The first URL of a chain of permanent redirects that ended at ``request``, else ""."""
    urls = request.meta.get("redirect_urls") or []
    reasons = request.meta.get("redirect_reasons") or []
    if urls and reasons and all(reason in (301, 308) for reason in reasons):
        return str(urls[0])
    return ""


def _header(response: Response, name: str) -> str:
    value = response.headers.get(name)
    return value.decode("latin-1").strip() if value else ""


class ConditionalRequests:
    """Downloader middleware: conditional requests for known pages, 304s and gone pages."""

    def __init__(self, state: RecrawlState) -> None:
        self.state = state

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ConditionalRequests:
        """NotConfigured with ``CORPUSCRAWL_RECRAWL = "off"``."""
        return cls(required_state(crawler))

    async def process_request(self, request: Request) -> None:
        """Add the stored validators of a known, non-hub page (never to seeds) whose text
        this crawl shapes as the stored one was shaped.

        A redirected or retried copy of a conditional request is judged again for its
        own URL: the validators of the old URL must not ask about the new one.  A page
        to be rendered in the browser is first asked plainly and conditionally
        (:meth:`probe`): a 304 saves the rendering.
        """
        state = self.state
        if request.meta.get(PROBE_META):
            return
        if request.meta.pop(CONDITIONAL_META, False):
            for name in (b"If-None-Match", b"If-Modified-Since"):
                request.headers.pop(name, None)
        if (state.config.mode == "full" or request.method != "GET"
                or request.meta.get("corpuscrawl_seed")):
            return
        record = state.store.get(request.url)
        # validators stored in this generation belong to a killed run of it whose document
        # may not have reached the corpus: the page is fetched again in full
        if (record is None or record.gone or not record.has_validators or not record.text_hash
                or record.hashed_in == state.generation or state.is_hub(record)):
            return
        if record.reshaped(state.shape_for(request.url)):  # a change of extractor, model,
            state.inc("reshaped")  # template or text setting must reach the page: in full
            return
        if request.meta.get("playwright"):
            await self.probe(request, _validators(record))
            return
        for name, value in _validators(record).items():
            request.headers.setdefault(name, value)
        request.meta[CONDITIONAL_META] = True
        state.inc("conditional")

    async def probe(self, request: Request, validators: dict[str, str]) -> None:
        """Ask for a page to be rendered with a plain conditional GET; NotModified on a 304.

        Any other answer (or none) lets the browser fetch and render the page as usual.
        """
        state = self.state
        probe = Request(request.url, headers=validators, callback=NO_CALLBACK, dont_filter=True,
                        priority=request.priority,
                        meta={PROBE_META: True, "dont_redirect": True, "dont_retry": True,
                              "handle_httpstatus_all": True})
        state.inc("conditional")
        try:
            response = await state.crawler.engine.download_async(probe)
        except Exception as exc:  # the rendered request will meet the same trouble and say so
            logger.debug("conditional probe of %s failed: %s", request.url, exc)
            return
        if response.status == 304:
            state.store.touch(request.url, state.generation, 304)
            state.inc("not_modified")
            raise NotModified(f"not modified since the last crawl (not rendered): {request.url}")

    def process_response(self, request: Request, response: Response) -> Response:
        """304: the page is unchanged (NotModified); 404/410: a known page is gone."""
        state = self.state
        if response.status == 304 and request.meta.get(CONDITIONAL_META):
            state.store.touch(request.url, state.generation, 304)
            state.inc("not_modified")
            raise NotModified(f"not modified since the last crawl: {request.url}")
        if response.status in GONE_STATUSES:
            for url in {request.url, response.url, *request.meta.get("redirect_urls", ())}:
                if state.store.mark_gone(url, state.generation, response.status):
                    state.inc("gone")
                    logger.debug("gone (%d): %s", response.status, url)
        elif 200 <= response.status < 300 and _html_page(response):
            state.fetched(response.url, Fetched(
                response.status, _header(response, "ETag"),
                _header(response, "Last-Modified"),
                str(request.meta.get(FOUND_ON_META, "")), _moved_from(request)))
        return response


class FoundOn:
    """Spider middleware: each request the spider yields remembers the page it was found on."""

    def __init__(self, state: RecrawlState) -> None:
        self.state = state

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> FoundOn:
        """NotConfigured with ``CORPUSCRAWL_RECRAWL = "off"``."""
        return cls(required_state(crawler))

    def process_spider_output(self, response: Response, result: Iterable[Any]) -> Iterator[Any]:
        """Tag the requests of a synchronous callback."""
        page, listed = _html_page(response), False
        for item in result:
            if isinstance(item, Request):
                listed = self._tag(response, item, page, listed)
            yield item

    async def process_spider_output_async(self, response: Response,
                                          result: AsyncIterator[Any]) -> AsyncIterator[Any]:
        """Tag the requests of an asynchronous callback."""
        page, listed = _html_page(response), False
        async for item in result:
            if isinstance(item, Request):
                listed = self._tag(response, item, page, listed)
            yield item

    def _tag(self, response: Response, request: Request, page: bool, listed: bool) -> bool:
        """Tag a request from an HTML page; remember a sitemap or feed that listed pages."""
        if page:
            request.meta.setdefault(FOUND_ON_META, response.url)
        elif not listed and _xml_source(response):
            self.state.store.record_source(response.url, self.state.generation)
            return True
        return listed


def _xml_source(response: Response) -> bool:
    """True for a sitemap or feed answer (XML, possibly gzipped; not robots.txt)."""
    content_type = _header(response, "Content-Type").lower()
    return response.status == 200 and not content_type.startswith("text/plain")


def _html_page(response: Response) -> bool:
    """True for an HTML page (sitemaps and feeds are refetched anyway: not hubs to learn)."""
    content_type = _header(response, "Content-Type").lower()
    return not content_type or "html" in content_type
