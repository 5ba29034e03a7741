"""JavaScript run inside the rendered page: candidate collection, change watching, snapshots.

Kept apart from the Python logic so that each snippet can be read as one
piece.  Every snippet keeps its state in ``window.__corpuscrawl`` (never in
the DOM), so the page's HTML is not changed by the crawler itself: elements
are referred to by their index in ``window.__corpuscrawl.els``.
"""

from __future__ import annotations

#: Creates the shared state and a MutationObserver counting DOM changes (idempotent).
INSTALL_JS = """
() => {
  const st = window.__corpuscrawl || (window.__corpuscrawl = {
    els: [], ids: new WeakMap(), state: new WeakMap(), revealed: new WeakSet(), mutations: 0,
    lastMutation: performance.now(), observer: null,
  });
  if (!st.mark) {
    // a click on an element: counted, exhausted or not; what it controls counts as revealed
    st.mark = (el, exhausted) => {
      const state = st.state.get(el) || {clicks: 0, exhausted: false};
      state.clicks += 1; state.exhausted = state.exhausted || exhausted;
      st.state.set(el, state);
      for (const id of (el.getAttribute('aria-controls') || '').split(/\\s+/)) {
        const target = id && document.getElementById(id);
        if (target) st.revealed.add(target);
      }
    };
    // [fingerprint of the visible text (length and a cheap rolling hash), its length]
    st.text = () => { const t = document.body ? document.body.innerText : ''; let h = 0;
      for (let i = 0; i < t.length; i++) { h = (h * 31 + t.charCodeAt(i)) | 0; }
      return [t.length + ':' + h, t.length]; };
  }
  if (!st.clickWatch) {
    // where the last click landed (composed path: shadow DOM included), to confirm a click;
    // while a click is aimed at ``st.guard``, a click landing elsewhere (the page moved
    // between the hit test and the click) is swallowed: it must not follow a link
    st.clickWatch = true;
    window.addEventListener('click', (e) => {
      const path = e.composedPath(); st.lastClick = path;
      if (st.guard && !path.includes(st.guard)) { e.preventDefault();
                                                   e.stopImmediatePropagation(); }
    }, true);
  }
  if (!st.observer && document.documentElement) {
    st.observer = new MutationObserver((records) => {
      st.mutations += records.length;
      st.lastMutation = performance.now();
    });
    st.observer.observe(document.documentElement,
      {childList: true, subtree: true, characterData: true, attributes: true});
  }
  return true;
}
"""

