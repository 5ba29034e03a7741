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
benchmark varies the seed to show flakiness.  Filler prose is generated too
(never two pages with the same sentences, so near-duplicate detection keeps
every page).

Hosts: ``127.0.0.1:<port>`` is the site; ``localhost:<port>`` (the same
server) plays an outer host, e.g. a redirect proxy.  Used by
``tests/test_dynamic_bed.py``, ``benchmarks/dynamic.py`` and the element
classifier's training set (``python -m corpuscrawl.browse.training build --bed``).
"""

from __future__ import annotations

import base64
import http.server
import json
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html import escape
from types import TracebackType
from urllib.parse import parse_qsl, quote, unquote, urlsplit

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
    """What a pattern builder gets: its name, seeded words and timings, the origins."""

    name: str
    rng: random.Random
    origin: str
    alt_origin: str
    timing: tuple[int, int]

    @property
    def words(self) -> Words:
        """Seeded prose."""
        return Words(self.rng)

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

def _reveal_fetch(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    site = Site()
    rest = [w.text(p.keep(p.marker(f"rest{i}"))) for i in range(3)]
    comments = [[w.text(p.keep(p.marker(f"comment{pg}{i}")), 2) for i in range(2)]
                for pg in range(2)]
    site.api[ctx.api_path("rest")] = ({"paragraphs": rest}, ctx.ms())
    for pg, items in enumerate(comments):
        site.api[ctx.api_path(f"comments-{pg}")] = ({"comments": items, "last": pg == 1},
                                                     ctx.ms())
    body = f"""{w.para(p.keep(p.marker('intro')), 5)}
<div class="spinner" hidden>{p.drop(p.nope())}LOADING please wait</div>
<div id="rest"></div>
<button class="continue-reading" aria-controls="rest">Continue reading</button>
<section class="comments"><h2>Comments</h2><div id="comment-list"></div>
<button class="comments-pager">Show comments</button></section>"""
    script = f"""
const spin = document.querySelector('.spinner');
document.querySelector('.continue-reading').addEventListener('click', async (ev) => {{
  ev.target.remove(); spin.hidden = false; await later({ctx.ms()});
  const data = await getJSON('{ctx.api_path("rest")}');
  addParas(document.getElementById('rest'), data.paragraphs); spin.hidden = true; }});
let page = 0;
document.querySelector('.comments-pager').addEventListener('click', async (ev) => {{
  await later({ctx.ms()});
  const data = await getJSON('/api/{ctx.name}/comments-' + page + '.json'); page += 1;
  addParas(document.getElementById('comment-list'), data.comments);
  if (data.last) ev.target.remove(); }});"""
    site.pages[ctx.path()] = page(ctx, "Harbour council approves new ferry timetable",
                                  body, script)
    p.labels = [(".continue-reading, .comments-pager", "Revealer")]
    return site


def _details(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    body = f"""{w.para(p.keep(p.marker('intro')))}
<details><summary>Read the full analysis</summary>{w.para(p.keep(p.marker('inside')))}
{w.para(p.keep(p.marker('inside2')))}</details>
<details><summary>Methodology</summary>{w.para(p.keep(p.marker('method')))}</details>
<template id="unused"><p>{p.drop(p.nope())} template never used on this page.</p></template>"""
    p.labels = [("summary", "Revealer")]
    return Site(pages={ctx.path(): page(ctx, "Orchard yields measured in the valley", body)})


def _accordion(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    site = Site()
    items = []
    for i in range(3):
        site.api[ctx.api_path(f"panel-{i}")] = ({"paragraphs": [w.text(p.keep(
            p.marker(f"panel{i}")))]}, ctx.ms())
        items.append(f"""<h3><button class="acc-trigger" aria-expanded="false"
 aria-controls="panel-{i}" data-index="{i}">Question {i + 1}: what changed?</button></h3>
<div id="panel-{i}" class="acc-panel" role="region" hidden></div>""")
    body = w.para(p.keep(p.marker("intro"))) + "\n".join(items)
    script = f"""
