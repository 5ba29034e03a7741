"""When to render a page in Chromium, and how the crawl is wired to scrapy-playwright.

``render=never|always|auto`` (spider argument,
``CORPUSCRAWL_RENDER`` setting, or per domain in the rules).  ``auto`` fetches
plainly first and re-requests with rendering only when the static page needs a
browser (:mod:`corpuscrawl.browse.decision`); one part of that evidence is here,
whether the page looks script-built (:func:`script_built_reasons`): little
extractable text, an empty app root, a ``<noscript>`` asking for JavaScript, or
far more script than text.

The thresholds below are ours (the thesis always rendered); they are set so that
every static page of the bundled fixtures and the benchmark datasets' typical
article stays plain, while an SPA shell is rendered.

:class:`RenderingAddon` (Scrapy add-on, enabled in ``settings.ADDONS``) installs
scrapy-playwright's download handler only when some rendering can happen, with
Debian's Chromium (:mod:`corpuscrawl.browse.browser`).  This module reads
settings through the ``get``/``getint`` interface only and never imports Scrapy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from corpuscrawl.browse.browser import launch_options
from corpuscrawl.browse.interaction import MAX_SCROLLS_DEFAULT, InteractionOptions
from corpuscrawl.config.crawl_checks import CrawlSetupError
from corpuscrawl.config.setting_values import YES_NO, yes_no
from corpuscrawl.html.dom import normalize_space
from corpuscrawl.html.page import Page
from corpuscrawl.net.browser_guard import guarded
from corpuscrawl.pagetext.rules import FOLLOW_MODES, RENDER_MODES, DomainRule

#: A page with less visible body text than this (characters) may be script-built
#: (a short static article has ~1000; an SPA shell has ~0-100).
MIN_STATIC_TEXT_DEFAULT = 250
#: Inline-script characters per visible text character above which a page is judged
#: script-built (server-rendered news pages are ~1-3; hydrated shells are far above 10).
SCRIPT_TEXT_RATIO_DEFAULT = 8.0
#: Concurrent browser pages (a context's page limit): 4 fits 2 cores (benchmarks/dynamic.py).
MAX_PAGES_DEFAULT = 4
#: Browser resource types never fetched when rendering: they do not change the text.
ABORTED_RESOURCE_TYPES = frozenset(("image", "media", "font"))
#: Playwright context used for all rendered requests of the crawl.
CONTEXT_NAME = "corpuscrawl"
#: Run on every new page before navigation (a path, so request meta stays serializable):
#: installs the pending-work counters the interaction loop waits on.
PAGE_INIT_CALLBACK = "corpuscrawl.browse.waiting.prepare_page"

_APP_ROOT_IDS = ("root", "app", "__next", "__nuxt", "svelte", "main-app", "application")
_NOSCRIPT_RE = re.compile(r"(enable|activate|turn on|requires?|need)\W+(\w+\W+){0,3}javascript",
                          re.I)


class RenderConfigError(CrawlSetupError):
    """A rendering argument or setting is invalid; the message names it."""


def script_built_reasons(page: Page, min_text: int = MIN_STATIC_TEXT_DEFAULT,
                         script_ratio: float = SCRIPT_TEXT_RATIO_DEFAULT) -> list[str]:
    """Why a statically fetched page looks built by scripts (empty list: it does not)."""
    body = page.clean_tree.find("body")
    text = normalize_space(body.text_content()) if body is not None else ""
    reasons: list[str] = []
    if len(text) >= min_text * 4:
        return reasons  # plenty of static text: never worth a browser
    scripts = page.tree.findall(".//script")
    script_chars = sum(len(s.text or "") for s in scripts)
    for node in page.tree.iter():
        node_id = node.get("id") if isinstance(node.tag, str) else None
        if (node_id in _APP_ROOT_IDS or node.get("data-reactroot") is not None
                or node.get("ng-app") is not None) and not normalize_space(node.text_content()):
            reasons.append(f"empty app root #{node_id or node.tag}")
            break
    for noscript in page.tree.iter("noscript"):
        if _NOSCRIPT_RE.search(noscript.text_content() or ""):
            reasons.append("noscript asks for JavaScript")
            break
    if len(text) < min_text and scripts:
        reasons.append(f"only {len(text)} characters of static text")
    if scripts and script_chars > script_ratio * max(len(text), 1):
        reasons.append(f"script/text ratio {script_chars / max(len(text), 1):.0f}")
    return reasons


@dataclass(frozen=True)
class RenderPlan:
    """Crawl-wide rendering choices; per-domain rules override them in :meth:`for_rule`."""

    render: str = "never"
    max_reveals: int | None = None
    max_scrolls: int = MAX_SCROLLS_DEFAULT
    follow: str = "inner"
    extract_continuously: bool = False
    follow_alternates: bool = False
    model: str = "element-classifier"

    def __post_init__(self) -> None:
        if self.render not in RENDER_MODES:
            raise RenderConfigError(f"render={self.render!r}: must be one of {RENDER_MODES}")
        if self.follow not in FOLLOW_MODES:
            raise RenderConfigError(f"follow={self.follow!r}: must be one of {FOLLOW_MODES}")
        for name in ("max_reveals", "max_scrolls"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise RenderConfigError(f"{name}={value}: must be >= 0")

    @classmethod
    def from_args(cls, settings: Any, **args: Any) -> RenderPlan:
        """Spider arguments (strings, "" = unset) over ``CORPUSCRAWL_*`` settings."""
        def arg(name: str, setting: str, default: Any) -> Any:
            value = args.get(name)
            if value in (None, ""):
                value = settings.get(setting, default)
            return default if value in (None, "") else value

        def number(name: str, value: Any) -> int | None:
            if value in (None, "", "all"):
                return None
            try:
                return int(value)
            except (TypeError, ValueError):
                raise RenderConfigError(f"{name}={value!r}: expected a whole number") from None

        def flag(name: str, value: Any) -> bool:
            try:
                return yes_no(value)
            except ValueError:
                raise RenderConfigError(f"{name}={value!r}: expected {YES_NO}") from None

        scrolls = number("max_scrolls", arg("max_scrolls", "CORPUSCRAWL_MAX_SCROLLS",
                                            MAX_SCROLLS_DEFAULT))
        return cls(render=str(arg("render", "CORPUSCRAWL_RENDER", "never")).lower(),
                   max_reveals=number("max_reveals",
                                      arg("max_reveals", "CORPUSCRAWL_MAX_REVEALS", None)),
                   max_scrolls=MAX_SCROLLS_DEFAULT if scrolls is None else scrolls,
                   follow=str(arg("follow", "CORPUSCRAWL_FOLLOW", "inner")).lower(),
                   extract_continuously=flag("extract_continuously", arg(
                       "extract_continuously", "CORPUSCRAWL_EXTRACT_CONTINUOUSLY", "0")),
                   follow_alternates=flag("follow_alternates", arg(
                       "follow_alternates", "CORPUSCRAWL_FOLLOW_ALTERNATES", "0")),
                   model=str(arg("model", "CORPUSCRAWL_ELEMENT_MODEL", "element-classifier")))

    def for_rule(self, rule: DomainRule) -> RenderPlan:
        """This plan with a domain rule's non-None fields applied."""
        changes = {name: getattr(rule, name) for name in
                   ("render", "max_reveals", "max_scrolls", "follow", "extract_continuously")
                   if getattr(rule, name) is not None}
        return self if not changes else RenderPlan(**{**self.__dict__, **changes})

    def interaction_options(self) -> InteractionOptions:
        """Options of the interaction loop for this plan."""
        return InteractionOptions(max_reveals=self.max_reveals, max_scrolls=self.max_scrolls,
                                  snapshot_each_reveal=self.extract_continuously)


