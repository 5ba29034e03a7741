"""Scrapy adapters of the export stage: settings, the driving pipeline, error-page seeding.

Why this shape.  Scrapy builds one item exporter per feed (and per batch) —
``-O corpus.jsonl`` and every ``FEEDS`` entry each get their own — while the
boilerplate decision must be made once per document and be the same in every
feed, and the stats must count each document once.  So:

* :class:`ExportStagePipeline` (the *last* item pipeline) is the single
  driver: it submits every :class:`~corpuscrawl.items.Document` to the
  crawl's :class:`~corpuscrawl.export.stage.ExportStage`, counts the
  stats, and attaches the outcomes that became final to the item it returns
  (an attribute of the item, :data:`RELEASED_ATTRIBUTE`, not one of its fields:
  the feeds read it and never write it; it goes when the item goes).  It never drops an item: a held cold-start document still
  travels to the feeds, which simply write nothing for it yet.
* the feed exporters (:mod:`corpuscrawl.export.scrapy_glue.exporters`; in Scrapy 2.12+ they are
  built with ``from_crawler``) write, for each item they are handed, the
  exported documents attached to it — possibly earlier held documents of a
  domain that just became warm.  Every feed therefore writes the same
  documents in the same order, batches included.
* at the end of the crawl Scrapy calls the pipelines' ``close_spider``
  *before* it sends ``spider_closed``, on which the feeds are finished.  The
  pipeline flushes the stage there (releasing every held document with all
  the crawl's evidence) and each exporter writes that final release in its
  ``finish_exporting``.
* :class:`ErrorPageSeeder` (a downloader middleware) seeds each domain's
  template in the history from its first real 404/410 HTML answer — often
  robots.txt or a dead link, else one probe of a random non-existent path.
  The probe never reaches the spider.

The shared state per crawler lives in :class:`ExportState` (``state_for``).
Consequences worth knowing: Scrapy's own ``item_scraped_count`` counts every
document handed to the feeds, held and dropped ones included (the
``corpuscrawl/export/*`` stats count what was written and why not); a feed in
a format not registered by corpuscrawl (``marshal``, ``pickle``) writes the
items as they come, uncleaned.
"""

from __future__ import annotations

import logging
import secrets
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response
from scrapy.settings import BaseSettings

from corpuscrawl.boilerplate.backends import open_history
from corpuscrawl.boilerplate.detector import (
    FIGURES_WORDS_DEFAULT,
    MIN_DOCUMENTS_DEFAULT,
    MIN_FRACTION_DEFAULT,
    PROSE_MIN_DOCUMENTS_DEFAULT,
    PROSE_MIN_FRACTION_DEFAULT,
    PROSE_WORDS_DEFAULT,
    WARM_DOCUMENTS_DEFAULT,
    Detector,
    DetectorConfig,
)
from corpuscrawl.boilerplate.history import DomainHistory, HistoryError
from corpuscrawl.boilerplate.patterns import PATTERN_MAX_WORDS_DEFAULT
from corpuscrawl.config.crawl_checks import CrawlSetupError
from corpuscrawl.crawlstate.export_state import existing_state, register_state, registered_state
from corpuscrawl.crawlstate.lookup import host_records
from corpuscrawl.crawlstate.scrapy_glue.location import state_dir
from corpuscrawl.crawlstate.state_paths import COLLECTION_SETTING
from corpuscrawl.export.dedup import (
    NUM_PERM_DEFAULT,
    SHINGLE_WORDS_DEFAULT,
    THRESHOLD_DEFAULT,
)
from corpuscrawl.export.dedup_store import SQLiteNearDuplicateIndex, SQLitePageVersions
from corpuscrawl.export.shared import shared_index
from corpuscrawl.export.stage import (
    BOILERPLATE,
    BUFFER_SIZE_DEFAULT,
    DUPLICATE,
    LISTING,
    MIN_WORDS_DEFAULT,
    TOO_SHORT,
    ExportStage,
    Outcome,
)
from corpuscrawl.html.dom import render_text
from corpuscrawl.html.page import Page
from corpuscrawl.items import Document
from corpuscrawl.net.sites import domain_of, state_key
from corpuscrawl.report.scrapy_glue.dropped import record_drop

