"""Incremental recrawls end to end: two crawls of one collection on a site that changed.

The site (tests/recrawl_site.py) honours If-None-Match / If-Modified-Since and
counts the full bodies it sends.  Between the crawls one article is added,
another is added to the RSS feed only, two are edited (one of them no longer
listed anywhere), one is deleted and one is unlisted but unchanged.  The
second crawl must export exactly the new and the edited articles, download no
unchanged article body, fetch the feed and the section
pages (hubs) and the seed unconditionally, and count the deleted article as
gone.  ``recrawl=full`` then exports every article again.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpuscrawl.browse.browser import chromium_path
from tests.crawl_helpers import REPO, TEST_CRAWL_OPTIONS, run_crawl, stat
from tests.recrawl_site import ChangingSite, SiteServer
from tests.support.crawl_forks import popen_command, run_command

pytestmark = pytest.mark.slow

ARTICLES = 12
#: Section pages' extracted text is a few link titles: below this they give no document.
SETTINGS = {"CORPUSCRAWL_MIN_TEXT_CHARS": "500", "CORPUSCRAWL_BOILERPLATE_ERROR_PAGES": "False",
            "DOWNLOAD_DELAY": "0", "CONCURRENT_REQUESTS_PER_DOMAIN": "8",
            "AUTOTHROTTLE_ENABLED": "False"}  # a local test server: no pacing


def _crawl(tmp_path: Path, server: SiteServer, name: str, *args: str):
    settings = dict(SETTINGS, CORPUSCRAWL_STATE_DIR=str(tmp_path / "state"),
                    CORPUSCRAWL_BOILERPLATE_HISTORY=str(tmp_path / "history.sqlite3"))
    docs, log, code = run_crawl(tmp_path / f"{name}.jsonl", f"seeds={server.url}",
                                "collection=gazette", *args, settings=settings, timeout=120)
    assert code == 0, log[-3000:]
    return docs, log


def _article_paths(docs: list[dict]) -> set[str]:
    return {"/" + d["url"].split("/", 3)[3] for d in docs}


def test_recrawl_exports_only_new_and_changed(tmp_path: Path) -> None:
    site = ChangingSite.build(ARTICLES, sections=3, per_section=10)
    with SiteServer(site) as server:
        first, log1 = _crawl(tmp_path, server, "first")
        assert _article_paths(first) == {a.path for a in site.articles.values()}
        assert {d["change"] for d in first} == {"new"}
        assert stat(log1, "corpuscrawl/recrawl/new") == ARTICLES
        assert not server.conditional  # nothing known yet: no validators sent

        site.add(ARTICLES + 1)  # new: listed first on its section page
        site.add(ARTICLES + 2)
        site.unlink(ARTICLES + 2)  # new, listed only in the feed (known from the first crawl)
        site.edit(3)  # edited, still listed
        site.edit(5)
        site.unlink(5)  # edited and listed nowhere: found through the page store
        site.unlink(7)  # unchanged and listed nowhere
        site.delete(9)  # 404 now
        server.reset_counts()
        second, log2 = _crawl(tmp_path, server, "second")

        by_path = {"/" + d["url"].split("/", 3)[3]: d for d in second}
        new = {site.articles[n].path for n in (ARTICLES + 1, ARTICLES + 2)}
        edited = {site.articles[n].path for n in (3, 5)}
        assert set(by_path) == new | edited
        assert {by_path[p]["change"] for p in new} == {"new"}
        assert {by_path[p]["change"] for p in edited} == {"changed"}
        assert site.articles[3].body[1] in by_path[site.articles[3].path]["text"]

        unchanged = {a.path for n, a in site.articles.items()
                     if n not in (3, 5, ARTICLES + 1, ARTICLES + 2)}
        assert not set(server.bodies) & unchanged, server.bodies  # no unchanged body again
        assert set(server.not_modified) == unchanged
        assert stat(log2, "corpuscrawl/recrawl/not_modified") == len(unchanged)
        assert stat(log2, "corpuscrawl/recrawl/new") == 2
        assert stat(log2, "corpuscrawl/recrawl/changed") == 2
        assert stat(log2, "corpuscrawl/recrawl/unchanged") == 0
        assert stat(log2, "corpuscrawl/recrawl/gone") == 1
        assert server.missing["/news/00009.html"] == 1
        # seed and hubs (section pages) fetched in full, never conditionally
        hubs = {p for p in server.bodies if p.startswith("/section/")}
        assert {f"/section/{s}/1.html" for s in range(3)} <= hubs
        assert not {p for p in server.conditional if p == "/" or p.startswith("/section/")}
        # which section pages count as hubs depends on which page first led to each article in
        # the first crawl (its order); every section is fetched in full either way (above)
        assert 1 <= stat(log2, "corpuscrawl/recrawl/revisited_hubs") <= 3
        assert stat(log2, "corpuscrawl/recrawl/revisited_sources") == 1  # the feed
        assert server.bodies["/feed.xml"] == 1 and "/feed.xml" not in server.conditional
        # a 304 is no request error (the 404s are: the deleted article, /sitemap.xml)
        assert stat(log2, "corpuscrawl/request_errors") == sum(server.missing.values())

        server.reset_counts()
        third, log3 = _crawl(tmp_path, server, "full", "recrawl=full")
        assert _article_paths(third) == {a.path for a in site.articles.values()}
        assert {d["change"] for d in third} == {"unchanged"}
        assert not server.conditional and not server.not_modified

        server.reset_counts()
        fourth, log4 = _crawl(tmp_path, server, "again")
        assert fourth == []  # nothing changed since the full crawl
        assert stat(log4, "corpuscrawl/recrawl/gone") == 0  # already recorded as gone
        assert not set(server.bodies) & {a.path for a in site.articles.values()}


def test_bad_recrawl_mode_is_a_clear_error(tmp_path: Path) -> None:
    site = ChangingSite.build(2)
    with SiteServer(site) as server:
        docs, log, code = run_crawl(tmp_path / "bad.jsonl", f"seeds={server.url}", "recrawl=sometimes",
                                    settings={"CORPUSCRAWL_STATE_DIR": str(tmp_path / "state")},
                                    timeout=60)
    assert code != 0
    assert "recrawl='sometimes'" in log and "changed, full, off" in log
    assert docs == []


def test_a_recrawl_killed_and_resumed_exports_each_change_once(tmp_path: Path) -> None:
    """SIGKILL in the middle of a recrawl; the same command again finishes it."""
    site = ChangingSite.build(40, sections=2, per_section=10)
    out = tmp_path / "corpus.jsonl"
    cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", *TEST_CRAWL_OPTIONS,
           "-O", str(out),
           "-a", "seeds=URL", "-a", "collection=gazette", "-s", "LOG_LEVEL=INFO",
           "-s", f"CORPUSCRAWL_STATE_DIR={tmp_path / 'state'}",
           "-s", "CORPUSCRAWL_STATE_COMMIT_INTERVAL=0.2", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=2"]
    for key, value in SETTINGS.items():
        if key != "CONCURRENT_REQUESTS_PER_DOMAIN":
            cmd += ["-s", f"{key}={value}"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    with SiteServer(site, delay=0.1) as server:
        cmd[cmd.index("seeds=URL")] = f"seeds={server.url}"
        first = run_command(cmd, cwd=REPO, env=env, timeout=120)
        assert first.returncode == 0, first.stderr[-3000:]
        for number in range(1, 11):
            site.edit(number * 4)
        changed = {site.add(41 + i).path for i in range(4)} | {
            site.articles[n * 4].path for n in range(1, 11)}
        out.unlink()
        proc = popen_command(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline and (
                not out.exists() or out.read_bytes().count(b"\n") < 4):
            time.sleep(0.02)
        assert proc.poll() is None, "the recrawl ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        written = out.read_bytes().count(b"\n")
        assert written < len(changed)
        again = run_command(cmd, cwd=REPO, env=env, timeout=120)
        assert again.returncode == 0, again.stderr[-3000:]
    docs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    paths = [d["url"].split("/", 3)[3] for d in docs]
    assert sorted(paths) == sorted(p.lstrip("/") for p in changed)  # each change exactly once


@pytest.mark.browser
@pytest.mark.skipif(not Path(chromium_path()).exists(), reason="needs Debian's Chromium")
def test_a_rendered_recrawl_renders_only_changed_pages(tmp_path: Path) -> None:
    """render=always: a known page is asked plainly and conditionally before Chromium."""
    site = ChangingSite.build(6, sections=2, per_section=10)
    with SiteServer(site) as server:
        first, _ = _crawl(tmp_path, server, "first", "render=always", "max_scrolls=0")
        assert _article_paths(first) == {a.path for a in site.articles.values()}
        site.edit(2)
        server.reset_counts()
        second, log = _crawl(tmp_path, server, "second", "render=always", "max_scrolls=0")
        assert _article_paths(second) == {site.articles[2].path}
        unchanged = {a.path for n, a in site.articles.items() if n != 2}
        assert not set(server.bodies) & unchanged  # neither a probe nor the browser got them
        assert set(server.not_modified) == unchanged
        assert stat(log, "corpuscrawl/render/failures") == 0
        assert stat(log, "corpuscrawl/request_errors") == sum(server.missing.values())
