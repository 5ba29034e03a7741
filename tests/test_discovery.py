"""Sitemaps (plain, index, gzipped), robots.txt sitemap lines, RSS and Atom feeds."""

import gzip

from corpuscrawl.html.page import Page
from corpuscrawl.spiders.discovery import (
    feed_links,
    page_links,
    parse_feed,
    parse_sitemap,
    sitemaps_from_robots,
)

URLSET = b"""<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>http://a.com/1.html</loc></url><url><loc> /2.html </loc></url></urlset>"""
INDEX = b"""<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>http://a.com/s1.xml.gz</loc></sitemap></sitemapindex>"""


def test_urlset_and_relative_locations():
    entries = parse_sitemap(URLSET, "http://a.com/sitemap.xml")
    assert entries.pages == ["http://a.com/1.html", "http://a.com/2.html"]
    assert entries.sitemaps == []


def test_sitemap_index_and_gzip():
    entries = parse_sitemap(gzip.compress(INDEX), "http://a.com/")
    assert entries.sitemaps == ["http://a.com/s1.xml.gz"] and entries.pages == []


def test_not_a_sitemap():
    assert parse_sitemap(b"<html><body>404</body></html>") is None
    assert parse_sitemap(b"\x1f\x8b broken gzip") is None


def test_robots_sitemap_lines():
    text = "User-agent: *\nDisallow: /x\nSITEMAP: /a.xml\nSitemap: http://b.com/b.xml\n"
    assert sitemaps_from_robots(text, "http://a.com/robots.txt") == \
        ["http://a.com/a.xml", "http://b.com/b.xml"]


def test_rss_rdf_and_atom_feeds():
    rss = b"<rss><channel><item><link>http://a.com/1</link></item><item><guid>http://a.com/2</guid></item></channel></rss>"
    atom = (b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="alternate" href="/e1"/>'
            b'<link rel="enclosure" href="/e1.mp3"/></entry></feed>')
    assert parse_feed(rss, "http://a.com/") == ["http://a.com/1", "http://a.com/2"]
    assert parse_feed(atom, "http://a.com/feed") == ["http://a.com/e1"]
    assert parse_feed(URLSET) is None


def test_page_links_and_feed_alternates():
    page = Page.from_html(
        '<html><head><base href="http://a.com/dir/"><link rel="alternate" '
        'type="application/atom+xml" href="/atom.xml"></head><body><a href="x.html">X  y</a>'
        '<a href="#top">top</a><a href="mailto:a@a.com">m</a><a rel="nofollow" href="/n">n</a>'
        '</body></html>', url="http://a.com/page")
    links = list(page_links(page))
    # same-page fragments are left out; mailto: is passed on for the crawler to count and skip
    assert [(link.url, link.text) for link in links] == [("http://a.com/dir/x.html", "X y"),
                                                         ("mailto:a@a.com", "m"),
                                                         ("http://a.com/n", "n")]
    assert links[2].nofollow
    assert feed_links(page) == ["http://a.com/atom.xml"]


def test_page_links_never_raise_and_keep_the_links_after_a_broken_one():
    page = Page.from_html(
        '<a href="http://[::1">broken</a><a href="http://[::1]:8080/x">v6</a>'
        '<a href="javascript:go()">js</a><a href="b.html">good</a>', url="http://a.com/")
    assert [link.url for link in page_links(page)] == [
        "http://[::1", "http://[::1]:8080/x", "javascript:go()", "http://a.com/b.html"]


def test_a_gzip_bomb_sitemap_is_refused_in_bounded_time():
    import time

    import pytest

    from corpuscrawl.spiders.discovery import SitemapTooLarge

    head = b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    bomb = gzip.compress(head + b" " * (60 << 20) + b"</urlset>", compresslevel=1)
    start = time.perf_counter()
    with pytest.raises(SitemapTooLarge):
        parse_sitemap(bomb, "http://a.com/")
    with pytest.raises(SitemapTooLarge):
        parse_sitemap(gzip.compress(head + b"</urlset>"), max_size=10)
    assert time.perf_counter() - start < 10
    assert parse_sitemap(gzip.compress(head + b"</urlset>")).pages == []


def test_a_malformed_sitemap_loc_does_not_lose_the_other_entries() -> None:
    from corpuscrawl.spiders.discovery import parse_sitemap

    body = (b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            b"<url><loc>http://[::1</loc></url><url><loc>/good.html</loc></url></urlset>")
    entries = parse_sitemap(body, "http://example.com/sitemap.xml")
    assert entries is not None
    assert "http://example.com/good.html" in entries.pages
