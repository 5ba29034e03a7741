"""Re-extract a corpus from WARC files offline, the way the crawl extracted it.

``corpuscrawl extract -e NAME FILE.warc.gz… -o OUT`` runs here.  Each archived
response goes through what it went through in the crawl, in the archive's
order:

1. Scrapy's ``HttpCompressionMiddleware`` (bodies are archived with their
   content-coding) and Scrapy's response-type detection, so the page text is
   decoded exactly as the crawl decoded it;
2. the error-page seeding of the boilerplate stage (a domain's first 404/410
   HTML page seeds its template);
3. the spider's page rules: only responses the crawl handed to its page
   callback (the metadata record's ``callback``; a WARC from another crawler
   has none, so every response counts), with a 2xx status (or one of
   ``HTTPERROR_ALLOWED_CODES``), of an HTML type;  a URL fetched in the
   browser is extracted from its ``conversion`` record (the rendered DOM), not
   from its HTML as sent;
4. the crawl's :class:`~corpuscrawl.pagetext.extraction.Extraction` (domain rules,
   templates, ``-e`` as the default extractor), its item pipeline
   (:class:`~corpuscrawl.export.scrapy_glue.pipelines.ExtractionPipeline`: empty and failed
   extractions, language filter) and its export stage (domain boilerplate,
   near-duplicates) in one of its feed exporters.

Documents get the crawl's fields; ``fetched_at`` is the record's
``WARC-Date``, ``depth`` and ``alternates`` come from the metadata records.
The boilerplate history starts empty (``history=`` to use a stored one), as a
first crawl's does.  Where the order of documents reaching the export stage
in the crawl differed from the archive's order (rendered pages are archived
when their interaction loop ends), boilerplate verdicts of a domain's
documents taken after it warmed up can differ in marginal cases.

An unreadable stretch of a file (a torn record, a truncated copy) is reported
with the file and byte offset; the records before it are used and the next
file is read.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import IO, Any

from scrapy import Request
from scrapy.downloadermiddlewares.httpcompression import HttpCompressionMiddleware
from scrapy.exceptions import DropItem
from scrapy.http import Headers, Response, TextResponse
from scrapy.responsetypes import responsetypes
from scrapy.settings import BaseSettings
from scrapy.signalmanager import SignalManager
from scrapy.utils.misc import load_object

from corpuscrawl.archive.reader import ArchivedRecord, WarcReadError, read_records
from corpuscrawl.boilerplate.backends import open_history
from corpuscrawl.boilerplate.detector import Detector
from corpuscrawl.boilerplate.history import DomainHistory
from corpuscrawl.browse.static import without_overlays
from corpuscrawl.export.dedup import NearDuplicateIndex
from corpuscrawl.export.scrapy_glue.exporters import CleaningExporterMixin
from corpuscrawl.export.scrapy_glue.pipelines import ExtractionPipeline, PipelineConfig
from corpuscrawl.export.scrapy_glue.stage_pipeline import ERROR_STATUSES, ExportConfig
from corpuscrawl.export.stage import ExportStage
from corpuscrawl.html.dom import render_text
from corpuscrawl.html.page import Page
from corpuscrawl.items import Document
from corpuscrawl.net.sites import domain_of
from corpuscrawl.pagetext.crawled import crawled_pages
from corpuscrawl.pagetext.extraction import Extraction, ExtractionResult

__all__ = ["Replay", "ReplaySummary", "feed_format"]

logger = logging.getLogger("corpuscrawl.archive")

#: Callbacks (metadata ``callback``) whose responses never become documents: robots.txt,
#: sitemaps and feeds, the boilerplate stage's 404 probes, browser redirects.  Any other
#: (``parse``, or none for another crawler's WARC) is a page candidate; the content-type
#: rules below still apply.
NON_PAGE_CALLBACKS = frozenset({"parse_xml", "parse_robots", "none", "error-probe", "redirect"})
#: The spider's content-type rules (corpuscrawl.spiders.corpus): HTML pages; XML is a feed.
HTML_TYPES = ("text/html", "application/xhtml+xml")
XML_TYPES = ("xml", "rss", "atom")
#: Fragment the spider gives the documents of ``extract_continuously`` snapshots.
SNAPSHOT_FRAGMENT = "#corpuscrawl-reveal-"
#: Feed formats by output file extension (else the extension is the format).
FORMAT_BY_EXTENSION = {"jsonl": "jsonlines", "jl": "jsonlines"}


def feed_format(out: str, formats: Iterable[str]) -> tuple[str, str]:
    """``(path, format)`` from ``OUT`` or ``OUT:FORMAT``; the format follows the extension."""
    known = set(formats)
    path, sep, fmt = out.rpartition(":")
    if sep and fmt in known and path:
        return path, fmt
    extension = out.rsplit(".", 1)[-1].lower() if "." in Path(out).name else ""
    fmt = FORMAT_BY_EXTENSION.get(extension, extension)
    if fmt not in known:
        raise ValueError(f"cannot tell the format of {out!r}: use an extension or OUT:FORMAT "
                         f"with one of {', '.join(sorted(known))}")
    return out, fmt


@dataclass
class ReplaySummary:
    """What a replay did: counts by outcome, the unreadable stretches, documents written."""

    counts: Counter[str] = field(default_factory=Counter)
    errors: list[WarcReadError] = field(default_factory=list)
    written: int = 0


class _Stats(Counter):
    """The ``inc_value`` interface of Scrapy's stats, for the item pipeline."""

    def inc_value(self, key: str, count: int = 1, start: int = 0) -> None:
        self[key] += count


