"""Live progress (corpuscrawl/report/scrapy_glue/progress.py): a status line on a terminal (a real pty), progress
lines in a log, the summary's timeline."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpuscrawl.report.scrapy_glue.progress import (
    ProgressConfig,
    ProgressConfigError,
    Sample,
    status_line,
)
from tests.crawl_helpers import REPO, run_crawl
from tests.local_server import LocalServer, Reply, article
from tests.support.crawl_forks import popen_command

TOPICS = ["Harbour", "Orchard", "Glacier", "Lantern", "Meadow", "Quarry", "Violin", "Canyon",
          "Beacon", "Thistle", "Falcon", "Marble"]


def _site() -> LocalServer:
    paths = [f"/p/{t.lower()}" for t in TOPICS]
    routes = {"/": Reply(article("Front page", paths))}
    for path, topic in zip(paths, TOPICS, strict=True):
        routes[path] = Reply(article(f"{topic} {topic.lower()}s and {topic.lower()}keepers"))
    return LocalServer(routes)


def test_status_line_figures() -> None:
    line = status_line(Sample(161.0, 1204, 1057, 12, 3311, 16, ("example.org", 8)), 7.94, eta=60)
    assert line == ("fetched 1,204 (7.9/s) | exported 1,057 | frontier 3,311 (+16 in flight) | "
                    "errors 12 | 0:02:41 | ETA 0:01:00 | busiest example.org (8)")


def test_bad_setting_names_itself() -> None:
    with pytest.raises(ProgressConfigError, match="CORPUSCRAWL_PROGRESS must be one of"):
        ProgressConfig.from_settings({"CORPUSCRAWL_PROGRESS": "loud"})
    with pytest.raises(ProgressConfigError, match="CORPUSCRAWL_PROGRESS_INTERVAL"):
        ProgressConfig.from_settings({"CORPUSCRAWL_PROGRESS_INTERVAL": "0"})


def _crawl_on_a_terminal(tmp_path: Path, url: str) -> tuple[int, str]:
    """A crawl whose standard error is a pseudo-terminal; everything it wrote there."""
    primary, secondary = pty.openpty()
    cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", "-a", f"seeds={url}",
           "-O", str(tmp_path / "c.jsonl"), "-s", "LOG_LEVEL=INFO",
           "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0.4",
           "-s", "CONCURRENT_REQUESTS=1", "-s", "CORPUSCRAWL_EXTRACTOR=bte",
           "-s", f"CORPUSCRAWL_STATE_DIR={tmp_path / 'state'}",
           "-s", f"CORPUSCRAWL_BOILERPLATE_HISTORY={tmp_path / 'h.sqlite3'}"]
    proc = popen_command(cmd, cwd=REPO, stdin=subprocess.DEVNULL, stdout=secondary,
                         stderr=secondary, env=dict(os.environ, PYTHONPATH=str(REPO)))
    os.close(secondary)
    out = b""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        ready, _, _ = select.select([primary], [], [], 0.5)
        if ready:
            try:
                data = os.read(primary, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            out += data
        elif proc.poll() is not None:
            break
    proc.wait(timeout=30)
    os.close(primary)
    return proc.returncode, out.decode("utf-8", "replace")


def test_status_line_on_a_terminal(tmp_path: Path) -> None:
    with _site() as site:
        code, out = _crawl_on_a_terminal(tmp_path, site.url)
    assert code == 0, out[-2000:]
    lines = [part for part in out.split("\r\x1b[K") if part.startswith("fetched ")]
    assert len(lines) >= 3  # redrawn every second over a crawl of several seconds
    assert all(" | exported " in x and " | frontier " in x and " | errors " in x for x in lines)
    fetched = [int(x.split()[1].replace(",", "")) for x in lines]
    assert fetched == sorted(fetched) and fetched[-1] >= len(TOPICS)
    assert any(" | busiest 127.0.0.1 (" in x for x in lines)  # the per-host view
    # a log record clears the line first: none is glued to the end of a status line
    assert not re.search(r"(?:\d+:\d\d:\d\d|\(\d+\))\d{4}-\d\d-\d\d ", out)
    assert re.search(r"\r\x1b\[K\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[", out)  # a cleared record
    assert "progress: " not in out  # no progress log lines when the line is drawn


def test_log_lines_and_timeline_without_a_terminal(tmp_path: Path) -> None:
    with _site() as site:
        out = tmp_path / "c.jsonl"
        docs, log, code = run_crawl(out, f"seeds={site.url}",
                                    settings={"LOGSTATS_INTERVAL": "1", "DOWNLOAD_DELAY": "0.3",
                                              "CONCURRENT_REQUESTS": "1",
                                              "CORPUSCRAWL_EXTRACTOR": "bte"})
    assert code == 0, log[-2000:]
    assert "\x1b[K" not in log
    progress = [line for line in log.splitlines() if "progress: fetched " in line]
    assert progress, log[-2000:]
    summary = json.loads(Path(f"{out}.summary.json").read_text())
    timeline = summary["timeline"]
    assert timeline["columns"] == ["seconds", "fetched", "exported", "errors", "frontier"]
    rows = timeline["rows"]
    assert len(rows) >= 3
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    assert rows[-1][1] == summary["requests"]["responses"]
    assert rows[-1][2] == summary["documents"]["exported"] == len(docs)


def test_off_means_no_progress_lines(tmp_path: Path) -> None:
    with _site() as site:
        _, log, code = run_crawl(tmp_path / "c.jsonl", f"seeds={site.url}",
                                 settings={"LOGSTATS_INTERVAL": "1", "CORPUSCRAWL_PROGRESS": "off",
                                           "CORPUSCRAWL_EXTRACTOR": "bte"})
    assert code == 0 and "progress: " not in log


class _Terminal:
    """A stream that says it is a terminal."""

    def __init__(self) -> None:
        self.written: list[str] = []

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> None:
        self.written.append(text)

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("job, mode, draws, logs", [
    ("", "auto", True, False),           # a person at a terminal
    ("5f3a9c", "auto", False, True),     # Scrapyd passes _job: progress lines in its log
    ("", "log", False, True),
    ("", "off", False, False),
])
def test_who_gets_the_status_line(job: str, mode: str, draws: bool, logs: bool) -> None:
    from scrapy.utils.test import get_crawler

    from corpuscrawl.report.scrapy_glue.progress import ProgressExtension

    class Spider:
        _job = job
        max_pages = None

    crawler = get_crawler(settings_dict={"CORPUSCRAWL_PROGRESS": mode})
    terminal = _Terminal()
    extension = ProgressExtension(crawler, ProgressConfig.from_settings(crawler.settings), terminal)
    extension.spider_opened(Spider())
    try:
        assert (extension.draw, extension.log_lines) == (draws, logs)
        extension.tick()
        assert any(w.startswith("\r\x1b[Kfetched 0") for w in terminal.written) == draws
    finally:
        extension.spider_closed(Spider())
    assert extension.timeline and extension.timeline[-1][1:] == [0, 0, 0, 0]
