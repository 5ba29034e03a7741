"""Test bed patterns whose text arrives by script: reveals, tabs, feeds, apps, shadow DOM.

See :mod:`tests.dynamic_bed`.
"""

from __future__ import annotations

import json

from tests.bed_kit import _HELPERS_JS, Context, Pattern, Site, page


def _reveal_fetch(ctx: Context, p: Pattern) -> Site:
    w = ctx.words
    site = Site()
    rest = [w.text(p.keep(p.marker(f"rest{i}"))) for i in range(3)]
    comments = [[w.text(p.comment(p.marker(f"comment{pg}{i}")), 2) for i in range(2)]
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
            {"comments": [w.text(p.comment(p.marker(f"c{pg}{i}")), 2) for i in range(2)],
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
    # the two apps share no headline: repeated lines across pages are domain boilerplate
    home, story = (("Harbour station reopens at night", "Ferry crews plan a winter schedule")
                   if hash_routing else
                   ("Station reopens after repairs", "Ferry crews plan a summer schedule"))
    site.api[ctx.api_path("home")] = ({"title": home,
                                       "paragraphs": [w.text(p.keep(p.marker(f"home{i}")))
                                                      for i in range(3)]}, ctx.ms())
    site.api[ctx.api_path("story-2")] = ({"title": story,
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
    + '<p><a class="route" href="{link}">{story}</a></p></article>';
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
