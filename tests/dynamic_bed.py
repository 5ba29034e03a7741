"""A generated test bed of JavaScript page patterns, served on 127.0.0.1.

Each :class:`Pattern` is one small site under ``/bed/<name>/`` built the way real
sites build such pages (click-to-reveal by ``fetch``, infinite scroll, consent
walls, client-rendered apps, shadow DOM, redirect proxies, ...).  A pattern
lists the text a crawl *must* harvest (``must``: marker words inside realistic
paragraphs) and the text it must *not* (``must_not``: overlays, spinners,
unused templates, noscript warnings), and whether a browser is needed to get
the ``must`` text at all (``needs_browser``).

Timings are randomised from a seed: every ``setTimeout`` before a fetch, every
API answer's delay, every overlay's appearance is drawn from
``timing`` (50–1,500 ms by default), so the same seed reproduces a run and a
benchmark varies the seed to show flakiness.  Filler prose is generated too, from
its own seed (the same text under every timing seed)
(never two pages with the same sentences, so near-duplicate detection keeps
every page).

Hosts: ``127.0.0.1:<port>`` is the site; ``localhost:<port>`` (the same
server) plays an outer host, e.g. a redirect proxy.  Used by
``tests/test_dynamic_bed.py``, ``benchmarks/dynamic.py`` and the element
classifier's training set (``python -m corpuscrawl.learn.element_trainer build --bed``).
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from corpuscrawl.browse.localsite import LocalServer, Reply
from tests.bed_kit import COST_TIMING, TIMING_DEFAULT, Context, Pattern, Site
from tests.bed_patterns_content import (
    _accordion,
    _details,
    _iframe,
    _load_more,
    _reveal_fetch,
    _scroll_events,
    _scroll_observer,
    _shadow,
    _spa,
    _tabs,
    _template,
)
from tests.bed_patterns_overlays import (
    _consent_injected,
    _consent_static,
    _cost,
    _hidden_static,
    _language,
    _news_combo,
    _newsletter,
    _paywall,
    _proxy_links,
    _script_links,
    _scripts_throw,
    _static,
)

__all__ = ["PATTERN_SPECS", "Pattern", "PatternScore", "TestBed", "score"]

#: Every pattern of the bed: name -> (builder, needs a browser, in the fast CI subset).
PATTERN_SPECS: dict[str, tuple[Callable[[Context, Pattern], Site], bool, bool]] = {
    "reveal-fetch": (_reveal_fetch, True, True),
    "details": (_details, False, False),
    "accordion": (_accordion, True, False),
    "tabs": (_tabs, True, True),
    "load-more": (_load_more, True, False),
    "scroll-events": (_scroll_events, True, True),
    "scroll-observer": (_scroll_observer, True, False),
    "spa-pushstate": (lambda c, p: _spa(c, p, False), True, True),
    "spa-hash": (lambda c, p: _spa(c, p, True), True, False),
    "template": (_template, True, False),
    "shadow-dom": (_shadow, True, True),
    "iframe": (_iframe, True, False),
    "consent-static": (_consent_static, False, True),
    "consent-injected": (_consent_injected, False, False),
    "newsletter-modal": (_newsletter, False, False),
    "paywall-blur": (_paywall, False, False),
    "script-links": (_script_links, True, False),
    "proxy-links": (_proxy_links, False, False),
    "language-switcher": (_language, False, False),
    "scripts-throw": (_scripts_throw, False, False),
    "static-complete": (_static, False, True),
    "hidden-static": (_hidden_static, False, False),
    "news-combo": (_news_combo, True, True),
    "cost-10-reveals": (_cost, True, False),
}


class TestBed(LocalServer):
    """The generated patterns served on 127.0.0.1; use as a context manager.

    ``seed`` fixes every delay, ``prose_seed`` the text (the same for every ``seed``, so
    that runs with other timings must give the same documents); ``names`` limits the
    patterns.  Served by :class:`corpuscrawl.browse.localsite.LocalServer`: pages, delayed
    JSON and redirect proxies (``/go?url=``, ``/redirect?u=``, ``/b64?d=``, ``/out/<id>``).
    """

    __test__ = False  # not a pytest class

    def __init__(self, seed: int = 0, names: Iterable[str] | None = None,
                 timing: tuple[int, int] = TIMING_DEFAULT, port: int = 0,
                 prose_seed: int = 0):
        unknown = set(names or ()) - set(PATTERN_SPECS)
        if unknown:
            raise ValueError(f"unknown pattern(s) {sorted(unknown)}; known: {sorted(PATTERN_SPECS)}")
        self.seed = seed
        super().__init__(self._respond, port)
        self.site = Site()
        self.patterns: dict[str, Pattern] = {}
        for name in names or PATTERN_SPECS:
            build, needs, fast = PATTERN_SPECS[name]
            pattern = Pattern(name, build, needs, fast)
            rng = random.Random(f"{seed}:{name}")
            ctx = Context(name, rng, self.origin, self.alt_origin,
                          COST_TIMING if name.startswith("cost") else timing,
                          random.Random(f"prose:{prose_seed}:{name}"))
            built = build(ctx, pattern)
            self.site.pages.update(built.pages)
            self.site.api.update(built.api)
            self.site.redirects.update(built.redirects)
            self.patterns[name] = pattern

    def url(self, name: str) -> str:
        """Entry URL of a pattern."""
        return f"{self.origin}/bed/{name}/"

    def pattern_of(self, url: str) -> str:
        """The pattern a document URL belongs to ("" when none)."""
        parts = urlsplit(url).path.split("/")
        return parts[2] if len(parts) > 2 and parts[1] == "bed" else ""

    def __enter__(self) -> TestBed:
        self.start()
        return self

    def _respond(self, path: str, query: dict[str, str], headers: Mapping[str, str]) -> Reply:
        target = ""
        if path == "/go":
            target = query.get("url", "")
        elif path == "/redirect":
            target = unquote(query.get("u", ""))
        elif path == "/b64":
            try:
                target = base64.urlsafe_b64decode(query.get("d", "").encode()).decode()
            except (ValueError, UnicodeDecodeError):
                target = ""
        elif path in self.site.redirects:
            target = self.site.redirects[path]
        if path in ("/go", "/redirect", "/b64") or target:
            if not target.startswith(("http://", "https://")):
                return Reply(400, b"bad redirect target")
            return Reply(302, location=target)
        if path in self.site.api:
            body, delay = self.site.api[path]
            return Reply(200, json.dumps(body).encode(), "application/json", delay=delay / 1000)
        html = self.site.pages.get(path)
        if html is None:
            return Reply(404, b"<html><body><p>Not found</p></body></html>")
        return Reply(200, html.encode("utf-8"))


@dataclass
class PatternScore:
    """How a crawl did on one pattern."""

    name: str
    harvested: float            # share of ``must`` markers found (in text or comments)
    missing: list[str]
    leaked: list[str]           # ``must_not`` markers found
    rendered: bool              # the entry page's document came from the browser
    needs_browser: bool
    documents: int
    render_reason: str = ""
    #: Markers found in the wrong part: a reader comment's outside the part the comment mode
    #: puts it in, an article marker in ``comments``.
    misplaced: list[str] = field(default_factory=list)


def score(bed: TestBed, docs: Iterable[dict], comments: str = "field") -> dict[str, PatternScore]:
    """Score a crawl's documents per pattern (documents attributed by their URL path).

    A marker counts as harvested in a document's text or its ``comments``; with the comment
    mode ``comments`` ("field", "text": ``CORPUSCRAWL_COMMENTS``) a reader comment's marker
    must be in that part, and an article marker never in ``comments``."""
    by_pattern: dict[str, list[dict]] = {}
    for doc in docs:
        by_pattern.setdefault(bed.pattern_of(doc.get("url", "")), []).append(doc)
    out = {}
    for name, pattern in bed.patterns.items():
        mine = by_pattern.get(name, [])
        text = "\n".join(d.get("text", "") for d in mine)
        said = "\n".join(d.get("comments", "") for d in mine)
        missing = [m for m in pattern.must if m not in text and m not in said]
        misplaced = [m for m in pattern.must if m not in missing
                     and (m in said if m not in pattern.comments or comments == "text"
                          else m in text)]
        entry = next((d for d in mine if urlsplit(d["url"]).path == f"/bed/{name}/"), {})
        out[name] = PatternScore(
            name, 1 - len(missing) / max(1, len(pattern.must)), missing,
            [m for m in pattern.must_not if m in text or m in said], bool(entry.get("rendered")),
            pattern.needs_browser, len(mine), str(entry.get("render_reason", "")), misplaced)
    return out
