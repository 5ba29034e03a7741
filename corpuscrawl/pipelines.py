"""Thin Scrapy item pipelines over the extraction library.

:class:`ExtractionPipeline` turns each :class:`~corpuscrawl.crawled.CrawledPage`
into a :class:`~corpuscrawl.items.Document`: pages whose extraction failed are
counted and their raw HTML kept under ``CORPUSCRAWL_FAILED_DIR`` (nothing is
lost); empty extractions are counted and not written; the rest become
documents with a content hash.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scrapy.exceptions import DropItem

from corpuscrawl.crawled import CrawledPage
from corpuscrawl.items import Document, FailedPage, content_hash
from corpuscrawl.page import domain_of

logger = logging.getLogger("corpuscrawl.pipelines")


@dataclass(frozen=True)
class PipelineConfig:
    """Typed view of the pipeline's settings."""

    failed_dir: str = "failed_pages"
    min_text_chars: int = 1
    languages: tuple[str, ...] = ()
    language_filter: bool = False

    @classmethod
    def from_settings(cls, settings: Any) -> PipelineConfig:
        """Read and validate ``CORPUSCRAWL_FAILED_DIR``, ``CORPUSCRAWL_MIN_TEXT_CHARS``, …"""
        try:
            min_chars = settings.getint("CORPUSCRAWL_MIN_TEXT_CHARS", 1)
        except ValueError:
            raise ValueError("CORPUSCRAWL_MIN_TEXT_CHARS must be a whole number") from None
        if min_chars < 1:
            raise ValueError("CORPUSCRAWL_MIN_TEXT_CHARS must be >= 1")
        return cls(failed_dir=settings.get("CORPUSCRAWL_FAILED_DIR") or "",
                   min_text_chars=min_chars,
                   languages=tuple(x.lower() for x in settings.getlist("CORPUSCRAWL_LANGUAGES")),
                   language_filter=settings.getbool("CORPUSCRAWL_LANGUAGE_FILTER"))


class ExtractionPipeline:
    """CrawledPage -> Document; failures kept on disk, empties counted, both dropped."""

    def __init__(self, config: PipelineConfig, stats: Any):
        self.config = config
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Any) -> ExtractionPipeline:
        """Build from the crawler's settings and stats."""
        return cls(PipelineConfig.from_settings(crawler.settings), crawler.stats)

    def process_item(self, item: Any) -> Any:
        """Convert a crawled page; other items pass through untouched."""
        if not isinstance(item, CrawledPage):
            return item
        result = item.result
        if not result.ok:
            self.stats.inc_value("corpuscrawl/extraction_errors")
            failed = self.keep_failed(item)
            raise DropItem(f"extraction failed on {item.url}: {result.error}"
                           + (f" (raw HTML kept in {failed.html_path})" if failed.html_path else ""))
        text = result.text.strip()
        if len(text) < self.config.min_text_chars:
            self.stats.inc_value("corpuscrawl/empty_extractions")
            raise DropItem(f"no content extracted from {item.url}", log_level="DEBUG")
        if self.config.language_filter and self.config.languages and \
                result.language not in self.config.languages:
            self.stats.inc_value("corpuscrawl/dropped_language")
            raise DropItem(f"{item.url} is in {result.language or 'an unknown language'}",
                           log_level="DEBUG")
        self.stats.inc_value("corpuscrawl/documents")
        self.stats.inc_value(f"corpuscrawl/extractor/{result.extractor}")
        return Document(
            url=item.url, domain=domain_of(item.url), title=result.title, text=text,
            language=result.language, extractor=result.extractor, fetched_at=item.fetched_at,
            status=item.status, content_hash=content_hash(text), date=result.date,
            author=result.author, depth=item.depth, rendered=item.rendered,
            alternates=dict(item.alternates), unit_index=item.unit[0], unit_kind=item.unit[1],
            render_reason=item.render_reason,
        )

    def keep_failed(self, item: CrawledPage) -> FailedPage:
        """Store the raw HTML of a failed page and a JSON line describing it."""
        failed = FailedPage(url=item.url, status=item.status, error=item.result.error)
        if not self.config.failed_dir:
            return failed
        directory = Path(self.config.failed_dir)
        try:
            directory.mkdir(parents=True, exist_ok=True)
            name = hashlib.sha1(item.url.encode("utf-8")).hexdigest()[:16] + ".html"
            (directory / name).write_text(item.html, encoding="utf-8")
            failed.html_path = str(directory / name)
            with (directory / "failed.jsonl").open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(failed.__dict__, ensure_ascii=False) + "\n")
        except OSError as exc:
            logger.error("cannot keep failed page %s in %s: %s", item.url, directory, exc)
        return failed
