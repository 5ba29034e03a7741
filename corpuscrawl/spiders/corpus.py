"""The ``corpus`` spider: seeds, sitemaps and feeds in, extracted pages out, best pages first.

Arguments (``-a name=value``):

* ``seeds`` — comma-separated URLs (pages, sitemaps or RSS/Atom feeds);
  ``seeds_file`` — a file with one URL per line (``#`` comments).  With neither,
  the bundled demo site is served on 127.0.0.1 and crawled (refused when an output
  already holds a corpus); one given empty is an error.
* ``depth`` — follow links at most this many hops from a seed (default: no limit).
* ``domains`` — extra allowed domains (comma-separated); ``any_domain=1`` follows
  links everywhere.  By default the crawl stays on the seeds' domains.
* ``sitemaps=0`` / ``feeds=0`` — do not discover links from sitemaps / feeds.
* ``max_pages`` — stop after this many documents.
* ``allow``, ``deny`` — regular expressions (comma-separated) a followed URL must / must not
  match; ``blocklist`` — a file of URL prefixes and host names never fetched;
  ``max_pages_per_domain`` — documents per domain at most (settings
  ``CORPUSCRAWL_ALLOW``, ``CORPUSCRAWL_DENY``, ``CORPUSCRAWL_BLOCKLIST``,
  ``CORPUSCRAWL_MAX_PAGES_PER_DOMAIN``; per domain in the rules file; :mod:`corpuscrawl.net.scope`).
* ``collection`` — name of the corpus whose crawl state (frontier, seen requests,
  export ledger, page history) this crawl uses; default derived from the seeds
  (``corpuscrawl.crawlstate``).  A crawl killed or stopped with Ctrl-C resumes when
  run again with the same command.
* ``recrawl=changed|full|off`` — a later crawl of the collection exports only new and
  changed documents (default), every document again, or keeps no page store
  (``corpuscrawl.crawlstate.scrapy_glue.recrawl``; setting ``CORPUSCRAWL_RECRAWL``).
* ``languages``, ``keywords`` — focus (comma-separated); see ``corpuscrawl.focus``.
  ``languages`` is the ``CORPUSCRAWL_LANGUAGES`` setting (the argument wins): pages in
  them are crawled first, and with ``language_filter=1`` (``CORPUSCRAWL_LANGUAGE_FILTER``)
  documents in other languages are dropped (counted as ``corpuscrawl/dropped_language``).
* ``extractor`` — default extractor name for this crawl (rules per domain still win).
* ``comments=field|text|drop`` — where reader comments go: a ``comments`` field, the end
  of the text, nowhere (setting ``CORPUSCRAWL_COMMENTS``).
* ``render=never|always|auto``, ``max_reveals``, ``max_scrolls``, ``follow=inner|all``,
  ``extract_continuously``, ``follow_alternates`` — JavaScript pages (corpuscrawl.browse);
  per-domain rules override them.

An argument not listed here is refused naming the closest one (``-a seed=`` → ``seeds``;
names starting with ``_``, such as Scrapyd's ``_job``, pass), and so are unknown
``CORPUSCRAWL_*`` settings, unreadable setting values, outputs that cannot be written and
broken templates, all before anything is fetched (:mod:`corpuscrawl.config.crawl_checks`,
:mod:`corpuscrawl.export.scrapy_glue.output_checks`, :mod:`corpuscrawl.export.output_lock`).

The spider's parts: its arguments (:mod:`~corpuscrawl.spiders.arguments`), where URLs come
from (:mod:`~corpuscrawl.spiders.sources`), how links are followed
(:mod:`~corpuscrawl.spiders.following`) and the hand-off to Chromium
(:mod:`~corpuscrawl.spiders.rendering`).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import scrapy
from scrapy import signals
from scrapy.exceptions import CloseSpider
from scrapy.http import Response
from scrapy.settings import SETTINGS_PRIORITIES

from corpuscrawl.browse.render import RenderPlan
from corpuscrawl.browse.rendered import Renderer
from corpuscrawl.browse.static import without_overlays
from corpuscrawl.cluster.config import expand_worker
from corpuscrawl.config.crawl_checks import check_setting_names, environment_warnings
from corpuscrawl.config.scrapy_glue import check_scrapy_setting_values
from corpuscrawl.crawlstate.scrapy_glue.location import project_state_root
from corpuscrawl.crawlstate.state_paths import check_collection, collection_from_seeds
from corpuscrawl.export.output_lock import lock_outputs, release_outputs
from corpuscrawl.export.scrapy_glue.output_checks import check_outputs, existing_corpus
from corpuscrawl.focus import Focus, FocusConfig, followed_link
from corpuscrawl.html.page import UNREADABLE_REASONS
from corpuscrawl.html.robots_meta import RobotsDirectives
from corpuscrawl.html.scrapy_glue import (
    DOWNLOAD_META_KEYS,
    REFETCH_META,
    body_kind,
    cut_short,
    http_charset,
    page_from_response,
)
from corpuscrawl.net.scope import STATS_PREFIX as SCOPE_STATS_PREFIX
from corpuscrawl.net.scope import Scope, ScopeError
from corpuscrawl.net.sites import domain_of, offsite_domains
from corpuscrawl.pagetext.crawled import CrawledPage, crawled_pages
from corpuscrawl.pagetext.extraction import Extraction, ExtractionResult, TextShapes
from corpuscrawl.pagetext.rules import DomainRules
from corpuscrawl.report.scrapy_glue.dropped import record_drop
from corpuscrawl.spiders.arguments import (
    SeedError,
    check_argument_names,
    flag_arg,
    int_arg,
    read_seeds,
)
from corpuscrawl.spiders.discovery import Link
from corpuscrawl.spiders.following import (
    ROBOTS_META_KEY,
    FollowingMixin,
    RobotsMetaMixin,
    linked_url,
)
from corpuscrawl.spiders.rendering import RenderingMixin
from corpuscrawl.spiders.sources import SEED_PRIORITY, SourcesMixin
from corpuscrawl.spiders.workers import ExtractionPool, LazyExtraction, PageJob

__all__ = ["SEED_PRIORITY", "CorpusSpider", "SeedError", "read_seeds"]


class CorpusSpider(SourcesMixin, FollowingMixin, RobotsMetaMixin, RenderingMixin, scrapy.Spider):
    """Focused crawl of the seeds' sites producing extracted pages for the corpus pipeline."""

    name = "corpus"

    def __init__(self, seeds: str | None = None, seeds_file: str | None = None, depth: str = "",
                 domains: str = "", any_domain: str = "0", sitemaps: str = "1",
                 feeds: str = "1", max_pages: str = "", languages: str = "",
                 keywords: str = "", extractor: str = "", render: str = "",
                 max_reveals: str = "", max_scrolls: str = "", follow: str = "",
                 extract_continuously: str = "", follow_alternates: str = "",
                 collection: str = "", comments: str = "", recrawl: str = "", allow: str = "",
                 deny: str = "", blocklist: str = "", max_pages_per_domain: str = "",
                 language_filter: str = "", **kwargs: Any):
        check_argument_names(kwargs, spider_arguments())
        super().__init__(**kwargs)
        if recrawl:  # read by corpuscrawl.crawlstate.scrapy_glue.recrawl (over CORPUSCRAWL_RECRAWL)
            self.recrawl = recrawl
        # Scope arguments (corpuscrawl.net.scope), compiled in from_crawler with the settings.
        self._scope_args = {"allow": allow, "deny": deny, "blocklist": blocklist,
                            "max_pages_per_domain": int_arg(max_pages_per_domain,
                                                            "max_pages_per_domain")}
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
        self._language_filter = (str(int(flag_arg(language_filter, "language_filter")))
                                 if language_filter else "")
        self._comments = comments
        self.demo_server: Any = None
        self.collection = check_collection(collection) if collection else ""
        self._sitemap_roots: set[str] = set()  # seed hosts whose robots.txt sitemaps to follow
        self._cut_short_hosts: set[str] = set()  # hosts whose cut-short pages were logged
        self._documents = 0
        self._shared_count: Any = None  # cluster mode: max_pages counted over all workers
        #: CORPUSCRAWL_DROP_LISTINGS (read in from_crawler): listings become no documents.
        self.drop_listings = True
        self.pool: ExtractionPool | None = None  # extraction workers (CORPUSCRAWL_WORKERS)
        self.extraction: Extraction | LazyExtraction | None = None

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> CorpusSpider:
        """Build the spider with the crawl's extraction, focus and (without seeds) demo site.

        Checks first what would otherwise fail or be ignored mid-crawl: argument and
        setting names, setting values, the outputs (:mod:`corpuscrawl.config.crawl_checks`)."""
        spider = super().from_crawler(crawler, *args, **kwargs)
        settings = crawler.settings
        check_setting_names(settings)
        for line in environment_warnings(os.environ):
            spider.logger.warning(line)
        check_scrapy_setting_values(settings)
        expand_worker(settings)
        check_outputs(settings, crawler)
        corpus = existing_corpus(settings) if not spider.seed_urls else None
        if corpus is not None:
            raise SeedError(
                f"no seeds given, and the output {corpus} already holds a corpus: a crawl "
                "without seeds crawls the bundled demo site; give seeds (-a seeds=URL,... or "
                "-a seeds_file=FILE) or write the demo to another file")
        lock_outputs(settings, crawler)
        try:
            spider._set_up(crawler)
        except BaseException:
            release_outputs(crawler)  # a crawl that cannot start leaves no empty output
            raise
        return spider

    def _set_up(self, crawler: Any) -> None:
        """The crawl's scope, rendering plan, extraction, focus and (without seeds) demo site,
        from ``crawler``'s settings; raises what cannot be set up as asked."""
        settings = crawler.settings
        self._argument_settings(settings)
        self.scope = scope_from(settings, self._scope_args, DomainRules.from_settings(settings))
        self.max_urls_per_source()  # a bad CORPUSCRAWL_MAX_URLS_PER_SOURCE fails at start
        # The rendering plan; the add-on reads CORPUSCRAWL_RENDER (settings are not frozen
        # yet) to install scrapy-playwright only when needed.
        plan = RenderPlan.from_args(settings, **self._render_args)
        # With workers, they load the models and check the extraction settings at start; this
        # process builds its own Extraction only if it extracts a page (a rendered one).
        if plan.render == "never":
            self.pool = ExtractionPool.from_crawler(crawler, self._extractor or None,
                                                    self._comments or None)
        if self.pool is None:
            self.extraction = Extraction.from_settings(settings, self._extractor or None,
                                                       self._comments or None)
        else:  # not a property: Scrapy's request serialization reads every spider member
            def build_here() -> Extraction:
                # counted: the models then take memory in this process as well as the workers'
                crawler.stats.inc_value("corpuscrawl/workers/extraction_built_here")
                return Extraction.from_settings(settings, self._extractor or None,
                                                self._comments or None)

            shapes = TextShapes.from_settings(settings, self._extractor or None,
                                              self._comments or None)
            shapes.know(self.pool.extractor_shapes)  # no extractor imported here
            self.extraction = LazyExtraction(build_here, shapes)
        self.drop_listings = settings.getbool("CORPUSCRAWL_DROP_LISTINGS", True)
        self.focus = Focus(FocusConfig.from_values(
            settings.getlist("CORPUSCRAWL_LANGUAGES"),
            self._keywords or settings.getlist("CORPUSCRAWL_KEYWORDS")))
        if not self.seed_urls:
            from corpuscrawl.demo.server import DemoServer
            from corpuscrawl.net.scrapy_glue.politeness import relax_for_local_demo

            self.demo_server = DemoServer().start()
            self.seed_urls = [self.demo_server.url]
            relax_for_local_demo(settings)  # our own site on 127.0.0.1: no throttling
            self.logger.info("no seeds given: crawling the bundled demo site at %s",
                             self.demo_server.url)
        # Scrapy's OffsiteMiddleware keeps the crawl on these domains and their subdomains.
        self.allowed_domains = [] if self.any_domain else offsite_domains(
            {domain_of(u) for u in self.seed_urls} | self.extra_domains)
        self._name_collection(settings)
        self.renderer = Renderer.from_settings(plan, settings, project_state_root)
        if self._render_args["render"] and not settings.frozen:
            settings.set("CORPUSCRAWL_RENDER", plan.render, priority="spider")
        crawler.signals.connect(self._closed, signal=signals.spider_closed)
        crawler.signals.connect(self._robots_parsed, signal=signals.robots_parsed)

    def _argument_settings(self, settings: Any) -> None:
        """Make ``languages`` and ``language_filter`` the settings they stand for (the argument wins).

        The focus and the pipeline's language filter then read one value: the
        ``CORPUSCRAWL_LANGUAGES`` setting.
        """
        for name, value in (("CORPUSCRAWL_LANGUAGES", self._languages),
                            ("CORPUSCRAWL_LANGUAGE_FILTER", self._language_filter)):
            if not value:
                continue
            if settings.frozen:  # a spider built outside ``scrapy crawl``: settings as given
                self.logger.warning("settings frozen: argument for %s not applied", name)
                continue
            if name == "CORPUSCRAWL_LANGUAGES" and settings.getlist(name) and \
                    settings.getlist(name) != value.split(","):
                self.logger.warning("argument languages=%s overrides %s=%s", value, name,
                                    ",".join(settings.getlist(name)))
            priority = max(settings.getpriority(name) or 0, SETTINGS_PRIORITIES["spider"])
            settings.set(name, value, priority=priority)

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
        extracted by a worker (:mod:`corpuscrawl.spiders.workers`) while the reactor goes on;
        otherwise here.  Same items, drops, counts and requests either way.
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
        return kind if self._within_limits(response.url) else ""

    def _within_limits(self, url: str) -> bool:
        """False when ``max_pages`` or the domain's cap was reached while the page was in
        flight (or with its worker): it is not extracted."""
        if self.max_pages is not None and self._documents >= self.max_pages:
            return False
        if self.scope.at_cap(domain_of(url)):
            self.crawler.stats.inc_value(SCOPE_STATS_PREFIX + "domain_cap")
            return False
        return True

    def _dropped_unreadable(self, url: str, reason: str) -> None:
        """Count, log and list a page with no readable text ("binary", "charset_undecodable")."""
        self.crawler.stats.inc_value(f"corpuscrawl/dropped/{reason}")
        self.logger.info("dropped %s: %s", url, UNREADABLE_REASONS[reason])
        record_drop(self.crawler, url, reason, UNREADABLE_REASONS[reason])

    def _cut_short_outcome(self, response: Response,
                           cut: str) -> tuple[bool, scrapy.Request | None]:
        """(stop here, the refetch to yield) for a page whose body came cut short by ``cut``
        (:func:`~corpuscrawl.html.scrapy_glue.cut_short`): fetched again once; dropped when cut
        for certain again; kept when it merely likely was."""
        if not cut:
            return False, None
        if not response.meta.get(REFETCH_META):
            return True, self._refetch_cut_short(response)
        if cut == "certain":
            self.crawler.stats.inc_value("corpuscrawl/dropped/truncated")
            self.logger.info("dropped %s: its body came cut short twice", response.url)
            record_drop(self.crawler, response.url, "truncated", "its body came cut short twice")
            return True, None
        return False, None

    def _parse_here(self, response: Response) -> Iterator[Any]:
        stats = self.crawler.stats
        kind = self._triage(response)
        if kind == "xml":
            yield from self.parse_xml(response)
            return
        if kind != "html":
            return
        page = page_from_response(response)
        if page.unreadable:
            self._dropped_unreadable(response.url, page.unreadable)
            return
        stop, refetch = self._cut_short_outcome(response, cut_short(page, response))
        if refetch is not None:
            yield refetch
        if stop:
            return
        # render=auto re-requests pages that need a browser (the plain version is then
        # never emitted); overlays of the static HTML are dropped.
        stats.inc_value("corpuscrawl/fetch/plain")
        robots = self.robots_directives(response.url, response.headers, page,
                                        response.meta.get(ROBOTS_META_KEY, ()))
        if robots.noindex and robots.nofollow:  # nothing to take from it: no extraction
            self.robots_blocked(response.url, robots)
            return
        decision = self.renderer.judge(page)
        if decision.render:
            self._count_render(decision, "auto_rerender")
            # DepthMiddleware counts this re-request as a hop; keep the real depth.
            yield self._rendered_request(
                response.url, response.request.priority,
                {"corpuscrawl_depth": response.meta.get("depth", 0),
                 **({ROBOTS_META_KEY: robots.as_list()} if robots.as_list() else {}),
                 **self.renderer.plain_meta(page, decision)}, dont_filter=True)
            return
        if decision.reason:
            self._count_render(decision, "kept_plain")
        page = without_overlays(page)
        result = self.extraction.run(page)
        links, feeds = self.found_links(page)
        yield from self._extracted(response, page.html, result, robots, decision.reason,
                                   lambda text, score: self.listed_links(
                                       links, feeds, text, score, page.url),
                                   links)

    def _extracted(self, response: Response, html: str, result: ExtractionResult,
                   robots: RobotsDirectives, render_reason: str,
                   follow: Callable[[str, float], Iterator[scrapy.Request]],
                   links: Sequence[Link] = ()) -> Iterator[Any]:
        """A plain page's items and link requests once extracted (here or by a worker).

        robots ``noindex``: not exported; ``nofollow``: ``follow`` (the page's links by
        the page's score) not called; an exported page with text counts towards its
        domain's cap and ``max_pages``; the focus learns from every page.
        """
        self.crawler.stats.inc_value("corpuscrawl/pages")
        depth = response.meta.get("depth", 0)
        if robots.noindex or robots.nofollow:
            self.robots_blocked(response.url, robots)
        if not robots.noindex:
            yield from self.crawled(response.url, response.status, html, result, depth,
                                    render_reason=render_reason)
            if self.becomes_document(result):
                self.scope.count_document(response.url)
        page_score = self.learn_page(linked_url(response), result.text, result.language,
                                     result.title, links, followed_link(response.meta)[1])
        if not robots.noindex:
            self.count_document(result)
        if robots.nofollow or (self.depth_limit is not None and depth >= self.depth_limit):
            return
        yield from follow(result.text, page_score)

    def _refetch_cut_short(self, response: Response) -> scrapy.Request:
        """The one new request for a page whose body came cut short (counted, logged per host)."""
        self.crawler.stats.inc_value("corpuscrawl/hostile/cut_short_refetched")
        host = domain_of(response.url)
        if host not in self._cut_short_hosts:
            self._cut_short_hosts.add(host)
            self.logger.warning("%s came cut short (its Content-Length or the connection lied): "
                                "fetched again once, dropped if cut again; further ones of %s "
                                "are counted in corpuscrawl/hostile/cut_short_refetched",
                                response.url, host)
        meta = {key: value for key, value in response.meta.items()
                if key not in DOWNLOAD_META_KEYS and not key.startswith("_")}
        return response.request.replace(dont_filter=True, meta={**meta, REFETCH_META: True})

    async def _parse_pooled(self, response: Response) -> AsyncIterator[Any]:
        """``_parse_here`` for a page that is never rendered, judged and extracted by a worker.

        The worker decodes the page as :func:`~corpuscrawl.html.scrapy_glue.page_from_response`
        does and reports what this process needs to act as ``_parse_here``: unreadable,
        cut short, the robots directives (the headers' and carried ones found here, the
        page's own there).
        """
        kind = self._triage(response)
        if kind == "xml":
            for request in self.parse_xml(response):
                yield request
            return
        if kind != "html":
            return
        header = response.headers.get("Content-Type", b"") or b""
        job = PageJob(response.body, response.url, response.status, http_charset(header),
                      feeds=self.use_feeds, dataloss="dataloss" in response.flags,
                      refetched=bool(response.meta.get(REFETCH_META)),
                      robots_token=self.robots_token(),
                      robots=self.robots_directives(response.url, response.headers, None,
                                                    response.meta.get(ROBOTS_META_KEY, ())))
        done = await self.pool.extract(job, lambda: self.extraction)  # type: ignore[union-attr,return-value]
        if not self._within_limits(response.url):
            return  # reached while this page was with its worker
        if done.unreadable:
            self._dropped_unreadable(response.url, done.unreadable)
            return
        stop, refetch = self._cut_short_outcome(response, done.cut)
        if refetch is not None:
            yield refetch
        if stop:
            return
        self.crawler.stats.inc_value("corpuscrawl/fetch/plain")
        if not done.extracted:  # robots none: nothing to take from it
            self.robots_blocked(response.url, done.robots)
            return
        for item in self._extracted(response, done.html, done.result, done.robots, "",
                                    lambda text, score: self.listed_links(
                                        done.links, done.feeds, text, score, response.url),
                                    done.links):
            yield item

    def crawled(self, url: str, status: int, html: str, result: ExtractionResult, depth: int,
                **extra: Any) -> Iterator[CrawledPage]:
        """The item(s) for the pipeline: the page, or one per coherent text in split mode."""
        fetched_at = datetime.now(UTC).isoformat(timespec="seconds")
        yield from crawled_pages(url, status, html, result, depth, fetched_at, **extra)

    def becomes_document(self, result: ExtractionResult) -> bool:
        """Whether the page becomes a document: it has text and is not a listing the
        pipeline drops (``CORPUSCRAWL_DROP_LISTINGS``), so caps count what is written."""
        if not result.text:
            return False
        return not (result.listing and self.drop_listings)

    def count_document(self, result: ExtractionResult) -> None:
        """Count a page that becomes a document towards ``max_pages``; close the spider
        when it is reached."""
        if self.becomes_document(result):
            self._documents += 1
            if self._shared_count is not None:
                self._documents = self._shared_count.add()
            if self.max_pages is not None and self._documents >= self.max_pages:
                raise CloseSpider("max_pages")


