"""End-to-end quality floors of the export stage on the 40-story site of tests/figures_site.py.

* History precision: no sentence of a story is lost, though 30 of them recur in
  two or three stories with other figures, and no notice (copyright lines with
  changing years, share bar and prompts, newsletter box) is left.
* Headline retention whatever the arrival order: the site crawled in two
  opposite orders gives every story its headline, its lede and its own title
  (also where ``<title>`` is only the site name), and the same text both times.
* No document under ``CORPUSCRAWL_MIN_WORDS``, and every page that gave no
  document is in ``<feed>.dropped.jsonl`` with its reason.

Counts, not timings; each crawl is one ``scrapy crawl corpus`` against the site
on 127.0.0.1 with one request at a time, so the seeds' order is the arrival order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.crawl_helpers import crawl_seeds
from tests.figures_site import ALL_STORIES, FIGURE_SENTENCES, NOTICES, SECTIONS, site_files
from tests.local_server import LocalServer, static_site

pytestmark = pytest.mark.slow

ORDER = ["/", *(f"/{s}.html" for s in SECTIONS), *(f"/{s.slug}" for s in ALL_STORIES)]
SETTINGS = {"CONCURRENT_REQUESTS": "1", "CORPUSCRAWL_BOILERPLATE_ERROR_PAGES": "False"}


# session scope: a server no test changes or inspects, one per xdist worker, so the tests
# that use it are not bound to one worker (tests/conftest.py groups module-scoped ones)
@pytest.fixture(scope="session")
def site():
    with static_site(site_files()) as server:
        yield server


def crawl(site: LocalServer, out: Path, paths: list[str]) -> list[dict]:
    return crawl_seeds(site.url, out, paths, SETTINGS)


def stories_of(docs: list[dict]) -> dict[str, dict]:
    return {d["url"].rsplit("/", 1)[-1]: d for d in docs if "/story-" in d["url"]}


def test_no_story_sentence_is_lost_and_no_notice_is_left(site, tmp_path):
    out = tmp_path / "corpus.jsonl"
    docs = crawl(site, out, ORDER)
    stories = stories_of(docs)
    assert len(stories) == len(ALL_STORIES)
    lost = [(slug, s) for slug, s in FIGURE_SENTENCES if s not in stories[slug]["text"]]
    assert lost == []
    for story in ALL_STORIES:
        text = stories[story.slug]["text"]
        assert all(p in text for p in story.paragraphs), story.slug
    left = [(d["url"], n) for d in docs for n in NOTICES if n in d["text"]]
    assert left == []
    assert min(len(d["text"].split()) for d in docs) >= 15
    # every page that gave no document is listed with its reason
    dropped = [json.loads(line) for line in
               Path(f"{out}.dropped.jsonl").read_text(encoding="utf-8").splitlines()]
    exported = {d["url"] for d in docs}
    fetched = {site.url.rstrip("/") + p for p in ORDER}
    assert {r["url"] for r in dropped} == fetched - exported
    assert all(r["reason"] and r["detail"] for r in dropped)


def test_headlines_and_titles_do_not_depend_on_the_arrival_order(site, tmp_path):
    forward = stories_of(crawl(site, tmp_path / "forward.jsonl", ORDER))
    backward = stories_of(crawl(site, tmp_path / "backward.jsonl", ORDER[::-1]))
    for story in ALL_STORIES:
        for docs in (forward, backward):
            doc = docs[story.slug]
            lines = doc["text"].split("\n")
            assert lines[0] == story.headline, (story.slug, lines[:2])
            assert doc["title"] == story.headline, (story.slug, doc["title"])
            assert story.paragraphs[0] in lines
        assert forward[story.slug]["text"] == backward[story.slug]["text"], story.slug
