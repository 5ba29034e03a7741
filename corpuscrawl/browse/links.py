"""Links found by the element classifier: what to follow and which pages are translations.

Source: Komporday's thesis, part III §9.1 and §9.3: after revealing, the
crawler follows Inner links (and Outer ones when the policy allows);
LanguageSelection links (the thesis' future work) become the document's
``alternates`` for parallel corpora.

The classifier decides *whether* an element is a navigation link; the site
boundary is decided by the URL itself, decoded through redirect proxies, so a
mistake of the tree can never make ``follow=inner`` leave the site.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urljoin

from lxml import etree

from corpuscrawl.browse.elements import (
    ElementRecord,
    href_kind,
    language_switch_code,
    navigation_target,
)

#: Link kinds: same site, other site, the same page in another language.
LINK_KINDS = ("inner", "outer", "language")


@dataclass(frozen=True)
class FoundLink:
    """A link to follow or record: absolute (proxy-decoded) URL, kind, anchor text, language."""

    url: str
    kind: str
    text: str = ""
    lang: str = ""


def _language_of(record: ElementRecord, target: str) -> str:
    attrs = record.attributes
    code = (attrs.get("hreflang") or attrs.get("lang") or "").strip().lower()
    if code:
        return code.split("-")[0].split("_")[0]
    return language_switch_code(target, record.page_url)


def discovered_links(records: Sequence[ElementRecord], labels: Sequence[str]) -> list[FoundLink]:
    """Inner/outer/language links among classified elements, de-duplicated by URL and kind."""
    seen: set[tuple[str, str]] = set()
    found: list[FoundLink] = []
    for record, label in zip(records, labels, strict=True):
        if label == "LanguageSelection":
            kind, target = href_kind(record)
            if kind not in ("inner", "outer", "proxy_inner", "proxy_outer"):
                continue
            link = FoundLink(target, "language", record.text, _language_of(record, target))
        elif label in ("Inner", "Outer"):
            side, target = navigation_target(record)
            if not side:
                continue
            link = FoundLink(target, side, record.text)
        else:
            continue
        key = (link.url.split("#")[0], link.kind)
        if key not in seen:
            seen.add(key)
            found.append(link)
    return found


def alternates(links: Iterable[FoundLink], page_url: str, page_lang: str = "") -> dict[str, str]:
    """``{language: url}`` of the page's translations (the page itself left out)."""
    own = page_url.split("#")[0]
    out: dict[str, str] = {}
    for link in links:
        if link.kind != "language" or not link.lang or link.url.split("#")[0] == own:
            continue
        if page_lang and link.lang == page_lang.split("-")[0].lower():
            continue
        out.setdefault(link.lang, link.url)
    return out


def head_alternates(tree: etree._Element, page_url: str) -> dict[str, str]:
    """``{language: url}`` from ``<link rel="alternate" hreflang=...>`` in the page head."""
    out: dict[str, str] = {}
    own = page_url.split("#")[0]
    for link in tree.iterfind(".//link[@hreflang]"):
        if "alternate" not in (link.get("rel") or "").lower().split():
            continue
        lang = (link.get("hreflang") or "").strip().lower()
        href = (link.get("href") or "").strip()
        if not lang or lang == "x-default" or not href:
            continue
        url = urljoin(page_url, href)
        if url.split("#")[0] != own:
            out.setdefault(lang.split("-")[0], url)
    return out