const delays = [{ctx.ms()}, {ctx.ms()}, {ctx.ms()}];
for (const b of document.querySelectorAll('.acc-trigger')) {{
  b.addEventListener('click', async () => {{
    const panel = document.getElementById(b.getAttribute('aria-controls'));
    const open = b.getAttribute('aria-expanded') === 'true';
    b.setAttribute('aria-expanded', String(!open)); panel.hidden = open;
    if (!open && !panel.dataset.loaded) {{ panel.dataset.loaded = '1';
      await later(delays[b.dataset.index]);
      const data = await getJSON('/api/{ctx.name}/panel-' + b.dataset.index + '.json');
      addParas(panel, data.paragraphs); }} }}); }}"""
    site.pages[ctx.path()] = page(ctx, "Questions about the railway closure", body, script)
    p.labels = [(".acc-trigger", "Revealer")]
    return site


def _tabs(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    site = Site()
    for i in (1, 2):
        site.api[ctx.api_path(f"tab-{i}")] = ({"paragraphs": [w.text(p.keep(
            p.marker(f"tab{i}")))]}, ctx.ms())
    body = f"""{w.para(p.keep(p.marker('intro')))}
<div role="tablist" class="tabs">
<button role="tab" id="t0" aria-selected="true" aria-controls="p0">Overview</button>
<button role="tab" id="t1" aria-selected="false" aria-controls="p1">Budget</button>
<button role="tab" id="t2" aria-selected="false" aria-controls="p2">Timeline</button></div>
<div role="tabpanel" id="p0" aria-labelledby="t0">{w.para(p.keep(p.marker('tab0')))}</div>
<div role="tabpanel" id="p1" aria-labelledby="t1" hidden></div>
<div role="tabpanel" id="p2" aria-labelledby="t2" hidden></div>"""
    script = f"""
const delays = [0, {ctx.ms()}, {ctx.ms()}];
for (const tab of document.querySelectorAll('[role=tab]')) {{
  tab.addEventListener('click', async () => {{
    for (const t of document.querySelectorAll('[role=tab]')) {{
      t.setAttribute('aria-selected', String(t === tab));
      document.getElementById(t.getAttribute('aria-controls')).hidden = t !== tab; }}
    const panel = document.getElementById(tab.getAttribute('aria-controls'));
    const i = tab.id.slice(1);
    if (i !== '0' && !panel.dataset.loaded) {{ panel.dataset.loaded = '1';
      await later(delays[i]); const data = await getJSON('/api/{ctx.name}/tab-' + i + '.json');
      addParas(panel, data.paragraphs); }} }}); }}"""
    site.pages[ctx.path()] = page(ctx, "Museum renovation in three parts", body, script)
    p.labels = [("[role=tab]", "Revealer")]
    return site


def _load_more(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    site = Site()
    for pg in range(3):
        site.api[ctx.api_path(f"comments-{pg}")] = (
            {"comments": [w.text(p.keep(p.marker(f"c{pg}{i}")), 2) for i in range(2)],
             "more": pg < 2}, ctx.ms())
    body = f"""{w.para(p.keep(p.marker('intro')), 5)}
<section id="comments"><h2>Readers' comments</h2><ol id="list"></ol>
<a href="#" class="load-more" role="button">Load more comments</a></section>"""
    script = f"""
