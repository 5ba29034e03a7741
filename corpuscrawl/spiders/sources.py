"""Where the ``corpus`` spider's URLs come from: seeds, robots.txt sitemaps, sitemaps, feeds.

``start`` yields the seeds and, per seed host, its ``/sitemap.xml`` and robots.txt
``Sitemap:`` lines (read by Scrapy's RobotsTxtMiddleware when it fetches robots.txt, else
fetched here); a recrawl then re-queues the collection's known pages
(:func:`corpuscrawl.crawlstate.scrapy_glue.recrawl.revisit`).  Sitemap and feed entries are queued like
content links of a fair page (:meth:`SourcesMixin.listed_priority`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any
from urllib.parse import urljoin

import scrapy
from scrapy.http import Response
from scrapy.utils.misc import load_object

from corpuscrawl.cluster.limit import shared_document_count
from corpuscrawl.config.setting_values import whole_number_setting
from corpuscrawl.crawlstate.lookup import run_info
from corpuscrawl.crawlstate.scrapy_glue.recrawl import REVISIT_PRIORITY, revisit
from corpuscrawl.net.urls import site_root
from corpuscrawl.spiders.discovery import (
    SitemapRobotParser,
    SitemapTooLarge,
    SourceReader,
    sitemaps_from_robots,
)
from corpuscrawl.spiders.traps import SOURCE_META

#: Priority of seeds and of robots.txt/sitemap/feed requests: fetched before any link.
SEED_PRIORITY = 1000
#: Relevance assumed for the page that "contains" sitemap and feed entries (no text known yet).
LISTED_PAGE_SCORE = 0.5
#: URLs taken from one sitemap or feed (``CORPUSCRAWL_MAX_URLS_PER_SOURCE``): the sitemap
#: protocol's own limit per file (sitemaps.org: at most 50,000 URLs); 0 = no cap.
MAX_URLS_PER_SOURCE_DEFAULT = 50_000


class SourcesMixin:
    """The spider's start requests and its robots.txt, sitemap and feed callbacks."""

    crawler: Any
    logger: Any
    focus: Any
    seed_urls: list[str]
    use_sitemaps: bool
    _sitemap_roots: set[str]
    max_pages: int | None
    scope: Any
    _documents: int
    _shared_count: Any

    async def start(self) -> AsyncIterator[scrapy.Request]:
        """Seeds first; per seed host its robots.txt sitemaps and /sitemap.xml.

        When Scrapy fetches robots.txt anyway (``ROBOTSTXT_OBEY`` with
        :class:`~corpuscrawl.spiders.discovery.SitemapRobotParser`), its ``Sitemap:``
        lines arrive through the ``robots_parsed`` signal; otherwise the spider
        fetches the file itself.
        """
        run = run_info(self.crawler)
        if run is not None and run.resumed:  # max_pages counts over the runs of a generation
            self._documents = run.exported_before
        if self.max_pages is not None:
            self._shared_count = shared_document_count(self.crawler)
        roots = {site_root(url) for url in self.seed_urls} if self.use_sitemaps else set()
        self._sitemap_roots = set(roots)  # before any request: robots.txt may come back first
        own_robots = not self._robots_via_middleware()
        for url in self.seed_urls:  # seen ones (a resumed crawl) are dropped by the dupefilter
            verdict = self.scope.verdict(url, seed=True)
            if verdict:  # a seed denied or blocklisted by the scope rules
                self.crawler.stats.inc_value(f"corpuscrawl/scope/{verdict}")
                self.logger.warning("seed %s is out of the crawl's scope (%s): not fetched",
                                    url, verdict)
                continue
            # A seed may redirect to another site; the crawl then stays on the seeds' domains.
            yield self._request(url, SEED_PRIORITY, corpuscrawl_seed=True, allow_offsite=True)
            root = site_root(url)
            if root in roots:
                roots.discard(root)
                if own_robots:
                    yield self._request(root + "robots.txt", SEED_PRIORITY, self.parse_robots)
                yield self._request(root + "sitemap.xml", SEED_PRIORITY, self.parse_xml)
        # A recrawl re-queues the collection's known pages: sitemaps and feeds, and hubs
        # (refetched in full) with the seeds; pages that gave documents (conditional requests)
        # after every new page, so a crawl cut short by max_pages or a timeout has the new ones.
        for url, kind in revisit(self.crawler):
            if kind == "source":
                request = self.follow(url, SEED_PRIORITY, self.parse_xml)
            else:
                request = self.follow(url, SEED_PRIORITY - 1 if kind == "hub" else REVISIT_PRIORITY)
            if request is not None:
                yield request

    def _robots_via_middleware(self) -> bool:
        """True when Scrapy's RobotsTxtMiddleware fetches robots.txt and keeps its sitemaps."""
        settings = self.crawler.settings
        if not settings.getbool("ROBOTSTXT_OBEY"):
            return False
        parser = load_object(settings.get("ROBOTSTXT_PARSER"))
        return isinstance(parser, type) and issubclass(parser, SitemapRobotParser)

    def _robots_parsed(self, robotparser: Any, request: scrapy.Request) -> None:
        """A host's robots.txt, fetched by Scrapy's middleware: follow a seed host's sitemaps."""
        root = site_root(request.url)
        if root not in self._sitemap_roots:
            return
        self._sitemap_roots.discard(root)  # once per host
        for follow in self._robots_sitemaps(getattr(robotparser, "sitemaps", ()), root):
            self.crawler.engine.crawl(follow)

    def listed_priority(self, url: str) -> int:
        """Priority of a URL listed by a sitemap or feed: like a content link of a fair page."""
        return self.focus.priority(self.focus.link_score(LISTED_PAGE_SCORE, "", url, in_content=True))

    def parse_robots(self, response: Response) -> Iterator[scrapy.Request]:
        """Follow the ``Sitemap:`` lines of robots.txt (when the spider fetched it itself)."""
        if response.status != 200:
            return
        yield from self._robots_sitemaps(sitemaps_from_robots(response.text, ""), response.url)

    def _robots_sitemaps(self, urls: Iterable[str], base: str) -> Iterator[scrapy.Request]:
        for url in urls:
            self.crawler.stats.inc_value("corpuscrawl/sitemaps_from_robots")
            request = self.follow(urljoin(base, url), SEED_PRIORITY, self.parse_xml)
            if request is not None:
                yield request

    def max_urls_per_source(self) -> int:
        """``CORPUSCRAWL_MAX_URLS_PER_SOURCE``, read once (0 = no cap)."""
        cap = getattr(self, "_max_source_urls", None)
        if cap is None:
            cap = whole_number_setting(self.crawler.settings, "CORPUSCRAWL_MAX_URLS_PER_SOURCE",
                                       MAX_URLS_PER_SOURCE_DEFAULT)
            self._max_source_urls = cap
        return cap

    def parse_xml(self, response: Response) -> Iterator[scrapy.Request]:
        """Links from a sitemap, sitemap index or RSS/Atom feed (gzipped or not), lazily.

        The source is read entry by entry (:class:`~corpuscrawl.spiders.discovery.SourceReader`) and
        each entry's request is yielded at once, so a source of a million entries neither
        holds them in memory nor blocks the reactor: Scrapy schedules (and fetches) the first
        requests while the rest are still being read.  At most
        ``CORPUSCRAWL_MAX_URLS_PER_SOURCE`` entries are taken from one source; a source cut
        there is counted (``corpuscrawl/sources/capped``) and logged.
        """
        if response.status != 200:
            return
        response.meta[SOURCE_META] = True  # its requests stream past the links-per-page cap
        stats = self.crawler.stats
        cap = self.max_urls_per_source()
        reader = SourceReader(response.body, response.url)
        taken = 0
        try:
            for kind, url in reader:
                if cap and taken >= cap:
                    stats.inc_value("corpuscrawl/sources/capped")
                    self.logger.warning("%s lists more than %d URLs: the rest are not taken "
                                        "(CORPUSCRAWL_MAX_URLS_PER_SOURCE)", response.url, cap)
                    break
                taken += 1
                if taken == 1:
                    stats.inc_value("corpuscrawl/sitemaps" if reader.kind == "sitemap"
                                    else "corpuscrawl/feeds")
                request = (self.follow(url, SEED_PRIORITY, self.parse_xml) if kind == "sitemap"
                           else self.follow(url, self.listed_priority(url)))
                if request is not None:
                    if kind == "page":
                        stats.inc_value("corpuscrawl/urls_from_sitemaps"
                                        if reader.kind == "sitemap" else "corpuscrawl/urls_from_feeds")
                    yield request
        except SitemapTooLarge as exc:
            stats.inc_value("corpuscrawl/hostile/sitemap_too_large")
            self.logger.warning("sitemap or feed %s read only in part: %s", response.url, exc)
            return
        if taken == 0:
            stats.inc_value({"sitemap": "corpuscrawl/sitemaps", "feed": "corpuscrawl/feeds"}.get(
                reader.kind, "corpuscrawl/skipped_xml"))
