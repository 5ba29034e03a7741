"""End-to-end: report sentences repeated with other figures in many stories stay, notices go,
headlines and titles are each story's own whatever the arrival order.

The evening paper of tests/reports_site.py: three report sentences each in 40-60 % of
the stories (a market line, a weather line, a match result as a story's last
paragraph), notices with a changing year, headlines that are the same after number
folding and written in an ``<h3>``, ``<title>`` only the paper's name on two stories in
three.  Crawled with ``scrapy crawl corpus`` and the default extractor, one request at a
time (the seeds' order is the arrival order), front page first and stories first.
Counts, not timings.
"""

from __future__ import annotations

import pytest

from tests.crawl_helpers import crawl_seeds
from tests.local_server import LocalServer, static_site
from tests.reports_site import ALL_STORIES, NOTICES, REPORT_SENTENCES, site_files

pytestmark = pytest.mark.slow

ORDER = ["/", *(f"/{s.slug}" for s in ALL_STORIES)]
SETTINGS = {"CONCURRENT_REQUESTS": "1", "CORPUSCRAWL_BOILERPLATE_ERROR_PAGES": "False"}


# session scope: a server no test changes or inspects, one per xdist worker, so the tests
# that use it are not bound to one worker (tests/conftest.py groups module-scoped ones)
@pytest.fixture(scope="session")
def site():
    with static_site(site_files()) as server:
        yield server


def crawl(site: LocalServer, out, paths: list[str], **settings: str) -> dict[str, dict]:
    docs = crawl_seeds(site.url, out, paths, {**SETTINGS, **settings})
    return {d["url"].rsplit("/", 1)[-1] or "/": d for d in docs}


@pytest.fixture(scope="module")
def crawls(site, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reports")
    return {"front first": crawl(site, tmp / "forward.jsonl", ORDER),
            "stories first": crawl(site, tmp / "backward.jsonl", ORDER[::-1])}


def test_the_site_repeats_report_sentences_beyond_any_share_threshold():
    users = {t: sum(p.startswith(t) for _, p in REPORT_SENTENCES)
             for t in ("The Northfield share index", "Forecasters expect", "Northfield Rovers")}
    assert min(users.values()) >= 0.3 * len(ALL_STORIES)
    assert len({p for _, p in REPORT_SENTENCES}) == len(REPORT_SENTENCES)  # other figures


@pytest.mark.parametrize("order", ["front first", "stories first"])
def test_report_sentences_are_kept_and_notices_removed(crawls, order):
    docs = crawls[order]
    lost = [(slug, s[:40]) for slug, s in REPORT_SENTENCES
            if s not in docs.get(slug, {}).get("text", "")]
    assert lost == []
    for story in ALL_STORIES:
        assert all(p in docs[story.slug]["text"] for p in story.paragraphs), story.slug
    left = [(url, n[:30]) for url, d in docs.items() for n in (*NOTICES, "©") if n in d["text"]]
    assert left == []
    assert min(len(d["text"].split()) for d in docs.values()) >= 15


@pytest.mark.parametrize("order", ["front first", "stories first"])
def test_every_story_starts_with_its_headline_and_is_titled_by_it(crawls, order):
    docs = crawls[order]
    wrong = [(s.slug, docs[s.slug]["title"], docs[s.slug]["text"].split("\n", 1)[0])
             for s in ALL_STORIES
             if docs[s.slug]["title"] != s.headline
             or docs[s.slug]["text"].split("\n", 1)[0] != s.headline]
    assert wrong == []


def test_the_text_does_not_depend_on_the_arrival_order(crawls):
    forward, backward = crawls["front first"], crawls["stories first"]
    assert {s.slug: forward[s.slug]["text"] for s in ALL_STORIES} == \
        {s.slug: backward[s.slug]["text"] for s in ALL_STORIES}


def test_without_the_figures_rule_the_report_sentences_are_lost(site, tmp_path):
    """The rule is what keeps them: with CORPUSCRAWL_BOILERPLATE_FIGURES_WORDS=0 the
    history removes the report sentences (the regression this file guards against)."""
    docs = crawl(site, tmp_path / "off.jsonl", ORDER, CORPUSCRAWL_BOILERPLATE_FIGURES_WORDS="0")
    lost = [slug for slug, s in REPORT_SENTENCES if s not in docs.get(slug, {}).get("text", "")]
    assert len(lost) > len(REPORT_SENTENCES) // 2