__all__ = ["ErrorPageSeeder", "ExportConfig", "ExportStagePipeline", "ExportState",
           "existing_state", "state_for"]

logger = logging.getLogger("corpuscrawl.export")

#: File name of the default SQLite history, in the collection's state directory
#: (corpuscrawl.crawlstate.scrapy_glue.location.state_dir; the working directory outside a collection).
HISTORY_FILE_DEFAULT = "corpuscrawl-history.sqlite3"
#: Request meta key marking an error-page probe.
PROBE_META = "corpuscrawl_error_probe"
#: Attribute of a Document holding the outcomes the export stage released with it.
RELEASED_ATTRIBUTE = "_corpuscrawl_released"
#: Statuses whose body is taken as the site template (a soft 404 answering 200 is not).
ERROR_STATUSES = frozenset({404, 410})
STATS_PREFIX = "corpuscrawl/export/"


class ExportConfigError(CrawlSetupError):
    """A CORPUSCRAWL_BOILERPLATE_* / CORPUSCRAWL_DEDUP_* setting has an invalid value."""


@dataclass(frozen=True)
class ExportConfig:
    """The export stage's settings, read once and validated (names in corpuscrawl/settings.py)."""

    boilerplate: bool = True
    history: str = ""
    redis_prefix: str = "corpuscrawl:bp:"
    detector: DetectorConfig = DetectorConfig()
    buffer_size: int = BUFFER_SIZE_DEFAULT
    min_words: int = MIN_WORDS_DEFAULT
    #: CORPUSCRAWL_DROP_LISTINGS: drop documents left with nothing but teasers cut short.
    drop_listings: bool = True
    error_pages: bool = True
    dedup: bool = True
    dedup_threshold: float = THRESHOLD_DEFAULT
    dedup_shingle_words: int = SHINGLE_WORDS_DEFAULT
    dedup_num_perm: int = NUM_PERM_DEFAULT

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> ExportConfig:
        """Read and validate the settings; errors name the offending key."""
        def number(key: str, default: float, kind: type = int,
                   low: float | None = None, high: float | None = None) -> Any:
            raw = settings.get(key, default)
            try:
                value = kind(raw)
            except (TypeError, ValueError):
                raise ExportConfigError(f"{key} must be a {kind.__name__}, got {raw!r}") from None
            if (low is not None and value < low) or (high is not None and value > high):
                raise ExportConfigError(f"{key} must be within [{low}, {high}], got {value!r}")
            return value

        p = "CORPUSCRAWL_BOILERPLATE_"
        detector = DetectorConfig(
            min_documents=number(p + "MIN_DOCUMENTS", MIN_DOCUMENTS_DEFAULT, int, 1),
            min_fraction=number(p + "MIN_FRACTION", MIN_FRACTION_DEFAULT, float, 0.0, 1.0),
            warm_documents=number(p + "WARM_DOCUMENTS", WARM_DOCUMENTS_DEFAULT, int, 0),
            use_patterns=settings.getbool(p + "PATTERNS", True),
            pattern_max_words=number(p + "PATTERN_MAX_WORDS", PATTERN_MAX_WORDS_DEFAULT, int, 0),
            prose_words=number(p + "PROSE_WORDS", PROSE_WORDS_DEFAULT, int, 1),
            prose_min_documents=number(p + "PROSE_MIN_DOCUMENTS", PROSE_MIN_DOCUMENTS_DEFAULT,
                                       int, 1),
            prose_min_fraction=number(p + "PROSE_MIN_FRACTION", PROSE_MIN_FRACTION_DEFAULT,
                                      float, 0.0, 1.0),
            figures_words=number(p + "FIGURES_WORDS", FIGURES_WORDS_DEFAULT, int, 0),
        )
        history = settings.get(p + "HISTORY") or ""
        if not history:
            history = (str(state_dir(settings) / HISTORY_FILE_DEFAULT)
                       if settings.get(COLLECTION_SETTING) or settings.get("JOBDIR")
                       else HISTORY_FILE_DEFAULT)
        return cls(
            boilerplate=settings.getbool(p + "ENABLED", True),
            history=str(history),
            redis_prefix=settings.get(p + "REDIS_PREFIX") or "corpuscrawl:bp:",
            detector=detector,
            buffer_size=number(p + "BUFFER_SIZE", BUFFER_SIZE_DEFAULT, int, 0),
            min_words=number("CORPUSCRAWL_MIN_WORDS", MIN_WORDS_DEFAULT, int, 0),
            drop_listings=settings.getbool("CORPUSCRAWL_DROP_LISTINGS", True),
            error_pages=settings.getbool(p + "ERROR_PAGES", True),
            dedup=settings.getbool("CORPUSCRAWL_DEDUP_ENABLED", True),
            dedup_threshold=number("CORPUSCRAWL_DEDUP_THRESHOLD", THRESHOLD_DEFAULT, float,
                                   0.01, 0.99),
            dedup_shingle_words=number("CORPUSCRAWL_DEDUP_SHINGLE_WORDS",
                                       SHINGLE_WORDS_DEFAULT, int, 1),
            dedup_num_perm=number("CORPUSCRAWL_DEDUP_NUM_PERM", NUM_PERM_DEFAULT, int, 2),
        )



