"""The crawl's rendering service: retry decisions, link policy, page closing."""

from __future__ import annotations

import asyncio

from playwright.async_api import Error as PlaywrightError

from corpuscrawl.browse.links import FoundLink
from corpuscrawl.browse.render import RenderPlan
from corpuscrawl.browse.rendered import (
    RETRY_META_KEY,
    Renderer,
    RenderOutcome,
    close_page,
    is_crash,
    retry_meta,
)
from corpuscrawl.pagetext.rules import DomainRule, DomainRules


def test_crash_is_retried_once_with_a_fresh_page() -> None:
    meta = {"playwright": True, "playwright_page": object(), "depth": 1}
    first = retry_meta(meta)
    assert first is not None and "playwright_page" not in first
    assert first[RETRY_META_KEY] == 2 and first["depth"] == 1
    assert retry_meta(first) is None


def test_is_crash() -> None:
    assert is_crash(PlaywrightError("Page.evaluate: Target crashed"))
    assert is_crash(PlaywrightError("Target page, context or browser has been closed"))
    assert not is_crash(PlaywrightError("Timeout 30000ms exceeded"))
    assert not is_crash(ValueError("crash"))


def test_links_to_follow_by_policy_and_domain_rule() -> None:
    links = [FoundLink("http://a.org/1", "inner"), FoundLink("http://b.org/", "outer"),
             FoundLink("http://a.org/de/1", "language", lang="de")]
    outcome = RenderOutcome(url="http://a.org/", html="", links=links)
    inner_only = Renderer(RenderPlan(render="always"))
    assert [link.kind for link in inner_only.links_to_follow(outcome)] == ["inner"]
    everything = Renderer(RenderPlan(render="always", follow="all", follow_alternates=True))
    assert len(everything.links_to_follow(outcome)) == 3
    rules = DomainRules({"a.org": DomainRule(domain="a.org", follow="all", render="auto")})
    ruled = Renderer(RenderPlan(render="always"), rules)
    assert ruled.mode_for("http://a.org/x") == "auto"
    assert ruled.mode_for("http://c.org/x") == "always"
    assert [link.kind for link in ruled.links_to_follow(outcome)] == ["inner", "outer"]


def test_close_page_tolerates_closed_and_missing_pages() -> None:
    class Closed:
        def is_closed(self) -> bool:
            return True

    class Broken:
        def is_closed(self) -> bool:
            return False

        async def close(self) -> None:
            raise PlaywrightError("Target closed")

    asyncio.run(close_page(None))
    asyncio.run(close_page(Closed()))
    asyncio.run(close_page(Broken()))
