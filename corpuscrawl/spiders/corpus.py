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
* ``comments=field|text|drop`` — where reader comments go: a ``comments`` field, the end
  of the text, nowhere (setting ``CORPUSCRAWL_COMMENTS``).
* ``render=never|always|auto``, ``max_reveals``, ``max_scrolls``, ``follow=inner|all``,
  ``extract_continuously``, ``follow_alternates`` — JavaScript pages (corpuscrawl.browse);
  per-domain rules override them.

The spider's parts: its arguments (:mod:`~corpuscrawl.spiders.arguments`), where URLs come
from (:mod:`~corpuscrawl.spiders.sources`), how links are followed
(:mod:`~corpuscrawl.spiders.following`) and the hand-off to Chromium
(:mod:`~corpuscrawl.spiders.rendering`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from typing import Any

import scrapy
from scrapy import signals
from scrapy.exceptions import CloseSpider
from scrapy.http import Response

from corpuscrawl.browse.render import RenderPlan
from corpuscrawl.browse.rendered import Renderer
from corpuscrawl.browse.static import without_overlays
from corpuscrawl.crawled import CrawledPage, crawled_pages
from corpuscrawl.crawlstate.location import check_collection, collection_from_seeds
from corpuscrawl.extraction import Extraction, ExtractionResult
from corpuscrawl.focus import Focus, FocusConfig
from corpuscrawl.html.page import domain_of
from corpuscrawl.net.urls import offsite_domains
from corpuscrawl.responses import body_kind, http_charset, page_from_response
from corpuscrawl.spiders.arguments import SeedError, flag_arg, int_arg, read_seeds
from corpuscrawl.spiders.following import FollowingMixin
from corpuscrawl.spiders.rendering import RenderingMixin
from corpuscrawl.spiders.sources import SEED_PRIORITY, SourcesMixin
from corpuscrawl.workers import ExtractionPool, LazyExtraction, PageJob

__all__ = ["SEED_PRIORITY", "CorpusSpider", "SeedError", "read_seeds"]


class CorpusSpider(SourcesMixin, FollowingMixin, RenderingMixin, scrapy.Spider):
    """Focused crawl of the seeds' sites producing extracted pages for the corpus pipeline."""

    name = "corpus"

    def __init__(self, seeds: str = "", seeds_file: str = "", depth: str = "",
                 domains: str = "", any_domain: str = "0", sitemaps: str = "1",
                 feeds: str = "1", max_pages: str = "", languages: str = "",
                 keywords: str = "", extractor: str = "", render: str = "",
                 max_reveals: str = "", max_scrolls: str = "", follow: str = "",
                 extract_continuously: str = "", follow_alternates: str = "",
                 collection: str = "", comments: str = "", **kwargs: Any):
        super().__init__(**kwargs)
        # Rendering arguments (corpuscrawl.browse), resolved in from_crawler.
        self._render_args = {"render": render, "max_reveals": max_reveals,
                             "max_scrolls": max_scrolls, "follow": follow,
                             "extract_continuously": extract_continuously,
                             "follow_alternates": follow_alternates}
        self.seed_urls = read_seeds(seeds, seeds_file)
        self.depth_limit = int_arg(depth, "depth")
        self.any_domain = flag_arg(any_domain, "any_domain")
        self.use_sitemaps = flag_arg(sitemaps, "sitemaps")
        self.use_feeds = flag_arg(feeds, "feeds")
        self.max_pages = int_arg(max_pages, "max_pages")
        self.extra_domains = {d.strip().lower() for d in domains.split(",") if d.strip()}
        self._languages, self._keywords, self._extractor = languages, keywords, extractor
        self._comments = comments
        self.demo_server: Any = None
        self.collection = check_collection(collection) if collection else ""
        self._sitemap_roots: set[str] = set()  # seed hosts whose robots.txt sitemaps to follow
        self._documents = 0
        self._shared_count: Any = None  # cluster mode: max_pages counted over all workers
        self.pool: ExtractionPool | None = None  # extraction workers (CORPUSCRAWL_WORKERS)
        self.extraction: Extraction | LazyExtraction | None = None

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> CorpusSpider:
        """Build the spider with the crawl's extraction, focus and (without seeds) demo site."""
        spider = super().from_crawler(crawler, *args, **kwargs)
        settings = crawler.settings
        # The rendering plan; the add-on reads CORPUSCRAWL_RENDER (settings are not frozen
        # yet) to install scrapy-playwright only when needed.
        plan = RenderPlan.from_args(settings, **spider._render_args)
        # With workers, they load the models and check the extraction settings at start; this
        # process builds its own Extraction only if it extracts a page (a rendered one).
        if plan.render == "never":
            spider.pool = ExtractionPool.from_crawler(crawler, spider._extractor or None,
                                                      spider._comments or None)
        if spider.pool is None:
            spider.extraction = Extraction.from_settings(settings, spider._extractor or None,
                                                         spider._comments or None)
        else:  # not a property: Scrapy's request serialization reads every spider member
            spider.extraction = LazyExtraction(lambda: Extraction.from_settings(
                settings, spider._extractor or None, spider._comments or None))
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
        spider.max_urls_per_source()  # a bad CORPUSCRAWL_MAX_URLS_PER_SOURCE fails at start
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
        if self.pool is not None:
            self.pool.close()
        self.renderer.close()  # keeps the site render experience
        if self.demo_server is not None:
            self.demo_server.stop()

    # --- pages ----------------------------------------------------------------

    def parse(self, response: Response) -> Iterator[Any] | AsyncIterator[Any]:
        """Extract an HTML page and follow its links by relevance; route XML to ``parse_xml``.

        With extraction workers (``CORPUSCRAWL_WORKERS``) a page that is never rendered is
        extracted by a worker (:mod:`corpuscrawl.workers`) while the reactor goes on;
        otherwise here.  Same items and requests, in the same order, either way.
        """
        if self.pool is not None and self.renderer.mode_for(response.url) == "never":
            return self._parse_pooled(response)
        return self._parse_here(response)

    def _triage(self, response: Response) -> str:
        """``xml``, ``html`` or "" (not extracted: counted) for a plain response."""
        stats = self.crawler.stats
        kind, sniffed = body_kind(response)
        if kind == "xml":
            return kind
        if kind != "html":
            stats.inc_value("corpuscrawl/skipped_non_html")
            return ""
        if sniffed:
            stats.inc_value("corpuscrawl/hostile/html_sniffed")
            self.logger.info("%s is HTML served as %r", response.url,
                             response.headers.get("Content-Type", b"").decode("latin-1"))
        if self.max_pages is not None and self._documents >= self.max_pages:
            return ""  # in-flight responses after the limit are not extracted
        return kind

    def _dropped_binary(self, url: str) -> None:
        self.crawler.stats.inc_value("corpuscrawl/dropped/binary")
        self.logger.info("dropped %s: the body is not text", url)

    def _parse_here(self, response: Response) -> Iterator[Any]:
        stats = self.crawler.stats
        kind = self._triage(response)
        if kind == "xml":
            yield from self.parse_xml(response)
            return
        if kind != "html":
            return
        page = page_from_response(response)
        if page.binary:
            self._dropped_binary(response.url)
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

    async def _parse_pooled(self, response: Response) -> AsyncIterator[Any]:
        """``_parse_here`` for a page that is never rendered, extracted by a worker."""
        stats = self.crawler.stats
        kind = self._triage(response)
        if kind == "xml":
            for request in self.parse_xml(response):
                yield request
            return
        if kind != "html":
            return
        header = response.headers.get("Content-Type", b"") or b""
        done = await self.pool.extract(
            PageJob(response.body, response.url, response.status, http_charset(header),
                    feeds=self.use_feeds), lambda: self.extraction)  # type: ignore[arg-type,return-value]
        if done.binary:
            self._dropped_binary(response.url)
            return
        if self.max_pages is not None and self._documents >= self.max_pages:
            return  # reached while this page was with its worker
        stats.inc_value("corpuscrawl/fetch/plain")
        stats.inc_value("corpuscrawl/pages")
        result, depth = done.result, response.meta.get("depth", 0)
        for item in self.crawled(response.url, response.status, done.html, result, depth,
                                 render_reason=""):
            yield item
        self.count_document(result)
        if self.depth_limit is not None and depth >= self.depth_limit:
            return
        for request in self.listed_links(done.links, done.feeds, result.text, result.language,
                                         result.title):
            yield request

    def crawled(self, url: str, status: int, html: str, result: ExtractionResult, depth: int,
                **extra: Any) -> Iterator[CrawledPage]:
        """The item(s) for the pipeline: the page, or one per coherent text in split mode."""
        fetched_at = datetime.now(UTC).isoformat(timespec="seconds")
        yield from crawled_pages(url, status, html, result, depth, fetched_at, **extra)

    def count_document(self, result: ExtractionResult) -> None:
        """Count a page with text towards ``max_pages``; close the spider when it is reached."""
        if result.text:
            self._documents += 1
            if self._shared_count is not None:
                self._documents = self._shared_count.add()
            if self.max_pages is not None and self._documents >= self.max_pages:
                raise CloseSpider("max_pages")
