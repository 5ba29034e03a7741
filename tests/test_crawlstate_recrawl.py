"""The recrawl components one by one: conditional requests, 304s, gone pages, the change filter."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from scrapy import Request, Spider
from scrapy.exceptions import DropItem
from scrapy.http import HtmlResponse, Response
from scrapy.utils.test import get_crawler

from corpuscrawl.crawlstate.pages import open_page_store
from corpuscrawl.crawlstate.scrapy_glue import recrawl
from corpuscrawl.crawlstate.scrapy_glue.conditional import ConditionalRequests, FoundOn
from corpuscrawl.crawlstate.scrapy_glue.recrawl import (
    ChangeFilter,
    NotModified,
    RecrawlConfig,
    RecrawlConfigError,
    RecrawlState,
)
from corpuscrawl.items import Document, content_hash

ARTICLE = "http://site.test/news/1.html"
SECTION = "http://site.test/section/1.html"


@pytest.fixture
def state(tmp_path: Path) -> RecrawlState:
    crawler = get_crawler(Spider, {})
    store = open_page_store(tmp_path)
    store.record_text(ARTICLE, "h1", 1, 200, '"e1"', "Tue, 01 Jan 2030 00:00:00 GMT", words=300)
    store.record_text(SECTION, "h2", 1, 200, '"e2"', "", words=40)
    store.credit(SECTION, 1, 20)  # led to 20 documents with 40 words of its own: a hub
    made = RecrawlState(crawler, RecrawlConfig(), store, generation=2, resumed=False)
    yield made
    made.close()


def _stat(state: RecrawlState, key: str) -> int:
    return state.crawler.stats.get_value(f"corpuscrawl/recrawl/{key}", 0)


def test_known_pages_are_asked_conditionally_hubs_and_seeds_not(state: RecrawlState) -> None:
    middleware = ConditionalRequests(state)
    article = Request(ARTICLE)
    asyncio.run(middleware.process_request(article))
    assert article.headers[b"If-None-Match"] == b'"e1"'
    assert article.headers[b"If-Modified-Since"] == b"Tue, 01 Jan 2030 00:00:00 GMT"
    for request in (Request(SECTION), Request(ARTICLE, meta={"corpuscrawl_seed": True}),
                    Request(ARTICLE, meta={"playwright": True}), Request("http://site.test/new")):
        asyncio.run(middleware.process_request(request))
        assert b"If-None-Match" not in request.headers, request
    assert _stat(state, "conditional") == 2  # the article, and a probe for the rendered one


class _Engine:
    """Answers the probes of rendered pages with a fixed status."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.asked: list[Request] = []

    async def download_async(self, request: Request) -> Response:
        self.asked.append(request)
        return Response(request.url, status=self.status, request=request)


def test_a_known_page_to_render_is_asked_plainly_first(state: RecrawlState) -> None:
    middleware = ConditionalRequests(state)
    state.crawler.engine = _Engine(304)
    rendered = Request(ARTICLE, meta={"playwright": True})
    with pytest.raises(NotModified):  # unchanged: no browser, no rendering
        asyncio.run(middleware.process_request(rendered))
    probe = state.crawler.engine.asked[0]
    assert probe.headers[b"If-None-Match"] == b'"e1"' and "playwright" not in probe.meta
    assert _stat(state, "not_modified") == 1
    state.crawler.engine = _Engine(200)
    asyncio.run(middleware.process_request(rendered))  # changed: rendered as usual
    assert b"If-None-Match" not in rendered.headers  # the browser asks in full


def test_full_mode_asks_nothing_conditionally(state: RecrawlState) -> None:
    full = RecrawlState(state.crawler, RecrawlConfig(mode="full"), state.store, 2, False)
    request = Request(ARTICLE)
    asyncio.run(ConditionalRequests(full).process_request(request))
    assert b"If-None-Match" not in request.headers


def test_a_304_ends_the_request_and_counts(state: RecrawlState) -> None:
    middleware = ConditionalRequests(state)
    request = Request(ARTICLE)
    asyncio.run(middleware.process_request(request))
    with pytest.raises(NotModified):
        middleware.process_response(request, Response(ARTICLE, status=304, request=request))
    assert _stat(state, "not_modified") == 1
    assert state.store.get(ARTICLE).last_seen == 2


