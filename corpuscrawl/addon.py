"""corpuscrawl's Scrapy add-on: every component of a corpus crawl in its place.

``ADDONS = {"corpuscrawl.Addon": 0}`` in a Scrapy project's settings is all it needs to
crawl with corpuscrawl: the ``corpus`` spider, its middlewares, pipelines, extensions,
feed exporters, the durable frontier (or the cluster's) and the defaults of every
``CORPUSCRAWL_*`` setting.  The tables below say where each component sits and why;
``docs/architecture.md`` repeats them for readers.

Everything is set so that the project's own choice wins:

* Scrapy and ``CORPUSCRAWL_*`` settings at add-on priority, below a project's
  ``settings.py``, a spider's ``custom_settings`` and ``-s``;
* components (middlewares, pipelines, extensions, feed formats) only where the project
  does not name them: a project that gives one its own order, or ``None`` to switch it
  off, keeps that; a built-in component corpuscrawl's replaces is switched off only
  when the project does not name it either.

``update_settings`` sets settings and nothing else: no file is opened and no server
contacted.  The crawl state (SQLite) and the cluster's generation (Redis) are opened by
extensions the parts add (:class:`~corpuscrawl.crawlstate.scrapy_glue.state_addon.CrawlStateOpener`,
:class:`~corpuscrawl.cluster.scrapy_glue.cluster_addon.ClusterJoiner`) when Scrapy builds the crawl's
components.  This module holds import paths only, so loading it imports no component.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from scrapy.exceptions import NotConfigured
from scrapy.utils.misc import build_from_crawler, load_object

__all__ = ["COMPONENTS", "FEED_FORMATS", "PARTS", "SCRAPY_DEFAULTS", "Addon",
           "project_defaults"]

logger = logging.getLogger("corpuscrawl.addon")

#: Scrapy settings a corpus crawl runs with, at add-on priority (the project's win).
SCRAPY_DEFAULTS: dict[str, Any] = {
    # Polite by default: robots.txt obeyed, with its Sitemap: lines kept for the spider
    # (one fetch per host); AutoThrottle paces each host by its latency.
    "ROBOTSTXT_OBEY": True,
    "ROBOTSTXT_PARSER": "corpuscrawl.spiders.discovery.SitemapRobotParser",
    "AUTOTHROTTLE_ENABLED": True,
    "AUTOTHROTTLE_TARGET_CONCURRENCY": 1.0,
    "AUTOTHROTTLE_START_DELAY": 1.0,
    "AUTOTHROTTLE_MAX_DELAY": 60.0,
    "CONCURRENT_REQUESTS": 16,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 2,
    "DOWNLOAD_TIMEOUT": 30,
    "RETRY_TIMES": 2,
    "COOKIES_ENABLED": True,
    # No open port in a crawl process.
    "TELNETCONSOLE_ENABLED": False,
    # A corpus is UTF-8 text, not \u escapes.
    "FEED_EXPORT_ENCODING": "utf-8",
    # Hostile servers: pages over 10 MiB are skipped; redirect chains cut at 10 (Scrapy: 20).
    "DOWNLOAD_MAXSIZE": 10 * 1024 * 1024,
    "DOWNLOAD_WARNSIZE": 0,
    "REDIRECT_MAX_TIMES": 10,
    # The crawl is focused: requests carry a relevance priority; breadth-first among equals.
    "SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.DownloaderAwarePriorityQueue",
}

#: Settings Scrapy reads from the process's settings, before any crawler or its add-ons
#: exist (``CrawlerProcess`` installs the resolver): given in ``update_pre_crawler_settings``,
#: at add-on priority.
PROCESS_DEFAULTS: dict[str, Any] = {
    # Scrapy's resolver, refusing non-public answers (the private-network guard).
    "TWISTED_DNS_RESOLVER": "corpuscrawl.net.scrapy_glue.guard.GuardedResolver",
}

#: (setting, component, order, the built-in component it takes the place of or None).
#: Downloader middlewares: a lower order is nearer the engine; spider middlewares,
#: pipelines and extensions run in increasing order.
COMPONENTS: tuple[tuple[str, str, int, str | None], ...] = (
    # Near the engine: sees the final, decompressed response; one 404 probe per new domain
    # seeds its boilerplate template.
    ("DOWNLOADER_MIDDLEWARES", "corpuscrawl.export.scrapy_glue.stage_pipeline.ErrorPageSeeder", 50, None),
    # robots.txt with a size cap and RFC 9309's failure rules.
    ("DOWNLOADER_MIDDLEWARES", "corpuscrawl.net.scrapy_glue.robots.BoundedRobotsTxtMiddleware", 100,
     "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"),
    # Retry-After pauses the host's slot.
    ("DOWNLOADER_MIDDLEWARES", "corpuscrawl.net.scrapy_glue.politeness.PoliteRetryMiddleware", 550,
     "scrapy.downloadermiddlewares.retry.RetryMiddleware"),
    # After the retry middleware: a refused lookup is ignored, not retried.
    ("DOWNLOADER_MIDDLEWARES", "corpuscrawl.net.scrapy_glue.guard.NetworkGuardMiddleware", 560, None),
    # Validators (If-None-Match, If-Modified-Since) on recrawls; after redirects and
    # decompression (590) on the way back.
    ("DOWNLOADER_MIDDLEWARES", "corpuscrawl.crawlstate.scrapy_glue.conditional.ConditionalRequests", 580,
     None),
    # Before Scrapy's RedirectMiddleware (600) follows a loop.
    ("DOWNLOADER_MIDDLEWARES", "corpuscrawl.html.scrapy_glue.RedirectLoopMiddleware", 650, None),
    # Near the downloader: records the bytes as exchanged (before decompression, 590).
    ("DOWNLOADER_MIDDLEWARES", "corpuscrawl.archive.scrapy_glue.middlewares.WarcMiddleware", 950, None),
    # WARC conversion records of the extracted text.
    ("SPIDER_MIDDLEWARES", "corpuscrawl.archive.scrapy_glue.middlewares.WarcConversionMiddleware", 500, None),
    # Remembers on which page a URL was found (recrawls, hubs).
    ("SPIDER_MIDDLEWARES", "corpuscrawl.crawlstate.scrapy_glue.conditional.FoundOn", 600, None),
    # Last: counts and drops the requests a page yields beyond the link limits.
    ("SPIDER_MIDDLEWARES", "corpuscrawl.spiders.traps.LinkTrapMiddleware", 950, None),
    # CrawledPage -> Document; drops recorded.
    ("ITEM_PIPELINES", "corpuscrawl.export.scrapy_glue.pipelines.ExtractionPipeline", 300, None),
    # On a recrawl an unchanged text is not exported again.
    ("ITEM_PIPELINES", "corpuscrawl.crawlstate.scrapy_glue.recrawl.ChangeFilter", 800, None),
    # Last: drives the export stage (boilerplate, near-duplicates) the feeds write from.
    ("ITEM_PIPELINES", "corpuscrawl.export.scrapy_glue.stage_pipeline.ExportStagePipeline", 900, None),
    # The robots.txt Crawl-delay as a floor of AutoThrottle.
    ("EXTENSIONS", "corpuscrawl.net.scrapy_glue.politeness.PoliteAutoThrottle", 0,
     "scrapy.extensions.throttle.AutoThrottle"),
    # Document and time bounds of a run; a graceful stop.
    ("EXTENSIONS", "corpuscrawl.crawlstate.scrapy_glue.stopping.BoundedStop", 100, None),
    # Status line, progress log, the summary's timeline.
    ("EXTENSIONS", "corpuscrawl.report.scrapy_glue.progress.ProgressExtension", 990, None),
    # Last: the summary is made from every other component's stats.
    ("EXTENSIONS", "corpuscrawl.extensions.CrawlSummaryExtension", 1000, None),
)

#: Feed formats (``-O corpus.jsonl``, ``-O out:tei``): the cleaned corpus, boilerplate
#: removed and near-duplicates skipped, written from what the export stage released.
FEED_FORMATS: dict[str, str] = {
    "jsonl": "corpuscrawl.export.scrapy_glue.exporters.CorpusJsonLinesExporter",
    "jsonlines": "corpuscrawl.export.scrapy_glue.exporters.CorpusJsonLinesExporter",
    "json": "corpuscrawl.export.scrapy_glue.exporters.CorpusJsonExporter",
    "csv": "corpuscrawl.export.scrapy_glue.exporters.CorpusCsvExporter",
    "xml": "corpuscrawl.export.scrapy_glue.exporters.CorpusXmlExporter",
    "txtdir": "corpuscrawl.export.scrapy_glue.exporters.TextDirectoryExporter",
    "vertical": "corpuscrawl.export.scrapy_glue.exporters.VerticalExporter",
    # TEI P5: a teiCorpus with one TEI per document (corpuscrawl.formats.tei).
    "tei": "corpuscrawl.export.scrapy_glue.exporters.TeiExporter",
}

#: Add-ons of parts of the crawl, applied in this order; each declines (NotConfigured)
#: when its part is not used.
PARTS: tuple[str, ...] = (
    # A collection's durable state: frontier, run generations, export ledger (one machine).
    "corpuscrawl.crawlstate.scrapy_glue.state_addon.CrawlStateAddon",
    # With CORPUSCRAWL_REDIS_URL: scrapy-redis, shared history, pages and near-duplicates.
    "corpuscrawl.cluster.scrapy_glue.cluster_addon.ClusterAddon",
    # scrapy-playwright's handlers only when a crawl may render.
    "corpuscrawl.browse.render.RenderingAddon",
    # A User-Agent naming corpuscrawl and CORPUSCRAWL_CONTACT.
    "corpuscrawl.net.scrapy_glue.politeness.PolitenessAddon",
)

#: Where the ``corpus`` spider lives (added to SPIDER_MODULES).
SPIDER_MODULE = "corpuscrawl.spiders"


def project_defaults() -> dict[str, Any]:
    """Every ``CORPUSCRAWL_*`` setting with its documented default (corpuscrawl/settings.py)."""
    from corpuscrawl import settings as documented

    return {name: copy.deepcopy(value) for name, value in vars(documented).items()
            if name.startswith("CORPUSCRAWL_")}


class Addon:
    """Scrapy add-on installing corpuscrawl's components (see the module docstring)."""

    def __init__(self, crawler: Any = None) -> None:
        self.crawler = crawler
        #: The part add-ons that did not decline, in the order applied.
        self.parts: list[Any] = []

    @classmethod
    def from_crawler(cls, crawler: Any) -> Addon:
        """Build for ``crawler`` (Scrapy passes it to add-ons)."""
        return cls(crawler)

    @classmethod
    def update_pre_crawler_settings(cls, settings: Any) -> None:
        """What is read before any crawler exists: the spider's module, the
        ``CORPUSCRAWL_*`` defaults and the feed formats (the spider checks its
        settings and outputs when it is built, before add-ons run), and the DNS
        resolver (:data:`PROCESS_DEFAULTS`: the process installs it, not a crawler)."""
        modules = list(settings.getlist("SPIDER_MODULES"))
        if SPIDER_MODULE not in modules:
            settings.set("SPIDER_MODULES", [*modules, SPIDER_MODULE],
                         priority=settings.getpriority("SPIDER_MODULES") or "addon")
        _set_defaults(settings)
        for name, value in PROCESS_DEFAULTS.items():
            settings.set(name, value, priority="addon")

    def update_settings(self, settings: Any) -> None:
        """Install every component where the project has not said otherwise (no I/O)."""
        _set_defaults(settings)
        for name, value in SCRAPY_DEFAULTS.items():
            settings.set(name, value, priority="addon")
        for name, path, order, replaces in COMPONENTS:
            _setdefault_component(settings, name, path, order)
            if replaces is not None:
                _setdefault_component(settings, name, replaces, None)
        for part_path in PARTS:
            part_class = load_object(part_path)
            try:
                part = (build_from_crawler(part_class, self.crawler) if self.crawler is not None
                        else part_class())
                part.update_settings(settings)
            except NotConfigured as exc:
                logger.debug("%s not installed: %s", part_path, exc)
                continue
            self.parts.append(part)


def _set_defaults(settings: Any) -> None:
    """``CORPUSCRAWL_*`` defaults and the feed formats, under anything the project set."""
    for name, value in project_defaults().items():
        settings.set(name, value, priority="addon")
    for fmt, path in FEED_FORMATS.items():
        _setdefault_component(settings, "FEED_EXPORTERS", path, None, key=fmt)


def _setdefault_component(settings: Any, name: str, path: str, order: int | None,
                          key: str | None = None) -> None:
    """Add ``path`` to the dict setting ``name`` (under ``key``, else as a component at
    ``order``) unless the project names it there already: its own order, or None that
    switches it off, wins.  The setting's priority is left as it is."""
    current = dict(settings.getdict(name))
    if key is not None:
        if key in current:
            return
        current[key] = path
    else:
        if any(_same(existing, path) for existing in current):
            return
        current[path] = order
    settings.set(name, current, priority=settings.getpriority(name) or 0)


def _same(existing: Any, path: str) -> bool:
    """Whether a component key (an import path or a class) names ``path``."""
    if isinstance(existing, str):
        return existing == path
    return f"{getattr(existing, '__module__', '')}.{getattr(existing, '__qualname__', '')}" == path
