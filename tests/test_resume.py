"""Exactly-once resume: real crawls killed with SIGKILL and started again with the same command.

Each test serves a generated site (tests/resume_site.py) on 127.0.0.1, runs
``scrapy crawl corpus -O corpus.jsonl`` in a subprocess, kills it with
SIGKILL at chosen moments (while pages are fetched and the export stage
still holds the cold domain's documents, while documents are written, while
Chromium renders), starts the same command again until one run ends, and
checks the one output file: every article exactly once, every line a whole
JSON record.  The killed runs extract in the default extraction worker (pages
in flight in it when the kill lands); the run that ends extracts in the crawl
process (``TEST_CRAWL_OPTIONS``): a worker there adds a process start and a
model load and nothing to what is checked, except in the JOBDIR test, which
runs the issue's one command.
"""

from __future__ import annotations

import collections
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.crawl_helpers import TEST_CRAWL_OPTIONS
from tests.resume_site import ResumeSite
from tests.support.crawl_forks import popen_command, run_command

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
#: The local test server needs no politeness: many requests at once, no AutoThrottle.
LOCAL = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8"]


def command(out: Path, state: Path, seed: str, *args: str) -> list[str]:
    """The crawl command, the same for every run of a test."""
    cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", "-O", str(out),
           "-a", f"seeds={seed}", "-s", f"CORPUSCRAWL_STATE_DIR={state}",
           "-s", "LOG_LEVEL=INFO", "-s", "CORPUSCRAWL_STATE_COMMIT_INTERVAL=0.5", *LOCAL]
    for arg in args:
        cmd += ["-a", arg]
    return cmd


def lines(out: Path) -> int:
    """Complete lines in the output so far."""
    try:
        return out.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def run_and_kill(cmd: list[str], log: Path, until: Callable[[], bool],
                 timeout: float = 60) -> bool:
    """Run ``cmd`` and SIGKILL it once ``until()`` holds; False when it ended by itself first."""
    with log.open("a") as fh:
        proc = popen_command(cmd, cwd=REPO, stdout=fh, stderr=subprocess.STDOUT,
                             env=dict(os.environ, PYTHONPATH=str(REPO)))
        deadline = time.monotonic() + timeout
        while proc.poll() is None and not until() and time.monotonic() < deadline:
            time.sleep(0.02)
        if proc.poll() is not None:
            return False
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        return True


def run_to_end(cmd: list[str], log: Path, in_process: bool = True) -> str:
    """Run ``cmd`` until it finishes (pages extracted in the crawl process unless not
    ``in_process``); return its log."""
    if in_process:
        cmd = [*cmd, *TEST_CRAWL_OPTIONS]
    proc = run_command(cmd, cwd=REPO, timeout=120, env=dict(os.environ, PYTHONPATH=str(REPO)))
    text = proc.stdout + proc.stderr
    with log.open("a") as fh:
        fh.write(text)
    assert proc.returncode == 0, text[-3000:]
    return text


def check_exactly_once(out: Path, expected: set[str]) -> list[dict]:
    """Every line a whole record, every document once, every expected URL present."""
    raw = out.read_bytes()
    assert raw.endswith(b"\n"), "torn last record"
    docs = [json.loads(line) for line in raw.decode("utf-8").splitlines()]
    counts = collections.Counter((d["url"], d.get("unit_index", 0)) for d in docs)
    doubled = [key for key, n in counts.items() if n > 1]
    assert not doubled, f"{len(doubled)} documents exported twice, e.g. {doubled[:3]}"
    missing = expected - {url for url, _ in counts}
    assert not missing, f"{len(missing)} articles never exported, e.g. {sorted(missing)[:3]}"
    return docs


@pytest.mark.slow
def test_killed_while_fetching_and_while_exporting_every_article_once(tmp_path):
    """Three kills: while the cold domain's documents are held, mid-export, late; then the end."""
    out, state, log = tmp_path / "corpus.jsonl", tmp_path / "state", tmp_path / "crawl.log"
    with ResumeSite(articles=300, delay=0.03) as site:
        cmd = command(out, state, site.url)
        # 1. pages fetched, nothing written yet: the export stage holds the first documents
        assert run_and_kill(cmd, log, lambda: site.requests >= 15)
        assert lines(out) == 0
        # 2. and 3. while documents are being written
        before = lines(out)
        assert run_and_kill(cmd, log, lambda: lines(out) >= before + 60)
        before = lines(out)
        assert run_and_kill(cmd, log, lambda: lines(out) >= before + 80)
        text = run_to_end(cmd, log)
        assert "resuming" in text
        expected = site.article_urls()
    docs = check_exactly_once(out, expected)
    assert len(docs) >= len(expected)


