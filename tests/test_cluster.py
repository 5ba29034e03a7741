"""Cluster mode: ``scrapy crawl corpus`` workers sharing one frontier and export through Redis.

Real ``scrapy crawl`` subprocesses, a real redis-server (tests/redis_server.py)
and a generated news site on 127.0.0.1 (tests/resume_site.py, distinct article
texts).  Checked over the outputs of all workers: every article exported, none
twice, each worker a real share; a worker killed with SIGKILL and restarted
loses nothing; an unreachable Redis ends the crawl at once with one line.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.crawl_helpers import TEST_CRAWL_OPTIONS
from tests.redis_server import redis_url  # noqa: F401 (fixture)
from tests.resume_site import ResumeSite
from tests.support.crawl_forks import popen_command, run_command
from tests.support.forked_process import ForkedProcess

REPO = Path(__file__).resolve().parent.parent
LOCAL = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8",
         "-s", "LOG_LEVEL=INFO", "-s", "CORPUSCRAWL_CLUSTER_COMMIT_INTERVAL=0.25",
         "-s", "CORPUSCRAWL_CLUSTER_LEASE_TIMEOUT=3"]


def command(redis: str, collection: str, worker: str, out: Path, seed: str) -> list[str]:
    """One worker's crawl command."""
    return [sys.executable, "-m", "scrapy", "crawl", "corpus", *TEST_CRAWL_OPTIONS,
            "-o", str(out),
            "-a", f"seeds={seed}", "-a", f"collection={collection}",
            "-s", f"CORPUSCRAWL_REDIS_URL={redis}", "-s", f"CORPUSCRAWL_CLUSTER_WORKER={worker}",
            *LOCAL]


def start(cmd: list[str], log: Path) -> subprocess.Popen | ForkedProcess:
    """Start a worker, its log into ``log``."""
    with log.open("a") as fh:
        return popen_command(cmd, cwd=REPO, stdout=fh, stderr=subprocess.STDOUT,
                             env=dict(os.environ, PYTHONPATH=str(REPO)))


def records(out: Path) -> list[dict]:
    """Whole records of a JSON Lines output (a killed worker's torn last line is skipped)."""
    if not out.exists():
        return []
    docs = []
    for line in out.read_bytes().splitlines():
        try:
            docs.append(json.loads(line))
        except ValueError:
            continue
    return docs


def check_once(outputs: list[Path], expected: set[str]) -> list[collections.Counter]:
    """Every expected URL exported, no document twice over all outputs; per-output counts."""
    per_output = [collections.Counter((d["url"], d.get("unit_index", 0)) for d in records(out))
                  for out in outputs]
    total = sum(per_output, collections.Counter())
    doubled = [key for key, n in total.items() if n > 1]
    assert not doubled, f"{len(doubled)} documents exported twice, e.g. {doubled[:3]}"
    missing = expected - {url for url, _ in total}
    assert not missing, f"{len(missing)} articles never exported, e.g. {sorted(missing)[:3]}"
    return per_output


def wait(procs: list[subprocess.Popen | ForkedProcess], timeout: float = 240) -> None:
    """Wait for the workers; fail (and kill them) past ``timeout``."""
    deadline = time.monotonic() + timeout
    for proc in procs:
        try:
            proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            for other in procs:
                other.kill()
            pytest.fail("a worker did not finish in time")


@pytest.mark.slow
@pytest.mark.redis
def test_two_workers_share_the_site_and_export_every_page_once(tmp_path, redis_url):  # noqa: F811
    with ResumeSite(articles=1000, delay=0.002) as site:
        outs = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
        procs = [start(command(redis_url, "shared", f"w{i}", out, site.url),
                       tmp_path / f"w{i}.log") for i, out in enumerate(outs)]
        wait(procs)
        assert [p.returncode for p in procs] == [0, 0], (tmp_path / "w0.log").read_text()[-3000:]
        counts = check_once(outs, site.article_urls())
        shares = [sum(c.values()) for c in counts]
        assert min(shares) >= 0.1 * sum(shares), f"one worker did nearly nothing: {shares}"


@pytest.mark.slow
@pytest.mark.redis
def test_a_worker_killed_mid_crawl_and_restarted_loses_nothing(tmp_path, redis_url):  # noqa: F811
    with ResumeSite(articles=400, delay=0.01) as site:
        killed, other = tmp_path / "k.jsonl", tmp_path / "o.jsonl"
        victim = start(command(redis_url, "killing", "victim", killed, site.url),
                       tmp_path / "victim.log")
        partner = start(command(redis_url, "killing", "partner", other, site.url),
                        tmp_path / "partner.log")
        deadline = time.monotonic() + 120
        while len(records(killed)) < 20 and victim.poll() is None:
            assert time.monotonic() < deadline, "the victim exported nothing"
            time.sleep(0.05)
        assert victim.poll() is None, "the victim finished before it could be killed"
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        # The same command again: the output is cut back to what was committed, then appended.
        again = start(command(redis_url, "killing", "victim", killed, site.url),
                      tmp_path / "victim.log")
        wait([partner, again])
        assert again.returncode == 0 and partner.returncode == 0
        assert killed.read_bytes().endswith(b"\n"), "torn record left in the output"
        check_once([killed, other], site.article_urls())
        log = (tmp_path / "victim.log").read_text() + (tmp_path / "partner.log").read_text()
        assert "leased requests back into the queue" in log


