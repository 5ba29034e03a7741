"""The ``corpus`` spider's hand-off to Chromium (:mod:`corpuscrawl.browse`).

A rendered request's page is driven by :meth:`RenderingMixin.parse_rendered` (reveal,
close, scroll; links from the element classifier) and always closed; a crashed page is
retried once, and a page whose rendering fails for good falls back to its plain version
when it was fetched plainly first, so nothing is lost.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import scrapy
from scrapy.http import Response

from corpuscrawl.browse.decision import RenderDecision
from corpuscrawl.browse.render import render_meta
from corpuscrawl.browse.rendered import (
    PLAIN_HTML_META_KEY,
    REASON_META_KEY,
    close_page,
    is_crash,
    retry_meta,
)
from corpuscrawl.browse.static import without_overlays
from corpuscrawl.crawlstate.scrapy_glue.recrawl import NotModified
from corpuscrawl.focus import followed_link
from corpuscrawl.html.page import Page
from corpuscrawl.spiders.following import ROBOTS_META_KEY, linked_url


class RenderingMixin:
    """Rendered requests, their callback and errback, and the plain fallback."""

    crawler: Any
    logger: Any
    focus: Any
    renderer: Any
    extraction: Any
    depth_limit: int | None

    def _count_render(self, decision: RenderDecision, route: str) -> None:
        stats = self.crawler.stats
        stats.inc_value(f"corpuscrawl/render/{route}")
        for kind in decision.kinds:
            stats.inc_value(f"corpuscrawl/render/reason/{kind}")
        self.logger.debug("%s: %s (%s)", route, decision.reason, route)

    def _rendered_request(self, url: str, priority: int, meta: dict[str, Any],
                          dont_filter: bool = False) -> scrapy.Request:
        """A request fetched in Chromium whose page ``parse_rendered`` drives and closes.

        ``dont_filter`` for a re-render of a page already fetched plainly.
        """
        return scrapy.Request(url, callback=self.parse_rendered, priority=priority,
                              meta=render_meta(meta), errback=self._errback_rendered,
                              dont_filter=dont_filter)

    async def parse_rendered(self, response: Response) -> AsyncIterator[Any]:
        """Reveal, close and scroll in the browser, then extract like ``parse`` does.

        Links come from the element classifier (Inner; Outer with ``follow=all``;
        LanguageSelection with ``follow_alternates``), not from the raw HTML.  When
        rendering fails for good, the plain version (if the page was fetched plainly
        first) is extracted instead.
        """
        stats = self.crawler.stats
        page = response.meta.pop("playwright_page", None)
        try:
            outcome = await self.renderer.run(page, response.url)
        except Exception as exc:  # a crashed page must not kill the crawl
            await close_page(page)
            retry = retry_meta(response.meta) if is_crash(exc) else None
            if retry is not None:
                stats.inc_value("corpuscrawl/render/retries")
                yield response.request.replace(meta=retry, dont_filter=True)
            else:
                stats.inc_value("corpuscrawl/render/failures")
                self.logger.warning("rendering %s failed: %s", response.url, exc)
                for item in self._plain_fallback(response.meta, response.url):
                    yield item
            return
        stats.inc_value("corpuscrawl/fetch/rendered")
        stats.inc_value("corpuscrawl/render/reveals", outcome.reveals)
        stats.inc_value("corpuscrawl/render/closes", outcome.closes)
        stats.inc_value("corpuscrawl/render/scrolls", outcome.scrolls)
        reason = response.meta.get(REASON_META_KEY) or "rendered"
        depth = response.meta.get("corpuscrawl_depth", response.meta.get("depth", 0))
        final = without_overlays(Page.from_html(outcome.html, url=response.url,
                                                status=response.status))
        self.renderer.learn(response.meta, response.url, final)
        robots = self.robots_directives(response.url, response.headers, final,
                                        response.meta.get(ROBOTS_META_KEY, ()))
        if robots.noindex and robots.nofollow:
            self.robots_blocked(response.url, robots)
            return
        final_result = self.extraction.run(final)
        seen_texts = {final_result.text}
        snapshots = () if robots.noindex else outcome.snapshots
        for number, html in enumerate(snapshots, 1):  # extract_continuously
            result = self.extraction.run(without_overlays(Page.from_html(html, url=response.url)))
            if result.text in seen_texts:
                continue
            seen_texts.add(result.text)
            for item in self.crawled(f"{response.url}#corpuscrawl-reveal-{number}",
                                     response.status, html, result, depth, rendered=True,
                                     alternates=outcome.alternates, render_reason=reason):
                yield item
        stats.inc_value("corpuscrawl/pages")
        if robots.noindex or robots.nofollow:
            self.robots_blocked(response.url, robots)
        if not robots.noindex:
            for item in self.crawled(response.url, response.status, outcome.html, final_result,
                                     depth, rendered=True, alternates=outcome.alternates,
                                     render_reason=reason):
                yield item
        page_score = self.learn_page(linked_url(response), final_result.text,
                                     final_result.language, final_result.title,
                                     outcome.links,
                                     followed_link(response.meta)[1])
        if not robots.noindex:
            self.count_document(final_result)
        if robots.nofollow or (self.depth_limit is not None and depth >= self.depth_limit):
            return
        for link in self.renderer.links_to_follow(outcome):
            prior = self.focus.link_score(page_score, link.text, link.url, False, response.url)
            # Outer (follow=all) and translation links may leave the seeds' sites.
            request = self.follow(link.url, 0, prior=prior, allow_offsite=link.kind != "inner")
            if request is not None:
                yield request

    def _plain_fallback(self, meta: dict[str, Any], url: str) -> Iterator[Any]:
        """The plain version of a page whose rendering failed (nothing is lost)."""
        html = meta.get(PLAIN_HTML_META_KEY)
        if not html:
            return
        self.crawler.stats.inc_value("corpuscrawl/render/fallback_plain")
        page = without_overlays(Page.from_html(html, url=url))
        # the plain version's header and meta tags were read when it was fetched
        robots = self.robots_directives(url, None, None, meta.get(ROBOTS_META_KEY, ()))
        result = self.extraction.run(page)
        depth = meta.get("corpuscrawl_depth", 0)
        if robots.noindex or robots.nofollow:
            self.robots_blocked(url, robots)
        if not robots.noindex:
            yield from self.crawled(url, 200, html, result, depth,
                                    render_reason="rendering failed: plain version")
        links, feeds = self.found_links(page)
        page_score = self.learn_page(url, result.text, result.language, result.title,
                                     links, followed_link(meta)[1])
        if not robots.noindex:
            self.count_document(result)
        if not robots.nofollow and (self.depth_limit is None or depth < self.depth_limit):
            yield from self.listed_links(links, feeds, result.text, page_score, page.url)

    async def _errback_rendered(self, failure: Any) -> AsyncIterator[Any]:
        """Close the page of a failed rendered request; retry a crash once, else fall back."""
        request = failure.request
        await close_page(request.meta.pop("playwright_page", None))
        if failure.check(NotModified):  # a recrawl's plain conditional GET answered 304
            return
        retry = retry_meta(request.meta) if is_crash(failure.value) else None
        if retry is not None:
            self.crawler.stats.inc_value("corpuscrawl/render/retries")
            yield request.replace(meta=retry, dont_filter=True)
            return
        self.crawler.stats.inc_value("corpuscrawl/render/failures")
        self._errback(failure)
        for item in self._plain_fallback(request.meta, request.url):
            yield item
