"""Real ``scrapy crawl corpus`` runs against hostile hosts, one misbehaviour per host.

A robots.txt that cannot be read in full never opens its host (or only its
first part is obeyed, when asked); lying charsets export no mojibake; a body
cut short by its Content-Length exports no stub; network failures leave no
traceback in the log.
"""

from __future__ import annotations

import pytest

from tests.crawl_helpers import run_crawl, stat
from tests.support.hostile_hosts import (
    CHARSET_PAGES,
    CHINESE,
    CYRILLIC,
    JAPANESE,
    WESTERN,
    HostileHost,
)

SETTINGS = {"DOWNLOAD_TIMEOUT": "3", "RETRY_TIMES": "1",
            "CORPUSCRAWL_BOILERPLATE_ENABLED": "False"}
#: A phrase of each lying-charset page's text, spelled right.
PHRASES = {CYRILLIC: "портового города", WESTERN: "Le café du port", JAPANESE: "港町の議会",
           CHINESE: "小港口城镇"}
MOJIBAKE = ("\ufffd", "Ã", "Ð", "Ñ", "â€", "Â")


def crawl(tmp_path, robots: str = "plain", **settings: str):
    with HostileHost(robots) as host:
        docs, log, code = run_crawl(tmp_path / "out.jsonl", f"seeds={host.url}", "sitemaps=0",
                                    settings={**SETTINGS, **settings}, timeout=240)
        requested = list(host.requested)
    return docs, log, code, requested


def paths(docs: list[dict]) -> set[str]:
    return {"/" + d["url"].split("/", 3)[-1] for d in docs}


@pytest.fixture(scope="module")
def plain_crawl(tmp_path_factory):
    return crawl(tmp_path_factory.mktemp("plain"))


# --- robots.txt ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("robots, counter", [
    ("big-rules-first", "corpuscrawl/robotstxt/oversized"),
    ("big-rules-last", "corpuscrawl/robotstxt/oversized"),
    ("big-stream", "corpuscrawl/robotstxt/oversized"),
    ("prefix-sized", "corpuscrawl/robotstxt/oversized"),
    ("gzip-bomb", "corpuscrawl/robotstxt/oversized"),
    ("cut-short", "corpuscrawl/robotstxt/unreachable"),
    ("hang", "corpuscrawl/robotstxt/unreachable"),
    ("reset", "corpuscrawl/robotstxt/unreachable"),
    ("503", "corpuscrawl/robotstxt/unreachable"),
])
def test_a_robots_txt_not_read_in_full_keeps_its_host_closed(tmp_path, robots, counter):
    docs, log, code, requested = crawl(tmp_path, robots)
    assert not [p for p in requested if p.startswith("/private/")], requested
    assert not docs
    assert stat(log, counter) == 1
    assert "Traceback" not in log and "Error caught on signal handler" not in log
    assert sum("no page of 127.0.0.1" in line for line in log.splitlines()) == 1


def test_an_oversized_robots_txt_can_be_obeyed_by_its_first_part(tmp_path):
    docs, log, code, requested = crawl(tmp_path, "big-rules-first",
                                       CORPUSCRAWL_ROBOTSTXT_OVERSIZED="prefix")
    assert code == 0, log[-2000:]
    assert {"/public/1", "/public/2", "/public/3"} <= paths(docs)
    assert not [p for p in requested if p.startswith("/private/")], requested
    assert stat(log, "corpuscrawl/robotstxt/oversized") == 1
    assert "obeying the rules of its first" in log and "Traceback" not in log


def test_a_robots_txt_that_is_not_there_allows_everything(tmp_path):
    docs, log, code, requested = crawl(tmp_path, "404")
    assert code == 0
    assert {"/private/1", "/public/1"} <= paths(docs)


def test_a_readable_robots_txt_is_obeyed(plain_crawl):
    docs, log, code, requested = plain_crawl
    assert code == 0, log[-2000:]
    assert not [p for p in requested if p.startswith("/private/")]
    assert {"/public/1", "/public/2", "/public/3"} <= paths(docs)
    assert "Traceback" not in log


