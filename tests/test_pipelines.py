"""ExtractionPipeline: documents, empties counted, failures kept on disk."""

import json
from collections import Counter

import pytest
from scrapy.exceptions import DropItem

from corpuscrawl.export.scrapy_glue.pipelines import ExtractionPipeline, PipelineConfig
from corpuscrawl.items import Document, content_hash
from corpuscrawl.pagetext.crawled import CrawledPage
from corpuscrawl.pagetext.extraction import ExtractionResult


class Stats(Counter):
    def inc_value(self, key, count=1):
        self[key] += count


def crawled(text="", error="", language="en"):
    result = ExtractionResult(text=text, extractor="bte", title="T", language=language,
                              error=error)
    return CrawledPage(url="http://a.com/x", status=200, html="<html>raw</html>", result=result,
                       fetched_at="2026-01-01T00:00:00+00:00")


def test_a_crawled_page_becomes_a_document():
    stats = Stats()
    doc = ExtractionPipeline(PipelineConfig(), stats).process_item(crawled("Body text.\nMore."))
    assert isinstance(doc, Document)
    assert (doc.domain, doc.text, doc.content_hash) == ("a.com", "Body text.\nMore.",
                                                       content_hash("Body text.\nMore."))
    assert stats["corpuscrawl/documents"] == 1 and stats["corpuscrawl/extractor/bte"] == 1


def test_empty_extraction_is_counted_and_not_written():
    stats = Stats()
    with pytest.raises(DropItem):
        ExtractionPipeline(PipelineConfig(), stats).process_item(crawled("   "))
    assert stats["corpuscrawl/empty_extractions"] == 1


def test_failed_extraction_keeps_the_raw_html(tmp_path):
    stats = Stats()
    pipeline = ExtractionPipeline(PipelineConfig(failed_dir=str(tmp_path / "failed")), stats)
    with pytest.raises(DropItem, match="raw HTML kept in"):
        pipeline.process_item(crawled(error="RuntimeError: boom"))
    record = json.loads((tmp_path / "failed" / "failed.jsonl").read_text())
    assert record["url"] == "http://a.com/x" and "boom" in record["error"]
    assert (tmp_path / "failed" / record["html_path"].rsplit("/", 1)[-1]).read_text() == \
        "<html>raw</html>"
    assert stats["corpuscrawl/extraction_errors"] == 1


def test_language_filter_drops_other_languages():
    stats = Stats()
    pipeline = ExtractionPipeline(PipelineConfig(languages=("hr",), language_filter=True), stats)
    with pytest.raises(DropItem):
        pipeline.process_item(crawled("Some English text here.", language="en"))
    assert pipeline.process_item(crawled("Neki hrvatski tekst.", language="hr")).language == "hr"
    assert stats["corpuscrawl/dropped_language"] == 1


def test_other_items_pass_through():
    assert ExtractionPipeline(PipelineConfig(), Stats()).process_item({"a": 1}) == {"a": 1}


def test_failed_store_stops_at_its_size_cap(tmp_path):
    stats = Stats()
    pipeline = ExtractionPipeline(PipelineConfig(failed_dir=str(tmp_path / "f"),
                                                 failed_max_bytes=5000), stats)
    for i in range(5):
        item = crawled(error="ExtractionTimeout: over 20 s")
        item.url, item.html = f"http://a.com/{i}", "<p>" + "x" * 1500 + "</p>"
        with pytest.raises(DropItem):
            pipeline.process_item(item)
    assert stats["corpuscrawl/failed_store/pages"] == 2
    assert stats["corpuscrawl/failed_store/full"] == 3
    assert stats["corpuscrawl/extraction/ExtractionTimeout"] == 5
    assert sum(f.stat().st_size for f in (tmp_path / "f").iterdir()) <= 5000


def test_binary_pages_are_dropped_and_page_notes_counted():
    stats = Stats()
    item = crawled()
    item.result.skipped, item.result.notes = "binary", ("binary",)
    with pytest.raises(DropItem, match="not text"):
        ExtractionPipeline(PipelineConfig(), stats).process_item(item)
    assert stats["corpuscrawl/dropped/binary"] == 1 and stats["corpuscrawl/page/binary"] == 1
    item = crawled("Text.")
    item.result.notes = ("parse_reparsed", "charset_label_ignored")
    ExtractionPipeline(PipelineConfig(), stats).process_item(item)
    assert stats["corpuscrawl/page/parse_reparsed"] == 1


def test_a_listing_is_dropped_with_its_reason_unless_listings_are_kept():
    stats = Stats()
    item = crawled("Ferry timetable approved\nThe council voted on Tuesday.")
    item.result.listing = "4 linked items of other pages, teasers of 12 words on average"
    with pytest.raises(DropItem, match="is a listing"):
        ExtractionPipeline(PipelineConfig(), stats).process_item(item)
    assert stats["corpuscrawl/documents"] == 0
    kept = ExtractionPipeline(PipelineConfig(drop_listings=False), stats).process_item(item)
    assert isinstance(kept, Document) and stats["corpuscrawl/documents"] == 1
    empty = crawled("")
    empty.result.listing = "5 linked items of other pages"
    with pytest.raises(DropItem, match="is a listing"):  # a listing, not an empty page
        ExtractionPipeline(PipelineConfig(), Stats()).process_item(empty)
