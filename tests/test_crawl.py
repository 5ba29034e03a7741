"""End-to-end ``scrapy crawl corpus`` against the demo site served on 127.0.0.1."""

from __future__ import annotations

import pytest

from corpuscrawl.demo.articles import ARTICLES
from corpuscrawl.demo.server import DemoServer
from corpuscrawl.demo.site import FEED_ONLY, SITEMAP_ONLY
from tests.crawl_helpers import run_crawl, stat

pytestmark = pytest.mark.slow


# session scope: a server no test changes or inspects, one per xdist worker, so the tests
# that use it are not bound to one worker (tests/conftest.py groups module-scoped ones)
@pytest.fixture(scope="session")
def site():
    server = DemoServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def crawl(site, tmp_path_factory):
    out = tmp_path_factory.mktemp("crawl") / "corpus.jsonl"
    docs, log, code = run_crawl(out, f"seeds={site.url}")
    assert code == 0, log[-3000:]
    return docs, log


def by_url(docs):
    return {d["url"].split("/", 3)[-1]: d for d in docs}


def test_every_article_is_found_via_links_sitemap_and_feed(crawl):
    docs = by_url(crawl[0])
    for article in ARTICLES:
        assert f"news/{article.slug}.html" in docs, f"{article.slug} not crawled"
    assert f"news/{SITEMAP_ONLY}.html" in docs and f"news/{FEED_ONLY}.html" in docs
    assert stat(crawl[1], "corpuscrawl/sitemaps") >= 2  # the index and the gzipped urlset
    assert stat(crawl[1], "corpuscrawl/feeds") >= 1


def test_robots_offsite_and_non_html_are_respected(crawl):
    docs, log = crawl
    assert not any("private" in d["url"] for d in docs)
    assert not any("example.org" in d["url"] or d["url"].endswith(".pdf") for d in docs)
    assert stat(log, "robotstxt/forbidden") >= 1
    assert stat(log, "offsite/filtered") >= 1
    assert stat(log, "corpuscrawl/skipped_extension") >= 1


def test_documents_have_all_fields_and_article_text(crawl):
    docs = by_url(crawl[0])
    for article in ARTICLES:
        doc = docs[f"news/{article.slug}.html"]
        assert doc["title"] == article.title
        assert doc["language"] == article.language or (article.language == "hr" and
                                                       doc["language"] in ("hr", "bs", "sr"))
        for paragraph in article.paragraphs:
            assert paragraph in doc["text"]
        assert doc["status"] == 200 and len(doc["content_hash"]) == 40
        assert doc["domain"] == "127.0.0.1" and doc["fetched_at"]
        assert doc["extractor"]
        assert doc["date"] == article.date and doc["author"] == article.author


def test_urls_are_not_fetched_twice(crawl):
    urls = [d["url"] for d in crawl[0]]
    assert len(urls) == len(set(urls))


def test_depth_zero_without_sitemaps_and_feeds_fetches_the_seed_only(site, tmp_path):
    docs, log, code = run_crawl(tmp_path / "c.jsonl", f"seeds={site.url}news/river-cleanup.html",
                                "depth=0", "sitemaps=0", "feeds=0")
    assert code == 0
    assert [d["url"] for d in docs] == [f"{site.url}news/river-cleanup.html"]


def test_feed_given_as_seed_is_followed(site, tmp_path):
    docs, _, code = run_crawl(tmp_path / "f.jsonl", f"seeds={site.url}feed.xml", "depth=0",
                              "sitemaps=0")
    assert code == 0
    assert {d["url"].rsplit("/", 1)[-1] for d in docs} == {
        f"{a.slug}.html" for a in ARTICLES[-3:]}


def test_bad_seeds_give_a_clear_error_and_no_output(tmp_path):
    out = tmp_path / "x.jsonl"
    docs, log, code = run_crawl(out, "seeds=ftp://example.org/file")
    assert code != 0 and "is not an http(s) URL" in log and docs == []
    docs, log, code = run_crawl(out, f"seeds_file={tmp_path / 'missing.txt'}")
    assert code != 0 and "cannot read seeds_file" in log


def test_max_pages_stops_the_crawl(site, tmp_path):
    docs, log, code = run_crawl(tmp_path / "m.jsonl", f"seeds={site.url}", "max_pages=2",
                                settings={"CORPUSCRAWL_BOILERPLATE_ENABLED": "False"})
    assert code == 0 and "max_pages" in log
    assert len(docs) == 2


def test_non_html_content_type_is_skipped(crawl):
    assert not any("download" in d["url"] for d in crawl[0])
    assert stat(crawl[1], "corpuscrawl/skipped_non_html") >= 1


def test_oversized_pages_are_skipped(site, tmp_path):
    docs, log, code = run_crawl(tmp_path / "o.jsonl", f"seeds={site.url}news/river-cleanup.html",
                                "depth=0", "sitemaps=0", "feeds=0",
                                settings={"DOWNLOAD_MAXSIZE": "2000"})
    assert code == 3 and docs == []  # the only seed was skipped: nothing could be fetched
    assert "larger than download max size" in log


def test_focus_fetches_keyword_pages_first(site, tmp_path):
    docs, _, code = run_crawl(tmp_path / "k.jsonl", f"seeds={site.url}", "keywords=orchard,apple",
                              settings={"CONCURRENT_REQUESTS": "1",
                                        "CORPUSCRAWL_BOILERPLATE_ENABLED": "False"})
    assert code == 0
    articles = [d["url"] for d in docs if "/news/" in d["url"]]
    assert articles[0].endswith("orchard-festival.html"), articles


def test_split_coherent_writes_each_teaser_as_its_own_document(site, tmp_path):
    docs, _, code = run_crawl(tmp_path / "u.jsonl", f"seeds={site.url}", "depth=0",
                              "sitemaps=0", "feeds=0",
                              settings={"CORPUSCRAWL_SPLIT_COHERENT": "True",
                                        "CORPUSCRAWL_BOILERPLATE_ENABLED": "False"})
    assert code == 0
    front = [d for d in docs if d["url"] == site.url]
    assert len(front) >= 4  # one unit per teaser of the front page
    assert [d["unit_index"] for d in front] == list(range(len(front)))
    assert {d["unit_kind"] for d in front} <= {"body", "teaser", "text"}
    teasers = [d["text"] for d in front if ARTICLES[0].title in d["text"]]
    assert len(teasers) == 1 and ARTICLES[1].title not in teasers[0]


@pytest.mark.parametrize("obey", ["True", "False"])
def test_robots_txt_is_fetched_once_and_its_sitemaps_followed(tmp_path, obey):
    # Obeying robots.txt, Scrapy's middleware fetches it and the spider reads its Sitemap:
    # lines from there; not obeying, the spider fetches it itself.  Once per host either way.
    server = DemoServer().start()
    try:
        docs, log, code = run_crawl(tmp_path / "r.jsonl", f"seeds={server.url}", "feeds=0",
                                    settings={"ROBOTSTXT_OBEY": obey})
    finally:
        server.stop()
    assert code == 0, log[-3000:]
    assert server.requested["/robots.txt"] == 1
    assert server.requested["/sitemap_index.xml"] == 1  # listed only in robots.txt
    assert stat(log, "corpuscrawl/sitemaps_from_robots") == 1
    assert any(d["url"].endswith(f"news/{SITEMAP_ONLY}.html") for d in docs)
    # the private page (7 words: fetched or not, never a document of 15 words or more)
    assert (server.requested["/private/drafts.html"] > 0) == (obey == "False")
    assert not any("private" in d["url"] for d in docs)