def test_a_redirected_copy_is_judged_for_its_own_url(state: RecrawlState) -> None:
    middleware = ConditionalRequests(state)
    request = Request(ARTICLE)
    asyncio.run(middleware.process_request(request))
    moved = request.replace(url="https://site.test/news/1.html")  # what RedirectMiddleware does
    asyncio.run(middleware.process_request(moved))
    assert b"If-None-Match" not in moved.headers and b"If-Modified-Since" not in moved.headers
    # a 304 to it (the server ignored the missing validators) is not taken as "unchanged"
    response = Response(moved.url, status=304, request=moved)
    assert middleware.process_response(moved, response) is response


def test_a_known_page_answering_404_or_410_is_gone_once(state: RecrawlState) -> None:
    middleware = ConditionalRequests(state)
    for status in (410, 404):
        request = Request(ARTICLE)
        middleware.process_response(request, Response(ARTICLE, status=status, request=request))
    unknown = Request("http://site.test/never-seen")
    middleware.process_response(unknown, Response(unknown.url, status=404, request=unknown))
    assert _stat(state, "gone") == 1
    assert state.store.get(ARTICLE).gone
    assert state.store.get("http://site.test/never-seen") is None


def _doc(url: str, text: str) -> Document:
    return Document(url=url, text=text, status=200)


def test_change_filter_passes_new_and_changed_and_stores_after_release(
        state: RecrawlState) -> None:
    pipeline, middleware = ChangeFilter(state), ConditionalRequests(state)
    url = "http://site.test/news/2.html"
    request = Request(url, meta={"corpuscrawl_found_on": SECTION})
    middleware.process_response(request, HtmlResponse(
        url, status=200, request=request, body=b"<p>x</p>",
        headers={"ETag": '"v1"', "Content-Type": "text/html"}))
    doc = pipeline.process_item(_doc(url, "first text"))
    assert doc.change == "new"
    assert state.store.get(url) is None  # not released yet: nothing stored
    state._item_scraped(doc)  # released (no export stage: the item itself)
    stored = state.store.get(url)
    assert stored.etag == '"v1"' and stored.words == 2
    assert state.store.get(SECTION).children == 21  # credited to the page it was found on
    later = ChangeFilter(RecrawlState(state.crawler, RecrawlConfig(), state.store, 3, False))
    with pytest.raises(DropItem):
        later.process_item(_doc(url, "first text"))
    changed = later.process_item(_doc(url, "second text"))
    assert changed.change == "changed"
    assert (_stat(state, "new"), _stat(state, "unchanged"), _stat(state, "changed")) == (1, 1, 1)


def test_a_document_dropped_later_is_stored(state: RecrawlState) -> None:
    """E.g. by the export ledger: a killed run of this generation exported it already."""
    url = "http://site.test/news/3.html"
    doc = ChangeFilter(state).process_item(_doc(url, "text"))
    state._item_dropped(doc)
    assert state.store.get(url).text_hash == content_hash("text")


def test_bad_settings_name_the_key(tmp_path: Path) -> None:
    crawler = get_crawler(Spider, {"CORPUSCRAWL_RECRAWL_HUB_MIN_DOCUMENTS": "many"})
    with pytest.raises(RecrawlConfigError, match="CORPUSCRAWL_RECRAWL_HUB_MIN_DOCUMENTS"):
        RecrawlConfig.from_crawler(crawler)
    crawler = get_crawler(Spider, {"CORPUSCRAWL_RECRAWL": "sometimes"})
    with pytest.raises(RecrawlConfigError, match="CORPUSCRAWL_RECRAWL"):
        RecrawlConfig.from_crawler(crawler)