@dataclass
class _Capture:
    """A response or conversion record with the fields of its metadata record."""

    record: ArchivedRecord
    fields: dict[str, str] = field(default_factory=dict)


class Replay:
    """The crawl's response handling over archived records (see the module docstring)."""

    def __init__(self, settings: BaseSettings, extractor: str | None = None,
                 history: str = ":memory:") -> None:
        self.settings = settings
        self.extraction = Extraction.from_settings(settings, extractor)
        self.stats = _Stats()
        self.pipeline = ExtractionPipeline(PipelineConfig.from_settings(settings), self.stats)
        self.export = ExportConfig.from_settings(settings)
        self.history: DomainHistory | None = None
        detector = None
        if self.export.boilerplate:
            self.history = open_history(history, redis_prefix=self.export.redis_prefix)
            detector = Detector(self.history, self.export.detector)
        dedup = (NearDuplicateIndex(self.export.dedup_threshold, self.export.dedup_num_perm,
                                    self.export.dedup_shingle_words)
                 if self.export.dedup else None)
        self.stage = (ExportStage(detector, dedup, self.export.buffer_size, self.export.min_words)
                      if detector is not None or dedup is not None else None)
        self.decoder = HttpCompressionMiddleware(crawler=SimpleNamespace(  # type: ignore[arg-type]
            stats=None, settings=settings, signals=SignalManager()))
        self.allowed_statuses = set(settings.getlist("HTTPERROR_ALLOWED_CODES"))
        self.allow_all_statuses = settings.getbool("HTTPERROR_ALLOW_ALL")
        self._seeded: set[str] = set()
        self._browser_urls: set[str] = set()

    # --- the whole run --------------------------------------------------------------

    def run(self, paths: list[Path], out: IO[bytes], fmt: str,
            on_error: Callable[[WarcReadError], None] | None = None) -> ReplaySummary:
        """Extract every archived page of ``paths`` into ``out`` in feed format ``fmt``."""
        summary = ReplaySummary()
        exporter = self.exporter(out, fmt)
        written = _counting(exporter)
        exporter.start_exporting()
        self._browser_urls = browser_fetched_urls(paths)
        try:
            for path in paths:
                try:
                    for document in self.documents(read_records(path), summary.counts):
                        exporter.export_item(document)
                except WarcReadError as exc:
                    summary.errors.append(exc)
                    if on_error is not None:
                        on_error(exc)
            exporter.finish_exporting()
        finally:
            if self.history is not None:
                self.history.close()
        summary.written = written()
        summary.counts.update({k.removeprefix("corpuscrawl/"): v for k, v in self.stats.items()})
        if self.stage is not None:
            summary.counts.update({f"export/{k}": v for k, v in self.stage.stats.items()})
        return summary

    def exporter(self, out: IO[bytes], fmt: str) -> Any:
        """The crawl's feed exporter for ``fmt``, driving this replay's export stage."""
        exporters = {**self.settings.getdict("FEED_EXPORTERS_BASE"),
                     **self.settings.getdict("FEED_EXPORTERS")}
        cls = load_object(exporters[fmt])
        kwargs: dict[str, Any] = {"encoding": self.settings.get("FEED_EXPORT_ENCODING"),
                                  "fields_to_export": self.settings.getlist("FEED_EXPORT_FIELDS")
                                  or None,
                                  "indent": self.settings.getint("FEED_EXPORT_INDENT")}
        if self.stage is not None and _takes_stage(cls):
            kwargs["stage"] = self.stage
        return cls(out, **kwargs)

    # --- records -> documents -----------------------------------------------------------

    def documents(self, records: Iterable[ArchivedRecord], counts: Counter[str]) -> Iterator[Document]:
        """Documents of the pages among ``records`` (a response or conversion with its metadata)."""
        pending: _Capture | None = None
        try:
            for record in records:
                counts["records"] += 1
                if pending is not None and record.type in ("metadata", "request") and \
                        pending.record.id in (record.header("WARC-Concurrent-To"),
                                              record.header("WARC-Refers-To")):
                    if record.type == "metadata":
                        pending.fields = record.fields()
                    continue
                if pending is not None:
                    yield from self._handle(pending, counts)
                    pending = None
                if record.type in ("response", "conversion"):
                    pending = _Capture(record)
        except WarcReadError:
            if pending is not None:  # a whole response whose companions were torn off
                yield from self._handle(pending, counts)
            raise
        if pending is not None:
            yield from self._handle(pending, counts)

    def _handle(self, capture: _Capture, counts: Counter[str]) -> Iterator[Document]:
        if capture.record.type == "conversion":
            counts["conversions"] += 1
            yield from self._conversion(capture)
        else:
            counts["responses"] += 1
            yield from self._response(capture, counts)

    def _response(self, capture: _Capture, counts: Counter[str]) -> Iterator[Document]:
        record, fields = capture.record, capture.fields
        if record.http is None or not record.target.startswith(("http://", "https://")):
            counts["skipped_not_http"] += 1
            return
        try:
            response = self.decode(record)
        except Exception as exc:  # undecodable body: the crawl would have failed the request
            counts["skipped_undecodable"] += 1
            logger.warning("%s at byte %d: cannot decode the response of %s: %r",
                           record.path, record.offset, record.target, exc)
            return
        self._seed_error_page(response)
        callback = fields.get("callback", "")
        if callback in NON_PAGE_CALLBACKS or fields.get("fetcher") == "browser":
            counts["skipped_not_page"] += 1
            return
        if record.target in self._browser_urls:
            counts["skipped_rendered_instead"] += 1
            return
        if not self._status_allowed(response.status):
            counts["skipped_status"] += 1
            return
        content_type = response.headers.get("Content-Type", b"").decode("latin-1").lower()
        if any(t in content_type for t in XML_TYPES) and "html" not in content_type:
            counts["skipped_xml"] += 1
            return
        if not isinstance(response, TextResponse) or (
                content_type and not any(t in content_type for t in HTML_TYPES)):
            counts["skipped_non_html"] += 1
            return
        page = without_overlays(Page.from_html(response.text, url=response.url,
                                               status=response.status))
        result = self.extraction.run(page)
        counts["pages"] += 1
        yield from self._documents(response.url, response.status, response.text, result,
                                   _int(fields.get("depth")), _fetched_at(record.date))

    def _conversion(self, capture: _Capture) -> Iterator[Document]:
        record, fields = capture.record, capture.fields
        html = record.body.decode("utf-8", "replace")
        url = record.target
        status = _int(fields.get("status")) or 200
        if SNAPSHOT_FRAGMENT in url:  # extract_continuously: the page as it was after a reveal
            page = Page.from_html(html, url=url.split(SNAPSHOT_FRAGMENT, 1)[0])
        else:
            page = Page.from_html(html, url=url, status=status)
        try:
            alternates = json.loads(fields.get("alternates") or "{}")
        except ValueError:
            alternates = {}
        result = self.extraction.run(without_overlays(page))  # as the spider extracts it
        yield from self._documents(url, status, html, result, _int(fields.get("depth")),
                                   _fetched_at(record.date), rendered=True,
                                   alternates=alternates if isinstance(alternates, dict) else {},
                                   render_reason=fields.get("render_reason") or "")

    def _documents(self, url: str, status: int, html: str, result: ExtractionResult,
                   depth: int, fetched_at: str, **extra: Any) -> Iterator[Document]:
        """What the spider's ``crawled`` and the item pipeline make of one extracted page."""
        for item in crawled_pages(url, status, html, result, depth, fetched_at, **extra):
            try:
                yield self.pipeline.process_item(item)
            except DropItem:
                continue

    # --- the crawl's middlewares ----------------------------------------------------------

    def decode(self, record: ArchivedRecord) -> Response:
        """The response as the spider saw it: content-coding removed, Scrapy's response class."""
        assert record.http is not None
        headers = Headers()
        for name, value in record.http.headers:
            headers.appendlist(name, value.encode("latin-1", "replace"))
        url, body = record.target, record.body
        cls = responsetypes.from_args(headers=headers, url=url, body=body)
        request = Request(url)
        response = cls(url=url, status=record.status, headers=headers, body=body,
                       request=request)
        return self.decoder.process_response(request, response)

    def _status_allowed(self, status: int) -> bool:
        return 200 <= status < 300 or self.allow_all_statuses or status in self.allowed_statuses

    def _seed_error_page(self, response: Response) -> None:
        """The ErrorPageSeeder's rule: a domain's first 404/410 HTML page seeds its template."""
        if self.history is None or not self.export.error_pages:
            return
        domain = domain_of(response.url)
        if not domain or domain in self._seeded or response.status not in ERROR_STATUSES:
            return
        content_type = (response.headers.get("Content-Type") or b"").decode("latin-1").lower()
        if not response.body or (content_type and "html" not in content_type):
            return
        page = Page.from_html(response.body, url=response.url, status=response.status)
        body = page.clean_tree.find("body")
        lines = render_text(body if body is not None else page.clean_tree)
        if lines:
            self.history.seed_from_error_page(domain, [lines])
            self._seeded.add(domain)
            self.stats.inc_value("corpuscrawl/boilerplate/error_pages_seeded")