def scope_from(settings: Any, args: dict[str, Any], rules: Any) -> Scope:
    """The crawl's :class:`~corpuscrawl.net.scope.Scope`: spider arguments, else the
    ``CORPUSCRAWL_ALLOW``/``DENY``/``BLOCKLIST``/``MAX_PAGES_PER_DOMAIN`` settings, and the
    rules file's per-domain ``allow``/``deny``/``max_pages``; a bad rule is a SeedError."""
    def pick(arg: str, setting: str) -> tuple[Any, str]:
        if args.get(arg) not in (None, ""):
            return args[arg], f"argument {arg}"
        return settings.get(setting), setting

    allow, allow_name = pick("allow", "CORPUSCRAWL_ALLOW")
    deny, deny_name = pick("deny", "CORPUSCRAWL_DENY")
    blocklist, blocklist_name = pick("blocklist", "CORPUSCRAWL_BLOCKLIST")
    cap = args.get("max_pages_per_domain")
    if cap is None:
        cap = int_arg(settings.get("CORPUSCRAWL_MAX_PAGES_PER_DOMAIN"),
                      "CORPUSCRAWL_MAX_PAGES_PER_DOMAIN")
    try:
        return Scope.build(allow, deny, blocklist or "", cap, rules,
                           names=(allow_name, deny_name, blocklist_name))
    except ScopeError as exc:
        raise SeedError(str(exc)) from exc


def spider_arguments() -> frozenset[str]:
    """The names :class:`CorpusSpider` takes as ``-a`` arguments (plus Scrapy's ``name``)."""
    params = inspect.signature(CorpusSpider.__init__).parameters
    return frozenset(n for n, p in params.items()
                     if n != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD) | {"name"}
