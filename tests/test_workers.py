"""Extraction in worker processes: the same corpus as in the crawl process, a bad setting named."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpuscrawl.demo.server import DemoServer
from corpuscrawl.spiders.workers import worker_count
from tests.crawl_helpers import REPO, run_crawl, stat

#: What differs between two crawls of one site by design: the fetch time, and the depth
#: (the path by which a page was first found: with pages extracted concurrently, another
#: path can come first).
CRAWL_ORDER_FIELDS = ("fetched_at", "depth")


def corpus(docs: list[dict], base: str) -> list[str]:
    """The documents as JSON, URL paths relative to the site, order-independent."""
    out = []
    for doc in docs:
        doc = {k: v for k, v in doc.items() if k not in CRAWL_ORDER_FIELDS}
        out.append(json.dumps(doc, sort_keys=True, ensure_ascii=False).replace(base, "/"))
    return sorted(out)


def test_worker_count_setting() -> None:
    assert worker_count("auto", cpus=2) == 1 and worker_count(None, cpus=8) == 7
    assert worker_count("auto", cpus=1) == 0 and worker_count("3", cpus=2) == 3
    with pytest.raises(ValueError, match="CORPUSCRAWL_WORKERS"):
        worker_count("many")
    with pytest.raises(ValueError, match="CORPUSCRAWL_WORKERS"):
        worker_count(-1)


def test_lazy_extraction_tells_a_pages_text_shape_without_building() -> None:
    from corpuscrawl.pagetext.extraction import Extraction, ExtractionConfig, TextShapes
    from corpuscrawl.pagetext.rules import DomainRules
    from corpuscrawl.spiders.workers import LazyExtraction

    config = ExtractionConfig(default_extractor="auto")
    built: list[Extraction] = []

    def build() -> Extraction:
        built.append(Extraction(config))
        return built[-1]

    told = TextShapes(config, DomainRules())
    # the extractors' shapes a worker tells: this process then imports no extractor
    told.know(Extraction(config).shapes.extractor_shapes())
    told._new_extractor_shape = None  # type: ignore[assignment,method-assign]
    lazy = LazyExtraction(build, told)
    shape = lazy.shape_for("http://example.org/a")
    assert not built and not lazy.built
    assert shape == Extraction(config).shape_for("http://example.org/a")
    # untold, it works them out itself, to the same digest
    assert LazyExtraction(build, TextShapes(config, DomainRules())).shape_for(
        "http://example.org/b") == shape and not built


def test_workers_and_the_crawl_process_write_the_same_corpus(tmp_path) -> None:
    server = DemoServer(synthetic_pages=60).start()
    try:
        runs = {}
        for workers in (0, 2):
            out = tmp_path / f"w{workers}" / "out.jsonl"
            docs, log, code = run_crawl(out, f"seeds={server.url}",
                                        settings={"CORPUSCRAWL_WORKERS": str(workers),
                                                  "CORPUSCRAWL_FAILED_DIR": str(out.parent / "f")},
                                        timeout=300)
            assert code == 0 and "Traceback" not in log, log[-3000:]
            assert stat(log, "corpuscrawl/workers/fallback") == 0
            # with workers, the crawl process loads no model of its own (the page store's
            # text shape of each page is told from the settings)
            assert stat(log, "corpuscrawl/workers/extraction_built_here") == 0
            # what the workers log reaches the crawl's log: here, the model file they loaded
            assert "loading model auto from" in log, log[-3000:]
            runs[workers] = docs
    finally:
        server.stop()
    assert len(runs[0]) >= 60
    assert corpus(runs[2], server.url) == corpus(runs[0], server.url)


def test_a_bad_worker_count_fails_at_start_naming_the_setting(tmp_path) -> None:
    _, log, code = run_crawl(tmp_path / "out.jsonl", "seeds=http://127.0.0.1:9/",
                             settings={"CORPUSCRAWL_WORKERS": "lots"}, timeout=120)
    assert code != 0 and "CORPUSCRAWL_WORKERS must be 'auto' or a whole number" in log


#: Counters both ways must agree on: hostile bodies, lying charsets, robots meta, drops.
PARITY_STATS = ("corpuscrawl/hostile/cut_short_refetched", "corpuscrawl/dropped/truncated",
                "corpuscrawl/page/charset_label_ignored", "corpuscrawl/robots_meta/noindex",
                "corpuscrawl/robots_meta/nofollow", "corpuscrawl/drops/robots",
                "corpuscrawl/drops/truncated", "corpuscrawl/pages")


def _path(url: str) -> str:
    return "/" + url.split("/", 3)[-1]


def test_workers_treat_noindex_cut_short_and_lying_charset_pages_as_the_crawl_process(
        tmp_path) -> None:
    """Robots meta, bodies cut short by their Content-Length and lying charset labels: the
    same documents, drops, refetches and counts with 0 and 2 workers."""
    from tests.local_server import LocalServer
    from tests.support.hostile_hosts import CHARSET_PAGES, HostileHost
    from tests.test_robots_meta import _site

    runs = {}
    for workers in (0, 2):
        out = tmp_path / f"w{workers}" / "out.jsonl"
        with HostileHost() as host, LocalServer(_site()) as server:
            docs, log, code = run_crawl(
                out, f"seeds={host.url},{server.url}", "sitemaps=0", "feeds=0",
                settings={"CORPUSCRAWL_WORKERS": str(workers), "DOWNLOAD_TIMEOUT": "3",
                          "RETRY_TIMES": "1", "CORPUSCRAWL_BOILERPLATE_ENABLED": "False",
                          "CORPUSCRAWL_FAILED_DIR": str(out.parent / "f")},
                timeout=300)
            requested = sorted(host.requested)
            fetched = sorted(server.paths())
        assert code == 0 and "Traceback" not in log, log[-3000:]
        assert stat(log, "corpuscrawl/workers/fallback") == 0
        dropped_file = out.parent / "out.jsonl.dropped.jsonl"
        dropped = sorted((_path(r["url"]), r["reason"]) for r in (
            json.loads(line) for line in dropped_file.read_text(encoding="utf-8").splitlines()))
        runs[workers] = {
            "documents": sorted((_path(d["url"]), d["text"]) for d in docs),
            "hostile requests": requested, "robots site requests": fetched,
            "dropped": [d for d in dropped if d[1] in ("robots", "truncated",
                                                        "charset_undecodable", "binary")],
            "stats": {key: stat(log, key) for key in PARITY_STATS}}
    plain = runs[0]
    # the cases are there to be compared: charset pages exported, cut pages refetched and
    # dropped, noindex pages listed
    paths = {p for p, _ in plain["documents"]}
    assert {f"/charset/{name}" for name in CHARSET_PAGES} <= paths
    assert ("/short/one-byte", "truncated") in plain["dropped"]
    assert ("/header/", "robots") in plain["dropped"]
    assert "/nofollow-child/" not in plain["robots site requests"]
    assert plain["hostile requests"].count("/short/one-byte") == 2
    for key, value in plain.items():
        assert runs[2][key] == value, key


def _children(pid: int) -> set[int]:
    """Pids of the live (not zombie) processes whose parent is ``pid``."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