def scratch_dir(settings: Any) -> Path | None:
    """Where the export stage's scratch files go: the collection's state directory, or the
    system's temporary directory when the crawl names no collection (the components used
    outside the ``corpus`` spider, which sets one from its seeds)."""
    if not (settings.get(COLLECTION_SETTING) or settings.get("JOBDIR")):
        return None
    return state_dir(settings)

class ExportState:
    """Everything the export path of one crawl shares: history, stage, released outcomes."""

    def __init__(self, crawler: Crawler, config: ExportConfig) -> None:
        self.crawler = crawler
        self.config = config
        self.history: DomainHistory | None = None
        detector = None
        if config.boilerplate:
            try:
                self.history = open_history(config.history, redis_prefix=config.redis_prefix)
            except HistoryError as exc:
                raise ExportConfigError(
                    f"CORPUSCRAWL_BOILERPLATE_HISTORY={config.history!r}: {exc}") from exc
            detector = Detector(self.history, config.detector)
        # On disk (the collection's state directory), so memory stays flat with documents.
        dedup = (SQLiteNearDuplicateIndex(config.dedup_threshold, config.dedup_num_perm,
                                          config.dedup_shingle_words,
                                          directory=scratch_dir(crawler.settings))
                 if config.dedup else None)
        if config.dedup:  # cluster mode: one index for all workers, in Redis
            shared = shared_index(crawler, config.dedup_threshold, config.dedup_num_perm,
                                  config.dedup_shingle_words)
            dedup = shared if shared is not None else dedup
        versions = SQLitePageVersions(scratch_dir(crawler.settings))
        #: The stage's scratch files, removed when the crawl ends.
        self.scratch = [versions, *([dedup] if isinstance(dedup, SQLiteNearDuplicateIndex) else [])]
        self.stage = ExportStage(detector, dedup, config.buffer_size, config.min_words,
                                 versions=versions, drop_listings=config.drop_listings)
        #: True once the driving pipeline is enabled; exporters only clean when it is.
        self.driven = False
        #: Set by the pipeline's close_spider: the last outcomes, written by every live feed.
        self.final: list[Outcome] | None = None
        self._reported: Counter[str] = Counter()
        #: Documents exported per domain (the crawl summary's per-domain figure).
        self.exported_by_domain: Counter[str] = Counter()
        #: Documents not exported per (domain, outcome status: duplicate, boilerplate, empty).
        self.dropped_by_domain: Counter[tuple[str, str]] = Counter()
        #: Boilerplate paragraphs removed per domain (of exported and dropped documents).
        self.boilerplate_by_domain: Counter[str] = Counter()
        crawler.signals.connect(self.close, signal=signals.engine_stopped)

    def attach(self, item: Any, outcomes: list[Outcome]) -> None:
        """Carry the outcomes released while ``item`` was processed on the item itself, for
        the feeds and the ``item_scraped`` handlers (resume ledger, recrawl, cluster)."""
        setattr(item, RELEASED_ATTRIBUTE, outcomes)
        self._count_exported(outcomes)

    def _count_exported(self, outcomes: list[Outcome]) -> None:
        for outcome in outcomes:
            doc = outcome.document
            domain = doc.domain or domain_of(doc.url)
            if outcome.exported:
                self.exported_by_domain[domain] += 1
            else:
                self.dropped_by_domain[(domain, outcome.status)] += 1
                if doc.url:
                    record_drop(self.crawler, doc.url, outcome.status, self._detail(outcome),
                                **({"duplicate_of": outcome.duplicate_of}
                                   if outcome.duplicate_of else {}))
            self.boilerplate_by_domain[domain] += doc.removed_boilerplate or 0

    def _detail(self, outcome: Outcome) -> str:
        """What the dropped-documents file says about a document the stage did not export."""
        doc = outcome.document
        if outcome.status == DUPLICATE:
            return f"near-duplicate of {outcome.duplicate_of}"
        if outcome.status == BOILERPLATE:
            return f"all {doc.removed_boilerplate} paragraphs are the domain's boilerplate"
        if outcome.status == LISTING:
            return "only teasers cut short are left (a front or section page)"
        if outcome.status == TOO_SHORT:
            return (f"{len(doc.text.split())} words left, under CORPUSCRAWL_MIN_WORDS="
                    f"{self.config.min_words}")
        return "no text"

    def released_with(self, item: Any) -> list[Outcome] | None:
        """The outcomes attached to ``item`` (None when the stage never saw it)."""
        return getattr(item, RELEASED_ATTRIBUTE, None)

    def report_stats(self) -> None:
        """Copy the stage's counters that changed into the crawler stats."""
        stats = self.crawler.stats
        if stats is None:
            return
        for key, value in self.stage.stats.items():
            delta = value - self._reported[key]
            if delta:
                stats.inc_value(STATS_PREFIX + key, delta)
                self._reported[key] = value

    def finish(self) -> list[Outcome]:
        """Release every held document (once) and make the history durable."""
        if self.final is None:
            self.final = self.stage.flush()
            self._count_exported(self.final)
            self.report_stats()
            if self.history is not None:
                self.history.flush()
        return self.final

    def close(self) -> None:
        """Close the history (idempotent; also on engine_stopped as a safety net)."""
        if self.history is not None:
            self.history.close()
            self.history = None
        for scratch in self.scratch:
            scratch.close()