let pg = 0; const waits = [{ctx.ms()}, {ctx.ms()}, {ctx.ms()}];
document.querySelector('.load-more').addEventListener('click', async (ev) => {{
  ev.preventDefault(); if (pg > 2) return; const mine = pg; pg += 1;
  await later(waits[mine]);
  const data = await getJSON('/api/{ctx.name}/comments-' + mine + '.json');
  const list = document.getElementById('list');
  for (const t of data.comments) {{ const li = document.createElement('li');
    li.textContent = t; list.appendChild(li); }}
  if (!data.more) ev.target.remove(); }});"""
    site.pages[ctx.path()] = page(ctx, "Bakery festival draws record crowds", body, script)
    p.labels = [(".load-more", "Revealer")]
    return site


def _scroll_common(ctx: Context, p: Pattern, trigger_js: str, title: str) -> Site:
    w = ctx.words
    site = Site()
    for b in range(1, 4):
        site.api[ctx.api_path(f"batch-{b}")] = (
            {"paragraphs": [w.text(p.keep(p.marker(f"batch{b}{i}"))) for i in range(2)],
             "more": b < 3}, ctx.ms())
    first = "\n".join(w.para(p.keep(p.marker(f"batch0{i}")), 6) for i in range(8))
    body = f"""{first}<div id="feed"></div>
<div id="loading" hidden>{p.drop(p.nope())} loading more stories</div>
<div id="sentinel" style="height: 10px"></div>"""
    script = f"""
let batch = 1, busy = false; const waits = [0, {ctx.ms()}, {ctx.ms()}, {ctx.ms()}];
async function loadNext() {{
  if (busy || batch > 3) return; busy = true; const mine = batch;
  document.getElementById('loading').hidden = false;
  await later(waits[mine]);
  const data = await getJSON('/api/{ctx.name}/batch-' + mine + '.json');
  addParas(document.getElementById('feed'), data.paragraphs);
  document.getElementById('loading').hidden = true; batch += 1; busy = false; }}
{trigger_js}"""
    site.pages[ctx.path()] = page(ctx, title, body, script)
    return site


def _scroll_events(ctx: Context, p: Pattern) -> Site:
    trigger = f"""let debounce = null;
window.addEventListener('scroll', () => {{ clearTimeout(debounce);
  debounce = setTimeout(() => {{
    if (window.innerHeight + window.scrollY >= document.body.scrollHeight - 300) loadNext();
  }}, {min(ctx.ms(), 400)}); }});"""
    return _scroll_common(ctx, p, trigger, "Cyclists cross the coastal bridge")


def _scroll_observer(ctx: Context, p: Pattern) -> Site:
    trigger = """new IntersectionObserver((entries) => {
  if (entries.some((e) => e.isIntersecting)) loadNext(); }).observe(
  document.getElementById('sentinel'));"""
    return _scroll_common(ctx, p, trigger, "Vineyard harvest moves north")


def _spa(ctx: Context, p: Pattern, hash_routing: bool) -> Site:
    w = ctx.words
    site = Site()
    site.api[ctx.api_path("home")] = ({"title": "Station reopens after repairs",
                                       "paragraphs": [w.text(p.keep(p.marker(f"home{i}")))
                                                      for i in range(3)]}, ctx.ms())
    site.api[ctx.api_path("story-2")] = ({"title": "Ferry crews plan a summer schedule",
                                          "paragraphs": [w.text(
                                              # a hash route is not a page of its own
                                              p.marker(f"story{i}") if hash_routing else
                                              p.keep(p.marker(f"story{i}")))
                                              for i in range(2)]}, ctx.ms())
    route_js = ("(location.hash.replace(/^#\\/?/, '') || 'home')" if hash_routing else
                f"(location.pathname.replace('{ctx.path()}', '') || 'home')")
    link = "#/story-2" if hash_routing else ctx.path("story-2")
    nav = ("" if hash_routing else
           "document.querySelectorAll('a.route').forEach((a) => a.addEventListener('click', "
           "(e) => { e.preventDefault(); history.pushState({}, '', a.href); render(); }));")
    script = f"""
async function render() {{
  const app = document.getElementById('{'root' if hash_routing else 'app'}');
  await later({ctx.ms()});
  const data = await getJSON('/api/{ctx.name}/' + {route_js} + '.json');
  app.innerHTML = '<article><h1></h1><div class="body"></div>'
    + '<p><a class="route" href="{link}">Ferry crews plan a summer schedule</a></p></article>';
  app.querySelector('h1').textContent = data.title;
  addParas(app.querySelector('.body'), data.paragraphs); {nav} }}
{"window.addEventListener('hashchange', render);" if hash_routing else
 "window.addEventListener('popstate', render);"}
