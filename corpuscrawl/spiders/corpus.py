"""The ``corpus`` spider: seeds, sitemaps and feeds in, extracted pages out, best pages first.

Arguments (``-a name=value``):

* ``seeds`` — comma-separated URLs (pages, sitemaps or RSS/Atom feeds);
  ``seeds_file`` — a file with one URL per line (``#`` comments).  With neither,
  the bundled demo site is served on 127.0.0.1 and crawled.
* ``depth`` — follow links at most this many hops from a seed (default: no limit).
* ``domains`` — extra allowed domains (comma-separated); ``any_domain=1`` follows
  links everywhere.  By default the crawl stays on the seeds' domains.
* ``sitemaps=0`` / ``feeds=0`` — do not discover links from sitemaps / feeds.
* ``max_pages`` — stop after this many documents.
* ``collection`` — name of the corpus whose crawl state (frontier, seen requests,
  export ledger, page history) this crawl uses; default derived from the seeds
  (``corpuscrawl.crawlstate``).  A crawl killed or stopped with Ctrl-C resumes when
  run again with the same command.
* ``recrawl=changed|full|off`` — a later crawl of the collection exports only new and
  changed documents (default), every document again, or keeps no page store
  (``corpuscrawl.crawlstate.recrawl``; setting ``CORPUSCRAWL_RECRAWL``).
* ``languages``, ``keywords`` — focus (comma-separated); see ``corpuscrawl.focus``.
* ``extractor`` — default extractor name for this crawl (rules per domain still win).
* ``render=never|always|auto``, ``max_reveals``, ``max_scrolls``, ``follow=inner|all``,
  ``extract_continuously``, ``follow_alternates`` — JavaScript pages (corpuscrawl.browse);
  per-domain rules override them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import scrapy
from scrapy import signals
from scrapy.exceptions import CloseSpider
from scrapy.http import Response
from scrapy.utils.misc import load_object

from corpuscrawl.browse.decision import RenderDecision
from corpuscrawl.browse.render import RenderPlan, render_meta
from corpuscrawl.browse.rendered import (
    PLAIN_HTML_META_KEY,
    REASON_META_KEY,
    Renderer,
    close_page,
    is_crash,
    retry_meta,
)
from corpuscrawl.browse.static import without_overlays
from corpuscrawl.crawled import CrawledPage
from corpuscrawl.crawlstate.addon import run_info
from corpuscrawl.crawlstate.location import check_collection, collection_from_seeds
from corpuscrawl.crawlstate.recrawl import REVISIT_PRIORITY, NotModified, revisit
from corpuscrawl.discovery import (
    SitemapRobotParser,
    SitemapTooLarge,
    feed_links,
    page_links,
    parse_feed,
    parse_sitemap,
    sitemaps_from_robots,
)
from corpuscrawl.extraction import Extraction, ExtractionResult
from corpuscrawl.focus import Focus, FocusConfig, anchors_in_content
from corpuscrawl.html.page import Page, domain_of
from corpuscrawl.net.urls import (
    check_url,
    has_non_html_extension,
    offsite_domains,
    site_root,
)
from corpuscrawl.responses import body_kind, count_failure, page_from_response
from corpuscrawl.summary import error_type

#: Priority of seeds and of robots.txt/sitemap/feed requests: fetched before any link.
SEED_PRIORITY = 1000
#: Relevance assumed for the page that "contains" sitemap and feed entries (no text known yet).
LISTED_PAGE_SCORE = 0.5


class SeedError(ValueError):
    """The seeds given to the spider are unusable; the message says which and why."""


def _flag(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise SeedError(f"argument {name}={value!r}: expected 1/0, true/false, yes/no")


def _int_arg(value: Any, name: str) -> int | None:
    if value in (None, ""):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise SeedError(f"argument {name}={value!r}: expected a whole number") from None
    if number < 0:
        raise SeedError(f"argument {name}={value!r}: must be >= 0")
    return number


def read_seeds(seeds: str = "", seeds_file: str = "") -> list[str]:
    """Seed URLs from a comma-separated string and/or a file, normalized, in order, unique."""
    raw = [s for s in (seeds or "").split(",") if s.strip()]
    if seeds_file:
        path = Path(seeds_file)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise SeedError(f"cannot read seeds_file {path}: {exc.strerror or exc}") from exc
        raw.extend(line for line in lines if line.strip() and not line.strip().startswith("#"))
    out: list[str] = []
    for item in raw:
        url, reason = check_url(item.strip())
        if not url:
            raise SeedError(f"seed {item.strip()!r} is not an http(s) URL that can be fetched ({reason})")
        if url not in out:
            out.append(url)
    return out


class CorpusSpider(scrapy.Spider):
    """Focused crawl of the seeds' sites producing extracted pages for the corpus pipeline."""

    name = "corpus"

    def __init__(self, seeds: str = "", seeds_file: str = "", depth: str = "",
                 domains: str = "", any_domain: str = "0", sitemaps: str = "1",
                 feeds: str = "1", max_pages: str = "", languages: str = "",
                 keywords: str = "", extractor: str = "", render: str = "",
                 max_reveals: str = "", max_scrolls: str = "", follow: str = "",
                 extract_continuously: str = "", follow_alternates: str = "",
                 collection: str = "", **kwargs: Any):
        super().__init__(**kwargs)
        # Rendering arguments (corpuscrawl.browse), resolved in from_crawler.
        self._render_args = {"render": render, "max_reveals": max_reveals,
                             "max_scrolls": max_scrolls, "follow": follow,
                             "extract_continuously": extract_continuously,
                             "follow_alternates": follow_alternates}
        self.seed_urls = read_seeds(seeds, seeds_file)
        self.depth_limit = _int_arg(depth, "depth")
        self.any_domain = _flag(any_domain, "any_domain")
        self.use_sitemaps = _flag(sitemaps, "sitemaps")
        self.use_feeds = _flag(feeds, "feeds")
        self.max_pages = _int_arg(max_pages, "max_pages")
        self.extra_domains = {d.strip().lower() for d in domains.split(",") if d.strip()}
        self._languages, self._keywords, self._extractor = languages, keywords, extractor
        self.demo_server: Any = None
        self.collection = check_collection(collection) if collection else ""
        self._sitemap_roots: set[str] = set()  # seed hosts whose robots.txt sitemaps to follow
        self._documents = 0
        self._shared_count: Any = None  # cluster mode: max_pages counted over all workers

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> CorpusSpider:
        """Build the spider with the crawl's extraction, focus and (without seeds) demo site."""
        spider = super().from_crawler(crawler, *args, **kwargs)
        settings = crawler.settings
        spider.extraction = Extraction.from_settings(settings, spider._extractor or None)
        spider.focus = Focus(FocusConfig.from_values(
            spider._languages or settings.getlist("CORPUSCRAWL_LANGUAGES"),
            spider._keywords or settings.getlist("CORPUSCRAWL_KEYWORDS")))
        if not spider.seed_urls:
            from corpuscrawl.demo.server import DemoServer
            from corpuscrawl.net.politeness import relax_for_local_demo

            spider.demo_server = DemoServer().start()
            spider.seed_urls = [spider.demo_server.url]
            relax_for_local_demo(settings)  # our own site on 127.0.0.1: no throttling
            spider.logger.info("no seeds given: crawling the bundled demo site at %s",
                               spider.demo_server.url)
        # Scrapy's OffsiteMiddleware keeps the crawl on these domains and their subdomains.
        spider.allowed_domains = [] if spider.any_domain else offsite_domains(
            {domain_of(u) for u in spider.seed_urls} | spider.extra_domains)
        spider._name_collection(settings)
        # The rendering plan; the add-on reads CORPUSCRAWL_RENDER (settings are not frozen
        # yet) to install scrapy-playwright only when needed.
        plan = RenderPlan.from_args(settings, **spider._render_args)
        spider.renderer = Renderer.from_settings(plan, settings)
        if spider._render_args["render"] and not settings.frozen:
            settings.set("CORPUSCRAWL_RENDER", plan.render, priority="spider")
        crawler.signals.connect(spider._closed, signal=signals.spider_closed)
        crawler.signals.connect(spider._robots_parsed, signal=signals.robots_parsed)
        return spider

    def _name_collection(self, settings: Any) -> None:
        """Set CORPUSCRAWL_COLLECTION (settings are not frozen yet); the demo's state is temporary."""
        if settings.frozen:
            return
        if self.demo_server is not None and not (
                self.collection or settings.get("CORPUSCRAWL_STATE_DIR") or settings.get("JOBDIR")):
            settings.set("CORPUSCRAWL_STATE_TEMPORARY", True, priority="spider")
        name = self.collection or settings.get("CORPUSCRAWL_COLLECTION") or (
            "demo" if self.demo_server is not None else collection_from_seeds(self.seed_urls))
        settings.set("CORPUSCRAWL_COLLECTION", name, priority="spider")

    def _closed(self) -> None:
        self.renderer.close()  # corpuscrawl.browse: keep the site render experience
        if self.demo_server is not None:
            self.demo_server.stop()

    # --- requests -------------------------------------------------------------

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

    async def start(self) -> AsyncIterator[scrapy.Request]:
        """Seeds first; per seed host its robots.txt sitemaps and /sitemap.xml.

        When Scrapy fetches robots.txt anyway (``ROBOTSTXT_OBEY`` with
        :class:`~corpuscrawl.discovery.SitemapRobotParser`), its ``Sitemap:``
        lines arrive through the ``robots_parsed`` signal; otherwise the spider
        fetches the file itself.
        """
        run = run_info(self.crawler)
        if run is not None and run.resumed:  # max_pages counts over the runs of a generation
            self._documents = run.exported_before
        if self.max_pages is not None:
            from corpuscrawl.cluster.limit import shared_document_count

            self._shared_count = shared_document_count(self.crawler)
        roots = {site_root(url) for url in self.seed_urls} if self.use_sitemaps else set()
        self._sitemap_roots = set(roots)  # before any request: robots.txt may come back first
        own_robots = not self._robots_via_middleware()
        for url in self.seed_urls:  # seen ones (a resumed crawl) are dropped by the dupefilter
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

    def listed_priority(self, url: str) -> int:
        """Priority of a URL listed by a sitemap or feed: like a content link of a fair page."""
        return self.focus.priority(self.focus.link_score(LISTED_PAGE_SCORE, "", url, in_content=True))

    # --- callbacks --------------------------------------------------------------

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

    def parse_xml(self, response: Response) -> Iterator[scrapy.Request]:
        """Links from a sitemap, sitemap index or RSS/Atom feed (gzipped or not)."""
        if response.status != 200:
            return
        stats = self.crawler.stats
        try:
            entries = parse_sitemap(response.body, response.url)
            links = parse_feed(response.body, response.url) if entries is None else None
        except SitemapTooLarge as exc:
            stats.inc_value("corpuscrawl/hostile/sitemap_too_large")
            self.logger.warning("sitemap or feed %s not read: %s", response.url, exc)
            return
        if entries is not None:
            stats.inc_value("corpuscrawl/sitemaps")
            for url in entries.sitemaps:
                request = self.follow(url, SEED_PRIORITY, self.parse_xml)
                if request is not None:
                    yield request
            for url in entries.pages:
                request = self.follow(url, self.listed_priority(url))
                if request is not None:
                    stats.inc_value("corpuscrawl/urls_from_sitemaps")
                    yield request
            return
        if links is not None:
            stats.inc_value("corpuscrawl/feeds")
            for url in links:
                request = self.follow(url, self.listed_priority(url))
                if request is not None:
                    stats.inc_value("corpuscrawl/urls_from_feeds")
                    yield request
            return
        stats.inc_value("corpuscrawl/skipped_xml")

    def parse(self, response: Response) -> Iterator[Any]:
        """Extract an HTML page and follow its links by relevance; route XML to ``parse_xml``."""
        stats = self.crawler.stats
        kind, sniffed = body_kind(response)
        if kind == "xml":
            yield from self.parse_xml(response)
            return
        if kind != "html":
            stats.inc_value("corpuscrawl/skipped_non_html")
            return
        if sniffed:
            stats.inc_value("corpuscrawl/hostile/html_sniffed")
            self.logger.info("%s is HTML served as %r", response.url,
                             response.headers.get("Content-Type", b"").decode("latin-1"))
        if self.max_pages is not None and self._documents >= self.max_pages:
            return  # in-flight responses after the limit are not extracted
        page = page_from_response(response)
        if page.binary:
            stats.inc_value("corpuscrawl/dropped/binary")
            self.logger.info("dropped %s: the body is not text", response.url)
            return
        # render=auto re-requests pages that need a browser (the plain version is then
        # never emitted); overlays of the static HTML are dropped.
        stats.inc_value("corpuscrawl/fetch/plain")
        decision = self.renderer.judge(page)
        if decision.render:
            self._count_render(decision, "auto_rerender")
            # DepthMiddleware counts this re-request as a hop; keep the real depth.
            yield self._rendered_request(
                response.url, response.request.priority,
                {"corpuscrawl_depth": response.meta.get("depth", 0),
                 **self.renderer.plain_meta(page, decision)}, dont_filter=True)
            return
        if decision.reason:
            self._count_render(decision, "kept_plain")
        page = without_overlays(page)
        result = self.extraction.run(page)
        stats.inc_value("corpuscrawl/pages")
        depth = response.meta.get("depth", 0)
        yield from self.crawled(response.url, response.status, page.html, result, depth,
                                render_reason=decision.reason)
        self.count_document(result)
        if self.depth_limit is not None and depth >= self.depth_limit:
            return
        yield from self.links(page, result.text, result.language, result.title)

    def crawled(self, url: str, status: int, html: str, result: ExtractionResult, depth: int,
                **extra: Any) -> Iterator[CrawledPage]:
        """The item(s) for the pipeline: the page, or one per coherent text in split mode."""
        fetched_at = datetime.now(UTC).isoformat(timespec="seconds")
        units = result.units or [(None, None)]
        for i, (kind, text) in enumerate(units):
            unit_result = result if kind is None else replace(result, text=text, units=[])
            yield CrawledPage(url=url, status=status, html=html, result=unit_result, depth=depth,
                              fetched_at=fetched_at, unit=(i, kind or ""), **extra)

    def count_document(self, result: ExtractionResult) -> None:
        """Count a page with text towards ``max_pages``; close the spider when it is reached."""
        if result.text:
            self._documents += 1
            if self._shared_count is not None:
                self._documents = self._shared_count.add()
            if self.max_pages is not None and self._documents >= self.max_pages:
                raise CloseSpider("max_pages")

    def links(self, page: Page, text: str, language: str, title: str) -> Iterator[scrapy.Request]:
        """Requests for a page's links and feeds, prioritized by the focus score."""
        page_score = self.focus.page_score(text, language, title)
        links = list(page_links(page))
        in_content = anchors_in_content((link.text for link in links), text)
        for link in links:
            score = self.focus.link_score(page_score, link.text, link.url, link.text in in_content)
            request = self.follow(link.url, self.focus.priority(score))
            if request is not None:
                yield request
        if self.use_feeds:
            for url in feed_links(page):
                request = self.follow(url, SEED_PRIORITY, self.parse_xml)
                if request is not None:
                    yield request

    # --- rendered pages (corpuscrawl.browse) ---------------------------------------------

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
        final_result = self.extraction.run(final)
        seen_texts = {final_result.text}
        for number, html in enumerate(outcome.snapshots, 1):  # extract_continuously
            result = self.extraction.run(without_overlays(Page.from_html(html, url=response.url)))
            if result.text in seen_texts:
                continue
            seen_texts.add(result.text)
            for item in self.crawled(f"{response.url}#corpuscrawl-reveal-{number}",
                                     response.status, html, result, depth, rendered=True,
                                     alternates=outcome.alternates, render_reason=reason):
                yield item
        stats.inc_value("corpuscrawl/pages")
        for item in self.crawled(response.url, response.status, outcome.html, final_result,
                                 depth, rendered=True, alternates=outcome.alternates,
                                 render_reason=reason):
            yield item
        self.count_document(final_result)
        if self.depth_limit is not None and depth >= self.depth_limit:
            return
        page_score = self.focus.page_score(final_result.text, final_result.language,
                                           final_result.title)
        for link in self.renderer.links_to_follow(outcome):
            score = self.focus.link_score(page_score, link.text, link.url, False)
            # Outer (follow=all) and translation links may leave the seeds' sites.
            request = self.follow(link.url, self.focus.priority(score),
                                  allow_offsite=link.kind != "inner")
            if request is not None:
                yield request

    def _plain_fallback(self, meta: dict[str, Any], url: str) -> Iterator[Any]:
        """The plain version of a page whose rendering failed (nothing is lost)."""
        html = meta.get(PLAIN_HTML_META_KEY)
        if not html:
            return
        self.crawler.stats.inc_value("corpuscrawl/render/fallback_plain")
        page = without_overlays(Page.from_html(html, url=url))
        result = self.extraction.run(page)
        depth = meta.get("corpuscrawl_depth", 0)
        yield from self.crawled(url, 200, html, result, depth,
                                render_reason="rendering failed: plain version")
        self.count_document(result)
        if self.depth_limit is None or depth < self.depth_limit:
            yield from self.links(page, result.text, result.language, result.title)

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