def state_for(crawler: Crawler) -> ExportState:
    """The crawl's shared export state, created from its settings on first use."""
    state = registered_state(crawler)
    if state is None:
        state = ExportState(crawler, ExportConfig.from_settings(crawler.settings))
        register_state(crawler, state)
    return state


class ExportStagePipeline:
    """Last item pipeline: submits each Document to the export stage (see module docstring).

    Disabled (``NotConfigured``) when both boilerplate removal and the duplicate
    check are switched off; the feeds then write documents as they come.
    """

    def __init__(self, state: ExportState) -> None:
        self.state = state
        state.driven = True

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ExportStagePipeline:
        """Build from the crawl's settings."""
        config = ExportConfig.from_settings(crawler.settings)
        if not config.boilerplate and not config.dedup:
            raise NotConfigured("boilerplate removal and near-duplicate check are both off")
        return cls(state_for(crawler))

    def process_item(self, item: Any) -> Any:
        """Submit a Document; attach what became final to it; pass every item on."""
        if isinstance(item, Document):
            self.state.attach(item, self.state.stage.submit(item))
            self.state.report_stats()
        return item

    def close_spider(self) -> None:
        """Release every held document before the feeds are finished."""
        final = self.state.finish()
        logger.info("export stage: %d documents released at close, %s", len(final),
                    dict(self.state.stage.stats))


