"""What a plain (unrendered) page says before any browser runs: overlays and reveal controls.

Two uses:

* :func:`without_overlays` — consent walls, newsletter modals and paywall
  layers that sit in the static HTML are taken out of a plainly fetched page
  before extraction, as the rendered path takes them out of its snapshot; text
  that the HTML holds but hides behind an in-page "Read more" control is shown
  (:func:`revealed_targets`), as a click would show it.  An
  overlay is an element marked as a dialog (``<dialog>``, ``role=dialog``,
  ``aria-modal``), or one whose class/id names an overlay
  (:data:`OVERLAY_HOOKS_DEFAULT`) or whose inline style fixes it over the
  page, that holds a control and little of the page's text.
* :func:`reveal_controls` — the elements of the static HTML that the element
  classifier (on the features a static page has: tag, attributes, text,
  structural position; no geometry) takes for Revealers that act in place,
  plus ARIA disclosure controls whose target is empty.  A page with such
  controls holds text that only a browser shows (``render=auto``).

* :func:`hidden_content_evidence` — other marks of text only a browser shows:
  text held in ``<template>``, empty custom elements (shadow DOM), same-site
  iframes, links that exist only for scripts (``onclick``, ``data-href``) and
  inline scripts that fetch more content on scroll.

No Scrapy; reads a :class:`~corpuscrawl.html.page.Page` and never modifies its
shared trees.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from urllib.parse import urljoin

import lxml.html
from lxml import etree

from corpuscrawl.browse.elements import (
    STRUCTURAL_LAYOUT_KEYS,
    ElementRecord,
    is_clickable_in_place,
    layout_view,
    scripted_target,
)
from corpuscrawl.html.dom import normalize_space
from corpuscrawl.html.page import Page
from corpuscrawl.net.sites import same_site

#: Class/id words of overlay containers (consent managers, modals, paywalls, popups).
#: ("newsletter" alone is not one: an inline signup box is boilerplate for the domain
#: history to remove, not a layer over the page).
OVERLAY_HOOKS_DEFAULT = ("consent", "cookie", "gdpr", "cmp", "modal", "overlay", "popup",
                         "paywall", "interstitial", "lightbox", "regwall", "onetrust",
                         "didomi", "sp_message")
#: An overlay holds at most this share of the page's text (the rest is the page)...
OVERLAY_MAX_TEXT_SHARE_DEFAULT = 0.4
#: ... and at most this many characters (a consent text is ~200-1200).
OVERLAY_MAX_CHARS_DEFAULT = 2000

_CANDIDATES = ("a", "button", "summary", "input", "div", "span", "li")
_CONTROL_TAGS = frozenset(("a", "button", "input", "select"))
_FIXED_RE = re.compile(r"position\s*:\s*(fixed|sticky)", re.I)
_HIDDEN_RE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_TOKEN_RE = re.compile(r"[a-z0-9_]+(?:-[a-z0-9_]+)*")
_ROLES = ("button", "tab", "link", "menuitem")
#: A reveal control's label is short ("Continue reading", "Show 12 comments").
REVEAL_MAX_WORDS_DEFAULT = 6
_SCRIPT_URL_RE = re.compile(r"""window\.open|['"](?:https?:)?/[^'"]*['"]""")
#: Labels of controls that show media, navigation or sharing menus, listings of other pages
#: or nothing (no text of this page behind them).
_NOTHING_RE = re.compile(r"\(0\)|\b0 (comments?|replies|answers)\b|\bno comments\b|photo|image|"
                         r"picture|gallery|slideshow|video|map\b|calendar|full size|interactive|"
                         r"zoom|print|shar(e|ing)|navigation|\bmenu\b|options|\btags?\b|"
                         r"results|amazon|single page|\bstories\b|\bblogs?\b|\bsites\b|"
                         r"author|autor|add (a |your )?comment|top of|refresh|guestbook|\bads?\b|desktop",
                         re.I)
#: What a control that reveals text says: a verb of showing or continuing (English and the
#: keyword languages of :mod:`corpuscrawl.browse.elements`).  A bare "More", "» more" or
#: "4 comments" is most often a link to a listing or to the comment section (measured on
#: the benchmark datasets' static pages), a Revealer without such a verb (a carousel
#: arrow, "Refresh") is no evidence either.
_REVEAL_TEXT_RE = re.compile(
    r"\b(continue|read|show|load|expand|view|see|display|open|"
    r"weiterlesen|anzeigen|laden|tovább|mutat\w*|megtekint\w*|prikaži|učitaj|pokaż|"
    r"załaduj|afficher|voir|lire|mostrar|cargar|leer|mostra|continua)\b", re.I)

Classify = Callable[[Sequence[ElementRecord]], Sequence[str]]


def _hooks(el: etree._Element) -> str:
    return f"{el.get('class') or ''} {el.get('id') or ''}".lower()


def _is_overlay_container(el: etree._Element) -> bool:
    if el.tag == "dialog" or el.get("aria-modal") == "true" or \
            el.get("role") in ("dialog", "alertdialog"):
        return True
    if el.tag not in ("div", "section", "aside", "form", "dialog"):
        return False
    hooks = _hooks(el)
    if any(h in token for token in _TOKEN_RE.findall(hooks) for h in OVERLAY_HOOKS_DEFAULT):
        return True
    return bool(_FIXED_RE.search(el.get("style") or ""))


def overlay_elements(page: Page) -> list[etree._Element]:
    """The outermost overlay elements of the page's body (see the module docstring)."""
    body = page.tree.find("body")
    if body is None:
        return []
    total = len(normalize_space(body.text_content()))
    found: list[etree._Element] = []
    for el in body.iter():
        if not isinstance(el.tag, str) or not _is_overlay_container(el):
            continue
        if any(f in el.iterancestors() for f in found):
            continue
        chars = len(normalize_space(el.text_content()))
        has_control = el.tag == "dialog" or any(
            isinstance(d.tag, str) and d.tag in _CONTROL_TAGS for d in el.iter())
        if not has_control and not chars:
            found.append(el)  # an empty backdrop
            continue
        if has_control and chars <= OVERLAY_MAX_CHARS_DEFAULT and \
                chars <= OVERLAY_MAX_TEXT_SHARE_DEFAULT * max(total, 1):
            found.append(el)
    return found


