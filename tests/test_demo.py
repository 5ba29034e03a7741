"""The README's main job: with no seeds, crawl the bundled demo site into a clean corpus."""

from __future__ import annotations

import pytest

from corpuscrawl.demo.articles import ARTICLES
from corpuscrawl.demo.site import COPYRIGHT, NEWSLETTER
from tests.crawl_helpers import run_crawl

pytestmark = pytest.mark.slow

BOILERPLATE = ("Related stories", "Most read", "Search the Chronicle", "About us", "Privacy",
               "Terms of use", "Share this story", NEWSLETTER, COPYRIGHT, "All rights reserved",
               "SECRET DRAFT")


def test_demo_crawl_keeps_article_bodies_and_drops_site_boilerplate(tmp_path):
    out = tmp_path / "corpus.jsonl"
    docs, log, code = run_crawl(
        out, settings={"CORPUSCRAWL_BOILERPLATE_HISTORY": str(tmp_path / "history.sqlite3")})
    assert code == 0, log[-3000:]
    assert "crawling the bundled demo site" in log
    texts = {d["url"].rsplit("/", 1)[-1]: d["text"] for d in docs}
    for article in ARTICLES:
        text = texts[f"{article.slug}.html"]
        for paragraph in article.paragraphs:
            assert paragraph in text, f"{article.slug}: body paragraph missing"
    for doc in docs:
        for line in BOILERPLATE:
            if line == doc["title"]:  # the "About us" page's own headline
                continue
            assert line not in doc["text"], f"{doc['url']} contains boilerplate {line!r}"
    # the README's figure: the six articles (each with its headline and title) and the
    # "About us" page; front and section pages are listed as dropped
    assert sorted(texts) == sorted([f"{a.slug}.html" for a in ARTICLES] + ["about.html"])
    for article in ARTICLES:
        doc = next(d for d in docs if d["url"].endswith(f"/{article.slug}.html"))
        assert doc["title"] == article.title and doc["text"].split("\n")[0] == article.title
    dropped = (tmp_path / "corpus.jsonl.dropped.jsonl").read_text(encoding="utf-8")
    assert dropped.count("\n") == 4 and '"reason": "listing"' in dropped