@pytest.mark.slow
def test_a_torn_record_and_unflushed_writes_are_repaired(tmp_path):
    """A record cut in the middle by the kill is removed; what it held is exported again."""
    out, state, log = tmp_path / "corpus.jsonl", tmp_path / "state", tmp_path / "crawl.log"
    with ResumeSite(articles=80, delay=0.03) as site:
        cmd = command(out, state, site.url)
        assert run_and_kill(cmd, log, lambda: lines(out) >= 40)
        with out.open("ab") as fh:  # as if the kill had landed inside a write
            fh.write(b'{"url": "' + site.url.encode() + b'article/1", "text": "half a rec')
        text = run_to_end(cmd, log)
        assert "cut " in text  # the repair is logged
        expected = site.article_urls()
    check_exactly_once(out, expected)


@pytest.mark.slow
def test_ctrl_c_then_kill_with_a_vertical_feed_beside_the_jsonl(tmp_path):
    """A graceful stop (SIGINT) is resumed too; a second feed format stays in step."""
    out, state, log = tmp_path / "corpus.jsonl", tmp_path / "state", tmp_path / "crawl.log"
    vertical = tmp_path / "corpus.vert"
    with ResumeSite(articles=150, delay=0.03) as site:
        cmd = command(out, state, site.url) + ["-o", f"{vertical}:vertical"]
        cmd[cmd.index("-O")] = "-o"  # scrapy takes -o or -O, not both
        env = dict(os.environ, PYTHONPATH=str(REPO))
        with log.open("a") as fh:
            proc = popen_command(cmd, cwd=REPO, stdout=fh, stderr=subprocess.STDOUT, env=env)
            while proc.poll() is None and lines(out) < 30:
                time.sleep(0.02)
            proc.send_signal(signal.SIGINT)  # Ctrl-C: Scrapy stops gracefully ("shutdown")
            assert proc.wait(timeout=60) == 0
        before = lines(out)
        assert run_and_kill(cmd, log, lambda: lines(out) >= before + 40)
        text = run_to_end(cmd, log)
        assert "resuming" in text
        expected = site.article_urls()
    docs = check_exactly_once(out, expected)
    doc_urls = re.findall(r'<doc url="([^"]+)"', vertical.read_text(encoding="utf-8"))
    assert vertical.read_text(encoding="utf-8").endswith("</doc>\n")
    assert sorted(doc_urls) == sorted(d["url"] for d in docs)


@pytest.mark.slow
def test_with_jobdir_a_killed_crawl_resumes_and_a_finished_one_starts_anew(tmp_path):
    """The issue's scenario (-s JOBDIR=…, SIGKILL, same command); then a new generation."""
    out, log = tmp_path / "corpus.jsonl", tmp_path / "crawl.log"
    jobdir = tmp_path / "job"
    with ResumeSite(articles=80, delay=0.03) as site:
        cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", "-O", str(out),
               "-a", f"seeds={site.url}", "-s", f"JOBDIR={jobdir}", "-s", "LOG_LEVEL=INFO",
               "-s", "CORPUSCRAWL_RECRAWL=full", *LOCAL]
        assert run_and_kill(cmd, log, lambda: lines(out) >= 30)
        assert (jobdir / "state.sqlite3").is_file()  # JOBDIR is the state's home
        assert (jobdir / "corpuscrawl-history.sqlite3").is_file()
        resumed = run_to_end(cmd, log, in_process=False)
        assert "generation 1, resuming" in resumed  # even if killed before its first commit
        expected = site.article_urls()
        check_exactly_once(out, expected)
        again = run_to_end(cmd, log, in_process=False)  # the generation was complete: a new crawl
        assert "generation 2, new crawl" in again
    check_exactly_once(out, expected)  # -O of a new generation overwrites


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's Chromium")
def test_killed_while_rendering_every_article_once(tmp_path):
    out, state, log = tmp_path / "corpus.jsonl", tmp_path / "state", tmp_path / "crawl.log"
    with ResumeSite(articles=40, delay=0.05) as site:
        cmd = command(out, state, site.url, "render=always", "max_scrolls=0")
        # Chromium is up and pages are being rendered; documents still held (cold domain)
        assert run_and_kill(cmd, log, lambda: site.requests >= 12)
        before = lines(out)
        assert run_and_kill(cmd, log, lambda: site.requests >= 40 or lines(out) > before)
        text = run_to_end(cmd, log)
        assert "resuming" in text
        expected = site.article_urls()
    check_exactly_once(out, expected)