def without_overlays(page: Page) -> Page:
    """The page as a reader sees it once its static controls are used: without its static
    overlays, and with the text a static reveal control hides shown
    (:func:`revealed_targets`); the same object when it has neither."""
    overlays = overlay_elements(page)
    targets = revealed_targets(page)
    if not overlays and not targets:
        return page
    root = page.tree.getroottree()
    paths = [root.getpath(el) for el in overlays]
    shown = [root.getpath(el) for el in targets]
    tree = page.copy_tree(clean=False)
    doc = tree.getroottree()
    for path in shown:
        for el in doc.xpath(path):
            _show(el)
    copies = [found[0] for found in (doc.xpath(path) for path in paths) if found]
    for el in copies:  # resolved before any removal: removing shifts sibling positions
        el.drop_tree()
    html = lxml.html.tostring(tree, encoding="unicode")
    return replace(page, html=html, tree=tree)


def revealed_targets(page: Page) -> list[etree._Element]:
    """Elements the static HTML hides (an inline ``display: none`` / ``visibility: hidden``
    or a ``hidden`` attribute of their own) that an in-page control of the page shows: a
    link to ``#id`` or an element with ``aria-controls="id"`` whose short label says showing
    or continuing ("Read more", "Show the full text"; not "Show photos"), or a tab
    (``role="tab"``) of a tab panel.  A browser shows
    their text on a click, and their text is in the HTML: a plain fetch harvests it
    without rendering (``render=auto`` keeps such pages plain)."""
    body = page.tree.find("body")
    if body is None:
        return []
    targets: list[etree._Element] = []
    for el in body.iter("a", "button", "summary", "span", "div"):
        ids = [(el.get("href") or "")[1:]] if (el.get("href") or "").startswith("#") else []
        ids += (el.get("aria-controls") or "").split()
        if not ids:  # before its text: text_content() of every div would walk nested ones again
            continue
        label = normalize_space(el.text_content() or el.get("aria-label") or "")
        tab = el.get("role") == "tab"  # a tab shows its panel whatever its label says
        if not label or len(label.split()) > REVEAL_MAX_WORDS_DEFAULT or not tab \
                and (not _REVEAL_TEXT_RE.search(label) or _NOTHING_RE.search(label)):
            continue
        for target_id in filter(None, ids):
            found = body.xpath("//*[@id=$i]", i=target_id)
            if found and _hidden_itself(found[0]) and found[0] not in targets \
                    and normalize_space(found[0].text_content()):
                targets.append(found[0])
    return targets


