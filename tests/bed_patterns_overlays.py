"""Test bed patterns of overlays, links that need decoding, and pages complete without scripts.

See :mod:`tests.dynamic_bed`.
"""

from __future__ import annotations

import base64
import json
from html import escape
from urllib.parse import quote

from tests.bed_kit import Context, Pattern, Site, page

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
    site.api[ctx.api_path("comments")] = ({"comments": [w.text(p.comment(p.marker(f"comm{i}")), 2)
                                                        for i in range(3)]}, ctx.ms())
    # Scrolling to the end appends another story below the comments, as news sites do: not
    # this article's text (an article-only extractor leaves it out, as the regression suite's
    # "follow-up" cases require), so its markers are neither must nor must-not.
    site.api[ctx.api_path("more")] = ({"paragraphs": [w.text(p.marker(f"more{i}"))
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
