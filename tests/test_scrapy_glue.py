"""The Scrapy glue: one stage per crawl driving every feed alike, stats, settings, probes."""

from __future__ import annotations

import io
import json

import pytest
from scrapy import Request
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from corpuscrawl.boilerplate.normalize import Paragraph
from corpuscrawl.export.scrapy_glue.exporters import (
    FEED_HIDDEN_FIELDS,
    CorpusJsonLinesExporter,
    VerticalExporter,
)
from corpuscrawl.export.scrapy_glue.stage_pipeline import (
    PROBE_META,
    ErrorPageSeeder,
    ExportConfig,
    ExportConfigError,
    ExportStagePipeline,
    existing_state,
)
from corpuscrawl.items import Document
from tests.boilerplate_site import ALL_ARTICLES, NOTICE, error_html


def settings(tmp_path, **extra):
    return {"CORPUSCRAWL_BOILERPLATE_HISTORY": str(tmp_path / "h.sqlite3"),
            "CORPUSCRAWL_BOILERPLATE_WARM_DOCUMENTS": 5,
            "CORPUSCRAWL_BOILERPLATE_PATTERNS": False, **extra}


def documents(n: int) -> list[Document]:
    return [Document(url=f"http://news.example/{a.slug}", domain="news.example", title=a.title,
                     text="\n".join([*a.paragraphs, NOTICE.format(year=a.year)]))
            for a in ALL_ARTICLES[:n]]


def test_two_feeds_write_the_same_cleaned_documents_and_stats_count_once(tmp_path):
    crawler = get_crawler(settings_dict=settings(tmp_path))
    pipeline = ExportStagePipeline.from_crawler(crawler)
    jsonl, vertical = io.BytesIO(), io.BytesIO()
    feeds = [CorpusJsonLinesExporter.from_crawler(crawler, jsonl),
             VerticalExporter.from_crawler(crawler, vertical)]
    for feed in feeds:
        feed.start_exporting()
    items = [*documents(7), Document(url="http://news.example/legal", domain="news.example",
                                     text=NOTICE.format(year=2024)),
             Document(url="http://news.example/copy", domain="news.example",
                      text=documents(1)[0].text)]
    written_before_close = None
    for item in items:
        item = pipeline.process_item(item)  # what Scrapy hands to item_scraped
        for feed in feeds:
            feed.export_item(item)
        if written_before_close is None and jsonl.getvalue():
            written_before_close = len(jsonl.getvalue().splitlines())
    pipeline.close_spider()
    for feed in feeds:
        feed.finish_exporting()
    rows = [json.loads(line) for line in jsonl.getvalue().splitlines()]
    assert written_before_close == 5  # held until the domain had 5 documents
    assert [r["url"] for r in rows] == [d.url for d in documents(7)]
    assert not any("Copyright" in r["text"] for r in rows)
    assert vertical.getvalue().decode().count("<doc ") == 7
    stats = crawler.stats.get_stats()
    assert stats["corpuscrawl/export/exported"] == 7
    assert stats["corpuscrawl/export/dropped_boilerplate"] == 1
    assert stats["corpuscrawl/export/dropped_duplicates"] == 1
    assert stats["corpuscrawl/export/paragraphs_removed"] == 8
    # the outcomes travel on the item, outside its fields: no feed writes them (nor the
    # line roles, which only Markdown and TEI output read)
    assert all(set(r) == set(Document.__dataclass_fields__) - set(FEED_HIDDEN_FIELDS)
               for r in rows)


def test_the_released_documents_travel_on_the_item_and_die_with_it(tmp_path):
    import gc
    import weakref

    crawler = get_crawler(settings_dict=settings(tmp_path, CORPUSCRAWL_BOILERPLATE_ENABLED=False))
    pipeline = ExportStagePipeline.from_crawler(crawler)
    state = existing_state(crawler)
    item = pipeline.process_item(documents(1)[0])
    outcomes = state.released_with(item)
    assert [o.document.url for o in outcomes] == [item.url]
    assert state.released_with(documents(1)[0]) is None  # a document the stage never saw
    gone = weakref.ref(item)
    del item, outcomes
    gc.collect()
    assert gone() is None


def test_exporters_write_items_unchanged_without_the_pipeline(tmp_path):
    crawler = get_crawler(settings_dict=settings(tmp_path))
    assert existing_state(crawler) is None
    out = io.BytesIO()
    feed = CorpusJsonLinesExporter.from_crawler(crawler, out)
    feed.start_exporting()
    feed.export_item(documents(1)[0])
    feed.finish_exporting()
    assert "Copyright" in json.loads(out.getvalue())["text"]


def test_switching_both_stages_off_disables_the_pipeline(tmp_path):
    crawler = get_crawler(settings_dict=settings(
        tmp_path, CORPUSCRAWL_BOILERPLATE_ENABLED=False, CORPUSCRAWL_DEDUP_ENABLED=False))
    with pytest.raises(NotConfigured):
        ExportStagePipeline.from_crawler(crawler)
    with pytest.raises(NotConfigured):
        ErrorPageSeeder.from_crawler(crawler)


@pytest.mark.parametrize("key,value", [
    ("CORPUSCRAWL_BOILERPLATE_MIN_DOCUMENTS", "many"),
    ("CORPUSCRAWL_BOILERPLATE_MIN_FRACTION", "2"),
    ("CORPUSCRAWL_DEDUP_THRESHOLD", "1.0"),
])
def test_bad_settings_are_named(tmp_path, key, value):
    crawler = get_crawler(settings_dict=settings(tmp_path, **{key: value}))
    with pytest.raises(ExportConfigError, match=key):
        ExportConfig.from_settings(crawler.settings)


def test_default_history_lives_in_jobdir(tmp_path):
    crawler = get_crawler(settings_dict={"JOBDIR": str(tmp_path / "job")})
    assert ExportConfig.from_settings(crawler.settings).history == str(
        tmp_path / "job" / "corpuscrawl-history.sqlite3")


def test_error_page_probe_seeds_the_template_once_per_domain(tmp_path):
    crawler = get_crawler(settings_dict=settings(tmp_path))
    seeder = ErrorPageSeeder.from_crawler(crawler)
    scheduled: list[Request] = []

    class Engine:
        def crawl(self, request):
            scheduled.append(request)

    crawler.engine = Engine()
    page = HtmlResponse("http://www.news.example/a", body=b"<p>x</p>")
    assert seeder.process_response(Request(page.url), page) is page
    seeder.process_response(Request(page.url), HtmlResponse("http://news.example/b", body=b""))
    (probe,) = scheduled
    assert probe.url.startswith("http://www.news.example/corpuscrawl-")
    answer = HtmlResponse(probe.url, status=404, body=error_html(True).encode())
    with pytest.raises(IgnoreRequest):
        seeder.process_response(probe, answer)
    history = seeder.state.history
    stats = history.lookup("news.example", [Paragraph.of(NOTICE.format(year=1999)).fingerprint])
    assert next(iter(stats.values())).template
    assert crawler.stats.get_value("corpuscrawl/boilerplate/error_pages_seeded") == 1


def test_a_soft_404_is_not_used(tmp_path):
    crawler = get_crawler(settings_dict=settings(tmp_path))
    seeder = ErrorPageSeeder.from_crawler(crawler)
    probe = Request("http://news.example/corpuscrawl-x", meta={PROBE_META: "news.example"})
    with pytest.raises(IgnoreRequest):
        seeder.process_response(probe, HtmlResponse(probe.url, status=200, body=b"<p>Home</p>"))
    assert seeder.state.history.error_pages("news.example") == 0