def _hidden_itself(el: etree._Element) -> bool:
    return el.get("hidden") is not None or bool(_HIDDEN_RE.search(el.get("style") or ""))


def _show(el: etree._Element) -> None:
    """Take away what hides ``el`` itself (its ``hidden`` attribute, hiding style rules)."""
    el.attrib.pop("hidden", None)
    style = el.get("style")
    if style is not None:
        kept = [rule for rule in style.split(";") if rule.strip()
                and not _HIDDEN_RE.search(rule)]
        if kept:
            el.set("style", ";".join(kept))
        else:
            del el.attrib["style"]


# --- reveal controls ------------------------------------------------------------------

def _hidden(el: etree._Element) -> bool:
    for node in (el, *el.iterancestors()):
        if node.get("hidden") is not None or _HIDDEN_RE.search(node.get("style") or ""):
            return True
    return False


def _inside(el: etree._Element, tags: tuple[str, ...], roles: tuple[str, ...]) -> bool:
    return any(a.tag in tags or a.get("role") in roles for a in (el, *el.iterancestors()))


def static_records(page: Page, limit: int = 2000) -> list[tuple[ElementRecord, etree._Element]]:
    """Actionable elements of the static HTML as classifier records (no geometry)."""
    body = page.tree.find("body")
    if body is None:
        return []
    out: list[tuple[ElementRecord, etree._Element]] = []
    lang = page.tree.get("lang") or ""
    for el in body.iter(*_CANDIDATES):
        if el.tag in ("div", "span", "li") and not (
                el.get("onclick") or el.get("role") in _ROLES or el.get("data-href")
                or el.get("aria-expanded") is not None):
            continue
        if el.tag == "input" and el.get("type") not in ("button", "submit"):
            continue
        if _inside(el, ("noscript", "template"), ()):
            continue
        attributes = {str(k).lower(): str(v)[:500] for k, v in el.attrib.items()}
        text = normalize_space(el.text_content() or el.get("value") or
                               el.get("aria-label") or el.get("title") or "")[:300]
        layout = {"visible": not _hidden(el),
                  "in_nav": _inside(el, ("nav", "header"), ("navigation", "banner")),
                  "in_footer": _inside(el, ("footer",), ("contentinfo",)),
                  "in_dialog": _inside(el, ("dialog",), ("dialog", "alertdialog")),
                  "in_form": _inside(el, ("form",), ())}
        html = lxml.html.tostring(el, encoding="unicode", with_tail=False)[:2000]
        out.append((ElementRecord(tag=el.tag, attributes=attributes, text=text, html=html,
                                  page_url=page.url, layout=layout, page_lang=lang), el))
        if len(out) >= limit:
            break
    return out


