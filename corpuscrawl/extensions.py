"""Scrapy extensions of corpuscrawl: the end-of-crawl summary.

:class:`CrawlSummaryExtension` (``EXTENSIONS``) counts per domain what the
stats collector does not (responses, HTTP and download errors, documents
extracted and exported), and when the crawl is over builds the summary of
:mod:`corpuscrawl.report.summary` from the stats, logs it and writes it as JSON:

* beside every local feed file ``X`` as ``X.summary.json`` (written once the
  feeds are stored, so the figures and the files agree);
* into the collection's state directory as ``last-crawl.summary.json`` when
  the crawl has no local feed (no ``-O``/``FEEDS``, or only remote ones);
* to ``CORPUSCRAWL_SUMMARY_FILE`` as well, when that is set.

When not one page could be fetched the summary says so
(``nothing_fetched``) and an error is logged; ``corpuscrawl crawl`` and
``scrapy crawl`` (:mod:`corpuscrawl.scrapy_commands.crawl`) then exit with
status 3 so a cron job or a systemd unit can alert.
"""

from __future__ import annotations

import logging
import weakref
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response
from w3lib.url import file_uri_to_path

from corpuscrawl.crawlstate.scrapy_glue.location import state_dir
from corpuscrawl.crawlstate.state_paths import CollectionNameError, collection_from_seeds
from corpuscrawl.export.scrapy_glue.stage_pipeline import PROBE_META, existing_state
from corpuscrawl.export.stage import BOILERPLATE, DUPLICATE
from corpuscrawl.items import Document
from corpuscrawl.net.sites import domain_of
from corpuscrawl.report.scrapy_glue.progress import TIMELINE_COLUMNS, timeline_of
from corpuscrawl.report.summary import (
    STATE_SUMMARY_FILE,
    DomainCounts,
    build_summary,
    human_summary,
    summary_path_for,
    write_summary,
)

logger = logging.getLogger("corpuscrawl.summary")

_SUMMARIES: weakref.WeakKeyDictionary[Crawler, dict[str, Any]] = weakref.WeakKeyDictionary()


def summary_of(crawler: Crawler) -> dict[str, Any] | None:
    """The summary of a finished crawl, plus ``summary_files`` (where it was written).

    None when the extension did not run or the crawl never got that far.
    """
    return _SUMMARIES.get(crawler)


def local_feed_path(uri: str) -> Path | None:
    """The file a feed URI writes to, or None for a remote feed (s3://, ftp://, ...)."""
    scheme = urlsplit(uri).scheme
    if scheme == "file":
        return Path(file_uri_to_path(uri))
    if scheme == "" or (len(scheme) == 1 and uri[1:3] in (":\\", ":/")):  # a path, or C:\...
        return Path(uri)
    return None


@dataclass(frozen=True)
class SummaryConfig:
    """The summary's settings (``CORPUSCRAWL_SUMMARY_*``), read once."""

    enabled: bool = True
    file: str = ""

    @classmethod
    def from_settings(cls, settings: Any) -> SummaryConfig:
        """Read ``CORPUSCRAWL_SUMMARY_ENABLED`` and ``CORPUSCRAWL_SUMMARY_FILE``."""
        try:
            enabled = settings.getbool("CORPUSCRAWL_SUMMARY_ENABLED", True)
        except ValueError:
            raise ValueError("CORPUSCRAWL_SUMMARY_ENABLED must be True or False") from None
        return cls(enabled=enabled, file=str(settings.get("CORPUSCRAWL_SUMMARY_FILE") or ""))


