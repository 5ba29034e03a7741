"""Cluster mode across generations: a recrawl by two workers, and max_pages over the cluster.

Real ``scrapy crawl`` workers, a real redis-server and the changing news site
of tests/recrawl_site.py (ETag / Last-Modified, 304s, counts of the bodies it
sent).  Two workers crawl the site; it changes (articles added, edited,
deleted, unlisted); two workers crawl it again: the new and edited articles
are exported exactly once over both outputs, every unchanged article is
answered 304 (no body sent twice), the deleted one is recorded gone.  The
same with Redis stopped and started again in the middle of the recrawl.
``max_pages`` stops the whole cluster, not each worker.
"""

from __future__ import annotations

import collections
import json
import socket
import time
from pathlib import Path

import pytest

from tests.crawl_helpers import stat
from tests.recrawl_site import ChangingSite, SiteServer
from tests.redis_server import redis_url  # noqa: F401 (fixture)
from tests.resume_site import ResumeSite
from tests.test_cluster import _redis_server, command, records, start, wait

pytestmark = [pytest.mark.slow, pytest.mark.redis]

ARTICLES = 30
#: As tests/test_recrawl.py: section pages' few link titles give no document.
SETTINGS = ["-s", "CORPUSCRAWL_MIN_TEXT_CHARS=500", "-s",
            "CORPUSCRAWL_BOILERPLATE_ERROR_PAGES=False", "-s", "DOWNLOAD_DELAY=0",
            "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=2", "-s", "CONCURRENT_REQUESTS=2"]


def crawl_pair(tmp_path: Path, redis: str, collection: str, name: str, seed: str,
               extra: list[str] | None = None, during=None) -> tuple[list[Path], list[str]]:
    """Two workers of ``collection`` at once; their outputs and logs."""
    outs = [tmp_path / f"{name}-{i}.jsonl" for i in range(2)]
    logs = [tmp_path / f"{name}-{i}.log" for i in range(2)]
    procs = []
    for i in range(2):
        cmd = command(redis, collection, f"w{i}", outs[i], seed) + SETTINGS + (extra or [])
        procs.append(start(cmd, logs[i]))
    if during is not None:
        during(outs, procs)
    wait(procs)
    texts = [log.read_text() for log in logs]
    assert [p.returncode for p in procs] == [0, 0], texts[0][-3000:] + texts[1][-3000:]
    return outs, texts


def exported(outs: list[Path]) -> collections.Counter:
    """Exported documents over all outputs: path -> times."""
    return collections.Counter("/" + d["url"].split("/", 3)[3] for out in outs
                               for d in records(out))


def total(logs: list[str], key: str) -> int:
    return sum(stat(log, key) for log in logs)


def change(site: ChangingSite) -> tuple[set[str], set[str], set[str]]:
    """Change the site between the crawls: (new, edited, unchanged) paths."""
    site.add(ARTICLES + 1)
    site.add(ARTICLES + 2)
    site.unlink(ARTICLES + 2)  # listed in the feed only
    for number in (3, 8, 13):
        site.edit(number)
    site.unlink(8)  # edited and listed nowhere: found through the page store
    site.unlink(5)  # unchanged and listed nowhere
    site.delete(9)  # 404 now
    new = {site.articles[n].path for n in (ARTICLES + 1, ARTICLES + 2)}
    edited = {site.articles[n].path for n in (3, 8, 13)}
    unchanged = {a.path for n, a in site.articles.items()
                 if n not in (3, 8, 13, ARTICLES + 1, ARTICLES + 2)}
    return new, edited, unchanged


def check_recrawl(site: ChangingSite, server: SiteServer, outs: list[Path], logs: list[str],
                  new: set[str], edited: set[str], unchanged: set[str]) -> None:
    docs = exported(outs)
    assert set(docs) == new | edited, docs
    assert max(docs.values()) == 1, f"exported twice: {docs}"
    by_path = {"/" + d["url"].split("/", 3)[3]: d for out in outs for d in records(out)}
    assert {by_path[p]["change"] for p in new} == {"new"}
    assert {by_path[p]["change"] for p in edited} == {"changed"}
    assert not set(server.bodies) & unchanged, "an unchanged article's body was sent again"
    assert set(server.not_modified) == unchanged
    assert total(logs, "corpuscrawl/recrawl/not_modified") == len(unchanged)
    assert total(logs, "corpuscrawl/recrawl/new") == len(new)
    assert total(logs, "corpuscrawl/recrawl/changed") == len(edited)
    assert total(logs, "corpuscrawl/recrawl/gone") == 1  # counted by one worker only
    assert server.missing["/news/00009.html"] == 1