#: Collects every actionable element with attributes, text, HTML, geometry and overlay position.
COLLECT_JS = """
(opts) => {
  const st = window.__corpuscrawl;
  const maxHtml = opts.maxHtml, maxText = opts.maxText, maxAttr = opts.maxAttr;
  const SEL = 'a, area, button, summary, input[type=button], input[type=submit], '
    + 'input[type=reset], input[type=image], [role=button], [role=link], [role=tab], '
    + '[role=menuitem], [role=option], [onclick], [data-href], [data-url], '
    + '[tabindex]:not([tabindex="-1"])';
  const found = new Set(document.querySelectorAll(SEL));
  // Elements made clickable only by script: pointer cursor, outermost such element,
  // carrying data attributes or an id/class a script can bind to.
  const byPointer = [];
  const POINTER_TAGS = new Set(['DIV', 'SPAN', 'LI', 'P', 'I', 'EM', 'STRONG', 'B', 'IMG', 'SVG',
    'SECTION', 'LABEL', 'H2', 'H3', 'H4']);
  for (const el of document.body ? document.body.querySelectorAll('*') : []) {
    // Listed tags and custom elements (<ytd-button-renderer>, <tp-yt-paper-button>, ...).
    if (!POINTER_TAGS.has(el.tagName) && !el.tagName.includes('-')) continue;
    if (found.has(el)) continue;
    const hasHook = el.id || el.classList.length ||
      Array.prototype.some.call(el.attributes, (a) => a.name.startsWith('data-'));
    if (!hasHook) continue;
    if (getComputedStyle(el).cursor !== 'pointer') continue;
    const parent = el.parentElement;
    if (parent && getComputedStyle(parent).cursor === 'pointer') continue;
    if (el.closest(SEL)) continue;
    byPointer.push(el);
  }
  for (const el of byPointer) found.add(el);
  const vw = window.innerWidth, vh = window.innerHeight;
  const out = [];
  for (const el of found) {
    if (el.closest('head')) continue;
    let id = st.ids.get(el);
    if (id === undefined) { id = st.els.length; st.els.push(el); st.ids.set(el, id); }
    const s = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    const visible = r.width > 0 && r.height > 0 && el.checkVisibility({checkOpacity: true,
      checkVisibilityCSS: true});
    let fixed = false, zmax = 0, cover = 0;
    for (let a = el; a && a !== document.documentElement; a = a.parentElement) {
      const as = a === el ? s : getComputedStyle(a);
      if (as.position === 'fixed' || as.position === 'sticky') {
        fixed = true;
        const ar = a.getBoundingClientRect();
        const w = Math.max(0, Math.min(ar.right, vw) - Math.max(ar.left, 0));
        const h = Math.max(0, Math.min(ar.bottom, vh) - Math.max(ar.top, 0));
        cover = Math.max(cover, (w * h) / (vw * vh));
      }
      const z = parseInt(as.zIndex, 10);
      if (!isNaN(z) && as.position !== 'static') zmax = Math.max(zmax, z);
    }
    let hit = 'hidden';
    if (visible) {
      const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
      if (cx < 0 || cy < 0 || cx >= vw || cy >= vh) { hit = 'offscreen'; } else {
        const top = document.elementFromPoint(cx, cy);
        hit = (top && (top === el || el.contains(top))) ? 'ok' : 'covered';
      }
    }
    const attributes = {};
    for (const a of el.attributes) attributes[a.name] = a.value.slice(0, maxAttr);
    let text = (el.innerText || el.value || el.getAttribute('aria-label') || el.title
                || el.getAttribute('alt') || '').replace(/\\s+/g, ' ').trim();
    const state = st.state.get(el) || {clicks: 0, exhausted: false};
    out.push({
      index: id, tag: el.tagName.toLowerCase(), attributes,
      text: text.slice(0, maxText), html: el.outerHTML.slice(0, maxHtml),
      href: (el.tagName === 'A' || el.tagName === 'AREA') && el.getAttribute('href') !== null
        ? el.href : null,
      layout: {
        visible, hit, fixed, z_index: zmax, overlay_cover: Math.round(cover * 1000) / 1000,
        x: Math.round(r.left + window.scrollX), y: Math.round(r.top + window.scrollY),
        width: Math.round(r.width), height: Math.round(r.height),
        cursor_pointer: s.cursor === 'pointer',
        in_dialog: !!el.closest('dialog, [role=dialog], [role=alertdialog], [aria-modal=true]'),
        in_nav: !!el.closest('nav, [role=navigation], header, [role=banner]'),
        in_footer: !!el.closest('footer, [role=contentinfo]'),
        in_form: !!el.closest('form'),
        clicks: state.clicks, exhausted: state.exhausted,
      },
    });
  }
  out.sort((a, b) => a.index - b.index);
  return {url: location.href, lang: document.documentElement.lang || '', elements: out,
          viewport: [vw, vh]};
}
"""

#: Marks an element as clicked (or exhausted) in the page-side state.
MARK_JS = """
([index, exhausted]) => {
  const st = window.__corpuscrawl; const el = st.els[index];
  if (!el) return false;
  st.mark(el, exhausted);
  return true;
}
"""

#: After a Revealer's click has settled: ``[fingerprint, 'toggle'|'again'|'exhausted']``.
#: A second click that made the text shorter is a toggle (not marked: the caller clicks it
#: back); otherwise the element is marked, exhausted unless the text grew and the element
#: kept its own label ("Load more" is clicked again, "Show" -> "Hide" is not).
REVEALED_JS = """
([index, before, lengthBefore, ownBefore, clicks]) => {
  const st = window.__corpuscrawl; const el = st.els[index];
  const [after, length] = st.text();
  const own = el && el.isConnected ? (el.innerText || el.value || '').trim() : null;
  if (after !== before && length < lengthBefore && clicks > 0) return [after, 'toggle'];
  const exhausted = !(length > lengthBefore) || own === null || own !== ownBefore;
  if (el) st.mark(el, exhausted);
  return [after, exhausted ? 'exhausted' : 'again'];
}
"""