def test_workers_end_when_the_crawl_is_killed(tmp_path) -> None:
    """SIGKILL on the crawl process leaves no extraction worker behind (fails without the
    workers' parent watch: they wait on the pool's queue for ever)."""
    server = DemoServer(synthetic_pages=5000).start()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", "-O",
           f"{tmp_path / 'out.jsonl'}:jsonlines", "-a", f"seeds={server.url}",
           "-s", "CORPUSCRAWL_WORKERS=1", "-s", "DOWNLOAD_DELAY=0.5",
           "-s", f"CORPUSCRAWL_STATE_DIR={tmp_path / 'state'}"]
    crawl = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        workers: set[int] = set()
        deadline = time.monotonic() + 240
        while not workers and crawl.poll() is None and time.monotonic() < deadline:
            workers = {pid for pid in _children(crawl.pid)
                       if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()}
            time.sleep(0.5)
        assert workers, "the crawl started no extraction worker"
        time.sleep(3)  # the worker is past its start and waiting for pages
        crawl.kill()
        crawl.wait(timeout=30)
        deadline = time.monotonic() + 60
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.5)
        left = [pid for pid in workers if _alive(pid)]
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert not left, f"extraction workers outlived the killed crawl: {left}"
    finally:
        if crawl.poll() is None:
            crawl.kill()
        server.stop()
