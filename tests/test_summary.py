"""The end-of-crawl summary: figures from the stats, written beside the feed, exit codes."""

from __future__ import annotations

import json
import os
import socket
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from corpuscrawl.report.summary import (
    DomainCounts,
    build_summary,
    error_type,
    human_summary,
    summary_path_for,
)
from tests.crawl_helpers import REPO, TEST_CRAWL_OPTIONS, run_crawl
from tests.small_site import ARTICLES, FOOTER, SmallSite
from tests.support.crawl_forks import run_command


def test_figures_come_from_the_stats_with_recrawl_counters_when_present():
    stats = {
        "start_time": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        "finish_time": datetime(2026, 1, 2, 3, 5, 5, tzinfo=UTC),
        "elapsed_time_seconds": 60.0, "finish_reason": "finished",
        "corpuscrawl/fetch/plain": 10, "corpuscrawl/fetch/rendered": 3,
        "corpuscrawl/render/auto_rerender": 2, "corpuscrawl/documents": 8,
        "corpuscrawl/empty_extractions": 2, "corpuscrawl/extraction_errors": 1,
        "corpuscrawl/request_errors": 4, "corpuscrawl/request_errors/http 404": 2,
        "corpuscrawl/request_errors/TimeoutError": 1,
        "corpuscrawl/request_errors/IgnoreRequest": 1, "corpuscrawl/render/failures": 1,
        "corpuscrawl/export/documents": 8, "corpuscrawl/export/exported": 6,
        "corpuscrawl/export/dropped_duplicates": 1, "corpuscrawl/export/dropped_boilerplate": 1,
        "corpuscrawl/export/paragraphs_removed": 17,
        "corpuscrawl/recrawl/new": 2, "corpuscrawl/recrawl/changed": 1,
        "corpuscrawl/recrawl/unchanged": 5, "corpuscrawl/recrawl/not_modified": 4,
        "spider_exceptions/ValueError": 1, "spider_exceptions/count": 1,
        "corpuscrawl/dropped_language": 3, "corpuscrawl/robots_meta/noindex": 2,
        "corpuscrawl/robots_meta/nofollow": 1,
    }
    domains = {"b.org": DomainCounts(responses=3, exported=1), "a.org": DomainCounts(responses=9)}
    s = build_summary(stats, domains, spider="corpus", collection="a.org", seeds=2,
                      outputs=["/x/c.jsonl"])
    assert s["pages"] == {"fetched": 11, "rendered": 3, "extracted": 8, "empty": 2,
                          "failed": 5, "not_modified": 4, "ignored": 1}
    assert s["documents"] == {"exported": 6, "new": 2, "changed": 1, "unchanged": 5,
                              "not_modified": 4, "dropped_language": 3}
    assert s["robots_meta"] == {"noindex": 2, "nofollow": 1}
    assert s["boilerplate"]["paragraphs_removed"] == 17 and s["duplicates_dropped"] == 1
    assert s["errors"] == {"total": 6, "by_type": {"http 404": 2, "TimeoutError": 1,
                                                   "extraction": 1, "rendering": 1,
                                                   "spider ValueError": 1}}
    assert list(s["domains"]) == ["a.org", "b.org"] and s["domains"]["b.org"]["exported"] == 1
    assert s["elapsed_seconds"] == 60.0 and s["started_at"] == "2026-01-02T03:04:05+00:00"
    assert s["nothing_fetched"] is False
    json.dumps(s)  # serialisable as is
    text = human_summary(s)
    assert "11 fetched (3 rendered), 8 extracted, 2 empty, 5 failed, 4 not modified" in text
    assert "kept out: 2 pages noindex, 1 pages nofollow (robots meta), 3 documents in other " \
        "languages" in text
    assert "6 exported (new 2, changed 1, unchanged 5)" in text
    assert "errors: http 404 x2, TimeoutError x1" in text
    assert "b.org 1/3" in text


def test_a_crawl_that_fetched_nothing_says_so():
    s = build_summary({"corpuscrawl/request_errors": 2,
                       "corpuscrawl/request_errors/ConnectionRefusedError": 2}, seeds=2)
    assert s["nothing_fetched"] is True and s["pages"]["failed"] == 2
    assert "NOTHING COULD BE FETCHED (2 seed(s) all failing)" in human_summary(s)
    # a recrawl whose every page answered 304 fetched something
    assert not build_summary({"corpuscrawl/recrawl/not_modified": 3})["nothing_fetched"]


def test_error_types():
    class Response:
        status = 503

    class HttpError(Exception):
        response = Response()

    assert error_type(HttpError()) == "http 503"
    assert error_type(TimeoutError()) == "TimeoutError"
    assert summary_path_for("out/corpus.jsonl") == Path("out/corpus.jsonl.summary.json")


