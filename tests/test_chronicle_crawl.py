"""End-to-end on a CMS-shaped daily written unlike the other test sites (tests/chronicle_site.py).

Two ``scrapy crawl corpus`` runs against the site on 127.0.0.1, one request at a time:

* **from the front page**, the default extractor, links followed as a user's crawl
  does: every story exported with every sentence (report lines in 20-45 % of the
  domain's documents with other figures, two stories sharing the same fuel price), no
  notice left (cookie and consent lines, newsletter box, "Share this:", copyright lines
  of changing form and years, corrections and "updated on" notices), titles each
  story's own whatever its ``<title>`` says, no document under 15 words; robots meta
  and ``X-Robots-Tag`` obeyed however they are written, the pages behind ``nofollow``
  never fetched, every robots page in ``<feed>.dropped.jsonl`` and the summary;
* **stories first** (the seeds reversed, no links followed), with ``bte``: the same
  sentences kept and notices removed in the other arrival order, every story starting
  with its headline.

Counts, not timings.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.chronicle_site import (
    ALL_STORIES,
    NOTICES,
    ONLY_BEHIND,
    REPORT_SENTENCES,
    ROBOTS_PAGES,
    expected_robots,
    site_files,
)
from tests.crawl_helpers import crawl_seeds, run_crawl
from tests.local_server import LocalServer, Reply

pytestmark = pytest.mark.slow

SETTINGS = {"CONCURRENT_REQUESTS": "1", "CORPUSCRAWL_BOILERPLATE_ERROR_PAGES": "False"}
FILES = site_files()
#: Every page a crawl of the seeds' list gets, stories first.
STORIES_FIRST = [p for p in reversed(FILES) if not p.startswith("/hidden/")]


def _path(url: str) -> str:
    return "/" + url.split("/", 3)[3]


@pytest.fixture(scope="module")
def crawls(tmp_path_factory):
    """Both crawls, their documents by path, and what the first one fetched."""
    tmp = tmp_path_factory.mktemp("chronicle")
    routes = {path: Reply(html, headers=headers) for path, (html, headers) in FILES.items()}
    routes["/robots.txt"] = Reply("User-agent: *\nDisallow:\n", content_type="text/plain")
    with LocalServer(routes) as server:
        docs, log, code = run_crawl(tmp / "front.jsonl", f"seeds={server.url}",
                                    settings=SETTINGS)
        assert code == 0, log[-3000:]
        fetched = set(server.paths())
        reversed_docs = crawl_seeds(server.url, tmp / "stories.jsonl", STORIES_FIRST,
                                    {**SETTINGS, "CORPUSCRAWL_EXTRACTOR": "bte"})
    return {"front": {_path(d["url"]): d for d in docs},
            "stories": {_path(d["url"]): d for d in reversed_docs},
            "fetched": fetched, "out": tmp / "front.jsonl"}


@pytest.mark.parametrize("crawl", ["front", "stories"])
def test_every_story_sentence_is_kept_and_no_notice_is_left(crawls, crawl):
    docs = crawls[crawl]
    assert {s.path for s in ALL_STORIES} <= set(docs)
    lost = [(path, s[:40]) for path, s in REPORT_SENTENCES if s not in docs[path]["text"]]
    assert lost == []
    for story in ALL_STORIES:
        text = docs[story.path]["text"]
        assert all(p in text for p in story.paragraphs), story.path
        assert story.dek in text, story.path
    left = [(path, n[:30]) for path, d in docs.items() for n in NOTICES if n in d["text"]]
    assert left == []
    assert min(len(d["text"].split()) for d in docs.values()) >= 15


@pytest.mark.parametrize("crawl", ["front", "stories"])
def test_every_story_is_titled_by_its_headline(crawls, crawl):
    docs = crawls[crawl]
    wrong = [(s.path, docs[s.path]["title"]) for s in ALL_STORIES
             if docs[s.path]["title"] != s.headline]
    assert wrong == []


def test_stories_start_with_their_headline(crawls):
    docs = crawls["stories"]
    wrong = [(s.path, docs[s.path]["text"].split("\n", 1)[0]) for s in ALL_STORIES
             if docs[s.path]["text"].split("\n", 1)[0] != s.headline]
    assert wrong == []


def test_robots_pages_are_neither_exported_nor_followed_however_they_say_it(crawls):
    docs, fetched = crawls["front"], crawls["fetched"]
    assert set(ROBOTS_PAGES) <= fetched
    found = {path: (path in docs, ONLY_BEHIND[path] in fetched) for path in ROBOTS_PAGES}
    assert found == expected_robots()
    out: Path = crawls["out"]
    dropped = [json.loads(line) for line in
               Path(f"{out}.dropped.jsonl").read_text(encoding="utf-8").splitlines()]
    robots = {_path(r["url"]) for r in dropped if r["reason"] == "robots"}
    assert robots == {p for p, (exported, _) in expected_robots().items() if not exported}
    # every fetched page that gave no document is listed, with its reason
    pages = {p for p in fetched if p in FILES}
    assert {_path(r["url"]) for r in dropped} == pages - set(docs)
    summary = json.loads(Path(f"{out}.summary.json").read_text(encoding="utf-8"))
    blocked = [what for _, what in ROBOTS_PAGES.values()]
    assert summary["robots_meta"] == {"noindex": blocked.count("none") + blocked.count("noindex"),
                                      "nofollow": blocked.count("none") + blocked.count("nofollow")}


def test_every_story_opens_with_its_headline(crawls):
    docs = crawls["front"]
    """auto leaves out the <h1 class="entry-title"> of some stories (its gold sets mostly
    leave headlines out); the document's text opens with it all the same."""
    assert [s.path for s in ALL_STORIES
            if not docs[s.path]["text"].startswith(s.headline)] == []
