"""Scaffolding of the dynamic-pattern test bed: seeded prose, pages, what a pattern builds.

See :mod:`tests.dynamic_bed` for the bed itself.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape

#: Default range of every randomised delay (ms).
TIMING_DEFAULT = (50, 1500)
#: The cost page (10 reveals, 5 scrolls) uses quick answers: the budget is the crawler's.
COST_TIMING = (50, 250)

_DET = ("the", "a", "every", "one", "this", "that", "our", "their", "each", "another")
_ADJ = ("local", "regional", "quiet", "busy", "northern", "coastal", "old", "modern",
        "small", "large", "public", "private", "rural", "urban", "careful", "sudden",
        "annual", "early", "late", "steady", "wooden", "narrow", "broad", "historic")
_NOUN = ("council", "harbour", "bakery", "library", "orchestra", "railway", "garden",
         "committee", "farmer", "teacher", "engineer", "museum", "bridge", "festival",
         "market", "village", "river", "school", "clinic", "factory", "theatre", "station",
         "newspaper", "vineyard", "mayor", "painter", "cyclist", "ferry", "orchard")
_VERB = ("approved", "repaired", "visited", "described", "questioned", "welcomed",
         "rebuilt", "measured", "opened", "closed", "praised", "reviewed", "planned",
         "funded", "moved", "painted", "counted", "examined", "supported", "delayed")
_PREP = ("after", "before", "during", "despite", "near", "behind", "beyond", "without",
         "along", "across", "under", "beside")
_TAIL = ("the long winter", "a wet spring", "the first meeting", "the spring market",
         "a heated debate", "the night shift", "a summer storm", "the new timetable",
         "a careful survey", "the autumn fair", "an early frost", "the main square")


class Words:
    """Seeded generator of English filler prose with marker words embedded."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def sentence(self) -> str:
        """One plausible, practically unique sentence."""
        c = self.rng.choice
        text = (f"{c(_DET)} {c(_ADJ)} {c(_NOUN)} {c(_VERB)} {c(_DET)} {c(_ADJ)} {c(_NOUN)} "
                f"{c(_PREP)} {c(_TAIL)}")
        return text[0].upper() + text[1:] + "."

    def text(self, marker: str = "", sentences: int = 4) -> str:
        """Some sentences; ``marker`` (if any) becomes a word of the first one."""
        parts = [self.sentence() for _ in range(sentences)]
        if marker:
            parts[0] = parts[0][:-1] + f" in {marker}."
        return " ".join(parts)

    def para(self, marker: str = "", sentences: int = 4) -> str:
        """A ``<p>`` of :meth:`text`."""
        return f"<p>{escape(self.text(marker, sentences))}</p>"


@dataclass
class Site:
    """What a pattern builds: pages, JSON answers with delays, redirects."""

    pages: dict[str, str] = field(default_factory=dict)          # path -> HTML
    api: dict[str, tuple[object, int]] = field(default_factory=dict)  # path -> (JSON, ms)
    redirects: dict[str, str] = field(default_factory=dict)      # path -> absolute URL


@dataclass
class Context:
    """What a pattern builder gets: its name, seeded prose and timings, the origins.

    ``rng`` draws the delays (it changes with the bed's seed); ``prose`` the text (it
    does not, so that runs with other timings must give the same documents).
    """

    name: str
    rng: random.Random
    origin: str
    alt_origin: str
    timing: tuple[int, int]
    prose: random.Random

    @property
    def words(self) -> Words:
        """Seeded prose."""
        return Words(self.prose)

    def ms(self) -> int:
        """One randomised delay."""
        return self.rng.randint(*self.timing)

    def path(self, rest: str = "") -> str:
        """Path of a page of this pattern."""
        return f"/bed/{self.name}/{rest}"

    def api_path(self, key: str) -> str:
        """Path of a JSON answer of this pattern."""
        return f"/api/{self.name}/{key}.json"


@dataclass
class Pattern:
    """One dynamic page pattern: how it is built and what a crawl must (not) harvest."""

    name: str
    build: Callable[[Context, Pattern], Site]
    needs_browser: bool
    fast: bool = False
    timing: tuple[int, int] | None = None
    must: list[str] = field(default_factory=list)
    must_not: list[str] = field(default_factory=list)
    #: The ``must`` markers that are in reader comments: harvested into a document's
    #: ``comments`` field (``CORPUSCRAWL_COMMENTS = "field"``) or its text (``"text"``).
    comments: list[str] = field(default_factory=list)
    #: Gold labels of the page's actionable elements: (CSS selector, label), first wins.
    labels: list[tuple[str, str]] = field(default_factory=list)
    #: Pages of the pattern the training set renders (default: the entry page).
    label_pages: list[str] = field(default_factory=list)

    @property
    def gold_labels(self) -> list[tuple[str, str]]:
        """:attr:`labels` and the scaffolding's elements (in-page nav, form fields: Other)."""
        return [*self.labels, ("header a, footer a, input, select", "Other")]

    def keep(self, token: str) -> str:
        """Register a must-harvest marker and return it."""
        self.must.append(token)
        return token

    def comment(self, token: str) -> str:
        """Register a must-harvest marker of a reader comment and return it."""
        self.comments.append(token)
        return self.keep(token)

    def drop(self, token: str) -> str:
        """Register a must-not-harvest marker and return it."""
        self.must_not.append(token)
        return token

    def marker(self, what: str) -> str:
        """A must-harvest marker word unique to this pattern."""
        return "KEEP" + self.name.upper().replace("-", "") + what.upper()

    def nope(self, what: str = "") -> str:
        """A must-not-harvest marker word unique to this pattern."""
        return "NOPE" + self.name.upper().replace("-", "") + what.upper()


# --- page scaffolding ---------------------------------------------------------------------

_BASE_CSS = """
body { font-family: sans-serif; margin: 0 auto; max-width: 760px; }
.overlay { position: fixed; inset: 0; background: rgba(0,0,0,.6); z-index: 1000; }
.dialog { position: fixed; left: 20%; top: 20%; width: 60%; background: #fff; z-index: 1001;
          padding: 1em; }
button { cursor: pointer; }
"""
_HELPERS_JS = """
function later(ms) { return new Promise((ok) => setTimeout(ok, ms)); }
async function getJSON(url) { const r = await fetch(url); return r.json(); }
function addParas(el, paras) { for (const t of paras) { const p = document.createElement('p');
  p.textContent = t; el.appendChild(p); } }
"""


def page(ctx: Context, title: str, body: str, script: str = "", head: str = "",
         css: str = "", lang: str = "en") -> str:
    """A complete page: nav, the article body, footer, helper functions and the script."""
    js = f"<script>{_HELPERS_JS}\n{script}</script>" if script else ""
    return f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{escape(title)}</title>
<style>{_BASE_CSS}{css}</style>{head}</head>
<body>
<header><nav><a href="#top">Testbed Times</a> <a href="#sections">Sections</a></nav></header>
<main><article><h1>{escape(title)}</h1>
{body}
</article></main>
<footer><p>Testbed Times, all rights reserved.</p></footer>
{js}
</body></html>"""


# --- patterns -----------------------------------------------------------------------------
