"""End to end: ``scrapy crawl corpus`` on a 50-page synthetic domain with a copyright notice.

Every article carries the same long notice (changing years) and one of four
rotating share prompts inside its body (tests/boilerplate_site.py).  The
exported texts must have neither, the articles must be intact, the page that
is only the notice must be dropped, and the history must persist: a second
crawl of one new page removes the notice from it at once.  Both history
backends run the same tests (Redis against a real redis-server on 127.0.0.1).
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.boilerplate_site import (
    ALL_ARTICLES,
    HIDDEN,
    NOTICE,
    SHARE_PROMPTS,
    error_html,
    site_files,
)
from tests.crawl_helpers import TEST_CRAWL_OPTIONS
from tests.redis_server import redis_url  # noqa: F401 - pytest fixture
from tests.support.crawl_forks import run_command

pytestmark = pytest.mark.slow


def stat(log: str, key: str) -> int:
    """A counter from the stats dump at the end of a crawl log (0 if absent)."""
    found = re.search(rf"'{re.escape(key)}': (\d+)", log)
    return int(found.group(1)) if found else 0
REPO = Path(__file__).resolve().parent.parent
NOTICE_MARK = "Daily Example Media Group"


class _Handler(SimpleHTTPRequestHandler):
    """Serves the generated site; 404 answers carry the site's template (notice optional)."""

    error_with_notice = False

    def send_error(self, code, message=None, explain=None):  # noqa: D102 - http.server API
        if code != 404:
            return super().send_error(code, message, explain)
        body = error_html(type(self).error_with_notice).encode()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # keep test output quiet
        pass


class Site:
    """The synthetic site on 127.0.0.1 (a fresh port per test module)."""

    def __init__(self, root: Path, error_with_notice: bool = False) -> None:
        for name, html in site_files().items():
            (root / name).write_text(html, encoding="utf-8")
        handler = type("Handler", (_Handler,), {"error_with_notice": error_with_notice})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(root)))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# session scope: a server no test changes or inspects, one per xdist worker, so the tests
# that use it are not bound to one worker (tests/conftest.py groups module-scoped ones)
@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Iterator[Site]:
    server = Site(tmp_path_factory.mktemp("site"))
    yield server
    server.stop()


def crawl(workdir: Path, seed: str, history: str, *args: str,
          **settings: str) -> tuple[dict[str, list], str]:
    """Run the spider with three feeds (jsonl, vertical, txtdir); return their outputs and log."""
    feeds = {str(workdir / "corpus.jsonl"): {"format": "jsonlines", "overwrite": True},
             str(workdir / "corpus.vert"): {"format": "vertical", "overwrite": True},
             str(workdir / "texts" / "index.tsv"): {"format": "txtdir", "overwrite": True}}
    cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", *TEST_CRAWL_OPTIONS,
           "-a", f"seeds={seed}",
           "-a", "sitemaps=0", "-a", "feeds=0", "-s", "LOG_LEVEL=INFO",
           "-s", f"FEEDS={json.dumps(feeds)}", "-s", f"CORPUSCRAWL_BOILERPLATE_HISTORY={history}",
           "-s", f"CORPUSCRAWL_FAILED_DIR={workdir / 'failed'}",
           "-s", f"CORPUSCRAWL_STATE_DIR={workdir / 'state'}"]  # each crawl a new collection
    for arg in args:
        cmd += ["-a", arg]
    for key, value in settings.items():
        cmd += ["-s", f"{key}={value}"]
    proc = run_command(cmd, cwd=REPO, timeout=240, env=dict(os.environ, PYTHONPATH=str(REPO)))
    log = proc.stderr + proc.stdout
    assert proc.returncode == 0, log[-3000:]
    jsonl = workdir / "corpus.jsonl"
    docs = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()
            ] if jsonl.exists() else []
    return {"docs": docs, "vertical": [(workdir / "corpus.vert").read_text(encoding="utf-8")]
            if (workdir / "corpus.vert").exists() else [""],
            "index": (workdir / "texts" / "index.tsv").read_text(encoding="utf-8").splitlines()
            if (workdir / "texts" / "index.tsv").exists() else []}, log


