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
(:class:`RenderExperience`): once a site's plainly judged pages mostly needed a
browser — at least :data:`DIRECT_MIN_PAGES_DEFAULT` of them and a share of
:data:`DIRECT_SHARE_DEFAULT` whose rendering added text — its next pages are
rendered directly (``domain-experience``), skipping the plain fetch; once
:data:`STOP_MIN_RENDERS_DEFAULT` renders of a site added nothing, its pages stop
being rendered (``domain-experience-plain``).

Every decision carries a reason, recorded in the crawl stats and in the
document (``render_reason``).  No Scrapy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from corpuscrawl.browse.elements import ElementRecord
from corpuscrawl.browse.render import script_built_reasons
from corpuscrawl.browse.static import hidden_content_evidence, reveal_controls
from corpuscrawl.html.dom import normalize_space
from corpuscrawl.html.page import Page, state_key

#: Rendering "added text" when the rendered page shows this many more characters...
GAIN_MIN_CHARS_DEFAULT = 200
#: ... and at least this share more than the plain page did.
GAIN_SHARE_DEFAULT = 0.15
#: Direct rendering needs this many plainly judged pages of the site first...
DIRECT_MIN_PAGES_DEFAULT = 4
#: ... of which at least this share were rendered with a gain (a site of mostly static
#: pages with a few script-built ones keeps deciding page by page).
DIRECT_SHARE_DEFAULT = 0.8
#: Rendering stops for a site after this many renders without any gain.
STOP_MIN_RENDERS_DEFAULT = 4

Classify = Callable[[Sequence[ElementRecord]], Sequence[str]]


@dataclass(frozen=True)
class RenderDecision:
    """Render or not, and why (``reason`` is "" for a plain page without any evidence)."""

    render: bool
    reason: str = ""
    kinds: tuple[str, ...] = ()


@dataclass
class _Site:
    judged: int = 0      # pages decided from a plain response
    renders: int = 0     # of those, rendered
    gains: int = 0       # renders that added text


@dataclass
class RenderExperience:
    """Per-site memory of what rendering brought (in memory, for one crawl)."""

    direct_min_pages: int = DIRECT_MIN_PAGES_DEFAULT
    direct_share: float = DIRECT_SHARE_DEFAULT
    stop_min_renders: int = STOP_MIN_RENDERS_DEFAULT
    sites: dict[str, _Site] = field(default_factory=dict)

    def judged(self, url: str) -> None:
        """A page of the site was decided from its plain response."""
        self.sites.setdefault(state_key(url), _Site()).judged += 1

    def rendered(self, url: str, gained: bool) -> None:
        """A plainly judged page was rendered; ``gained``: rendering added text."""
        site = self.sites.setdefault(state_key(url), _Site())
        site.renders += 1
        site.gains += int(gained)

    def advice(self, url: str) -> str:
        """``render`` (render directly), ``plain`` (stop rendering) or "" (decide per page)."""
        site = self.sites.get(state_key(url))
        if site is None:
            return ""
        if site.renders >= self.stop_min_renders and site.gains == 0:
            return "plain"
        if site.judged >= self.direct_min_pages and \
                site.gains >= self.direct_share * site.judged:
            return "render"
        return ""


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