#: After a batch of first clicks has settled: marks each ``[index, own text before]`` —
#: exhausted when it is gone or changed its label, else clicked once (a second click is
#: judged on its own) — and returns the text fingerprint.
BATCH_REVEALED_JS = """
(clicked) => {
  const st = window.__corpuscrawl;
  for (const [index, ownBefore] of clicked) {
    const el = st.els[index];
    if (!el) continue;
    const own = el.isConnected ? (el.innerText || el.value || '').trim() : null;
    st.mark(el, own === null || own !== ownBefore);
  }
  return st.text()[0];
}
"""

#: Returns the element handle of a collected element (``null`` once it left the DOM).
HANDLE_JS = """
(index) => { const el = window.__corpuscrawl.els[index]; return el && el.isConnected ? el : null; }
"""

#: Clicks an element from script (used when a pointer click is impossible but the element
#: is visible, e.g. it sits under a transparent layer that is not an overlay).
DOM_CLICK_JS = """
(index) => { const el = window.__corpuscrawl.els[index];
  if (!el || !el.isConnected) return false; el.click(); return true; }
"""

#: The HTML (shortened) of the element that covers the given one, for logging.
COVERING_JS = """
(index) => { const el = window.__corpuscrawl.els[index]; if (!el) return '';
  const r = el.getBoundingClientRect();
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return top ? top.outerHTML.slice(0, 200) : ''; }
"""

#: Scrolls to the bottom of the page (and of the largest scrollable feed container).
SCROLL_JS = """
() => {
  window.scrollTo(0, Math.max(document.body.scrollHeight,
                              document.documentElement.scrollHeight));
  let best = null, bestHeight = 0;
  for (const el of document.querySelectorAll('main, section, div, ul, ol')) {
    if (el.scrollHeight > el.clientHeight + 50 && el.clientHeight > 200) {
      const ov = getComputedStyle(el).overflowY;
      if ((ov === 'auto' || ov === 'scroll') && el.scrollHeight > bestHeight) {
        best = el; bestHeight = el.scrollHeight;
      }
    }
  }
  if (best) best.scrollTop = best.scrollHeight;
  // A page shorter than the window does not scroll, and fires no scroll event: send one.
  window.dispatchEvent(new Event('scroll'));
  return true;
}
"""

#: Scrolls up by one window height (before scrolling down again).
SCROLL_UP_JS = """
() => { window.scrollBy(0, -window.innerHeight); window.dispatchEvent(new Event('scroll'));
  return true; }
"""

