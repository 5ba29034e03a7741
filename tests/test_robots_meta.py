"""Robots meta tags and X-Robots-Tag: parsing, and a crawl that obeys (or is told to ignore) them."""

from __future__ import annotations

import json

import pytest

from corpuscrawl.html.page import Page
from corpuscrawl.html.robots_meta import (
    RobotsDirectives,
    agent_token,
    header_directives,
    page_directives,
)
from tests.crawl_helpers import run_crawl, stat
from tests.local_server import LocalServer, Reply

TOKEN = "corpuscrawl"


def _page(head: str) -> Page:
    return Page.from_html(f"<html><head>{head}</head><body><p>Text.</p></body></html>",
                          url="http://127.0.0.1/x")


@pytest.mark.parametrize(("content", "noindex", "nofollow"), [
    ("noindex, nofollow", True, True),
    ("NOINDEX", True, False),
    ("nofollow", False, True),
    ("none", True, True),
    ("all", False, False),
    ("index, follow", False, False),
    ("noarchive, max-snippet:50", False, False),
    # spaces or semicolons instead of commas: still two directives
    ("noindex nofollow", True, True),
    ("NOINDEX;NOFOLLOW", True, True),
    ("max-snippet: 50 nofollow", False, True),
])
def test_directives_of_a_robots_meta_tag(content: str, noindex: bool, nofollow: bool) -> None:
    found = page_directives(_page(f'<meta name="robots" content="{content}">'), TOKEN)
    assert (found.noindex, found.nofollow) == (noindex, nofollow)


def test_a_tag_for_another_crawler_is_not_ours_and_ours_adds_up_with_robots() -> None:
    assert page_directives(_page('<meta name="googlebot" content="noindex">'), TOKEN) == \
        RobotsDirectives()
    both = page_directives(_page('<meta name="Robots" content="nofollow">'
                                 '<meta name="CorpusCrawl" content="noindex">'), TOKEN)
    assert both == RobotsDirectives(noindex=True, nofollow=True)


def test_x_robots_tag_values_and_crawler_prefixes() -> None:
    assert header_directives([b"noindex"], TOKEN) == RobotsDirectives(noindex=True)
    assert header_directives(["googlebot: noindex, nofollow"], TOKEN) == RobotsDirectives()
    assert header_directives(["corpuscrawl: none"], TOKEN) == RobotsDirectives(True, True)
    assert header_directives(["noindex nofollow"], TOKEN) == RobotsDirectives(True, True)
    assert header_directives(["unavailable_after: 25 Jun 2010 15:00:00 PST", "nofollow"],
                             TOKEN) == RobotsDirectives(nofollow=True)


def test_agent_token_is_the_user_agents_product_name() -> None:
    assert agent_token("corpuscrawl/0.9 (+https://example.org/bot)") == "corpuscrawl"
    assert agent_token("Mozilla/5.0 (X11)") == "mozilla"
    assert agent_token("") == ""


def _article(title: str, links: list[str], head: str = "") -> str:
    text = " ".join(f"{title} is a story about the river, the harbour and the town council "
                    f"meeting number {i}, told at length for readers." for i in range(12))
    anchors = "".join(f'<li><a href="{href}">Read the story called {href.strip("/")}</a></li>'
                      for href in links)
    return (f"<html><head><title>{title}</title>{head}</head><body><article><h1>{title}</h1>"
            f"<p>{text}</p></article><ul>{anchors}</ul></body></html>")


def _site() -> dict[str, Reply]:
    """Home links five pages; each links a child page of its own."""
    meta = '<meta name="robots" content="{}">'
    return {
        "/": Reply(_article("Home page", ["/none/", "/header/", "/nofollow/", "/google/",
                                          "/ours/"])),
        # noindex, nofollow: neither exported nor followed
        "/none/": Reply(_article("Blocked page", ["/none-child/"],
                                 meta.format("noindex, nofollow"))),
        # X-Robots-Tag noindex: not exported, followed
        "/header/": Reply(_article("Header page", ["/header-child/"]),
                          headers={"X-Robots-Tag": "noindex"}),
        # nofollow: exported, not followed
        "/nofollow/": Reply(_article("Nofollow page", ["/nofollow-child/"], meta.format("nofollow"))),
        # another crawler's tag: exported and followed
        "/google/": Reply(_article("Google page", ["/google-child/"],
                                   '<meta name="googlebot" content="noindex, nofollow">')),
        # our own token: "none"
        "/ours/": Reply(_article("Ours page", ["/ours-child/"],
                                 '<meta name="corpuscrawl" content="none">')),
        **{f"/{name}-child/": Reply(_article(f"Child of {name}", []))
           for name in ("none", "header", "nofollow", "google", "ours")},
    }


def _paths(docs: list[dict]) -> set[str]:
    return {d["url"].split("/", 3)[3] for d in docs}


@pytest.mark.parametrize("render", ["", "render=always"])
def test_crawl_obeys_robots_meta_and_counts_blocked_pages(tmp_path, render: str) -> None:
    with LocalServer(_site()) as server:
        args = [f"seeds={server.url}", "sitemaps=0", "feeds=0", *([render] if render else [])]
        docs, log, code = run_crawl(tmp_path / "out.jsonl", *args)
        fetched = set(server.paths())
    assert code == 0, log[-3000:]
    assert _paths(docs) == {"", "nofollow/", "google/", "google-child/", "header-child/"}
    assert "/none-child/" not in fetched and "/ours-child/" not in fetched
    assert "/nofollow-child/" not in fetched
    assert "/header-child/" in fetched and "/google-child/" in fetched
    summary = json.loads((tmp_path / "out.jsonl.summary.json").read_text(encoding="utf-8"))
    assert summary["robots_meta"] == {"noindex": 3, "nofollow": 3}
    assert stat(log, "corpuscrawl/robots_meta/noindex") == 3
    assert "not exported (robots noindex)" in log


def test_robots_meta_can_be_ignored(tmp_path) -> None:
    with LocalServer(_site()) as server:
        docs, log, code = run_crawl(tmp_path / "out.jsonl", f"seeds={server.url}", "sitemaps=0",
                                    "feeds=0", settings={"CORPUSCRAWL_ROBOTS_META_OBEY": "False"})
    assert code == 0, log[-3000:]
    assert len(docs) == 11
    summary = json.loads((tmp_path / "out.jsonl.summary.json").read_text(encoding="utf-8"))
    assert summary["robots_meta"] == {"noindex": 0, "nofollow": 0}