@pytest.mark.slow
def test_summary_beside_the_feed_agrees_with_the_feed(tmp_path):
    out = tmp_path / "corpus.jsonl"
    with SmallSite() as site:
        docs, log, code = run_crawl(out, f"seeds={site.url}")
    assert code == 0, log[-3000:]
    summary = json.loads(summary_path_for(out).read_text(encoding="utf-8"))
    assert summary["outputs"] == [str(out)]
    assert summary["finish_reason"] == "finished" and summary["elapsed_seconds"] > 0
    assert summary["documents"]["exported"] == len(docs) >= ARTICLES
    assert summary["domains"]["127.0.0.1"]["exported"] == len(docs)
    # front page, the articles, the copy of the first one, the blank page
    assert summary["pages"]["fetched"] == ARTICLES + 3
    # the front page (links to the articles) is a listing, dropped before it is a document
    assert summary["pages"]["extracted"] == ARTICLES + 1 == summary["domains"]["127.0.0.1"]["documents"]
    assert summary["pages"]["empty"] == 1
    assert summary["duplicates_dropped"] == 1
    urls = {d["url"].rsplit("/", 1)[-1] for d in docs}
    assert len(urls & {"a0.html", "copy-of-a0.html"}) == 1
    # every extracted document is exported, dropped as a duplicate, or dropped as boilerplate
    assert summary["pages"]["extracted"] == (len(docs) + summary["duplicates_dropped"]
                                             + summary["boilerplate"]["documents_dropped"])
    articles = [d for d in docs if d["url"].endswith("a0.html") or "/a" in d["url"]]
    # each article keeps its headline (also on the front page's links: not boilerplate)
    assert len(articles) == ARTICLES and all(d["text"].split("\n")[0] == d["title"]
                                             for d in articles)
    assert summary["dropped"] == {"duplicate": 1, "empty": 1, "listing": 1}
    removed = sum(d["removed_boilerplate"] for d in docs)
    assert removed <= summary["boilerplate"]["paragraphs_removed"]
    if not summary["boilerplate"]["documents_dropped"]:
        assert removed == summary["boilerplate"]["paragraphs_removed"]
    assert not any(FOOTER in d["text"] for d in docs)
    # the dead link and the missing /sitemap.xml
    assert summary["errors"]["by_type"] == {"http 404": 2} and summary["pages"]["failed"] == 2
    assert summary["nothing_fetched"] is False
    assert f"documents: {len(docs)} exported" in log and f"summary: {summary_path_for(out)}" in log


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_corpuscrawl_crawl_exits_3_when_every_seed_fails(tmp_path):
    port = _closed_port()
    proc = run_command(
        [sys.executable, "-m", "corpuscrawl.cli", "crawl", "--seeds",
         f"http://127.0.0.1:{port}/,http://127.0.0.1:{port}/news/", "-o", "out.jsonl",
         "-s", "RETRY_TIMES=0", "-s", "LOG_LEVEL=INFO"],
        cwd=tmp_path, timeout=120,
        env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert proc.returncode == 3, proc.stderr[-3000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("corpuscrawl crawl: error: nothing could be fetched: all 2 seed(s) "
                           "failed (") and "ConnectionRefusedError" in last
    summary = json.loads((tmp_path / "out.jsonl.summary.json").read_text(encoding="utf-8"))
    assert summary["nothing_fetched"] is True and summary["pages"]["fetched"] == 0


@pytest.mark.slow
def test_scrapy_crawl_exits_3_too_and_without_a_feed_writes_into_the_state_dir(tmp_path):
    port = _closed_port()
    proc = run_command(
        [sys.executable, "-m", "scrapy", "crawl", "corpus", *TEST_CRAWL_OPTIONS,
         "-a", f"seeds=http://127.0.0.1:{port}/",
         "-s", "RETRY_TIMES=0", "-s", f"CORPUSCRAWL_STATE_DIR={tmp_path / 'state'}",
         "-s", f"CORPUSCRAWL_SUMMARY_FILE={tmp_path / 'alerts' / 'last.json'}",
         "-s", f"CORPUSCRAWL_BOILERPLATE_HISTORY={tmp_path / 'h.sqlite3'}"],
        cwd=REPO, timeout=120, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert "nothing could be fetched" in proc.stderr
    summary = json.loads((tmp_path / "state" / f"127.0.0.1_{port}" /
                          "last-crawl.summary.json").read_text(encoding="utf-8"))
    assert summary["nothing_fetched"] is True and summary["outputs"] == []
    assert json.loads((tmp_path / "alerts" / "last.json").read_text()) == summary


def test_local_feed_paths():
    from corpuscrawl.extensions import local_feed_path

    assert local_feed_path("file:///srv/corpus/a.jsonl") == Path("/srv/corpus/a.jsonl")
    assert local_feed_path("corpus.jsonl") == Path("corpus.jsonl")
    assert local_feed_path("/abs/out/index.tsv") == Path("/abs/out/index.tsv")
    assert local_feed_path("s3://bucket/corpus.jsonl") is None
    assert local_feed_path("ftp://host/corpus.jsonl") is None


def test_warc_blocked_recrawl_and_cluster_figures_are_summarised():
    stats = {
        "corpuscrawl/fetch/plain": 5, "response_received_count": 5,
        "corpuscrawl/warc/records": 15, "corpuscrawl/warc/bytes": 3 * 2**20,
        "corpuscrawl/warc/files": 2, "corpuscrawl/warc/write_errors": 1,
        "corpuscrawl/warc/cpu_seconds": 0.2,
        "corpuscrawl/net/blocked": 4, "corpuscrawl/net/blocked_hosts": 2,
        "corpuscrawl/net/blocked/loopback": 3, "corpuscrawl/net/blocked/private": 1,
        "corpuscrawl/recrawl/generation": 3, "corpuscrawl/recrawl/conditional": 7,
        "corpuscrawl/recrawl/not_modified": 6, "corpuscrawl/recrawl/gone": 1,
        "corpuscrawl/recrawl/revisited": 9,
        "corpuscrawl/cluster/generation": 3, "corpuscrawl/cluster/joined": 1,
        "corpuscrawl/cluster/all/responses": 12, "corpuscrawl/cluster/all/exported": 8,
        "corpuscrawl/cluster/all/not_modified": 10, "corpuscrawl/cluster/recovered_requests": 2,
        "corpuscrawl/export/documents": 3, "corpuscrawl/export/exported": 3,
    }
    s = build_summary(stats)
    assert s["warc"] == {"records": 15, "bytes": 3 * 2**20, "files": 2, "write_errors": 1,
                         "record_errors": 0}
    assert s["net"] == {"blocked": 4, "blocked_hosts": 2,
                        "by_reason": {"loopback": 3, "private": 1}}
    assert s["recrawl"]["generation"] == 3 and s["recrawl"]["conditional"] == 7
    assert s["cluster"] == {"generation": 3, "joined": True, "responses_all": 12,
                            "exported_all": 8, "not_modified_all": 10,
                            "recovered_requests": 2, "heartbeat_lost": 0, "unserializable": 0}
    json.dumps(s)
    text = human_summary(s)
    assert "warc: 15 records in 2 file(s), 3.0 MB, 1 WRITE ERRORS" in text
    assert "blocked: 4 requests to non-public addresses (2 hosts: loopback x3, private x1)" in text
    assert "recrawl: generation 3, 9 known pages revisited, 7 conditional requests, " \
           "6 not modified, 1 gone" in text
    assert "cluster: generation 3 (joined); this worker 5 of 12 responses, 3 of 8 documents " \
           "exported; 2 requests of dead workers requeued" in text
    # one machine, no WARC: no such sections, no such lines
    plain = build_summary({"corpuscrawl/fetch/plain": 1})
    assert plain["warc"] is None and plain["cluster"] is None and plain["net"]["blocked"] == 0
    assert not {"warc:", "blocked:", "cluster:", "recrawl:"} & {
        line.split(" ", 1)[0] for line in human_summary(plain).splitlines()}


def test_a_cluster_worker_that_got_no_share_fetched_nothing_but_is_no_failure():
    idle = {"corpuscrawl/cluster/generation": 1, "corpuscrawl/cluster/all/responses": 40}
    assert build_summary(idle)["nothing_fetched"] is False
    all_304 = {"corpuscrawl/cluster/generation": 2, "corpuscrawl/cluster/all/responses": 0,
               "corpuscrawl/cluster/all/not_modified": 40}
    assert build_summary(all_304)["nothing_fetched"] is False
    failing = {"corpuscrawl/cluster/generation": 1, "corpuscrawl/cluster/all/responses": 0,
               "corpuscrawl/request_errors": 1}
    assert build_summary(failing)["nothing_fetched"] is True


def test_a_crawl_writing_warc_and_meeting_a_private_address_says_so(tmp_path):
    from tests.local_server import LocalServer, Reply, article

    with LocalServer({"*": Reply(article("Secret admin page"))}, host="127.0.0.2") as admin:
        links = [f"http://127.0.0.2:{admin.port}/admin"]
        with LocalServer({"/": Reply(article("A public page", links))}) as seed:
            out = tmp_path / "out.jsonl"
            docs, log, code = run_crawl(out, f"seeds={seed.url}", "any_domain=1", "sitemaps=0",
                                        settings={"CORPUSCRAWL_WARC_DIR": str(tmp_path / "warc")})
        assert admin.paths() == []
    assert code == 0, log[-3000:]
    summary = json.loads((tmp_path / "out.jsonl.summary.json").read_text(encoding="utf-8"))
    blocked = summary["net"]["blocked"]  # the link, and robots.txt of its host
    assert blocked >= 1 and summary["net"]["by_reason"] == {"loopback": blocked}
    assert summary["warc"]["files"] == 1 and summary["warc"]["records"] >= 3
    assert summary["warc"]["write_errors"] == 0 and summary["cluster"] is None
    assert "warc: " in log and f"blocked: {blocked} requests to non-public addresses" in log
