"""How the ``corpus`` spider follows links: checked URLs, focus-scored priorities, errors counted.

Pages that ask for it by robots meta tag or ``X-Robots-Tag`` are not exported (``noindex``)
or not followed (``nofollow``) unless ``CORPUSCRAWL_ROBOTS_META_OBEY`` is off; both are
counted under ``corpuscrawl/robots_meta/*``.

Offsite URLs are left to Scrapy's OffsiteMiddleware (``allowed_domains``), repeats to the
scheduler's duplicate filter; page URLs out of the crawl's scope (:mod:`corpuscrawl.net.scope`:
allow/deny rules, the blocklist, a domain at its page cap) are counted under
``corpuscrawl/scope/<reason>`` and dropped; URLs that cannot be fetched or are not HTML are counted
under ``corpuscrawl/links_skipped/*`` and ``corpuscrawl/skipped_extension`` and dropped
here.  Pages the renderer routes to Chromium before any fetch are requested rendered.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from typing import Any

import scrapy

from corpuscrawl.browse.links import FoundLink
from corpuscrawl.browse.rendered import REASON_META_KEY
from corpuscrawl.crawlstate.scrapy_glue.recrawl import NotModified
from corpuscrawl.crawlstate.scrapy_glue.stopping import STOPPED_META, StoppedBeforeDownload
from corpuscrawl.focus import FOCUS_LEARNED, FOCUS_META, anchors_in_content, url_shape
from corpuscrawl.html.page import Page
from corpuscrawl.html.robots_meta import (
    RobotsDirectives,
    agent_token,
    header_directives,
    page_directives,
)
from corpuscrawl.html.scrapy_glue import count_failure
from corpuscrawl.net.urls import check_url, has_non_html_extension
from corpuscrawl.report.scrapy_glue.dropped import record_drop
from corpuscrawl.report.summary import error_type
from corpuscrawl.spiders.discovery import Link, feed_links, page_links
from corpuscrawl.spiders.sources import SEED_PRIORITY


class FollowingMixin:
    """Requests for seeds and discovered links, and the errback of plain requests."""

    crawler: Any
    logger: Any
    focus: Any
    renderer: Any
    scope: Any
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
        request = failure.request
        if failure.check(NotModified, StoppedBeforeDownload) or request.meta.get(STOPPED_META):
            return  # a 304 to a conditional request; a download a graceful stop took back
        self.crawler.stats.inc_value("corpuscrawl/request_errors")
        self.crawler.stats.inc_value(f"corpuscrawl/request_errors/{error_type(failure.value)}")
        if not count_failure(self.crawler.stats, failure, self.logger):
            self.logger.debug("request failed: %s (%s)", request.url, failure.value)

    def follow(self, url: str, priority: int, callback: Any = None, prior: float | None = None,
               **meta: Any) -> scrapy.Request | None:
        """A request for a discovered URL, or ``None`` if it is unusable or not HTML.

        With a ``prior`` (the link's score from the page it is on), the priority is
        that prior shrunk towards what pages of the URL's shape scored so far
        (:class:`~corpuscrawl.focus.ShapeLearning`; the first link of a shape not yet tried is
        raised to a floor, :meth:`~corpuscrawl.focus.Focus.link_rank`), and the shape and prior travel
        in ``meta['corpuscrawl_focus']`` so the frontier can re-rank the request later.

        Offsite URLs are dropped by Scrapy's OffsiteMiddleware (``allowed_domains``;
        ``allow_offsite=True`` in ``meta`` lets one through), URLs already requested
        by the scheduler's duplicate filter (durable: :mod:`corpuscrawl.crawlstate.scrapy_glue.frontier`).
        """
        url, reason = check_url(url)
        stats = self.crawler.stats
        if reason:  # unusable href (javascript:, bad port, broken host ...): counted, skipped
            stats.inc_value(f"corpuscrawl/links_skipped/{reason}")
            return None
        if callback is None and has_non_html_extension(url):  # sitemaps may be .xml.gz
            stats.inc_value("corpuscrawl/skipped_extension")
            return None
        if callback is None:  # a page (sitemaps and feeds are sources, not held to allow)
            verdict = self.scope.verdict(url)
            if verdict:
                stats.inc_value(f"corpuscrawl/scope/{verdict}")
                return None
        if prior is not None:
            shape = url_shape(url)
            priority = self.focus.link_rank(prior, shape)
            meta[FOCUS_META] = {"shape": shape, "prior": prior}
        return self._request(url, priority, callback, **meta)

    def learn_page(self, url: str, text: str, language: str, title: str,
                   links: Iterable[Link | FoundLink] = (), prior: float | None = None) -> float:
        """Score a fetched page and teach the focus what its URL shape leads to; return the score.

        The score is the page's relevance with its text's novelty
        (:class:`~corpuscrawl.focus.TextNovelty`): another view of a page already fetched
        (a print view, a comment-reply view) adds nothing to the corpus; and at least what
        its headline-like links discovered (:meth:`~corpuscrawl.focus.TextNovelty.new_links`).
        ``url`` is the one the link named (before redirects:
        :func:`linked_url`), as links are judged by it; ``links``: the page's links (their
        anchor words in ``text`` are not the page's own); ``prior``: the score the link to
        the page was followed with (:func:`corpuscrawl.focus.followed_link`), checked against the page's
        own to learn how far priors can be trusted.  Listeners of :data:`~corpuscrawl.focus.FOCUS_LEARNED`
        (the durable frontier) re-rank the requests of that shape still waiting.
        """
        links = list(links)
        novelty = self.focus.novelty
        score = self.focus.page_score(text, language, title, [link.text for link in links],
                                      novelty.observe(text, url),
                                      novelty.new_links(((link.url, link.text) for link in links),
                                                        url))
        shape = url_shape(url)
        learning = self.focus.learning
        pages, total = learning.observe(shape, score, prior)

        self.crawler.signals.send_catch_log(FOCUS_LEARNED, shape=shape, pages=pages, total=total,
                                            rank=partial(self.focus.rank, shape=shape),
                                            squares=learning.squares.get(shape),
                                            misses=learning.misses)
        return score

    def found_links(self, page: Page) -> tuple[list[Link], list[str]]:
        """A page's links and (when feeds are used) the feeds it announces."""
        return list(page_links(page)), feed_links(page) if self.use_feeds else []

    def links(self, page: Page, text: str, page_score: float) -> Iterator[scrapy.Request]:
        """Requests for a page's links and feeds, prioritized by the focus score."""
        yield from self.listed_links(*self.found_links(page), text, page_score, page.url)

    def listed_links(self, links: list[Link], feeds: list[str], text: str,
                     page_score: float, page_url: str = "") -> Iterator[scrapy.Request]:
        """Requests for a page's links and feeds (found already), by the focus score.

        ``page_score``: the page's own score (:meth:`learn_page`), the prior of its links;
        ``page_url``: the page's URL (its pager and sort links are not navigation).
        """
        in_content = anchors_in_content((link.text for link in links), text)
        for link in links:
            prior = self.focus.link_score(page_score, link.text, link.url,
                                          link.text in in_content, page_url)
            request = self.follow(link.url, 0, prior=prior)
            if request is not None:
                yield request
        for url in feeds:
            request = self.follow(url, SEED_PRIORITY, self.parse_xml)
            if request is not None:
                yield request


