"""``render=auto``: whether a page needs a browser, from the plain response and from experience.

Per page, from the plain response (:meth:`RenderDecider.after_plain`), any of:

* ``app-root`` / ``noscript`` / ``little-text`` / ``script-weight`` — the page is
  built by scripts (:func:`corpuscrawl.browse.render.script_built_reasons`);
* ``reveal-controls`` — the static page has controls that reveal text not yet
  in it ("Continue reading" fetching the rest, a comments pager), found by the
  element classifier's static model (:func:`corpuscrawl.browse.static.reveal_controls`);
* ``template-text`` / ``custom-elements`` / ``iframe`` / ``script-links`` /
  ``scroll-loading`` — text or links held back for scripts
  (:func:`corpuscrawl.browse.static.hidden_content_evidence`).

Per site (``host:port``, :func:`corpuscrawl.html.page.state_key`), from experience
(:class:`~corpuscrawl.browse.experience.RenderExperience`, kept across crawls of
the collection): once a site's plainly judged pages mostly needed a browser —
at least ``DIRECT_MIN_PAGES_DEFAULT`` of them and a share of
``DIRECT_SHARE_DEFAULT`` whose rendering added text — its next pages are
rendered directly (``domain-experience``), skipping the plain fetch; once
``STOP_MIN_RENDERS_DEFAULT`` renders of a site added nothing, its pages stop
being rendered (``domain-experience-plain``).

Every decision carries a reason, recorded in the crawl stats and in the
document (``render_reason``).  No Scrapy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from corpuscrawl.browse.elements import ElementRecord
from corpuscrawl.browse.experience import RenderExperience
from corpuscrawl.browse.render import script_built_reasons
from corpuscrawl.browse.static import hidden_content_evidence, reveal_controls
from corpuscrawl.html.dom import normalize_space
from corpuscrawl.html.page import Page

__all__ = ["RenderDecider", "RenderDecision", "RenderExperience", "gained", "visible_chars"]

#: Rendering "added text" when the rendered page shows this many more characters...
GAIN_MIN_CHARS_DEFAULT = 200
#: ... and at least this share more than the plain page did.
GAIN_SHARE_DEFAULT = 0.15

Classify = Callable[[Sequence[ElementRecord]], Sequence[str]]


@dataclass(frozen=True)
class RenderDecision:
    """Render or not, and why (``reason`` is "" for a plain page without any evidence)."""

    render: bool
    reason: str = ""
    kinds: tuple[str, ...] = ()


def visible_chars(page: Page) -> int:
    """Characters of visible body text (the measure of what rendering added)."""
    body = page.clean_tree.find("body")
    return len(normalize_space(body.text_content())) if body is not None else 0


def gained(plain_chars: int, rendered_chars: int) -> bool:
    """True when the rendered page shows clearly more text than the plain one."""
    return rendered_chars >= plain_chars + max(GAIN_MIN_CHARS_DEFAULT,
                                               GAIN_SHARE_DEFAULT * plain_chars)


class RenderDecider:
    """Decides ``render=auto`` pages; one per crawl (it holds the site experience)."""

    def __init__(self, classify: Classify | None = None,
                 experience: RenderExperience | None = None):
        self.classify = classify
        self.experience = experience or RenderExperience()

    def before_fetch(self, url: str) -> RenderDecision:
        """Render directly (no plain fetch) when the site's experience says so."""
        if self.experience.advice(url) == "render":
            return RenderDecision(True, "domain-experience: its pages needed rendering",
                                  ("domain-experience",))
        return RenderDecision(False)

    def after_plain(self, page: Page) -> RenderDecision:
        """Decide from the plain response (and record that the page was judged)."""
        self.experience.judged(page.url)
        reasons: list[tuple[str, str]] = []
        for text in script_built_reasons(page):
            reasons.append((_kind_of(text), text))
        reasons.extend(hidden_content_evidence(page))
        controls = reveal_controls(page, self.classify)
        if controls:
            names = ", ".join(sorted({repr(c.text[:30]) for c in controls})[:3])
            reasons.append(("reveal-controls", f"{len(controls)} reveal control(s): {names}"))
        if not reasons:
            return RenderDecision(False)
        if self.experience.advice(page.url) == "plain":
            return RenderDecision(False, "domain-experience-plain: rendering added nothing "
                                  "on this site", ("domain-experience-plain",))
        return RenderDecision(True, "; ".join(text for _, text in reasons),
                              tuple(kind for kind, _ in reasons))

    def learn(self, url: str, plain_chars: int, rendered_chars: int) -> bool:
        """Record what rendering a plainly judged page added; returns whether it gained."""
        gain = gained(plain_chars, rendered_chars)
        self.experience.rendered(url, gain)
        return gain


def _kind_of(reason: str) -> str:
    if reason.startswith("empty app root"):
        return "app-root"
    if reason.startswith("noscript"):
        return "noscript"
    if reason.startswith("only"):
        return "little-text"
    return "script-weight"