@pytest.fixture(params=["sqlite", "redis"])
def history(request, tmp_path) -> str:
    """A fresh history location for each backend (Redis: its own key prefix per test)."""
    if request.param == "sqlite":
        return str(tmp_path / "history.sqlite3")
    return request.getfixturevalue("redis_url")


def by_slug(docs: list[dict]) -> dict[str, dict]:
    return {d["url"].rsplit("/", 1)[-1]: d for d in docs}


def test_notices_and_share_prompts_are_removed_and_history_persists(site, history, tmp_path,
                                                                     request):
    prefix = f"test:{request.node.name}:{os.getpid()}:"
    out, log = crawl(tmp_path / "run1", site.url + "index.html", history,
                     CORPUSCRAWL_BOILERPLATE_REDIS_PREFIX=prefix)
    docs = by_slug(out["docs"])
    assert "legal.html" not in docs  # nothing but the notice: dropped
    assert stat(log, "corpuscrawl/export/dropped_boilerplate") == 1
    # The front page is a list of links to the articles: no document of the corpus, dropped
    # as a listing, whatever of its headlines the extractor keeps.
    assert "index.html" not in docs
    dropped = [json.loads(line) for line in (tmp_path / "run1" / "corpus.jsonl.dropped.jsonl")
               .read_text(encoding="utf-8").splitlines()]
    assert [(d["url"].rsplit("/", 1)[-1], d["reason"]) for d in dropped
            if d["reason"] == "listing"] == [("index.html", "listing")]
    for article in ALL_ARTICLES:
        text = docs[article.slug]["text"]
        for paragraph in article.paragraphs:
            assert paragraph in text, article.slug
        assert NOTICE_MARK not in text
        assert not any(prompt in text for prompt in SHARE_PROMPTS)
        assert docs[article.slug]["removed_boilerplate"] >= 2
    # every feed wrote the same documents
    assert out["vertical"][0].count("<doc ") == len(out["docs"])
    assert len(out["index"]) == len(out["docs"]) + 1
    assert NOTICE_MARK not in out["vertical"][0]
    assert stat(log, "corpuscrawl/export/paragraphs_removed") >= 100

    # a second crawl of one page no other page links to: the history is already warm
    out2, log2 = crawl(tmp_path / "run2", site.url + HIDDEN.slug, history, "depth=0",
                       CORPUSCRAWL_BOILERPLATE_REDIS_PREFIX=prefix)
    (doc,) = out2["docs"]
    assert NOTICE_MARK not in doc["text"]
    assert all(p in doc["text"] for p in HIDDEN.paragraphs)


def test_without_history_a_lone_page_keeps_its_notice(site, tmp_path):
    """The contrast to the second run above: the removal there came from the stored history."""
    out, _ = crawl(tmp_path, site.url + HIDDEN.slug, str(tmp_path / "fresh.sqlite3"), "depth=0")
    (doc,) = out["docs"]
    assert NOTICE_MARK in doc["text"]


def test_switching_removal_off_exports_what_the_extractor_found(site, tmp_path):
    out, _ = crawl(tmp_path, site.url + "index.html", str(tmp_path / "h.sqlite3"),
                   CORPUSCRAWL_BOILERPLATE_ENABLED="False")
    docs = by_slug(out["docs"])
    assert "legal.html" in docs
    assert all(NOTICE_MARK in docs[a.slug]["text"] for a in ALL_ARTICLES)


def test_error_page_seeds_the_template_of_a_new_domain(tmp_path_factory, tmp_path):
    server = Site(tmp_path_factory.mktemp("site404"), error_with_notice=True)
    try:
        out, log = crawl(tmp_path, server.url + HIDDEN.slug, str(tmp_path / "h.sqlite3"),
                         "depth=0")
    finally:
        server.stop()
    (doc,) = out["docs"]
    assert NOTICE_MARK not in doc["text"]
    assert stat(log, "corpuscrawl/boilerplate/error_pages_seeded") >= 1
    assert NOTICE.format(year=2000)[:20] not in doc["text"]