def test_two_workers_recrawl_a_changed_site_exporting_each_change_once(tmp_path,
                                                                        redis_url):  # noqa: F811
    import redis as redis_client

    client = redis_client.Redis.from_url(redis_url)
    site = ChangingSite.build(ARTICLES, sections=3, per_section=10)
    with SiteServer(site, delay=0.15) as server:
        outs, logs = crawl_pair(tmp_path, redis_url, "gazette", "first", server.url)
        first = exported(outs)
        assert set(first) == {a.path for a in site.articles.values()} and max(first.values()) == 1
        assert all(records(out) for out in outs), "one worker did nothing"
        generation = client.hgetall("corpuscrawl:gazette:generation")
        assert generation[b"number"] == b"1" and generation[b"state"] == b"finished"

        new, edited, unchanged = change(site)
        server.reset_counts()
        outs, logs = crawl_pair(tmp_path, redis_url, "gazette", "second", server.url)
        check_recrawl(site, server, outs, logs, new, edited, unchanged)
        assert client.hget("corpuscrawl:gazette:generation", "number") == b"2"
        # each worker's summary: its share and the generation's totals when it closed (the
        # last worker to close sees them complete)
        summaries = [json.loads(out.with_name(out.name + ".summary.json").read_text())
                     for out in outs]
        assert all(s["cluster"]["generation"] == 2 and s["recrawl"]["generation"] == 2
                   and s["nothing_fetched"] is False for s in summaries)
        assert max(s["cluster"]["exported_all"] for s in summaries) == len(new | edited)
        assert max(s["cluster"]["not_modified_all"] for s in summaries) == len(unchanged)
        assert sorted(s["cluster"]["joined"] for s in summaries) == [False, True]
        assert total(logs, "corpuscrawl/cluster/generation") == 4  # both in generation 2
        gone = json.loads(client.hget("corpuscrawl:gazette:pages",
                                      server.url.rstrip("/") + "/news/00009.html"))
        assert gone[7] == 1 and gone[4] == 404  # gone, with its status
        # the first generation's frontier, seen-set and claims are gone from Redis
        assert not list(client.scan_iter(match="corpuscrawl:gazette:gen1:*"))


def test_redis_lost_mid_recrawl_loses_and_doubles_nothing(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"redis://127.0.0.1:{port}/0"
    server_proc = _redis_server(port, tmp_path)
    extra = ["-s", "CORPUSCRAWL_CLUSTER_LEASE_TIMEOUT=60"]
    try:
        site = ChangingSite.build(ARTICLES, sections=3, per_section=10)
        with SiteServer(site, delay=0.15) as server:
            crawl_pair(tmp_path, url, "outage", "first", server.url, extra)
            new, edited, unchanged = change(site)
            server.reset_counts()

            def outage(outs: list[Path], procs: list) -> None:
                nonlocal server_proc
                deadline = time.monotonic() + 120
                while server.not_modified.total() + sum(server.bodies.values()) < 12:
                    assert time.monotonic() < deadline, "the recrawl did not start"
                    assert all(p.poll() is None for p in procs), "a worker ended early"
                    time.sleep(0.02)
                server_proc.terminate()  # a clean shutdown writes the append-only file
                server_proc.wait(timeout=10)
                time.sleep(3)
                server_proc = _redis_server(port, tmp_path)

            outs, logs = crawl_pair(tmp_path, url, "outage", "second", server.url, extra,
                                    during=outage)
            check_recrawl(site, server, outs, logs, new, edited, unchanged)
            assert any("Redis unreachable during" in log for log in logs)
    finally:
        server_proc.terminate()
        server_proc.wait(timeout=10)


def test_max_pages_counts_over_all_workers(tmp_path, redis_url):  # noqa: F811
    import redis as redis_client

    limit = 30
    with ResumeSite(articles=400, delay=0.3) as site:
        outs, logs = crawl_pair(tmp_path, redis_url, "limited", "limit", site.url,
                                ["-a", f"max_pages={limit}"])
    per_worker = [len(records(out)) for out in outs]
    docs = collections.Counter(d["url"] for out in outs for d in records(out))
    assert max(docs.values()) == 1
    # each worker alone would stop at 30 (60 together); the cluster stops at 30, give or
    # take the pages in flight when the limit is reached (2 per worker)
    assert limit <= sum(per_worker) <= limit + 6, per_worker
    assert all(n > 0 for n in per_worker), per_worker
    assert all("'finish_reason': 'max_pages'" in log for log in logs)
    client = redis_client.Redis.from_url(redis_url)
    generation = client.hgetall("corpuscrawl:limited:generation")
    assert generation[b"number"] == b"1" and generation[b"reason"] == b"max_pages"
    assert int(client.get("corpuscrawl:limited:gen1:documents")) >= limit