def test_unreachable_redis_fails_at_start_with_one_line(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cmd = command(f"redis://127.0.0.1:{port}/0", "nowhere", "w", tmp_path / "x.jsonl",
                  "http://127.0.0.1:9/")
    proc = run_command(cmd, cwd=REPO, timeout=60, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1, proc.stderr
    assert "cannot reach Redis at redis://127.0.0.1" in errors[0]
    assert not (tmp_path / "x.jsonl").exists()


def _redis_server(port: int, workdir: Path) -> subprocess.Popen:
    """A redis-server on ``port`` keeping its data in ``workdir`` (append-only file)."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "yes", "--dir", str(workdir)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline, "redis did not start"
            time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.redis
def test_redis_lost_mid_crawl_the_crawl_waits_and_continues(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = _redis_server(port, tmp_path)
    try:
        with ResumeSite(articles=400, delay=0.01) as site:
            out, log = tmp_path / "out.jsonl", tmp_path / "w.log"
            worker = start(command(f"redis://127.0.0.1:{port}/0", "outage", "w", out, site.url)
                           + ["-s", "CORPUSCRAWL_CLUSTER_LEASE_TIMEOUT=60"], log)
            deadline = time.monotonic() + 120
            while len(records(out)) < 20 and worker.poll() is None:
                assert time.monotonic() < deadline, "the worker exported nothing"
                time.sleep(0.05)
            assert worker.poll() is None, "the crawl finished before Redis could be stopped"
            server.terminate()  # a clean shutdown writes the append-only file
            server.wait(timeout=10)
            time.sleep(3)
            server = _redis_server(port, tmp_path)
            wait([worker])
            assert worker.returncode == 0, log.read_text()[-3000:]
            check_once([out], site.article_urls())
            text = log.read_text()
            assert "Redis unreachable during" in text and "Redis reachable again" in text
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.slow
@pytest.mark.redis
def test_ctrl_c_then_the_same_command_with_overwrite_continues(tmp_path, redis_url):  # noqa: F811
    """A worker stopped by SIGINT requeues its unfinished requests; run again with -O, it
    appends to its output instead of wiping what the first run exported."""
    with ResumeSite(articles=400, delay=0.01) as site:
        out, log = tmp_path / "c.jsonl", tmp_path / "c.log"
        cmd = command(redis_url, "ctrlc", "solo", out, site.url)
        cmd[cmd.index("-o")] = "-O"
        first = start(cmd, log)
        deadline = time.monotonic() + 120
        while len(records(out)) < 20 and first.poll() is None:
            assert time.monotonic() < deadline, "the worker exported nothing"
            time.sleep(0.05)
        assert first.poll() is None, "the crawl finished before it could be stopped"
        first.send_signal(signal.SIGINT)
        wait([first])
        before = len(records(out))
        assert 0 < before < 400
        again = start(cmd, log)
        wait([again])
        assert again.returncode == 0, log.read_text()[-3000:]
        check_once([out], site.article_urls())


@pytest.mark.slow
@pytest.mark.redis
def test_a_dead_worker_never_restarted_is_recovered_by_the_other(tmp_path, redis_url):  # noqa: F811
    """The partner takes the dead worker's leases once its heartbeat expires; the dead
    worker's output is valid up to the size committed in ``feeds:<worker>``."""
    import redis as redis_client

    with ResumeSite(articles=400, delay=0.01) as site:
        dead, other = tmp_path / "d.jsonl", tmp_path / "p.jsonl"
        victim = start(command(redis_url, "orphan", "gone", dead, site.url),
                       tmp_path / "gone.log")
        partner = start(command(redis_url, "orphan", "stays", other, site.url),
                        tmp_path / "stays.log")
        deadline = time.monotonic() + 120
        while len(records(dead)) < 20 and victim.poll() is None:
            assert time.monotonic() < deadline, "the victim exported nothing"
            time.sleep(0.05)
        assert victim.poll() is None, "the victim finished before it could be killed"
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        wait([partner])
        assert partner.returncode == 0
        size = int(redis_client.Redis.from_url(redis_url).hget(
            "corpuscrawl:orphan:feeds:gone", str(dead.resolve())))
        with dead.open("r+b") as fh:
            fh.truncate(size)
        check_once([dead, other], site.article_urls())
        assert "recovered dead worker gone" in (tmp_path / "stays.log").read_text()