#: Serializes what a reader sees: a copy of the document without hidden elements and
#: without overlays that are still open (dialogs, large fixed layers holding little text).
#: Hidden tab panels and panels a clicked control revealed (``aria-controls``) are kept:
#: their text was shown to a reader, only one at a time.  Open shadow roots are flattened
#: into their hosts and same-origin iframes are inlined, so their text is in the HTML.
SNAPSHOT_JS = """
(opts) => {
  const st = window.__corpuscrawl || {revealed: new WeakSet()};
  const KEEP = new Set(['BR', 'WBR', 'HEAD', 'TITLE', 'META', 'LINK', 'BASE', 'HTML', 'BODY',
                        'SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);
  function shown(el) {
    if (el.checkVisibility({checkVisibilityCSS: true})) return true;
    for (let a = el; a; a = a.parentElement) {
      if (st.revealed.has(a) || (a.getAttribute('role') === 'tabpanel' && a.hidden)) {
        // kept when every hidden ancestor up to the panel is only hidden by the panel
        return a === el || !el.closest('[hidden]') || el.closest('[hidden]') === a;
      }
    }
    return false;
  }
  function flatten(liveRoot, copyRoot, vw, vh, bodyText) {
    const live = Array.from(liveRoot.querySelectorAll('*'));
    const copies = Array.from(copyRoot.querySelectorAll('*'));
    if (live.length !== copies.length) return;
    const drop = [];
    for (let i = 0; i < live.length; i++) {
      const el = live[i];
      if (KEEP.has(el.tagName) || el.closest('head')) continue;
      if (!shown(el)) { drop.push(copies[i]); continue; }
      const dialog = el.matches('dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true]');
      const s = getComputedStyle(el);
      let overlay = dialog;
      if (!overlay && s.position === 'fixed') {
        const r = el.getBoundingClientRect();
        const w = Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0));
        const h = Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
        const z = parseInt(s.zIndex, 10) || 0;
        overlay = (w * h) / (vw * vh) >= opts.minCover && z >= opts.minZ
          && el.innerText.length < opts.maxTextShare * bodyText;
      }
      if (overlay && el.innerText.length < opts.maxTextShare * bodyText) {
        drop.push(copies[i]); continue;
      }
      if (el.shadowRoot) {
        const holder = document.createElement('div');
        holder.innerHTML = el.shadowRoot.innerHTML;
        flatten(el.shadowRoot, holder, vw, vh, bodyText);
        const slotted = el.shadowRoot.querySelector('slot');
        if (!slotted) copies[i].innerHTML = '';
        copies[i].prepend(...holder.childNodes);
      }
      if (el.tagName === 'IFRAME') {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) { doc = null; }
        if (doc && doc.body) {
          const holder = document.createElement('div');
          holder.setAttribute('data-corpuscrawl-frame', el.getAttribute('src') || '');
          const inner = doc.body.cloneNode(true);
          flatten(doc.body, inner, vw, vh, Math.max(bodyText, doc.body.innerText.length));
          holder.innerHTML = inner.innerHTML;
          copies[i].replaceWith(holder);
        }
      }
    }
    for (const c of drop) if (c.parentNode) c.remove();
  }
  const root = document.documentElement;
  const clone = root.cloneNode(true);
  const body = document.body;
  if (!body) return '<!DOCTYPE html>' + clone.outerHTML;
  flatten(root, clone, window.innerWidth, window.innerHeight, Math.max(1, body.innerText.length));
  const doctype = document.doctype ? '<!DOCTYPE html>' : '';
  return doctype + clone.outerHTML;
}
"""

#: Hash-like fingerprint of the visible text (its length and a cheap rolling hash).
TEXT_FINGERPRINT_JS = """
() => { const t = document.body ? document.body.innerText : ''; let h = 0;
  for (let i = 0; i < t.length; i++) { h = (h * 31 + t.charCodeAt(i)) | 0; }
  return t.length + ':' + h; }
"""

#: ``[text fingerprint (as TEXT_FINGERPRINT_JS), scroll height]``: whether a scroll loaded more.
VIEW_JS = """
() => { const body = document.body; const t = body ? body.innerText : ''; let h = 0;
  for (let i = 0; i < t.length; i++) { h = (h * 31 + t.charCodeAt(i)) | 0; }
  return [t.length + ':' + h, Math.max(body ? body.scrollHeight : 0,
                                       document.documentElement.scrollHeight)]; }
"""

#: Before a click: scrolls the element into view, hit-tests its centre and, when the element
#: is on top, guards the click (see INSTALL_JS) until CLICKED_JS.  Returns
#: ``['gone'|'hidden'|'covered'|'ok', x, y, text fingerprint, text length, own text]``
#: (the centre in viewport coordinates; the page's text and the element's label before the
#: click, to judge what the click did).
HIT_JS = """
(index) => { const st = window.__corpuscrawl; const el = st.els[index]; st.lastClick = null;
  const [fp, length] = st.text();
  if (!el || !el.isConnected) return ['gone', 0, 0, fp, length, null];
  const own = (el.innerText || el.value || '').trim();
  el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0 || !el.checkVisibility({checkVisibilityCSS: true}))
    return ['hidden', 0, 0, fp, length, own];
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const top = document.elementFromPoint(x, y);
  const hit = top && (top === el || el.contains(top)) ? 'ok' : 'covered';
  st.guard = hit === 'ok' ? el : null;
  return [hit, x, y, fp, length, own]; }
"""

#: Whether the last click reached the element (or something inside it); forgets the click
#: and lifts the guard set by HIT_JS.
CLICKED_JS = """
(index) => { const st = window.__corpuscrawl; const path = st.lastClick; st.lastClick = null;
  st.guard = null; return !!path && path.includes(st.els[index]); }
"""