def test_a_resumed_generation_decides_as_the_killed_run_did(state: RecrawlState) -> None:
    """The killed run stored the new hash, but its document may never have been written."""
    killed = ChangeFilter(state)
    doc = killed.process_item(_doc(ARTICLE, "edited text"))
    assert doc.change == "changed"
    state._item_scraped(doc)  # stored ... then the kill, before the feed was made durable
    resumed_state = RecrawlState(state.crawler, RecrawlConfig(), state.store, 2, True)
    request = Request(ARTICLE)
    asyncio.run(ConditionalRequests(resumed_state).process_request(request))
    assert b"If-None-Match" not in request.headers  # a 304 would hide it: fetched in full
    again = ChangeFilter(resumed_state).process_item(_doc(ARTICLE, "edited text"))
    assert again.change == "changed"  # exported again; the export ledger drops a double


def test_a_page_that_moved_permanently_is_compared_with_its_old_address(
        state: RecrawlState) -> None:
    old, new = "http://site.test/news/7.html", "https://site.test/news/7.html"
    state.store.record_text(old, content_hash("the same story"), 1, 200, '"e7"')
    later = RecrawlState(state.crawler, RecrawlConfig(), state.store, 3, False)
    middleware, pipeline = ConditionalRequests(later), ChangeFilter(later)
    moved = Request(new, meta={"redirect_urls": [old], "redirect_reasons": [301]})
    middleware.process_response(moved, HtmlResponse(new, status=200, request=moved,
                                                    body=b"<p>x</p>", headers={"ETag": '"n7"'}))
    with pytest.raises(DropItem):  # not re-exported as a "new" document
        pipeline.process_item(_doc(new, "the same story"))
    assert state.store.get(old).gone  # retired: no longer re-queued
    assert state.store.get(new).etag == '"n7"'
    assert _stat(later, "moved") == 1 and _stat(later, "unchanged") == 1
    # a temporary redirect keeps both addresses apart
    temporary = Request("https://site.test/news/8.html",
                        meta={"redirect_urls": ["http://site.test/news/8.html"],
                              "redirect_reasons": [302]})
    middleware.process_response(temporary, HtmlResponse(temporary.url, status=200,
                                                         request=temporary, body=b"<p>x</p>"))
    assert pipeline.process_item(_doc(temporary.url, "another story")).change == "new"


def test_a_bad_page_store_class_names_the_setting(tmp_path: Path) -> None:
    for value in ("corpuscrawl.nothing.Here", "corpuscrawl.items.Document"):
        crawler = get_crawler(Spider, {"CORPUSCRAWL_PAGE_STORE_CLASS": value,
                                       "CORPUSCRAWL_STATE_DIR": str(tmp_path),
                                       "CORPUSCRAWL_COLLECTION": "c"})
        with pytest.raises(RecrawlConfigError, match="CORPUSCRAWL_PAGE_STORE_CLASS"):
            RecrawlState.from_crawler(crawler, RecrawlConfig())


def test_found_on_tags_page_links_and_remembers_feeds_that_listed_pages(
        state: RecrawlState) -> None:
    middleware = FoundOn(state)
    page = HtmlResponse(SECTION, body=b"<a href='/x'>x</a>", headers={"Content-Type": "text/html"})
    out = list(middleware.process_spider_output(page, [Request("http://site.test/x"), {"a": 1}]))
    assert out[0].meta["corpuscrawl_found_on"] == SECTION and out[1] == {"a": 1}
    feed_url = "http://site.test/feed.xml"
    feed = Response(feed_url, body=b"<rss/>", headers={"Content-Type": "application/rss+xml"})
    out = list(middleware.process_spider_output(feed, [Request(ARTICLE), Request(SECTION)]))
    assert "corpuscrawl_found_on" not in out[0].meta  # a feed is no hub
    assert state.store.get(feed_url).source
    robots = Response("http://site.test/robots.txt", headers={"Content-Type": "text/plain"})
    list(middleware.process_spider_output(robots, [Request(feed_url)]))
    assert state.store.get("http://site.test/robots.txt") is None
    crawler = state.crawler
    recrawl._STATES[crawler] = RecrawlState(crawler, RecrawlConfig(), state.store, 3, False)
    assert list(recrawl.revisit(crawler)) == [(feed_url, "source"), (SECTION, "hub"),
                                              (ARTICLE, "page")]