def browser_fetched_urls(paths: Iterable[Path]) -> set[str]:
    """URLs the crawl fetched in a browser (their documents come from conversion records).

    A first, cheap pass over the files: a plain response of such a URL (``render=auto``
    fetches plainly first) must not become a document of its own.
    """
    urls: set[str] = set()
    for path in paths:
        try:
            for record in read_records(path):
                if record.type == "conversion":
                    urls.add(record.target.split(SNAPSHOT_FRAGMENT, 1)[0])
                elif record.type == "metadata" and record.fields().get("fetcher") == "browser":
                    urls.add(record.target)
        except WarcReadError:
            continue  # reported by the main pass
    return urls


def _takes_stage(cls: type) -> bool:
    return issubclass(cls, CleaningExporterMixin)


def _counting(exporter: Any) -> Callable[[], int]:
    """Count the documents ``exporter`` writes (wraps its ``write_document``)."""
    written = [0]
    inner = getattr(exporter, "write_document", None) or exporter.export_item
    name = "write_document" if hasattr(exporter, "write_document") else "export_item"

    def counted(item: Any) -> Any:
        written[0] += 1
        return inner(item)

    setattr(exporter, name, counted)
    return lambda: written[0]


def _int(value: object) -> int:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return 0


def _fetched_at(warc_date: str) -> str:
    """The crawl's ``fetched_at`` form (ISO 8601, seconds, UTC offset) of a WARC-Date."""
    try:
        moment = dt.datetime.fromisoformat(warc_date.replace("Z", "+00:00"))
    except ValueError:
        return warc_date
    return moment.astimezone(dt.UTC).replace(microsecond=0).isoformat(timespec="seconds")