def static_view(record: ElementRecord) -> ElementRecord:
    """A (live) record as a static page shows it: structural layout keys only."""
    return layout_view(record, STRUCTURAL_LAYOUT_KEYS)


#: ``<template>`` content above this many characters is text waiting for a script.
TEMPLATE_MIN_CHARS_DEFAULT = 200
#: A page with less static text than this (characters) "has little text of its own"
#: (four times render.MIN_STATIC_TEXT_DEFAULT: a short static article has ~1000).
LITTLE_TEXT_CHARS_DEFAULT = 1000
#: Script-only links needed before they count (one is often a teaser box or a widget).
SCRIPT_LINKS_MIN_DEFAULT = 2
#: Class/id words of containers an infinite feed appends to.
FEED_HOOKS_DEFAULT = ("feed", "list", "more", "comments", "stream", "posts", "items",
                      "results", "timeline", "articles", "stories")
_DEFINE_RE = re.compile(r"customElements\.define|attachShadow")
#: Custom-element prefixes of widget libraries whose empty elements hold no text (AMP).
_WIDGET_PREFIXES = ("amp-",)
_SCROLL_RE = re.compile(r"IntersectionObserver|addEventListener\(\s*['\"]scroll['\"]")
#: A scroll loader is one inline script that both watches scrolling and fetches, of at most
#: this many characters: a framework bundle inlined in the page (lazy images, analytics;
#: sizes on the benchmark pages in benchmarks/results/dynamic.md) holds both for other
#: reasons.
SCROLL_LOADER_MAX_CHARS_DEFAULT = 50_000
_FETCH_RE = re.compile(r"\bfetch\(|XMLHttpRequest|\$\.(?:get|ajax|getJSON)\(|axios\.")


def _static_chars(body: etree._Element) -> int:
    return len(normalize_space(" ".join(
        t for t in body.itertext() if not isinstance(t, etree._Comment))))


def _in_chrome(el: etree._Element) -> bool:
    return _inside(el, ("nav", "header", "footer", "aside"),
                   ("navigation", "banner", "contentinfo", "complementary"))


def hidden_content_evidence(page: Page) -> list[tuple[str, str]]:
    """``(kind, reason)`` pairs of text the static page holds back for scripts.

    Each mark is narrow on purpose (measured on the benchmark datasets' archived
    pages, which need no browser): template text, an empty custom element that an
    inline script defines (or on a page with little text; AMP and ``fb:`` widgets
    never count), a same-site iframe on a page with little text of its own, at
    least :data:`SCRIPT_LINKS_MIN_DEFAULT` same-site links in the content that
    exist only for scripts, and an inline script that fetches on scroll into an
    empty feed container (:data:`SCROLL_LOADER_MAX_CHARS_DEFAULT`).
    """
    found: list[tuple[str, str]] = []
    body = page.tree.find("body")
    if body is None:
        return found
    little_text = _static_chars(page.clean_tree.find("body") if page.clean_tree.find("body")
                                is not None else body) < LITTLE_TEXT_CHARS_DEFAULT
    inline = " ".join(s.text or "" for s in page.tree.iter("script") if not s.get("src"))
    template_chars = sum(len(normalize_space(t.text_content())) for t in body.iter("template"))
    if template_chars >= TEMPLATE_MIN_CHARS_DEFAULT:
        found.append(("template-text", f"{template_chars} characters of text in <template>"))
    defines = bool(_DEFINE_RE.search(inline))
    custom = [el.tag for el in body.iter() if isinstance(el.tag, str) and "-" in el.tag
              and ":" not in el.tag and not el.tag.startswith(_WIDGET_PREFIXES)
              and not normalize_space(el.text_content())]
    if custom and (defines or little_text):
        found.append(("custom-elements", f"empty custom element <{custom[0]}>"))
    frames = [el.get("src") for el in body.iter("iframe")
              if el.get("src") and not _in_chrome(el)
              and same_site(urljoin(page.url, el.get("src")), page.url)]
    if frames and little_text:
        found.append(("iframe", f"same-site iframe {frames[0]} on a page with little text"))
    scripted = 0
    for el in body.iter():
        if not isinstance(el.tag, str) or el.get("href") is not None or _in_chrome(el):
            continue
        target = scripted_target({k: str(v) for k, v in el.attrib.items()})
        if target and "window.open" not in (el.get("onclick") or "") and \
                len(normalize_space(el.text_content()).split()) >= 2 and \
                same_site(urljoin(page.url, target), page.url):
            scripted += 1
    if scripted >= SCRIPT_LINKS_MIN_DEFAULT:
        found.append(("script-links", f"{scripted} links in the content only for scripts"))
    loaders = [s.text for s in page.tree.iter("script") if not s.get("src") and s.text
               and len(s.text) <= SCROLL_LOADER_MAX_CHARS_DEFAULT
               and _SCROLL_RE.search(s.text) and _FETCH_RE.search(s.text)]
    if loaders and _empty_feed(body):
        found.append(("scroll-loading", "inline script fetches on scroll into an empty feed"))
    return found


