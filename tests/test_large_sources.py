"""Sitemaps and feeds of any size: read as a stream, capped per source, counted."""

from __future__ import annotations

import gzip
import json
import random

from corpuscrawl.spiders.discovery import SitemapTooLarge, SourceReader, parse_feed
from tests.crawl_helpers import run_crawl, stat
from tests.crawl_probes import FEED_URLS_AT_FIRST_PAGE
from tests.local_server import LocalServer, Reply, article

ITEMS = 50_000
ARTICLES = 20
CAP = 40_000


def distinct_article(n: int) -> str:
    """An article whose words differ from every other one's (no near-duplicates)."""
    rng = random.Random(n)
    words = ["river", "town", "bridge", "market", "harbour", "winter", "council", "school",
             "garden", "railway", "festival", "library", "mill", "chapel", "ferry", "orchard"]
    text = " ".join(" ".join(rng.choice(words) for _ in range(12)) + "." for _ in range(15))
    return (f"<html><head><title>Listed article {n}</title></head><body><article>"
            f"<h1>Listed article {n}</h1><p>{text}</p></article></body></html>")


def rss(urls: list[str]) -> bytes:
    """An RSS 2.0 feed whose items link to ``urls``."""
    items = "".join(f"<item><title>t{i}</title><link>{u}</link></item>" for i, u in enumerate(urls))
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>f</title>{items}' \
           f"</channel></rss>".encode()


def test_entries_come_before_the_source_is_read_to_its_end() -> None:
    head = b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    entry = b"<url><loc>http://a.com/1.html</loc></url>"
    bomb = gzip.compress(head + entry + b" " * (60 << 20) + b"</urlset>", compresslevel=1)
    reader = SourceReader(bomb, "http://a.com/")
    entries = iter(reader)
    assert next(entries) == ("page", "http://a.com/1.html")
    assert reader.kind == "sitemap"
    try:
        next(entries)
    except SitemapTooLarge:
        pass
    else:
        raise AssertionError("a 60 MB source must stop at the 50 MB cap")


def test_entries_of_a_large_feed_are_freed_as_they_are_read() -> None:
    body = gzip.compress(rss([f"http://a.com/{i}" for i in range(ITEMS)]))
    reader = SourceReader(body, "http://a.com/")
    urls = [url for _, url in reader]
    assert len(urls) == ITEMS and urls[-1] == f"http://a.com/{ITEMS - 1}"
    assert parse_feed(body)[:2] == ["http://a.com/0", "http://a.com/1"]


def test_a_huge_gzipped_feed_named_in_robots_txt_streams_and_is_capped(tmp_path) -> None:
    with LocalServer({}) as server:
        pages = [f"{server.url}a/{i}.html" for i in range(ARTICLES)]
        # the feed lists its pages again and again: the duplicate filter drops the repeats
        feed = gzip.compress(rss([pages[i % ARTICLES] for i in range(ITEMS)]))
        server.routes.update({
            "/robots.txt": Reply(f"User-agent: *\nAllow: /\nSitemap: {server.url}feed.xml.gz\n",
                                 content_type="text/plain"),
            "/": Reply(article("Home page of the site", [], words=40)),
            "/feed.xml.gz": Reply(feed, content_type="application/gzip"),
            **{f"/a/{i}.html": Reply(distinct_article(i))
               for i in range(ARTICLES)},
        })
        # the add-on installs its own extensions beside the ones named here
        extensions = {"tests.crawl_probes.FirstListedPageProbe": 500}
        docs, log, code = run_crawl(
            tmp_path / "out.jsonl", f"seeds={server.url}",
            settings={"CORPUSCRAWL_MAX_URLS_PER_SOURCE": str(CAP),
                      "EXTENSIONS": json.dumps(extensions)}, timeout=300)
        requested = server.paths()
    assert code == 0, log[-3000:]
    assert "Traceback" not in log, log[-3000:]
    # the source is read up to the cap, counted, and each listed page fetched once
    assert stat(log, "corpuscrawl/feeds") == 1
    assert stat(log, "corpuscrawl/sources/capped") == 1
    assert stat(log, "corpuscrawl/urls_from_feeds") == CAP
    assert sorted(p for p in requested if p.startswith("/a/")) == \
        sorted(f"/a/{i}.html" for i in range(ARTICLES))
    assert len([d for d in docs if "/a/" in d["url"]]) == ARTICLES
    # streamed: the first listed page was fetched while the feed was still being read
    first = stat(log, FEED_URLS_AT_FIRST_PAGE)
    assert 0 < first < CAP, first
    summary = json.loads((tmp_path / "out.jsonl.summary.json").read_text())
    assert summary["sources"] == {"sitemaps": 0, "feeds": 1, "urls": CAP, "capped": 1}
