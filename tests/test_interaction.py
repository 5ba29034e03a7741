"""The reveal / close / scroll loop in real headless Chromium against local pages."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from corpuscrawl.browse.browser import chromium_path
from corpuscrawl.browse.classifier import load_classifier
from corpuscrawl.browse.interaction import InteractionOptions, InteractionResult, interact
from corpuscrawl.browse.localsite import LocalSite
from corpuscrawl.html.dom import render_text
from corpuscrawl.html.page import Page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(shutil.which(chromium_path()) is None and not Path(chromium_path()).exists(),
                       reason=f"Chromium not installed at {chromium_path()}"),
]

SITE = Path(__file__).parent / "data" / "dynamic"


def run_page(path: str, options: InteractionOptions | None = None,
             before: Callable[[Any], Awaitable[None]] | None = None) -> InteractionResult:
    """Open a fixture page in Chromium, run the loop with the shipped model, return the result."""
    from playwright.async_api import async_playwright

    from corpuscrawl.browse.browser import launch_chromium

    model = load_classifier()

    async def main() -> InteractionResult:
        with LocalSite(SITE) as site:
            async with async_playwright() as pw:
                browser = await launch_chromium(pw)
                try:
                    page = await browser.new_page()
                    await page.goto(site.url(path))
                    if before is not None:
                        await before(page)
                    return await interact(page, model.predict, options)
                finally:
                    await browser.close()

    return asyncio.run(main())


def visible_text(result: InteractionResult) -> str:
    return render_text(Page.from_html(result.html).clean_tree)


def test_consent_wall_closed_and_click_revealed_text_kept() -> None:
    result = run_page("news/article.html")
    text = visible_text(result)
    assert "CLICK-REVEALED-COMMENT" in text       # only exists after clicking the pager
    assert "CONSENT-WALL-TEXT" not in text        # the wall was closed, its text is gone
    assert result.reveals >= 1 and result.closes >= 1


def test_click_intercepted_by_overlay_closes_it_first() -> None:
    """Clicking the pager while the consent wall covers it closes the wall, then clicks."""
    from playwright.async_api import async_playwright

    from corpuscrawl.browse import dom_scripts
    from corpuscrawl.browse.browser import launch_chromium
    from corpuscrawl.browse.interaction import PageInteraction

    model = load_classifier()

    async def main() -> tuple[bool, str, list[str]]:
        with LocalSite(SITE) as site:
            async with async_playwright() as pw:
                browser = await launch_chromium(pw)
                try:
                    page = await browser.new_page()
                    await page.goto(site.url("news/article.html"))
                    loop = PageInteraction(page, model.predict)
                    await page.evaluate(dom_scripts.INSTALL_JS)
                    records, _ = await loop.collect()
                    pager = next(r for r in records if r.attributes.get("id") == "pager")
                    assert pager.layout["hit"] == "covered"  # the wall intercepts clicks
                    clicked = await loop.click(pager)
                    await loop.settle()
                    return clicked, await page.inner_text("body"), loop.result.log
                finally:
                    await browser.close()

    clicked, text, log = asyncio.run(main())
    assert clicked
    assert "CLICK-REVEALED-COMMENT" in text and "CONSENT-WALL-TEXT" not in text
    assert any("intercepted" in m for m in log) and any("closed overlay" in m for m in log)


def test_infinite_scroll_and_delayed_modal() -> None:
    result = run_page("feed/index.html", InteractionOptions(max_scrolls=5))
    text = visible_text(result)
    for marker in ("NEW-TWEETS-BAR-TEXT", "SCROLL-PAGE-TWO", "SCROLL-PAGE-THREE",
                   "SCROLL-PAGE-FOUR"):
        assert marker in text
    assert "MODAL-NEWSLETTER-TEXT" not in text
    assert 3 <= result.scrolls <= 5


def test_limits_are_respected() -> None:
    result = run_page("forum/thread.html", InteractionOptions(max_reveals=1, max_scrolls=0))
    assert result.reveals == 1 and result.scrolls == 0
    text = visible_text(result)
    assert "LOAD-MORE-PAGE-THREE" not in text


def test_load_more_clicked_until_exhausted_and_links_classified() -> None:
    result = run_page("forum/thread.html", InteractionOptions(max_scrolls=1))
    text = visible_text(result)
    assert "LOAD-MORE-PAGE-TWO" in text and "LOAD-MORE-PAGE-THREE" in text
    assert "SPOILER-REVEALED-TEXT" in text
    kinds = {(link.kind, link.url.rsplit("/", 1)[-1]) for link in result.links()}
    assert ("outer", "outer-target.html") in kinds
    assert {lang for kind, lang in
            ((link.kind, link.lang) for link in result.links()) if kind == "language"} >= \
        {"de", "hu"}


def test_accordion_toggles_stay_open() -> None:
    result = run_page("gov/guidance.html", InteractionOptions(max_scrolls=0))
    text = visible_text(result)
    assert "ACCORDION-TEXT" in text and "DETAILS-TEXT" in text
    assert "GOV-COOKIE-TEXT" not in text


def test_snapshots_after_each_reveal_are_deduplicated() -> None:
    result = run_page("forum/thread.html",
                      InteractionOptions(max_scrolls=0, snapshot_each_reveal=True))
    assert len(result.snapshots) == result.reveals
    assert len(set(result.snapshots)) == len(result.snapshots)
    assert "LOAD-MORE-PAGE-TWO" in result.snapshots[-1]


def test_a_click_that_lands_elsewhere_is_swallowed_and_reported() -> None:
    """The page moved between hit test and click: the stray click follows no link."""
    from playwright.async_api import async_playwright

    from corpuscrawl.browse import dom_scripts
    from corpuscrawl.browse.browser import launch_chromium
    from corpuscrawl.browse.interaction import PageInteraction

    model = load_classifier()

    async def main() -> tuple[str, bool, str, bool]:
        async with async_playwright() as pw:
            browser = await launch_chromium(pw)
            try:
                page = await browser.new_page()
                await page.set_content('<p>Text</p><button id="more">Show more</button>'
                                       '<p><a id="away" href="#elsewhere">Elsewhere</a></p>')
                loop = PageInteraction(page, model.predict)
                await page.evaluate(dom_scripts.INSTALL_JS)
                records, _ = await loop.collect()
                button = next(r for r in records if r.attributes.get("id") == "more")
                hit = (await page.evaluate(dom_scripts.HIT_JS, button.index))[0]
                box = await page.locator("#away").bounding_box()
                assert box is not None
                await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                reached = await page.evaluate(dom_scripts.CLICKED_JS, button.index)
                stray_hash = await page.evaluate("location.hash")
                # the guard is lifted: the page's own clicks work again
                await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                return hit, reached, stray_hash, await page.evaluate("location.hash") != ""
            finally:
                await browser.close()

    hit, reached, stray_hash, later_click_works = asyncio.run(main())
    assert hit == "ok" and not reached
    assert stray_hash == ""          # the link was not followed
    assert later_click_works
