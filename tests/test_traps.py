"""Link traps and link floods (corpuscrawl.spiders.traps)."""

from __future__ import annotations

from collections import Counter

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse, XmlResponse

from corpuscrawl.spiders.traps import (
    RUN_META,
    LinkTrapMiddleware,
    TrapConfig,
    trap_rule,
    url_pattern,
)


class Stats(Counter):
    def inc_value(self, key, count=1):
        self[key] += count


def response(url: str, run: int = 0, cls=HtmlResponse):
    request = Request(url, meta={RUN_META: run})
    return cls(url=url, body=b"<html></html>", request=request)


def test_url_pattern_masks_numbers_and_ignores_query_values():
    assert url_pattern("http://a.com/cal/2024/05?month=5&y=1") == "a.com/cal/#/#?month&y"
    assert url_pattern("http://a.com/cal?month=6") == url_pattern("http://a.com/cal?month=7")
    assert url_pattern("http://a.com/article/1") != url_pattern("http://a.com/list?page=1")


def test_rules_on_a_single_url():
    config = TrapConfig()
    assert trap_rule("http://a.com/" + "x" * 3000, config) == "url_too_long"
    assert trap_rule("http://a.com/a/b/a/b/a/b/a/b/", config) == "path_repeats"
    assert trap_rule("http://a.com/" + "/".join(str(i) for i in range(40)), config) == \
        "path_segments"
    assert trap_rule("http://a.com/news/2024/05/05/story", config) == ""


def test_a_calendar_chain_stops_after_max_run_hops():
    stats = Stats()
    mw = LinkTrapMiddleware(TrapConfig(max_run=3), stats)
    run, month = 0, 1
    while True:
        out = list(mw.process_spider_output(
            response(f"http://a.com/cal?month={month}", run),
            [Request(f"http://a.com/cal?month={month + 1}"), Request("http://a.com/article/9")]))
        if len(out) == 1:
            break
        run, month = out[0].meta[RUN_META], month + 1
        assert out[1].meta[RUN_META] == 0  # another pattern starts a new run
    assert month == 4 and stats["corpuscrawl/trap/pattern_run"] == 1


def test_a_link_flood_keeps_the_most_relevant_links_of_html_pages_only():
    stats = Stats()
    mw = LinkTrapMiddleware(TrapConfig(max_links=10), stats)
    requests = [Request(f"http://a.com/p/{i}", priority=i % 50) for i in range(100)]
    items = [{"item": 1}]
    out = list(mw.process_spider_output(response("http://a.com/"), items + requests))
    assert out[0] == {"item": 1} and len(out) == 11
    assert sorted(r.priority for r in out[1:]) == sorted([45, 46, 47, 48, 49] * 2)
    assert stats["corpuscrawl/links/over_page_cap"] == 90
    sitemap = response("http://a.com/sitemap.xml", cls=XmlResponse)
    assert len(list(mw.process_spider_output(sitemap, requests))) == 100


@pytest.mark.parametrize("key", ["CORPUSCRAWL_TRAP_MAX_RUN", "CORPUSCRAWL_MAX_LINKS_PER_PAGE"])
def test_bad_settings_name_the_key(key):
    with pytest.raises(ValueError, match=key):
        TrapConfig.from_settings({key: "many"})