def test_the_oversized_setting_is_checked(tmp_path):
    docs, log, code, _ = crawl(tmp_path, "plain", CORPUSCRAWL_ROBOTSTXT_OVERSIZED="allow")
    assert code != 0 and "CORPUSCRAWL_ROBOTSTXT_OVERSIZED must be one of" in log


# --- charsets -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CHARSET_PAGES))
def test_a_page_in_a_lying_charset_is_decoded_by_its_bytes(plain_crawl, name):
    docs = {"/" + d["url"].split("/", 3)[-1]: d for d in plain_crawl[0]}
    doc = docs[f"/charset/{name}"]
    phrase = PHRASES[CHARSET_PAGES[name][0]]
    assert phrase in doc["text"], doc["text"][:200]
    assert not any(m in doc["text"] for m in MOJIBAKE), doc["text"][:200]


def test_lying_charsets_are_counted_and_logged(plain_crawl):
    log = plain_crawl[1]
    assert stat(log, "corpuscrawl/page/charset_label_ignored") == len(CHARSET_PAGES)
    assert "a charset label contradicted by the bytes was not believed" in log


# --- bodies cut short ---------------------------------------------------------------------


def test_a_body_cut_short_by_its_content_length_is_refetched_then_dropped(plain_crawl):
    docs, log, _, requested = plain_crawl
    for name in ("one-byte", "in-a-tag"):
        assert f"/short/{name}" not in paths(docs)
        assert requested.count(f"/short/{name}") == 2  # fetched again once
    assert not [d for d in docs if len(d["text"]) < 20], [d["text"] for d in docs]
    assert stat(log, "corpuscrawl/dropped/truncated") == 2
    assert stat(log, "corpuscrawl/hostile/cut_short_refetched") == 2
    assert "came cut short" in log


# --- network failures ---------------------------------------------------------------------


def test_a_host_that_refuses_connections_leaves_no_traceback(tmp_path):
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    docs, log, code = run_crawl(tmp_path / "out.jsonl", f"seeds=http://127.0.0.1:{port}/",
                                "sitemaps=0", settings=SETTINGS, timeout=120)
    assert not docs and code != 0
    assert "Traceback" not in log
    assert stat(log, "corpuscrawl/robotstxt/unreachable") == 1
    assert sum("unreachable" in line and "robots.txt" in line for line in log.splitlines()) == 1


def test_requests_waiting_together_for_robots_txt_are_all_checked(tmp_path):
    """Seeds of one host arrive at once: each waits for the one robots.txt fetch, and each is
    checked against it (Scrapy's shared Deferred let all but the first through)."""
    with HostileHost("plain") as host:
        seeds = ",".join(f"{host.url}{kind}/{n}" for kind in ("private", "public")
                         for n in (1, 2, 3))
        docs, log, code = run_crawl(tmp_path / "out.jsonl", f"seeds={seeds}", "sitemaps=0",
                                    "depth=0", settings=SETTINGS, timeout=120)
        requested = list(host.requested)
    assert not [p for p in requested if p.startswith("/private/")], requested
    assert {"/public/1", "/public/2", "/public/3"} <= paths(docs)
    assert stat(log, "robotstxt/forbidden") == 3


def test_a_host_whose_name_does_not_resolve_leaves_no_traceback(tmp_path):
    docs, log, code = run_crawl(
        tmp_path / "out.jsonl", "seeds=http://no-such-host.test/", "sitemaps=0",
        settings={**SETTINGS, "TWISTED_DNS_RESOLVER": "tests.hostile_helpers.NoSuchHostResolver"},
        timeout=120)
    assert not docs and code != 0, log[-2000:]
    assert "Traceback" not in log, log[-3000:]
    assert stat(log, "corpuscrawl/robotstxt/unreachable") == 1
    assert "DNS lookup failed" in log
