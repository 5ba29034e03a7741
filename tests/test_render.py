"""render=never|always|auto: the script-built test, the plan, the add-on and request meta."""

from __future__ import annotations

from pathlib import Path

import pytest
from scrapy.settings import Settings

from corpuscrawl.browse.render import (
    RenderConfigError,
    RenderingAddon,
    RenderPlan,
    abort_heavy_request,
    may_render,
    render_meta,
    script_built_reasons,
)
from corpuscrawl.html.page import Page
from corpuscrawl.pagetext.rules import DomainRule

DYNAMIC = Path(__file__).parent / "data" / "dynamic"


def test_spa_shell_is_script_built() -> None:
    reasons = script_built_reasons(Page.from_file(DYNAMIC / "app" / "index.html"))
    assert any("empty app root" in r for r in reasons)
    assert any("noscript" in r for r in reasons)


@pytest.mark.parametrize("path", ["news/hidden-article.html", "multilang/en/article.html",
                                  "forum/thread.html"])
def test_server_rendered_pages_are_not(path: str) -> None:
    assert script_built_reasons(Page.from_file(DYNAMIC / path)) == []


def test_script_heavy_page_with_little_text() -> None:
    html = "<html><body><p>Loading…</p><script>" + "var a=1;" * 500 + "</script></body></html>"
    reasons = script_built_reasons(Page.from_html(html))
    assert any("characters of static text" in r for r in reasons)
    assert any("script/text ratio" in r for r in reasons)


def test_plan_from_args_over_settings_and_rules() -> None:
    settings = Settings({"CORPUSCRAWL_RENDER": "auto", "CORPUSCRAWL_MAX_SCROLLS": 3})
    plan = RenderPlan.from_args(settings, render="", max_reveals="10", follow="all",
                                extract_continuously="1")
    assert (plan.render, plan.max_reveals, plan.max_scrolls, plan.follow) == ("auto", 10, 3, "all")
    assert plan.extract_continuously and plan.interaction_options().snapshot_each_reveal
    ruled = plan.for_rule(DomainRule(domain="x.org", render="always", max_scrolls=0))
    assert (ruled.render, ruled.max_scrolls, ruled.max_reveals) == ("always", 0, 10)
    assert RenderPlan.from_args(Settings(), max_reveals="all").max_reveals is None


@pytest.mark.parametrize(("args", "message"), [
    ({"render": "sometimes"}, "render='sometimes'"),
    ({"follow": "outer"}, "follow='outer'"),
    ({"max_scrolls": "many"}, "max_scrolls='many'"),
    ({"max_reveals": "-1"}, "max_reveals=-1"),
    ({"extract_continuously": "maybe"}, "extract_continuously='maybe'"),
])
def test_bad_arguments_are_named(args: dict, message: str) -> None:
    with pytest.raises(RenderConfigError, match=message):
        RenderPlan.from_args(Settings(), **args)


def test_addon_installs_playwright_only_when_rendering_may_happen() -> None:
    plain = Settings()
    RenderingAddon().update_settings(plain)
    assert "scrapy_playwright" not in str(plain.getdict("DOWNLOAD_HANDLERS"))
    for values in ({"CORPUSCRAWL_RENDER": "auto"},
                   {"CORPUSCRAWL_DOMAINS": {"x.org": {"render": "always"}}}):
        settings = Settings(values)
        assert may_render(settings)
        RenderingAddon().update_settings(settings)
        assert "ScrapyPlaywrightDownloadHandler" in settings.getdict("DOWNLOAD_HANDLERS")["https"]
        assert settings["PLAYWRIGHT_LAUNCH_OPTIONS"]["executable_path"]
        assert settings.getint("PLAYWRIGHT_MAX_PAGES_PER_CONTEXT") == 4


def test_request_meta_and_abort_rule() -> None:
    meta = render_meta({"depth": 2})
    assert meta["playwright"] and meta["playwright_include_page"] and meta["depth"] == 2

    class FakeRequest:
        def __init__(self, kind: str):
            self.resource_type = kind

    assert abort_heavy_request(FakeRequest("image"))
    assert not abort_heavy_request(FakeRequest("script"))
    assert not abort_heavy_request(FakeRequest("xhr"))
