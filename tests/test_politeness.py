"""Polite crawling: Crawl-delay, Retry-After, the User-Agent, the relaxed local demo."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from scrapy.crawler import Crawler
from scrapy.settings import Settings

import corpuscrawl
from corpuscrawl.net.scrapy_glue.politeness import (
    PolitenessConfig,
    PolitenessConfigError,
    retry_after_seconds,
    user_agent,
)
from tests.crawl_helpers import run_crawl, stat
from tests.local_server import LocalServer, Reply, article


def test_retry_after_in_seconds_and_as_an_http_date():
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert retry_after_seconds(b"120") == 120
    assert retry_after_seconds(format_datetime(now + timedelta(seconds=30), usegmt=True),
                               now) == 30
    assert retry_after_seconds("Thu, 01 Jan 2015 00:00:00 GMT", now) == 0  # in the past
    assert retry_after_seconds(b"soon") is None and retry_after_seconds(None) is None
    assert retry_after_seconds("-5") is None


def test_user_agent_names_tool_version_and_contact():
    assert user_agent("https://lab.example/crawler") == \
        f"corpuscrawl/{corpuscrawl.__version__} (+https://lab.example/crawler)"
    assert user_agent() == f"corpuscrawl/{corpuscrawl.__version__}"


@pytest.mark.parametrize(("key", "value"), [("CORPUSCRAWL_MAX_RETRY_AFTER", "-1"),
                                            ("CORPUSCRAWL_MAX_CRAWL_DELAY", "soon"),
                                            ("CORPUSCRAWL_CONTACT", "a (b)")])
def test_bad_settings_name_the_key(key, value):
    with pytest.raises(PolitenessConfigError, match=key):
        PolitenessConfig.from_settings(Settings({key: value}))


def project_settings() -> Settings:
    settings = Settings()
    settings.setmodule("corpuscrawl.settings", priority="project")
    return settings


def test_the_bundled_demo_is_crawled_without_throttling():
    from corpuscrawl.spiders.corpus import CorpusSpider

    crawler = Crawler(CorpusSpider, project_settings())
    demo = CorpusSpider.from_crawler(crawler)
    demo._closed()
    assert not crawler.settings.getbool("AUTOTHROTTLE_ENABLED")
    assert crawler.settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN") > 2
    crawler.addons.load_settings(crawler.settings)  # as Crawler.crawl: add-ons after the spider
    assert not crawler.settings.getbool("AUTOTHROTTLE_ENABLED")
    crawler = Crawler(CorpusSpider, project_settings())
    CorpusSpider.from_crawler(crawler, seeds="http://127.0.0.1:9/")  # a local site, not ours
    crawler.addons.load_settings(crawler.settings)
    assert crawler.settings.getbool("AUTOTHROTTLE_ENABLED")
    assert crawler.settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN") <= 2


#: The shipped AutoThrottle (tests/crawl_helpers.py turns it off for other tests' servers).
SHIPPED = {"AUTOTHROTTLE_ENABLED": "True"}


def _gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in zip(times, times[1:], strict=False)]


@pytest.mark.slow
def test_robots_crawl_delay_spaces_requests(tmp_path):
    pages = [f"/p{i}.html" for i in range(4)]
    routes = {"/robots.txt": Reply("User-agent: *\nCrawl-delay: 1\n", content_type="text/plain"),
              "/": Reply(article("Home", pages)),
              **{p: Reply(article(f"Page {p}")) for p in pages}}
    with LocalServer(routes) as server:
        docs, log, code = run_crawl(tmp_path / "out.jsonl", f"seeds={server.url}", "sitemaps=0",
                                    "feeds=0", settings=SHIPPED)
        times = [t for p, t in server.log if p != "/robots.txt"]
    assert code == 0, log[-3000:]
    assert len(times) >= 5 and docs
    # Scrapy starts requests >= 1 s apart; arrival times also carry connection set-up (a new
    # connection for one request, a kept-alive one for the next), tens of ms on a busy machine.
    # Without the Crawl-delay the gaps are AutoThrottle's few milliseconds.
    assert min(_gaps(times)) >= 0.8, _gaps(times)
    assert sum(_gaps(times)) / len(_gaps(times)) >= 0.97, _gaps(times)
    assert stat(log, "corpuscrawl/politeness/crawl_delay_hosts") == 1


@pytest.mark.slow
def test_retry_after_is_waited_for_and_a_too_long_one_given_up(tmp_path):
    def flaky(hit: int) -> Reply:
        if hit == 1:
            return Reply("slow down", 429, "text/plain", {"Retry-After": "1"})
        return Reply(article("Flaky page"))

    routes = {"/": Reply(article("Home", ["/flaky.html", "/busy.html"])), "/flaky.html": flaky,
              "/busy.html": Reply("maintenance", 503, "text/plain", {"Retry-After": "3600"})}
    with LocalServer(routes) as server:
        docs, log, code = run_crawl(tmp_path / "out.jsonl", f"seeds={server.url}", "sitemaps=0",
                                    "feeds=0", settings={**SHIPPED,
                                              "CORPUSCRAWL_CONTACT": "mailto:me@lab.example"})
        flaky_hits, busy_hits = server.hits("/flaky.html"), server.hits("/busy.html")
        agents = set(server.agents)
    assert code == 0, log[-3000:]
    assert len(flaky_hits) == 2 and flaky_hits[1] - flaky_hits[0] >= 0.95
    assert any(d["url"].endswith("/flaky.html") for d in docs)
    assert len(busy_hits) == 1  # Retry-After over CORPUSCRAWL_MAX_RETRY_AFTER: no retry
    assert stat(log, "corpuscrawl/politeness/retry_after") == 1
    assert stat(log, "corpuscrawl/politeness/retry_after_too_long") == 1
    assert agents == {f"corpuscrawl/{corpuscrawl.__version__} (+mailto:me@lab.example)"}
