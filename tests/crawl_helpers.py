"""Run real ``scrapy crawl corpus`` subprocesses for integration tests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.support.crawl_forks import popen_command, run_module

REPO = Path(__file__).resolve().parent.parent
#: Settings of every test crawl that is not about the extraction workers: pages are extracted
#: in the crawl process (the default, ``auto``, starts one worker process per core but one,
#: which costs a process start and a model load per crawl).  tests/test_workers.py and the
#: other worker-path tests set ``CORPUSCRAWL_WORKERS`` themselves.
TEST_CRAWL_SETTINGS: dict[str, str] = {"CORPUSCRAWL_WORKERS": "0"}
#: ``TEST_CRAWL_SETTINGS`` as ``scrapy crawl`` options, for tests that build their own command.
TEST_CRAWL_OPTIONS: list[str] = [arg for name, value in TEST_CRAWL_SETTINGS.items()
                                 for arg in ("-s", f"{name}={value}")]


def crawl_command(out: Path, *args: str, settings: dict[str, str] | None = None) -> list[str]:
    """The ``scrapy crawl corpus`` command of a test crawl writing JSON Lines to ``out``."""
    cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", "-O", f"{out}:jsonlines",
           "-s", "LOG_LEVEL=INFO"]
    for a in args:
        cmd += ["-a", a]
    settings = dict(settings or {})
    # each crawl gets its own boilerplate history unless the test shares one on purpose
    settings.setdefault("CORPUSCRAWL_BOILERPLATE_HISTORY", str(out.parent / f"{out.stem}.history.sqlite3"))
    # test servers are local and ours: no AutoThrottle pacing unless a test asks for it
    # (tests/test_politeness.py runs with the shipped defaults)
    settings.setdefault("AUTOTHROTTLE_ENABLED", "False")
    # and its crawl state (frontier, ledger) beside its output, not in the repository
    settings.setdefault("CORPUSCRAWL_STATE_DIR", str(out.parent / f"{out.stem}.state"))
    for name, value in TEST_CRAWL_SETTINGS.items():
        settings.setdefault(name, value)
    for k, v in settings.items():
        cmd += ["-s", f"{k}={v}"]
    return cmd


def crawl_env(cwd: Path = REPO) -> dict[str, str]:
    """The environment of a test crawl run in ``cwd``."""
    return dict(os.environ, PYTHONPATH=str(cwd))


def read_docs(out: Path) -> list[dict]:
    """The documents of a JSON Lines output (none when the file is missing)."""
    if not out.exists():
        return []
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line]


def run_crawl(out: Path, *args: str, settings: dict[str, str] | None = None,
              timeout: int = 180, cwd: Path = REPO) -> tuple[list[dict], str, int]:
    """Run the corpus spider writing JSON Lines to ``out``; return (docs, log, exit code)."""
    cmd = crawl_command(out, *args, settings=settings)
    proc = run_module(cmd[2], cmd[3:], cwd=cwd, env=crawl_env(cwd), timeout=timeout)
    return read_docs(out), proc.stderr + proc.stdout, proc.returncode


def crawl_seeds(base_url: str, out: Path, paths: list[str], settings: dict[str, str],
                timeout: int = 300) -> list[dict]:
    """Crawl exactly ``paths`` of the site at ``base_url`` (no links followed, no sitemaps or
    feeds), in that order when ``settings`` allow one request at a time; the crawl must
    succeed.  Returns the documents written."""
    seeds = ",".join(base_url.rstrip("/") + p for p in paths)
    docs, log, code = run_crawl(out, f"seeds={seeds}", "depth=0", "sitemaps=0", "feeds=0",
                                settings=settings, timeout=timeout)
    assert code == 0, log[-3000:]
    return docs


def stat(log: str, key: str) -> int:
    """A counter from the stats dump at the end of a crawl log (0 if absent)."""
    for line in log.splitlines():
        line = line.strip().rstrip(",")
        if line.startswith(f"'{key}':"):
            return int(line.split(":", 1)[1].strip().rstrip("}").strip())
    return 0


def run_interrupted(cmd: list[str], kill_when: Callable[[], bool] | None = None,
                    how: int = signal.SIGKILL, cwd: Path = REPO) -> str:
    """Run a crawl command in ``cwd`` (sent signal ``how`` once ``kill_when()`` holds); its log."""
    env = dict(os.environ, PYTHONPATH=str(cwd))
    with tempfile.TemporaryFile("w+") as log:
        proc = popen_command(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env=env)
        while kill_when is not None and proc.poll() is None and not kill_when():
            time.sleep(0.01)
        if kill_when is not None and proc.poll() is None:
            os.kill(proc.pid, how)
        proc.wait()
        log.seek(0)
        return log.read()
