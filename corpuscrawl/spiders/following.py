"""How the ``corpus`` spider follows links: checked URLs, focus-scored priorities, errors counted.

Offsite URLs are left to Scrapy's OffsiteMiddleware (``allowed_domains``), repeats to the
scheduler's duplicate filter; URLs that cannot be fetched or are not HTML are counted
under ``corpuscrawl/links_skipped/*`` and ``corpuscrawl/skipped_extension`` and dropped
here.  Pages the renderer routes to Chromium before any fetch are requested rendered.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import scrapy

from corpuscrawl.browse.rendered import REASON_META_KEY
from corpuscrawl.crawlstate.recrawl import NotModified
from corpuscrawl.discovery import Link, feed_links, page_links
from corpuscrawl.focus import anchors_in_content
from corpuscrawl.html.page import Page
from corpuscrawl.net.urls import check_url, has_non_html_extension
from corpuscrawl.responses import count_failure
from corpuscrawl.spiders.sources import SEED_PRIORITY
from corpuscrawl.summary import error_type


class FollowingMixin:
    """Requests for seeds and discovered links, and the errback of plain requests."""

    crawler: Any
    logger: Any
    focus: Any
    renderer: Any
    use_feeds: bool

    def _request(self, url: str, priority: int, callback: Any = None, **meta: Any) -> scrapy.Request:
        # Pages the renderer routes to Chromium before any fetch.
        if callback is None:
            decision = self.renderer.route(url)
            if decision.render:
                self._count_render(decision, "direct")
                return self._rendered_request(url, priority,
                                              {**meta, REASON_META_KEY: decision.reason})
        return scrapy.Request(url, callback=callback or self.parse, priority=priority,
                              meta=meta, errback=self._errback)

    def _errback(self, failure: Any) -> None:
        if failure.check(NotModified):  # a 304 to a recrawl's conditional request
            return
        request = failure.request
        self.crawler.stats.inc_value("corpuscrawl/request_errors")
        self.crawler.stats.inc_value(f"corpuscrawl/request_errors/{error_type(failure.value)}")
        if not count_failure(self.crawler.stats, failure, self.logger):
            self.logger.debug("request failed: %s (%s)", request.url, failure.value)

    def follow(self, url: str, priority: int, callback: Any = None, **meta: Any) -> scrapy.Request | None:
        """A request for a discovered URL, or ``None`` if it is unusable or not HTML.

        Offsite URLs are dropped by Scrapy's OffsiteMiddleware (``allowed_domains``;
        ``allow_offsite=True`` in ``meta`` lets one through), URLs already requested
        by the scheduler's duplicate filter (durable: :mod:`corpuscrawl.crawlstate.frontier`).
        """
        url, reason = check_url(url)
        stats = self.crawler.stats
        if reason:  # unusable href (javascript:, bad port, broken host ...): counted, skipped
            stats.inc_value(f"corpuscrawl/links_skipped/{reason}")
            return None
        if callback is None and has_non_html_extension(url):  # sitemaps may be .xml.gz
            stats.inc_value("corpuscrawl/skipped_extension")
            return None
        return self._request(url, priority, callback, **meta)

    def links(self, page: Page, text: str, language: str, title: str) -> Iterator[scrapy.Request]:
        """Requests for a page's links and feeds, prioritized by the focus score."""
        yield from self.listed_links(list(page_links(page)),
                                     feed_links(page) if self.use_feeds else [],
                                     text, language, title)

    def listed_links(self, links: list[Link], feeds: list[str], text: str, language: str,
                     title: str) -> Iterator[scrapy.Request]:
        """Requests for a page's links and feeds (found already), by the focus score."""
        page_score = self.focus.page_score(text, language, title)
        in_content = anchors_in_content((link.text for link in links), text)
        for link in links:
            score = self.focus.link_score(page_score, link.text, link.url, link.text in in_content)
            request = self.follow(link.url, self.focus.priority(score))
            if request is not None:
                yield request
        for url in feeds:
            request = self.follow(url, SEED_PRIORITY, self.parse_xml)
            if request is not None:
                yield request