class ErrorPageSeeder:
    """Downloader middleware: a domain's first 404 page seeds its template in the history.

    Any 404/410 HTML answer of a domain (robots.txt, a dead link) is used when
    it comes; otherwise one random non-existent path is fetched for each new
    domain.  A domain whose history already records an error page (an earlier
    crawl, or another crawler sharing a Redis history) is not probed again, nor one
    probed earlier in the run generation whatever its answer (a resumed run, another
    cluster worker): the probe is recorded in the crawl state when it is scheduled,
    with its outcome once answered (:mod:`corpuscrawl.crawlstate.hosts`).
    A soft 404 (status 200) is never used: it may be a normal page.
    """

    def __init__(self, crawler: Crawler, state: ExportState) -> None:
        self.crawler = crawler
        self.state = state
        self._probed: set[str] = set()
        self._seeded: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ErrorPageSeeder:
        """Build from settings; NotConfigured when boilerplate removal or seeding is off."""
        config = ExportConfig.from_settings(crawler.settings)
        if not (config.boilerplate and config.error_pages):
            raise NotConfigured("boilerplate error-page seeding is off")
        return cls(crawler, state_for(crawler))

    def process_request(self, request: Request) -> None:
        """Drop a probe whose answer the generation already recorded: a probe answered just
        before a kill can still be in the frontier the resumed run replays."""
        domain = request.meta.get(PROBE_META)
        if not domain:
            return
        records = host_records(self.crawler)
        if records is not None and records.probe(domain) not in (None, "scheduled"):
            self.crawler.stats.inc_value("corpuscrawl/boilerplate/error_probes_known")
            raise IgnoreRequest(f"error-page probe of {domain} already answered")

    def process_response(self, request: Request, response: Response) -> Response:
        """Consume probe answers; seed from any 404; probe a new domain once."""
        if request.meta.get(PROBE_META):
            domain = request.meta[PROBE_META]
            outcome = "seeded" if self._seed(domain, response) else "unusable"
            records = host_records(self.crawler)
            if records is not None:
                records.probe_outcome(domain, outcome)
            raise IgnoreRequest(f"error-page probe of {domain} done")
        domain = state_key(response.url)  # host:port when the URL names one
        if not domain or domain in self._seeded or self.state.history is None:
            return response
        if response.status in ERROR_STATUSES:  # a free sample (robots.txt, a dead link)
            self._seed(domain, response)
        elif domain not in self._probed:
            self._probed.add(domain)
            if self.state.history.error_pages(domain):
                self._seeded.add(domain)
            else:
                self._probe(domain, response.url)
        return response

    def process_exception(self, request: Request, exception: Exception) -> None:
        """Record a probe that failed (its failure goes on as before).  A probe that
        :meth:`process_request` dropped also arrives here: its recorded answer stays."""
        domain = request.meta.get(PROBE_META)
        records = host_records(self.crawler)
        if domain and records is not None and records.probe(domain) in (None, "scheduled"):
            records.probe_outcome(domain, "failed")

    def _probe(self, domain: str, url: str) -> None:
        """Schedule the probe of ``domain`` unless the generation probed it already."""
        records = host_records(self.crawler)
        if records is not None and not records.claim_probe(domain):
            self.crawler.stats.inc_value("corpuscrawl/boilerplate/error_probes_known")
            return
        parts = urlsplit(url)
        probe_url = f"{parts.scheme}://{parts.netloc}/corpuscrawl-{secrets.token_hex(8)}"
        probe = Request(probe_url, priority=1000, dont_filter=True,
                        meta={PROBE_META: domain, "dont_retry": True,
                              "handle_httpstatus_all": True, "dont_redirect": True})
        engine = self.crawler.engine
        if engine is not None:
            engine.crawl(probe)
            self.crawler.stats.inc_value("corpuscrawl/boilerplate/error_probes")

    def _seed(self, domain: str, response: Response) -> bool:
        """Seed ``domain``'s history from ``response`` when it is an HTML error page; whether it did."""
        if response.status not in ERROR_STATUSES or self.state.history is None:
            return False
        content_type = (response.headers.get("Content-Type") or b"").decode("latin-1").lower()
        body = getattr(response, "body", b"")
        if not body or (content_type and "html" not in content_type):
            return False
        page = Page.from_html(body, url=response.url, status=response.status)
        body_el = page.clean_tree.find("body")
        lines = render_text(body_el if body_el is not None else page.clean_tree)
        if not lines:
            return False
        seeded = self.state.history.seed_from_error_page(domain, [lines])
        self._seeded.add(domain)
        self.crawler.stats.inc_value("corpuscrawl/boilerplate/error_pages_seeded")
        logger.debug("seeded %d template paragraphs of %s from %s", seeded, domain,
                     response.url)
        return True