class CrawlSummaryExtension:
    """Counts per domain during the crawl; logs and writes the summary at its end."""

    def __init__(self, crawler: Crawler, config: SummaryConfig) -> None:
        self.crawler = crawler
        self.config = config
        self.domains: defaultdict[str, DomainCounts] = defaultdict(DomainCounts)
        self._left: defaultdict[str, int] = defaultdict(int)
        self._downloaded: defaultdict[str, int] = defaultdict(int)
        self._feed_files: list[Path] = []
        self._feeds_expected = bool(crawler.settings.getdict("FEEDS")) or bool(
            crawler.settings.get("FEED_URI"))
        self._feeds_closed = False
        self._spider: Spider | None = None
        self._done = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CrawlSummaryExtension:
        """Connect the signals; ``NotConfigured`` when ``CORPUSCRAWL_SUMMARY_ENABLED`` is off."""
        config = SummaryConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("CORPUSCRAWL_SUMMARY_ENABLED is off")
        ext = cls(crawler, config)
        connect = crawler.signals.connect
        connect(ext.response_received, signal=signals.response_received)
        connect(ext.request_left_downloader, signal=signals.request_left_downloader)
        connect(ext.response_downloaded, signal=signals.response_downloaded)
        connect(ext.item_scraped, signal=signals.item_scraped)
        connect(ext.feed_slot_closed, signal=signals.feed_slot_closed)
        connect(ext.feed_exporter_closed, signal=signals.feed_exporter_closed)
        connect(ext.spider_closed, signal=signals.spider_closed)
        connect(ext.engine_stopped, signal=signals.engine_stopped)
        return ext

    # --- counting ---------------------------------------------------------------------

    def response_received(self, response: Response, request: Request) -> None:
        """A response reached the engine: count it (and an HTTP error) for its domain."""
        if request.meta.get(PROBE_META):
            return  # the export stage's error-page probes are not the crawl's pages
        counts = self.domains[domain_of(response.url)]
        counts.responses += 1
        if response.status >= 400:
            counts.http_errors += 1

    def request_left_downloader(self, request: Request) -> None:
        """A download attempt ended (with a response or an exception)."""
        self._left[domain_of(request.url)] += 1

    def response_downloaded(self, request: Request) -> None:
        """A download attempt ended with a response."""
        self._downloaded[domain_of(request.url)] += 1

    def item_scraped(self, item: Any) -> None:
        """A document left the pipelines."""
        if isinstance(item, Document):
            self.domains[item.domain or domain_of(item.url)].documents += 1

    def feed_slot_closed(self, slot: Any) -> None:
        """A feed file was stored: its summary goes beside it."""
        path = local_feed_path(str(getattr(slot, "uri", "")))
        if path is not None:
            path = path.absolute()
        if path is not None and path not in self._feed_files:
            self._feed_files.append(path)

    # --- the end ------------------------------------------------------------------------

    def feed_exporter_closed(self) -> None:
        """Every feed is stored; write the summary if the spider is closed too."""
        self._feeds_closed = True
        if self._spider is not None:
            self.finish()

    def spider_closed(self, spider: Spider) -> None:
        """Write the summary now, or once the feeds are stored."""
        self._spider = spider
        if not self._feeds_expected or self._feeds_closed:
            self.finish()

    def engine_stopped(self) -> None:
        """Safety net: a crawl whose feed exporter never reported still gets its summary."""
        if self._spider is not None:
            self.finish()

    def finish(self) -> None:
        """Build, log and write the summary (once)."""
        if self._done or self._spider is None:
            return
        self._done = True
        summary = self.build(self._spider)
        written = self.write(summary)
        _SUMMARIES[self.crawler] = {**summary, "summary_files": [str(p) for p in written]}
        text = human_summary(summary)
        if written:
            text += "\nsummary: " + ", ".join(str(p) for p in written)
        if summary["nothing_fetched"]:
            logger.error("nothing could be fetched: every seed failed; check the seeds and the "
                         "network (errors: %s)", summary["errors"]["by_type"] or "none recorded")
            logger.warning("%s", text)
        else:
            logger.info("%s", text)

    def build(self, spider: Spider) -> dict[str, Any]:
        """The summary dict from the crawl's stats and the per-domain counts."""
        for domain, left in self._left.items():
            self.domains[domain].download_errors = max(0, left - self._downloaded[domain])
        state = existing_state(self.crawler)
        exported = getattr(state, "exported_by_domain", None)
        dropped = getattr(state, "dropped_by_domain", None) or {}
        paragraphs = getattr(state, "boilerplate_by_domain", None) or {}
        for domain, counts in self.domains.items():
            counts.exported = exported[domain] if exported is not None else counts.documents
            counts.duplicates_dropped = dropped.get((domain, DUPLICATE), 0)
            counts.boilerplate_dropped = dropped.get((domain, BOILERPLATE), 0)
            counts.boilerplate_paragraphs = paragraphs.get(domain, 0)
        stats = self.crawler.stats.get_stats() if self.crawler.stats else {}
        seeds = list(getattr(spider, "seed_urls", []) or [])
        summary = build_summary(stats, dict(self.domains), spider=spider.name,
                                collection=self.collection(spider, seeds),
                                job=str(getattr(spider, "_job", "") or ""), seeds=len(seeds),
                                outputs=[str(p) for p in self._feed_files])
        summary["timeline"] = {"columns": list(TIMELINE_COLUMNS), "rows": timeline_of(self.crawler)}
        return summary

    def collection(self, spider: Spider, seeds: list[str]) -> str:
        """The crawl's collection name ("" when it has none and no seeds to derive one from)."""
        name = self.crawler.settings.get("CORPUSCRAWL_COLLECTION") or getattr(
            spider, "collection", "")
        if not name and seeds:
            try:
                name = collection_from_seeds(seeds)
            except CollectionNameError:
                name = ""
        return str(name or "")

    def write(self, summary: dict[str, Any]) -> list[Path]:
        """Write the summary beside each local feed (else into the state dir); paths written."""
        targets = [summary_path_for(p) for p in self._feed_files]
        if not targets and summary["collection"]:
            try:
                targets.append(state_dir(self.crawler.settings, summary["collection"],
                                         create=False) / STATE_SUMMARY_FILE)
            except (ValueError, NotConfigured) as exc:
                logger.warning("no state directory for the crawl summary: %s", exc)
        if self.config.file:
            targets.append(Path(self.config.file))
        written = []
        for path in targets:
            try:
                written.append(write_summary(summary, path))
            except OSError as exc:
                logger.error("cannot write the crawl summary to %s: %s", path, exc)
        return written
