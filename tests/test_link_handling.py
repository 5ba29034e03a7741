"""A real crawl: a page whose first links are unusable still has its good links followed."""

from __future__ import annotations

from html import escape

import pytest

from tests.crawl_helpers import run_crawl, stat
from tests.local_server import LocalServer, Reply, article

pytestmark = pytest.mark.slow

BAD_HREFS = [
    "http://[::1]:8080/x", "http://[::1", "http://a.com:99999/", "http://a.com:x/",
    "javascript:alert(1)", "data:text/html,<b>x</b>", "mailto:someone@example.org",
    "http://a\x01b.com/", "http://" + "x" * 100_000 + ".com/", "/" + "y" * 100_000,
    "http://0x1ff.1/", "http://пример.испытание/путь", "tel:+3851234567",
]


def test_bad_links_before_good_ones_do_not_lose_the_page_links(tmp_path):
    hrefs = [*BAD_HREFS, "/good-1.html", "good-2.html"]
    anchors = "".join(f'<p><a href="{escape(h)}">link {i}</a></p>' for i, h in enumerate(hrefs))
    home = article("Home page").replace("</body>", anchors + "</body>")
    routes = {"/": Reply(home), "/good-1.html": Reply(article("Good one")),
              "/good-2.html": Reply(article("Good two"))}
    with LocalServer(routes) as server:
        docs, log, code = run_crawl(tmp_path / "out.jsonl", f"seeds={server.url}", "sitemaps=0",
                                    "feeds=0", "depth=1")
    assert code == 0, log[-3000:]
    assert {d["url"] for d in docs} == {server.url, server.url + "good-1.html",
                                        server.url + "good-2.html"}
    assert "spider_exceptions" not in log and "Traceback" not in log
    assert stat(log, "corpuscrawl/links_skipped/scheme") == 4
    assert stat(log, "corpuscrawl/links_skipped/bad_port") == 2
    assert stat(log, "corpuscrawl/links_skipped/too_long") == 2
    assert stat(log, "corpuscrawl/links_skipped/bad_host") >= 2
    assert stat(log, "offsite/filtered") >= 2  # ::1 and the IDN host are valid, only offsite


def _spider(**args):
    from scrapy.crawler import Crawler
    from scrapy.settings import Settings
    from scrapy.statscollectors import MemoryStatsCollector

    from corpuscrawl.spiders.corpus import CorpusSpider

    settings = Settings()
    settings.setmodule("corpuscrawl.settings", priority="project")
    crawler = Crawler(CorpusSpider, settings)
    spider = CorpusSpider.from_crawler(crawler, **args)
    crawler.stats = MemoryStatsCollector(crawler)
    return spider


def test_offsite_is_left_to_scrapy_with_the_seeds_domains():
    spider = _spider(seeds="http://www.example.com/,https://пример.испытание/",
                     domains="Example.ORG")
    assert spider.allowed_domains == ["example.com", "example.org", "xn--e1afmkfd.xn--80akhbyknj4f"]
    assert _spider(seeds="http://www.example.com/", any_domain="1").allowed_domains == []
    request = spider.follow("http://elsewhere.net/page.html", 1)
    assert request is not None and not request.meta.get("allow_offsite")


def test_links_that_may_leave_the_site_pass_the_same_filters():
    spider = _spider(seeds="http://www.example.com/")
    outer = spider.follow("http://elsewhere.net/a.html?utm_source=x", 1, allow_offsite=True)
    assert outer is not None and outer.meta["allow_offsite"]
    assert outer.url == "http://elsewhere.net/a.html"
    assert spider.follow("http://elsewhere.net/report.pdf", 1, allow_offsite=True) is None
    assert spider.follow("javascript:void(0)", 1, allow_offsite=True) is None
    stats = spider.crawler.stats
    assert stats.get_value("corpuscrawl/skipped_extension") == 1
    assert stats.get_value("corpuscrawl/links_skipped/scheme") == 1
