"""A real ``scrapy crawl corpus`` against a hostile server: every case counted, the crawl bounded,
the good pages exported."""

from __future__ import annotations

import time

import pytest

from tests.crawl_helpers import run_crawl, stat
from tests.support.hostile_site import GOOD_PAGES, HostileServer

SETTINGS = {
    "DOWNLOAD_TIMEOUT": "2",
    "RETRY_TIMES": "1",
    "CORPUSCRAWL_TRAP_MAX_RUN": "5",
    "CORPUSCRAWL_MAX_LINKS_PER_PAGE": "40",
}


@pytest.fixture(scope="module")
def hostile_crawl(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("hostile")
    with HostileServer() as server:
        start = time.monotonic()
        docs, log, code = run_crawl(out_dir / "out.jsonl", f"seeds={server.url}",
                                    settings={**SETTINGS,
                                              "CORPUSCRAWL_FAILED_DIR": str(out_dir / "failed")},
                                    timeout=240)
        elapsed = time.monotonic() - start
        requested = list(server.requested)
    return docs, log, code, elapsed, requested


@pytest.mark.slow
def test_the_crawl_ends_cleanly_in_bounded_time(hostile_crawl):
    _, log, code, elapsed, _ = hostile_crawl
    assert code == 0, log[-3000:]
    assert "Traceback" not in log and stat(log, "spider_exceptions") == 0
    assert elapsed < 120
    assert stat(log, "memusage/max") < 1024 * 2**20


@pytest.mark.slow
def test_good_pages_of_the_same_site_are_exported(hostile_crawl):
    docs, log, *_ = hostile_crawl
    urls = {d["url"].split("/", 3)[-1]: d for d in docs}
    for n in range(1, GOOD_PAGES + 1):
        assert f"good/{n}" in urls, sorted(urls)
    assert "Octet stream article" in urls["octet-html"]["text"]  # HTML served as octet-stream
    assert "café du port" in urls["lying-charset"]["text"]
    assert "Deep article" in urls["deep"]["text"]
    assert "binary-html" not in urls


@pytest.mark.slow
@pytest.mark.parametrize("key, at_least", [
    ("corpuscrawl/hostile/redirect_loop", 1),
    ("corpuscrawl/hostile/redirect_chain", 1),
    ("corpuscrawl/hostile/timeout", 1),
    ("corpuscrawl/hostile/data_loss", 1),
    ("corpuscrawl/hostile/decompression_bomb", 3),
    ("corpuscrawl/hostile/too_large", 2),
    ("corpuscrawl/hostile/sitemap_too_large", 1),
    ("corpuscrawl/hostile/html_sniffed", 1),
    ("corpuscrawl/dropped/binary", 1),
    ("corpuscrawl/trap/pattern_run", 1),
    ("corpuscrawl/links/over_page_cap", 4960),
    ("corpuscrawl/page/charset_label_ignored", 1),
    ("corpuscrawl/page/parse_reparsed", 1),
    ("corpuscrawl/dropped/truncated", 1),  # /cl-short: cut inside its <head>, twice
    ("corpuscrawl/hostile/cut_short_refetched", 1),
])
def test_each_hostile_case_is_counted(hostile_crawl, key, at_least):
    log = hostile_crawl[1]
    assert stat(log, key) >= at_least, key


@pytest.mark.slow
def test_traps_and_floods_are_bounded(hostile_crawl):
    requested = hostile_crawl[4]
    assert sum(p.startswith("/calendar") for p in requested) <= 2 * (5 + 1) + 1
    assert sum(p.startswith("/flood/") for p in requested) <= 40
    assert sum(p.startswith("/redirect-chain/") for p in requested) <= 11


@pytest.mark.slow
def test_an_extraction_over_its_time_budget_is_kept_as_failed_and_the_crawl_goes_on(tmp_path):
    with HostileServer() as server:
        seeds = ",".join(f"{server.url}good/{n}" for n in range(1, GOOD_PAGES + 1))
        docs, log, code = run_crawl(
            tmp_path / "out.jsonl", f"seeds={seeds}", "sitemaps=0", "extractor=stuck",
            settings={"CORPUSCRAWL_EXTRACTORS": '{"stuck": "tests.hostile_helpers:StuckOnThree"}',
                      "CORPUSCRAWL_EXTRACTION_TIMEOUT": "1",
                      "CORPUSCRAWL_FAILED_DIR": str(tmp_path / "failed")}, timeout=120)
    assert code == 0, log[-2000:]
    assert sorted(d["url"].rsplit("/", 1)[-1] for d in docs) == ["1", "2", "4", "5"]
    assert stat(log, "corpuscrawl/extraction/ExtractionTimeout") == 1
    failed = (tmp_path / "failed" / "failed.jsonl").read_text()
    assert "good/3" in failed and "ExtractionTimeout" in failed


@pytest.mark.slow
@pytest.mark.parametrize("line", [
    "redirect loop:", "redirect chain:", "timeout:", "data loss:", "decompression bomb:",
    "too large:", "sitemap or feed", "is HTML served as", "the body is not text",
    "link trap suspected", "most relevant", "charset label", "cut short", "parser's limits",
])
def test_each_hostile_case_has_a_log_line(hostile_crawl, line):
    assert line in hostile_crawl[1]