render();"""
    root = "root" if hash_routing else "app"
    html = f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Testbed app</title></head><body><div id="{root}"></div>
<noscript>You need to enable JavaScript to run this app. {p.drop(p.nope())}</noscript>
<script>{_HELPERS_JS}\n{script}</script></body></html>"""
    site.pages[ctx.path()] = html
    if not hash_routing:
        site.pages[ctx.path("story-2")] = html
    # a hash route is no page of its own for a crawler, and clicking it replaces the text
    p.labels = [("a.route", "Other" if hash_routing else "Inner")]
    return site


def _template(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    body = f"""{w.para(p.keep(p.marker('intro')))}<div id="body"></div>
<template id="article-body">{w.para(p.keep(p.marker('tpl0')))}{w.para(p.keep(p.marker('tpl1')))}
</template>
<template id="unused-card"><p>{p.drop(p.nope())} card shown to subscribers only.</p></template>"""
    script = f"""later({ctx.ms()}).then(() => document.getElementById('body').appendChild(
  document.getElementById('article-body').content.cloneNode(true)));"""
    return Site(pages={ctx.path(): page(ctx, "Library extends its opening hours", body,
                                        script)})


def _shadow(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    paras = "".join(w.para(p.keep(p.marker(f"shadow{i}"))) for i in range(3))
    body = f"""{w.para(p.keep(p.marker('intro')))}<story-body></story-body>"""
    script = f"""
class StoryBody extends HTMLElement {{
  connectedCallback() {{ const root = this.attachShadow({{mode: 'open'}});
    later({ctx.ms()}).then(() => {{ root.innerHTML = {json.dumps(paras)}; }}); }} }}
customElements.define('story-body', StoryBody);"""
    return Site(pages={ctx.path(): page(ctx, "Painters restore the historic theatre", body,
                                        script)})


def _iframe(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    inner = f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>frame</title>
</head><body><div class="story">{''.join(w.para(p.keep(p.marker(f'frame{i}'))) for i in range(3))}
</div></body></html>"""
    body = f"""<p>Our full report is shown below.</p>
<iframe src="{ctx.path('frame.html')}" title="Full report" width="700" height="600"></iframe>"""
    return Site(pages={ctx.path(): page(ctx, "Clinic opens a rural branch", body),
                       ctx.path("frame.html"): inner})


_CONSENT = """<div class="cmp-overlay overlay"></div><div class="cmp-dialog dialog" role="dialog"
 aria-modal="true" aria-label="Privacy"><p>We value your privacy. Our partners store cookies
 and read device identifiers to personalise ads. {marker}</p>
<button class="cmp-accept">Accept all</button> <button class="cmp-reject">Reject all</button></div>"""
_CONSENT_JS = """
document.addEventListener('click', (e) => {
  if (e.target.closest('.cmp-accept, .cmp-reject')) {
    document.querySelectorAll('.cmp-overlay, .cmp-dialog').forEach((x) => x.remove()); } });"""


def _consent_static(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    body = "\n".join(w.para(p.keep(p.marker(f"p{i}")), 5) for i in range(3))
    body += _CONSENT.format(marker=p.drop(p.nope()))
    p.labels = [(".cmp-accept, .cmp-reject", "Closer")]
    return Site(pages={ctx.path(): page(ctx, "Farmers welcome the early frost warning", body,
                                        _CONSENT_JS)})


def _consent_injected(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    body = "\n".join(w.para(p.keep(p.marker(f"p{i}")), 5) for i in range(3))
    overlay = _CONSENT.format(marker=p.drop(p.nope()))
    script = f"""{_CONSENT_JS}
later({ctx.ms()}).then(() => document.body.insertAdjacentHTML('beforeend', {json.dumps(overlay)}));"""
    p.labels = [(".cmp-accept, .cmp-reject", "Closer")]
    return Site(pages={ctx.path(): page(ctx, "Teachers plan the autumn fair", body, script)})


def _newsletter(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    body = "\n".join(w.para(p.keep(p.marker(f"p{i}")), 5) for i in range(3))
    modal = f"""<div class="nl-modal dialog" role="dialog"><p>Subscribe to our newsletter
 and never miss a story. {p.drop(p.nope())}</p><input type="email" placeholder="Email">
<button class="nl-subscribe">Subscribe</button><button class="nl-close" aria-label="Close">×</button></div>"""
    script = f"""later({ctx.ms()}).then(() => {{
  document.body.insertAdjacentHTML('beforeend', {json.dumps(modal)});
  document.querySelector('.nl-close').addEventListener('click', () =>
    document.querySelector('.nl-modal').remove()); }});"""
    p.labels = [(".nl-close", "Closer"), (".nl-subscribe", "Other")]
    return Site(pages={ctx.path(): page(ctx, "Engineers inspect the narrow bridge", body,
                                        script)})


def _paywall(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    body = f"""{w.para(p.keep(p.marker('lead')), 5)}
<div class="premium" style="position: relative">
<div class="blurred" style="filter: blur(4px)">{w.para(p.keep(p.marker('body0')), 5)}
{w.para(p.keep(p.marker('body1')), 5)}</div>
<div class="paywall-overlay" style="position: absolute; inset: 0; background: rgba(255,255,255,.8);
 z-index: 10"><p>Subscribe to continue reading. {p.drop(p.nope())}</p>
<button class="paywall-subscribe">Subscribe</button></div></div>"""
    p.labels = [(".paywall-subscribe", "Other")]
    return Site(pages={ctx.path(): page(ctx, "Mayor questions the factory plan", body)})


def _script_links(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    site = Site()
    targets = []
    for key in ("a", "b", "c"):
        site.pages[ctx.path(f"{key}.html")] = page(
            ctx, f"Story {key.upper()}", w.para(p.keep(p.marker(f"target{key}")), 5))
        targets.append(ctx.path(f"{key}.html"))
    body = f"""{w.para(p.keep(p.marker('intro')))}
<div class="story-card" onclick="location.href='{targets[0]}'">Market hall reopens</div>
<span class="card-link" data-href="{targets[1]}">Theatre season announced</span>
<li class="teaser" onclick="window.location.assign('{targets[2]}')">River cleanup ends</li>"""
    script = """
for (const el of document.querySelectorAll('[data-href]')) {
  el.style.cursor = 'pointer';
  el.addEventListener('click', () => { location.href = el.dataset.href; }); }
document.querySelectorAll('[onclick]').forEach((el) => { el.style.cursor = 'pointer'; });"""
    site.pages[ctx.path()] = page(ctx, "Stories from the old town", body, script)
    p.labels = [(".story-card, .card-link, .teaser", "Inner")]
    return site


def _proxy_links(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    site = Site()
    urls = []
    for key in ("url", "u", "b64", "out"):
        path = ctx.path(f"{key}.html")
        site.pages[path] = page(ctx, f"Linked story {key}",
                                w.para(p.keep(p.marker(f"via{key}")), 5))
        urls.append(ctx.origin + path)
    links = [f"{ctx.alt_origin}/go?url={quote(urls[0], safe='')}",
             f"{ctx.alt_origin}/redirect?u={quote(quote(urls[1], safe=''), safe='')}",
             f"{ctx.alt_origin}/b64?d={base64.urlsafe_b64encode(urls[2].encode()).decode()}",
             f"/out/{ctx.name}-7"]
    site.redirects[f"/out/{ctx.name}-7"] = urls[3]
    items = "".join(f'<li><a href="{escape(u)}">Related story {i + 1}</a></li>'
                    for i, u in enumerate(links))
    body = f"""{w.para(p.keep(p.marker('intro')))}<ul class="related">{items}</ul>"""
    site.pages[ctx.path()] = page(ctx, "Related coverage of the harbour", body)
    p.labels = [(".related a", "Inner")]
    return site


def _language(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    switch = f"""<ul class="lang-switch"><li><a href="{ctx.path('de.html')}" hreflang="de"
 lang="de">Deutsch</a></li><li><a href="{ctx.path('hu.html')}" hreflang="hu" lang="hu">Magyar</a>
</li></ul><div class="lang-missing" hidden>{p.drop(p.nope())} translation missing</div>"""
    body = w.para(p.keep(p.marker("en0")), 5) + w.para(p.keep(p.marker("en1")), 5) + switch
    site = Site(pages={ctx.path(): page(ctx, "Council reviews the station plan", body)})
    site.pages[ctx.path("de.html")] = page(ctx, "Der Rat prüft den Bahnhofsplan",
                                           "<p>Der Rat prüft den Plan für den Bahnhof.</p>",
                                           lang="de")
    site.pages[ctx.path("hu.html")] = page(ctx, "A tanács az állomás tervét vizsgálja",
                                           "<p>A tanács megvizsgálta az állomás tervét.</p>",
                                           lang="hu")
    p.labels = [(".lang-switch a", "LanguageSelection")]
    return site


def _scripts_throw(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    body = "\n".join(w.para(p.keep(p.marker(f"p{i}")), 5) for i in range(3))
    body += f"<noscript>{p.drop(p.nope())} please enable scripts</noscript>"
    script = f"""undefinedTracker.init({{id: 42}});
later({ctx.ms()}).then(() => {{ null.render(); }});"""
    return Site(pages={ctx.path(): page(ctx, "Ferry delayed by a summer storm", body, script)})


def _static(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    body = "\n".join(w.para(p.keep(p.marker(f"p{i}")), 5) for i in range(4))
    body += f'<script type="application/json">{{"note": "{p.drop(p.nope())}"}}</script>'
    return Site(pages={ctx.path(): page(ctx, "Orchestra rehearses in the village hall", body)})


def _cost(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    site = Site()
    sections = []
    for i in range(10):
        site.api[ctx.api_path(f"sec-{i}")] = ({"paragraphs": [w.text(p.keep(
            p.marker(f"sec{i}")), 2)]}, ctx.ms())
        sections.append(f"""<section><h2>Part {i + 1}</h2><div id="s{i}"></div>
<button class="show-more" data-i="{i}">Show more</button></section>""")
    for b in range(1, 6):
        site.api[ctx.api_path(f"batch-{b}")] = ({"paragraphs": [w.text(p.keep(
            p.marker(f"batch{b}")), 3)], "more": b < 5}, ctx.ms())
    # a long static part between the sections and the feed: revealing a section does not
    # scroll the feed's trigger into view, so the 5 batches take 5 scrolls
    middle = "\n".join(w.para(p.keep(p.marker(f"static{i}")), 6) for i in range(12))
    body = (w.para(p.keep(p.marker("intro"))) + "\n".join(sections) + middle
            + '<div id="feed"></div>')
    script = f"""
for (const b of document.querySelectorAll('.show-more')) b.addEventListener('click', async () => {{
  await later({ctx.ms()}); const d = await getJSON('/api/{ctx.name}/sec-' + b.dataset.i + '.json');
  addParas(document.getElementById('s' + b.dataset.i), d.paragraphs); b.remove(); }});
let batch = 1, busy = false;
window.addEventListener('scroll', async () => {{
  if (busy || batch > 5) return;
  if (window.innerHeight + window.scrollY < document.body.scrollHeight - 200) return;
  busy = true; await later({ctx.ms()});
  const d = await getJSON('/api/{ctx.name}/batch-' + batch + '.json');
  // each batch is taller than the trigger zone: the next one needs another scroll
  addParas(document.getElementById('feed'), d.paragraphs); batch += 1; busy = false; }});"""
    site.pages[ctx.path()] = page(ctx, "The long report in many parts", body, script)
    p.labels = [(".show-more", "Revealer")]
    return site


def _news_combo(ctx: Context, p: Pattern) -> Site:
    """The article of a JS-built news site: consent, continue reading, comments, modal, scroll."""
    w = ctx.words
    site = Site()
    site.api[ctx.api_path("rest")] = ({"paragraphs": [w.text(p.keep(p.marker(f"rest{i}")))
                                                      for i in range(3)]}, ctx.ms())
    site.api[ctx.api_path("comments")] = ({"comments": [w.text(p.keep(p.marker(f"comm{i}")), 2)
                                                        for i in range(3)]}, ctx.ms())
    site.api[ctx.api_path("more")] = ({"paragraphs": [w.text(p.keep(p.marker(f"more{i}")))
                                                      for i in range(2)]}, ctx.ms())
    consent = _CONSENT.format(marker=p.drop(p.nope("consent")))
    modal = (f'<div class="newsletter-modal dialog" role="dialog"><p>Get our morning briefing. '
             f'{p.drop(p.nope("newsletter"))}</p><button class="modal-close">No thanks'
             f'</button></div>')
    body = f"""{w.para(p.keep(p.marker('lead')), 5)}<div id="rest"></div>
<button class="read-more">Continue reading</button>
<section class="comments"><h2>Comments</h2><div id="comments"></div>
<a href="#comments" class="show-comments">Show 3 comments</a></section><div id="more"></div>
{consent}"""
    script = f"""{_CONSENT_JS}
document.querySelector('.read-more').addEventListener('click', async (e) => {{
  e.target.remove(); await later({ctx.ms()});
  addParas(document.getElementById('rest'), (await getJSON('{ctx.api_path("rest")}')).paragraphs); }});
document.querySelector('.show-comments').addEventListener('click', async (e) => {{
  e.preventDefault(); e.target.remove(); await later({ctx.ms()});
  addParas(document.getElementById('comments'),
           (await getJSON('{ctx.api_path("comments")}')).comments); }});
later({ctx.ms()}).then(() => {{ document.body.insertAdjacentHTML('beforeend', {json.dumps(modal)});
  document.querySelector('.modal-close').addEventListener('click',
    () => document.querySelector('.newsletter-modal').remove()); }});
let done = false;
window.addEventListener('scroll', async () => {{
  if (done || window.innerHeight + window.scrollY < document.body.scrollHeight - 200) return;
  done = true; await later({ctx.ms()});
  addParas(document.getElementById('more'), (await getJSON('{ctx.api_path("more")}')).paragraphs); }});"""
    site.pages[ctx.path()] = page(ctx, "Harbour plan divides the coastal village", body, script)
    p.labels = [(".read-more, .show-comments", "Revealer"),
                (".cmp-accept, .cmp-reject, .modal-close", "Closer")]
    return site


def _hidden_static(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    body = f"""{w.para(p.keep(p.marker('intro')), 5)}
<div id="more-text" style="display: none">{w.para(p.keep(p.marker('hidden0')), 5)}</div>
<a href="#more-text" class="read-more-toggle" aria-expanded="false">Read more</a>"""
    script = """document.querySelector('.read-more-toggle').addEventListener('click', (e) => {
  e.preventDefault(); document.getElementById('more-text').style.display = 'block';
  e.target.remove(); });"""
    p.labels = [(".read-more-toggle", "Revealer")]
    return Site(pages={ctx.path(): page(ctx, "Garden committee opens the plots", body, script)})


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


class TestBed:
    """The generated patterns served on 127.0.0.1; use as a context manager.

    ``seed`` fixes the prose and every delay; ``names`` limits the patterns.
    """

    __test__ = False  # not a pytest class

    def __init__(self, seed: int = 0, names: Iterable[str] | None = None,
                 timing: tuple[int, int] = TIMING_DEFAULT, port: int = 0):
        unknown = set(names or ()) - set(PATTERN_SPECS)
        if unknown:
            raise ValueError(f"unknown pattern(s) {sorted(unknown)}; known: {sorted(PATTERN_SPECS)}")
        self.seed = seed
        self.hits: dict[str, int] = {}
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.site = Site()
        self.patterns: dict[str, Pattern] = {}
        for name in names or PATTERN_SPECS:
            build, needs, fast = PATTERN_SPECS[name]
            pattern = Pattern(name, build, needs, fast)
            rng = random.Random(f"{seed}:{name}")
            ctx = Context(name, rng, self.origin, self.alt_origin,
                          COST_TIMING if name.startswith("cost") else timing)
            built = build(ctx, pattern)
            self.site.pages.update(built.pages)
            self.site.api.update(built.api)
            self.site.redirects.update(built.redirects)
            self.patterns[name] = pattern

    @property
    def port(self) -> int:
        """The port served."""
        return int(self.server.server_address[1])

    @property
    def origin(self) -> str:
        """The site's origin."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def alt_origin(self) -> str:
        """The same server under another host name (an outer site)."""
        return f"http://localhost:{self.port}"

    def url(self, name: str) -> str:
        """Entry URL of a pattern."""
        return f"{self.origin}/bed/{name}/"

    def pattern_of(self, url: str) -> str:
        """The pattern a document URL belongs to ("" when none)."""
        parts = urlsplit(url).path.split("/")
        return parts[2] if len(parts) > 2 and parts[1] == "bed" else ""

    def __enter__(self) -> TestBed:
        self.thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.server.shutdown()
        self.server.server_close()


def _handler(bed: TestBed) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        """Pages, delayed JSON, redirect proxies (``?url=``, ``?u=``, base64, ``/out/<id>``)."""

        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return

        def _send(self, status: int, body: bytes = b"", ctype: str = "text/html; charset=utf-8",
                  location: str = "") -> None:
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            parts = urlsplit(self.path)
            path = parts.path
            bed.hits[path] = bed.hits.get(path, 0) + 1
            query = dict(parse_qsl(parts.query))
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
            elif path in bed.site.redirects:
                target = bed.site.redirects[path]
            if path in ("/go", "/redirect", "/b64") or target:
                if not target.startswith(("http://", "https://")):
                    self._send(400, b"bad redirect target")
                else:
                    self._send(302, location=target)
                return
            if path in bed.site.api:
                body, delay = bed.site.api[path]
                time.sleep(delay / 1000)
                self._send(200, json.dumps(body).encode(), "application/json")
                return
            html = bed.site.pages.get(path)
            if html is None:
                self._send(404, b"<html><body><p>Not found</p></body></html>")
                return
            self._send(200, html.encode("utf-8"))

    return Handler


@dataclass
class PatternScore:
    """How a crawl did on one pattern."""

    name: str
    harvested: float            # share of ``must`` markers found
    missing: list[str]
    leaked: list[str]           # ``must_not`` markers found
    rendered: bool              # the entry page's document came from the browser
    needs_browser: bool
    documents: int
    render_reason: str = ""


def score(bed: TestBed, docs: Iterable[dict]) -> dict[str, PatternScore]:
    """Score a crawl's documents per pattern (documents attributed by their URL path)."""
    by_pattern: dict[str, list[dict]] = {}
    for doc in docs:
        by_pattern.setdefault(bed.pattern_of(doc.get("url", "")), []).append(doc)
    out = {}
    for name, pattern in bed.patterns.items():
        mine = by_pattern.get(name, [])
        text = "\n".join(d.get("text", "") for d in mine)
        missing = [m for m in pattern.must if m not in text]
        entry = next((d for d in mine if urlsplit(d["url"]).path == f"/bed/{name}/"), {})
        out[name] = PatternScore(
            name, 1 - len(missing) / max(1, len(pattern.must)), missing,
            [m for m in pattern.must_not if m in text], bool(entry.get("rendered")),
            pattern.needs_browser, len(mine), str(entry.get("render_reason", "")))
    return out
