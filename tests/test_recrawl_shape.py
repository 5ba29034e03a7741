"""A recrawl applies a changed extractor or template to known pages, even those answering 304.

The page store keeps per page what shaped its text (the extractor, its model
file, the domain's template file, the text settings).  On a recrawl a page
whose shape changed is fetched in full and extracted again, and exported when
its text changed; with the configuration unchanged every known article
answers 304 and nothing is exported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.crawl_helpers import run_crawl, stat
from tests.recrawl_site import ChangingSite, SiteServer

pytestmark = pytest.mark.slow

ARTICLES = 6
SETTINGS = {"CORPUSCRAWL_MIN_TEXT_CHARS": "500", "CORPUSCRAWL_BOILERPLATE_ERROR_PAGES": "False",
            "DOWNLOAD_DELAY": "0", "CONCURRENT_REQUESTS_PER_DOMAIN": "8",
            "AUTOTHROTTLE_ENABLED": "False"}


def _crawl(tmp_path: Path, server: SiteServer, name: str, *args: str, **settings: str):
    merged = dict(SETTINGS, CORPUSCRAWL_STATE_DIR=str(tmp_path / "state"),
                  CORPUSCRAWL_BOILERPLATE_HISTORY=str(tmp_path / "history.sqlite3"), **settings)
    docs, log, code = run_crawl(tmp_path / f"{name}.jsonl", f"seeds={server.url}",
                                "collection=shapes", *args, settings=merged, timeout=120)
    assert code == 0, log[-3000:]
    return docs, log


def test_a_changed_extractor_or_template_reaches_pages_answering_304(tmp_path: Path) -> None:
    site = ChangingSite.build(ARTICLES, sections=2, per_section=10)
    articles = {a.path for a in site.articles.values()}
    templates = tmp_path / "templates"
    templates.mkdir()
    with SiteServer(site) as server:
        first, _ = _crawl(tmp_path, server, "first", "extractor=bte")
        assert {"/" + d["url"].split("/", 3)[3] for d in first} == articles

        # the same configuration: every article answers 304, nothing is exported
        server.reset_counts()
        same, log = _crawl(tmp_path, server, "same", "extractor=bte")
        assert same == []
        assert set(server.not_modified) == articles and not set(server.bodies) & articles
        assert stat(log, "corpuscrawl/recrawl/reshaped") == 0

        # another extractor: every article is fetched in full and extracted again; the
        # articles whose text it extracts differently are exported as changed
        server.reset_counts()
        auto, log = _crawl(tmp_path, server, "auto", "extractor=auto")
        assert stat(log, "corpuscrawl/recrawl/reshaped") == ARTICLES
        assert set(server.bodies) >= articles and not set(server.not_modified) & articles
        assert not set(server.conditional) & articles
        assert auto and {d["change"] for d in auto} == {"changed"}
        assert stat(log, "corpuscrawl/recrawl/changed") + stat(
            log, "corpuscrawl/recrawl/unchanged") == ARTICLES
        assert {d["extractor"] for d in auto} == {"auto"}

        # a template for the domain (a file in the templates directory)
        (templates / "127.0.0.1.txt").write_text("p\n", encoding="utf-8")
        server.reset_counts()
        templated, log = _crawl(tmp_path, server, "template", "extractor=auto",
                                CORPUSCRAWL_TEMPLATES_DIR=str(templates))
        assert stat(log, "corpuscrawl/recrawl/reshaped") == ARTICLES
        assert {"/" + d["url"].split("/", 3)[3] for d in templated} == articles
        assert {d["change"] for d in templated} == {"changed"}
        assert all(d["extractor"].startswith("template") for d in templated)
        # the template keeps the paragraphs, not the headline
        for d in templated:
            article = site.articles[int(d["url"].rsplit("/", 1)[1].removesuffix(".html"))]
            assert article.title not in d["text"] and article.body[0] in d["text"]

        # the template file edited: its pages again, with the new text
        (templates / "127.0.0.1.txt").write_text("article\n", encoding="utf-8")
        server.reset_counts()
        edited, log = _crawl(tmp_path, server, "edited", "extractor=auto",
                             CORPUSCRAWL_TEMPLATES_DIR=str(templates))
        assert stat(log, "corpuscrawl/recrawl/reshaped") == ARTICLES
        assert {"/" + d["url"].split("/", 3)[3] for d in edited} == articles
        assert all(d["text"].startswith(site.articles[int(
            d["url"].rsplit("/", 1)[1].removesuffix(".html"))].title) for d in edited)

        # and unchanged again: 304s, nothing exported
        server.reset_counts()
        again, log = _crawl(tmp_path, server, "again", "extractor=auto",
                            CORPUSCRAWL_TEMPLATES_DIR=str(templates))
        assert again == [] and set(server.not_modified) == articles
        assert stat(log, "corpuscrawl/recrawl/reshaped") == 0