def _empty_feed(body: etree._Element) -> bool:
    for el in body.iter("div", "ul", "ol", "section"):
        hooks = _TOKEN_RE.findall(_hooks(el))
        if any(h in token for token in hooks for h in FEED_HOOKS_DEFAULT) and \
                not normalize_space(el.text_content()) and not _in_chrome(el):
            return True
    return False


def _target_has_text(page: Page, el: etree._Element) -> bool | None:
    """Whether what an ``aria-controls`` / ``#fragment`` points to holds text.

    None when the element points nowhere in particular (no ``aria-controls``, a bare
    ``#``); True also for a fragment naming no element (a jump link, not a reveal).
    """
    ids = (el.get("aria-controls") or "").split()
    href = (el.get("href") or "").strip()
    fragment = not ids and href.startswith("#") and len(href) > 1
    if fragment:
        ids = [href[1:]]
    if not ids:
        return None
    for ident in ids:
        found = page.tree.xpath("//*[@id=$i or @name=$i]", i=ident)
        if not found:
            return True if fragment else None
        if normalize_space(found[0].text_content()):
            return True
    return False


def _navigates(el: etree._Element) -> bool:
    """True for a script link that opens a URL (a popup, ``location = ...``)."""
    code = f"{el.get('href') or ''} {el.get('onclick') or ''}"
    return bool(_SCRIPT_URL_RE.search(code))


def reveal_controls(page: Page, classify: Classify | None) -> list[ElementRecord]:
    """Controls of the static page that reveal text not yet in it (see the module docstring)."""
    pairs = [(r, el) for r, el in static_records(page)
             if r.layout["visible"] and not r.layout["in_nav"] and not r.layout["in_footer"]
             and not r.layout["in_dialog"] and is_clickable_in_place(r)]
    if not pairs:
        return []
    labels = list(classify([r for r, _ in pairs])) if classify else ["Other"] * len(pairs)
    found = []
    for (record, el), label in zip(pairs, labels, strict=True):
        target = _target_has_text(page, el)
        if target is True or record.tag == "summary":
            continue  # what it shows is in the HTML already
        disclosure = target is False and (el.get("aria-expanded") == "false"
                                          or el.get("aria-selected") == "false") \
            and not _NOTHING_RE.search(record.text)
        clickable = el.tag != "a" or el.get("href") is not None or el.get("onclick") or \
            el.get("role") == "button"
        if disclosure or (label == "Revealer" and clickable and not _in_chrome(el)
                          and not record.layout["in_form"] and not _navigates(el)
                          and 2 <= len(record.text.split()) <= REVEAL_MAX_WORDS_DEFAULT
                          and _REVEAL_TEXT_RE.search(record.text)
                          and not _NOTHING_RE.search(record.text)):
            found.append(record)
    return found
