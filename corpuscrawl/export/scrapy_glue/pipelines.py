"""Thin Scrapy item pipelines over the extraction library.

:class:`ExtractionPipeline` turns each :class:`~corpuscrawl.pagetext.crawled.CrawledPage`
into a :class:`~corpuscrawl.items.Document`: pages whose extraction failed are
counted and their raw HTML kept under ``CORPUSCRAWL_FAILED_DIR`` (nothing is
lost, up to ``CORPUSCRAWL_FAILED_MAX_BYTES`` on disk); pages whose body is
not text are counted and dropped; what was unusual about a page (a charset
label not believed, control characters removed, a parse repaired at the
parser's limits, markup trimmed to fit the size cap) is counted under
``corpuscrawl/page/<note>``; listings (front and section pages: teasers of other
pages of the site, :mod:`corpuscrawl.extract.page_typing.listing`) are dropped with reason ``listing``
unless ``CORPUSCRAWL_DROP_LISTINGS`` is off; empty extractions are counted and not written; the
rest become documents with a content hash (those with reader comments in their
``comments`` field are counted in ``corpuscrawl/documents_with_comments``).
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scrapy.exceptions import DropItem

from corpuscrawl.config.setting_values import whole_number_setting
from corpuscrawl.extract.meta.page_info import page_info_fields
from corpuscrawl.items import Document, FailedPage, content_hash
from corpuscrawl.net.sites import domain_of
from corpuscrawl.pagetext.crawled import CrawledPage
from corpuscrawl.report.scrapy_glue.dropped import drop_log, record_drop
from corpuscrawl.report.summary import PAGE_TYPE_PREFIX

logger = logging.getLogger("corpuscrawl.pipelines")

#: What each page note means, for the log (see corpuscrawl.html.page.PAGE_NOTES).
NOTE_MEANINGS = {
    "binary": "the body is not text",
    "charset_label_ignored": "a charset label contradicted by the bytes was not believed; "
                             "decoded as the bytes show",
    "charset_undecodable": "its charset label does not decode it and no other charset reads it",
    "control_chars_removed": "NUL and control characters removed",
    "truncated": "the body ends inside text or a tag (cut short, e.g. by its Content-Length)",
    "parse_reparsed": "hit the HTML parser's limits; re-parsed past them, text kept",
    "parse_flattened": "hit the HTML parser's limits; flattened to its text blocks",
    "trimmed": "over the extraction size cap; scripts, styles and long attributes trimmed",
    "oversized": "over the extraction size cap even trimmed; extracted by the oversized-page "
                 "extractor",
}


@dataclass(frozen=True)
class PipelineConfig:
    """Typed view of the pipeline's settings."""

    failed_dir: str = "failed_pages"
    min_text_chars: int = 1
    languages: tuple[str, ...] = ()
    language_filter: bool = False
    #: Most bytes the failed-pages store may hold (0 = no limit).
    failed_max_bytes: int = 0
    #: Drop listings (front and section pages): CORPUSCRAWL_DROP_LISTINGS.
    drop_listings: bool = True

    @classmethod
    def from_settings(cls, settings: Any) -> PipelineConfig:
        """Read and validate ``CORPUSCRAWL_FAILED_DIR``, ``CORPUSCRAWL_MIN_TEXT_CHARS``, …"""
        min_chars = whole_number_setting(settings, "CORPUSCRAWL_MIN_TEXT_CHARS", 1, minimum=1)
        failed_max = whole_number_setting(settings, "CORPUSCRAWL_FAILED_MAX_BYTES", 0)
        return cls(failed_dir=settings.get("CORPUSCRAWL_FAILED_DIR") or "",
                   min_text_chars=min_chars, failed_max_bytes=failed_max,
                   languages=tuple(x.strip().lower() for x in settings.getlist("CORPUSCRAWL_LANGUAGES")
                                   if x.strip()),
                   language_filter=settings.getbool("CORPUSCRAWL_LANGUAGE_FILTER"),
                   drop_listings=settings.getbool("CORPUSCRAWL_DROP_LISTINGS", True))