def may_render(settings: Any) -> bool:
    """True when the crawl's settings or any domain rule can lead to rendering."""
    if str(settings.get("CORPUSCRAWL_RENDER") or "never").lower() != "never":
        return True
    domains = settings.get("CORPUSCRAWL_DOMAINS") or {}
    if isinstance(domains, Mapping) and any(
            isinstance(rule, Mapping) and rule.get("render") not in (None, "never")
            for rule in domains.values()):
        return True
    return bool(settings.get("CORPUSCRAWL_RULES_FILE"))  # may hold render rules


def rendering_settings(max_pages: int = MAX_PAGES_DEFAULT) -> dict[str, Any]:
    """Scrapy settings that route ``meta["playwright"]`` requests through Chromium."""
    handler = "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler"
    return {
        "DOWNLOAD_HANDLERS": {"http": handler, "https": handler},
        "PLAYWRIGHT_BROWSER_TYPE": "chromium",
        "PLAYWRIGHT_LAUNCH_OPTIONS": launch_options(),
        "PLAYWRIGHT_MAX_PAGES_PER_CONTEXT": max_pages,
        "PLAYWRIGHT_MAX_CONTEXTS": 1,
        "PLAYWRIGHT_ABORT_REQUEST": "corpuscrawl.browse.render.abort_request",
        "PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT": 30_000,
        "PLAYWRIGHT_RESTART_DISCONNECTED_BROWSER": True,
    }


def abort_heavy_request(request: Any) -> bool:
    """``PLAYWRIGHT_ABORT_REQUEST``: skip images, media and fonts (they never hold text)."""
    return request.resource_type in ABORTED_RESOURCE_TYPES


#: ``PLAYWRIGHT_ABORT_REQUEST``: the private-network guard (corpuscrawl.net), then the above.
abort_request = guarded(abort_heavy_request)


class RenderingAddon:
    """Scrapy add-on: install scrapy-playwright with Debian's Chromium when rendering may happen.

    Enabled in ``settings.ADDONS``; a crawl with ``render=never`` everywhere keeps
    Scrapy's plain download handlers (no Playwright driver is started).
    """

    def update_settings(self, settings: Any) -> None:
        """Apply :func:`rendering_settings` at add-on priority when :func:`may_render`."""
        if not may_render(settings):
            return
        max_pages = int(settings.get("CORPUSCRAWL_RENDER_MAX_PAGES") or MAX_PAGES_DEFAULT)
        for key, value in rendering_settings(max_pages).items():
            if key == "DOWNLOAD_HANDLERS":
                handlers = dict(settings.getdict("DOWNLOAD_HANDLERS"))
                handlers.update(value)
                settings.set(key, handlers, priority="addon")
            else:
                settings.set(key, value, priority="addon")


def render_meta(extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Request meta for a rendered fetch whose page the callback drives and then closes."""
    meta = {"playwright": True, "playwright_include_page": True,
            "playwright_context": CONTEXT_NAME,
            "playwright_page_init_callback": PAGE_INIT_CALLBACK,
            "playwright_page_goto_kwargs": {"wait_until": "load"},
            "corpuscrawl_rendered": True}
    meta.update(extra or {})
    return meta