def linked_url(response: Any) -> str:
    """The URL a response was asked for before any redirect (the link that was followed)."""
    return (response.meta.get("redirect_urls") or [response.url])[0]


#: Request meta key carrying the robots directives of a page's plain version to its rendering.
ROBOTS_META_KEY = "corpuscrawl_robots"


class RobotsMetaMixin:
    """Obeying a page's robots meta tags and ``X-Robots-Tag`` header (``CORPUSCRAWL_ROBOTS_META_OBEY``)."""

    crawler: Any
    logger: Any
    _robots_token: str | None = None

    def robots_token(self) -> str | None:
        """Our name in robots meta tags and headers; ``None`` when they are not obeyed."""
        settings = self.crawler.settings
        if not settings.getbool("CORPUSCRAWL_ROBOTS_META_OBEY", True):
            return None
        if self._robots_token is None:
            self._robots_token = agent_token(settings.get("ROBOTSTXT_USER_AGENT")
                                             or settings.get("USER_AGENT") or "")
        return self._robots_token

    def robots_directives(self, url: str, headers: Any, page: Page | None,
                          carried: Any = ()) -> RobotsDirectives:
        """What the page allows (nothing restricted when obeying is off); restrictions are counted.

        ``headers``: the response's headers (``X-Robots-Tag``); ``carried``: directive
        names found on the plain version of a page fetched again in Chromium.
        """
        token = self.robots_token()
        if token is None:
            return RobotsDirectives()
        found = RobotsDirectives.parse(",".join(carried)) if carried else RobotsDirectives()
        if headers is not None:
            found |= header_directives(headers.getlist("X-Robots-Tag"), token)
        if page is not None:
            found |= page_directives(page, token)
        return found

    def robots_blocked(self, url: str, directives: RobotsDirectives) -> None:
        """Count and log a page the robots directives keep out of the corpus or the crawl.

        The one place where a page dropped for robots meta is known with its URL and reason.
        """
        stats = self.crawler.stats
        for name in directives.as_list():
            stats.inc_value(f"corpuscrawl/robots_meta/{name}")
        if directives.noindex:
            self.logger.info("not exported (robots noindex): %s", url)
            record_drop(self.crawler, url, "robots",
                        "robots none" if directives.nofollow else "robots noindex")
        if directives.nofollow:
            self.logger.debug("links not followed (robots nofollow): %s", url)