class ExtractionPipeline:
    """CrawledPage -> Document; failures kept on disk, empties counted, both dropped."""

    def __init__(self, config: PipelineConfig, stats: Any, crawler: Any = None):
        self.config = config
        self.stats = stats
        #: The crawl, for the list of dropped documents (None outside a crawl).
        self.crawler = crawler
        self._failed_bytes: int | None = None  # size of the failed store, read when first needed
        self._failed_full_logged = False
        self._logged_notes: set[tuple[str, str]] = set()

    @classmethod
    def from_crawler(cls, crawler: Any) -> ExtractionPipeline:
        """Build from the crawler's settings and stats."""
        return cls(PipelineConfig.from_settings(crawler.settings), crawler.stats, crawler)

    def open_spider(self) -> None:
        """Open the list of dropped documents (``<feed>.dropped.jsonl``, empty until a drop)."""
        if self.crawler is not None:
            drop_log(self.crawler)

    def process_item(self, item: Any) -> Any:
        """Convert a crawled page; other items pass through untouched."""
        if not isinstance(item, CrawledPage):
            return item
        result = item.result
        self.count_notes(item)
        if result.skipped:
            self.stats.inc_value(f"corpuscrawl/dropped/{result.skipped}")
            reason = NOTE_MEANINGS.get(result.skipped, result.skipped)
            logger.info("dropped %s: %s", item.url, reason)
            record_drop(self.crawler, item.url, result.skipped, reason)
            raise DropItem(f"{item.url}: {reason}", log_level="DEBUG")
        if not result.ok:
            self.stats.inc_value("corpuscrawl/extraction_errors")
            kind = result.error.partition(":")[0]
            if kind in ("ExtractionTimeout", "OversizedPage"):
                self.stats.inc_value(f"corpuscrawl/extraction/{kind}")
            failed = self.keep_failed(item)
            record_drop(self.crawler, item.url, "extraction_error", result.error,
                        **({"html_path": failed.html_path} if failed.html_path else {}))
            raise DropItem(f"extraction failed on {item.url}: {result.error}"
                           + (f" (raw HTML kept in {failed.html_path})" if failed.html_path else ""))
        if result.listing and self.config.drop_listings:
            record_drop(self.crawler, item.url, "listing", result.listing)
            raise DropItem(f"{item.url} is a listing: {result.listing}", log_level="DEBUG")
        text = result.text.strip()
        if len(text) < self.config.min_text_chars:
            self.stats.inc_value("corpuscrawl/empty_extractions")
            record_drop(self.crawler, item.url, "empty", "no text extracted")
            raise DropItem(f"no content extracted from {item.url}", log_level="DEBUG")
        if self.config.language_filter and self.config.languages and \
                result.language not in self.config.languages:
            self.stats.inc_value("corpuscrawl/dropped_language")
            record_drop(self.crawler, item.url, "language",
                        f"{result.language or 'unknown'} is not among "
                        f"{', '.join(self.config.languages)}", language=result.language)
            raise DropItem(f"{item.url} is in {result.language or 'an unknown language'}",
                           log_level="DEBUG")
        self.stats.inc_value("corpuscrawl/documents")
        self.stats.inc_value(f"corpuscrawl/extractor/{result.extractor}")
        comments = result.comments.strip()
        if comments:
            self.stats.inc_value("corpuscrawl/documents_with_comments")
        if result.page_type:
            self.stats.inc_value(f"{PAGE_TYPE_PREFIX}{result.page_type}")
        return Document(
            url=item.url, domain=domain_of(item.url), title=result.title, text=text,
            comments=comments, language=result.language, extractor=result.extractor, fetched_at=item.fetched_at,
            status=item.status, content_hash=content_hash(text), date=result.date,
            author=result.author, depth=item.depth, rendered=item.rendered,
            alternates=dict(item.alternates), unit_index=item.unit[0], unit_kind=item.unit[1],
            render_reason=item.render_reason, structure=list(result.structure),
            page_type=result.page_type, **page_info_fields(result.info),
        )

    def count_notes(self, item: CrawledPage) -> None:
        """Count what was unusual about a page; log each kind once per domain."""
        if item.unit[0]:
            return  # the page's other units carry the same notes
        domain = domain_of(item.url)
        for note in item.result.notes:
            self.stats.inc_value(f"corpuscrawl/page/{note}")
            if (domain, note) not in self._logged_notes:
                self._logged_notes.add((domain, note))
                logger.info("%s: %s (further pages of %s with it are counted in "
                            "corpuscrawl/page/%s)", item.url, NOTE_MEANINGS.get(note, note),
                            domain, note)

    def keep_failed(self, item: CrawledPage) -> FailedPage:
        """Store the raw HTML of a failed page and a JSON line describing it (within the size cap)."""
        failed = FailedPage(url=item.url, status=item.status, error=item.result.error)
        if not self.config.failed_dir:
            return failed
        directory = Path(self.config.failed_dir)
        name = hashlib.sha1(item.url.encode("utf-8")).hexdigest()[:16] + ".html"
        html = item.html.encode("utf-8", "replace")
        try:
            directory.mkdir(parents=True, exist_ok=True)
            if not self._room_for(directory, len(html) + 1024):
                self.stats.inc_value("corpuscrawl/failed_store/full")
                return failed
            (directory / name).write_bytes(html)
            failed.html_path = str(directory / name)
            line = json.dumps(failed.__dict__, ensure_ascii=False) + "\n"
            with (directory / "failed.jsonl").open("a", encoding="utf-8") as fh:
                fh.write(line)
            self._failed_bytes = (self._failed_bytes or 0) + len(html) + len(line.encode("utf-8"))
            self.stats.inc_value("corpuscrawl/failed_store/pages")
        except OSError as exc:
            logger.error("cannot keep failed page %s in %s: %s", item.url, directory, exc)
        return failed

    def _room_for(self, directory: Path, size: int) -> bool:
        """True when ``size`` more bytes keep the failed store under its cap (logs once when not)."""
        cap = self.config.failed_max_bytes
        if not cap:
            return True
        if self._failed_bytes is None:
            self._failed_bytes = sum(f.stat().st_size for f in directory.iterdir() if f.is_file())
        if self._failed_bytes + size <= cap:
            return True
        if not self._failed_full_logged:
            self._failed_full_logged = True
            logger.error("failed-pages store %s is full (CORPUSCRAWL_FAILED_MAX_BYTES=%d): "
                         "further failed pages are counted, not kept", directory, cap)
        return False
