"""Drive one rendered page for the crawl: interaction loop, links to follow, alternates, cleanup.

The spider hands over the Playwright page that scrapy-playwright opened
(``playwright_include_page``); :class:`Renderer` runs the interaction loop
with the element classifier, always closes the page, and returns what the
spider needs: the final HTML (and per-reveal snapshots with
``extract_continuously``), the links to follow under the plan's ``follow``
policy, and the page's translations as ``alternates``.  A crashed page is
reported through :func:`retry_meta` so the URL is retried once with a fresh
page (scrapy-playwright restarts a disconnected browser by itself).

No Scrapy import: the spider turns the results into requests and items.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from corpuscrawl.browse.classifier import ElementClassifier, ModelError, load_classifier
from corpuscrawl.browse.decision import RenderDecider, RenderDecision, visible_chars
from corpuscrawl.browse.experience import ExperienceConfig, RenderExperience
from corpuscrawl.browse.interaction import PageInteraction
from corpuscrawl.browse.links import FoundLink, alternates
from corpuscrawl.browse.render import RenderPlan, may_render
from corpuscrawl.html.page import Page
from corpuscrawl.pagetext.rules import DomainRules

logger = logging.getLogger("corpuscrawl.browse")

#: Meta key counting render attempts of a URL (a crash is retried once).
RETRY_META_KEY = "corpuscrawl_render_attempt"
#: Render attempts per URL: the first and one retry after a crash.
MAX_ATTEMPTS_DEFAULT = 2
#: Meta keys of a rendered request: why it is rendered, and what the plain fetch showed
#: (visible characters, and its HTML to fall back on when rendering fails).
REASON_META_KEY = "corpuscrawl_render_reason"
PLAIN_CHARS_META_KEY = "corpuscrawl_plain_chars"
PLAIN_HTML_META_KEY = "corpuscrawl_plain_html"
#: Suffix of an optional separate model for static HTML (``<model>-static``); without
#: one, the live model judges static elements (it reads the structural layout only).
STATIC_MODEL_SUFFIX = "-static"


@dataclass
class RenderOutcome:
    """What rendering one page produced."""

    url: str
    html: str
    snapshots: list[str] = field(default_factory=list)
    links: list[FoundLink] = field(default_factory=list)
    alternates: dict[str, str] = field(default_factory=dict)
    reveals: int = 0
    closes: int = 0
    scrolls: int = 0
    seconds: float = 0.0


class Renderer:
    """Per-crawl rendering service: the plan, the domain rules and the classifier (loaded once)."""

    def __init__(self, plan: RenderPlan, rules: DomainRules | None = None,
                 classifier: ElementClassifier | None = None,
                 static_classifier: ElementClassifier | None = None,
                 experience: RenderExperience | None = None):
        self.plan = plan
        self.rules = rules
        self._classifier = classifier
        self._static = static_classifier
        self.decider = RenderDecider(self._classify_static, experience)

    @classmethod
    def from_settings(cls, plan: RenderPlan, settings: Any,
                      project_root: Callable[[], Path] | None = None) -> Renderer:
        """The crawl's renderer: domain rules, and the site experience of the collection.

        The experience store (:mod:`corpuscrawl.browse.experience`) is opened only when
        some page may be rendered, in the collection's state directory (under
        ``project_root`` when no setting names it: a crawl passes Scrapy's project data
        directory); its settings are validated in any case.
        """
        config = ExperienceConfig.from_settings(settings)
        rules = DomainRules.from_settings(settings)
        experience = None
        if plan.render != "never" or may_render(settings):
            experience = RenderExperience(store=config.open(settings, project_root))
        return cls(plan, rules, experience=experience)

    def close(self) -> None:
        """Keep what the crawl learned (the experience store is written and closed)."""
        self.decider.experience.close()

    @property
    def classifier(self) -> ElementClassifier:
        """The element classifier, loaded on first use (crawls without rendering never load it)."""
        if self._classifier is None:
            self._classifier = load_classifier(self.plan.model)
        return self._classifier

    @property
    def static_classifier(self) -> ElementClassifier:
        """The classifier of static elements (``<model>-static``; the live model without one)."""
        if self._static is None:
            try:
                self._static = load_classifier(self.plan.model + STATIC_MODEL_SUFFIX)
            except ModelError:
                logger.info("no %s%s model: static pages are judged with the live model",
                            self.plan.model, STATIC_MODEL_SUFFIX)
                self._static = self.classifier
        return self._static

    def _classify_static(self, records: list) -> list[str]:
        return self.static_classifier.predict(records)

    def route(self, url: str) -> RenderDecision:
        """Before fetching: render directly (``always``; ``auto`` on experience) or not."""
        mode = self.mode_for(url)
        if mode == "always":
            return RenderDecision(True, "render=always", ("always",))
        if mode == "auto":
            return self.decider.before_fetch(url)
        return RenderDecision(False)

    def judge(self, page: Page) -> RenderDecision:
        """After a plain fetch: render it (``auto`` with evidence) or keep the plain page."""
        if self.mode_for(page.url) != "auto":
            return RenderDecision(False)
        return self.decider.after_plain(page)

    def plain_meta(self, page: Page, decision: RenderDecision) -> dict[str, Any]:
        """Meta of the re-request of a plainly fetched page: reason, plain text, fallback."""
        return {REASON_META_KEY: decision.reason, PLAIN_CHARS_META_KEY: visible_chars(page),
                PLAIN_HTML_META_KEY: page.html}

    def learn(self, meta: dict[str, Any], url: str, rendered: Page) -> None:
        """Record what rendering a plainly fetched page added (the site's experience)."""
        plain = meta.get(PLAIN_CHARS_META_KEY)
        if plain is not None:
            gain = self.decider.learn(url, int(plain), visible_chars(rendered))
            logger.debug("rendering %s %s text", url, "added" if gain else "added no")

    def plan_for(self, url: str) -> RenderPlan:
        """The crawl's plan with the URL's domain rule applied."""
        return self.plan.for_rule(self.rules.for_url(url)) if self.rules else self.plan

    def mode_for(self, url: str) -> str:
        """``never``, ``always`` or ``auto`` for this URL."""
        return self.plan_for(url).render

    async def run(self, page: PlaywrightPage, url: str) -> RenderOutcome:
        """Interact with a navigated page and close it, whatever happens."""
        plan = self.plan_for(url)
        try:
            result = await PageInteraction(page, self.classifier.predict,
                                           plan.interaction_options()).run()
        finally:
            await close_page(page)
        links = result.links()
        page_lang = ""
        for record in result.elements[:1]:
            page_lang = record.page_lang
        logger.debug("rendered %s in %.2f s: %d reveals, %d closes, %d scrolls", url,
                     result.seconds, result.reveals, result.closes, result.scrolls)
        return RenderOutcome(url=result.url, html=result.html, snapshots=result.snapshots,
                             links=links, alternates=alternates(links, result.url, page_lang),
                             reveals=result.reveals, closes=result.closes,
                             scrolls=result.scrolls, seconds=result.seconds)

    def links_to_follow(self, outcome: RenderOutcome) -> list[FoundLink]:
        """Inner links; Outer ones with ``follow=all``; translations with ``follow_alternates``."""
        plan = self.plan_for(outcome.url)
        wanted = {"inner"}
        if plan.follow == "all":
            wanted.add("outer")
        if plan.follow_alternates:
            wanted.add("language")
        return [link for link in outcome.links if link.kind in wanted]


async def close_page(page: Any) -> None:
    """Close a Playwright page, ignoring a page or browser that is already gone."""
    if page is None:
        return
    try:
        if not page.is_closed():
            await page.close()
    except PlaywrightError as exc:
        logger.debug("closing page failed: %s", exc)


def is_crash(exc: BaseException) -> bool:
    """True for errors of a crashed or closed page/browser (worth one retry)."""
    message = str(exc).lower()
    return isinstance(exc, PlaywrightError) and any(
        word in message for word in ("crash", "target closed", "has been closed",
                                     "browser has disconnected", "connection closed"))


def retry_meta(meta: dict[str, Any], max_attempts: int = MAX_ATTEMPTS_DEFAULT) -> dict[str, Any] | None:
    """Meta for retrying a crashed render with a fresh page, or None when retried already."""
    attempt = int(meta.get(RETRY_META_KEY, 1))
    if attempt >= max_attempts:
        return None
    fresh = {k: v for k, v in meta.items() if k != "playwright_page"}
    fresh[RETRY_META_KEY] = attempt + 1
    return fresh
