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
    assert stat(log, "corpuscrawl/offsite") >= 2  # ::1 and the IDN host are valid, only offsite
