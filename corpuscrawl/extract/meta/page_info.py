"""What a page says about itself beyond title, date and author: site, description, topics,
licence, image, last change and canonical address.

Read from the page's own markup, from the most explicit source to the least, each
value "" (or an empty list) when the page does not say:

========== ==================================================================================
field      sources, in order
========== ==================================================================================
site_name  ``og:site_name``; JSON-LD ``publisher.name`` or a ``WebSite``'s ``name``;
           ``application-name``, ``dc.publisher``/``dcterms.publisher``
description ``og:description``, ``description``, ``twitter:description``, ``dc.description``;
           JSON-LD ``description``
categories ``article:section``, ``parsely-section``, ``category``; JSON-LD ``articleSection``;
           ``rel="category"`` links
tags       ``article:tag`` (each), ``keywords``, ``news_keywords``, ``parsely-tags``; JSON-LD
           ``keywords``; ``rel="tag"`` links
license    ``rel="license"`` links (``<link>`` or ``<a>``); JSON-LD ``license``; ``dc.rights``,
           ``dcterms.license``, ``dcterms.rights``; a link to a Creative Commons licence
image      ``og:image`` (``og:image:url``/``secure_url``), ``twitter:image``; JSON-LD ``image``
           or ``thumbnailUrl``; ``rel="image_src"``
modified   JSON-LD ``dateModified``; ``article:modified_time``, ``og:updated_time``,
           ``dcterms.modified``, ``last-modified``; ``itemprop="dateModified"``
canonical_url ``rel="canonical"``; ``og:url``
========== ==================================================================================

URLs (image, licence, canonical) are made absolute against the page URL; dates are ISO 8601
(:func:`~corpuscrawl.extract.meta.metadata.normalize_date`).  Hand-written over the tree the
Page already parsed: extruct reads the same syntaxes but parses the HTML again (see
``benchmarks/results/metadata.md`` for the comparison).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urljoin

from corpuscrawl.extract.meta.metadata import jsonld_objects, normalize_date
from corpuscrawl.extract.meta.title import SEPARATORS, SITE_NAME_MAX_WORDS_DEFAULT, raw_title
from corpuscrawl.html.dom import normalize_space
from corpuscrawl.html.page import Page

#: Meta keys (``property``/``name``/``itemprop``, lower case) per field, most specific first.
SITE_NAME_META = ("og:site_name", "application-name", "dc.publisher", "dcterms.publisher")
DESCRIPTION_META = ("og:description", "description", "twitter:description", "dc.description",
                    "dcterms.description", "dcterms.abstract")
CATEGORY_META = ("article:section", "article.section", "parsely-section", "category", "section",
                 "dc.subject")
TAG_META = ("article:tag", "keywords", "news_keywords", "parsely-tags", "sailthru.tags")
LICENSE_META = ("dcterms.license", "dc.rights", "dcterms.rights", "license")
IMAGE_META = ("og:image", "og:image:url", "og:image:secure_url", "twitter:image",
              "twitter:image:src", "thumbnail")
MODIFIED_META = ("article:modified_time", "og:updated_time", "datemodified", "article.updated",
                 "dcterms.modified", "last-modified", "lastmod", "modified", "dc.date.modified")
#: JSON-LD types whose ``name`` is the site's name.
SITE_TYPES = frozenset(("WebSite", "Organization", "NewsMediaOrganization"))
#: Most categories or tags kept (a keyword-stuffed page has hundreds).
TERMS_MAX_DEFAULT = 30
_CC_RE = re.compile(r"creativecommons\.org/(?:licenses|publicdomain)/", re.I)


@dataclass(frozen=True, slots=True)
class PageInfo:
    """A page's site name, description, categories, tags, licence, main image, last
    modification (ISO 8601) and canonical URL ("" or empty when the page does not say)."""

    site_name: str = ""
    description: str = ""
    categories: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    license: str = ""
    image: str = ""
    modified: str = ""
    canonical_url: str = ""


def _metas(page: Page) -> dict[str, list[str]]:
    """Every meta's content by its lower-cased ``property``/``name``/``itemprop``."""
    found: dict[str, list[str]] = {}
    for meta in page.tree.iter("meta"):
        key = (meta.get("property") or meta.get("name") or meta.get("itemprop") or "").lower()
        content = normalize_space(meta.get("content") or "")
        if key and content:
            found.setdefault(key, []).append(content)
    return found


def _first(metas: dict[str, list[str]], keys: Iterable[str]) -> str:
    for key in keys:
        if metas.get(key):
            return metas[key][0]
    return ""


def _rel_links(page: Page, rel: str, unless: str = "") -> Iterator[tuple[str, str]]:
    """(href, text) of every ``<link>``/``<a>`` whose ``rel`` has ``rel`` (and not ``unless``)."""
    for el in page.tree.iter("link", "a"):
        rels = (el.get("rel") or "").lower().split()
        if rel in rels and unless not in rels and el.get("href"):
            yield el.get("href").strip(), normalize_space(el.text_content() if el.tag == "a" else "")


def _absolute(page: Page, url: str) -> str:
    url = url.strip()
    if not url or url.startswith(("data:", "javascript:")):
        return ""
    try:
        return urljoin(page.url, url) if page.url else url
    except ValueError:
        return url


def _strings(value: object) -> list[str]:
    """Strings of a JSON-LD value (a string, a list, an object's ``name``/``url``/``@id``)."""
    if isinstance(value, str):
        return [normalize_space(value)] if value.strip() else []
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        for key in ("name", "url", "@id", "contentUrl"):
            if isinstance(value.get(key), str) and value[key].strip():
                return [normalize_space(value[key])]
    return []


def _split_terms(values: Iterable[str]) -> list[str]:
    """Terms of comma- (or semicolon-) separated values, as meta keywords list them."""
    out: list[str] = []
    for value in values:
        for term in re.split(r"\s*[,;]\s*", value):
            term = normalize_space(term).strip("#")
            if term and len(term) <= 100:
                out.append(term)
    return out


def _unique(terms: Iterable[str]) -> list[str]:
    """Terms de-duplicated case-insensitively, in order, at most :data:`TERMS_MAX_DEFAULT`."""
    out: dict[str, str] = {}
    for term in terms:
        out.setdefault(term.lower(), term)
    return list(out.values())[:TERMS_MAX_DEFAULT]


def _jsonld(objects: list[dict], key: str) -> list[str]:
    return [s for o in objects for s in _strings(o.get(key))]


def _types(obj: dict) -> set[str]:
    """The schema.org types a JSON-LD node declares (``@type`` is a string or a list)."""
    value = obj.get("@type")
    values = value if isinstance(value, list) else [value]
    return {v.strip() for v in values if isinstance(v, str)}


def find_site_name(page: Page, metas: dict[str, list[str]], objects: list[dict]) -> str:
    """The site's name: Open Graph, then JSON-LD's WebSite, publisher or Organization, then
    other metas, then the side of the title that names the site."""
    if metas.get("og:site_name"):
        return metas["og:site_name"][0]
    for obj in objects:  # the site itself first, then who publishes the page
        if "WebSite" in _types(obj) and isinstance(obj.get("name"), str) and obj["name"].strip():
            return normalize_space(obj["name"])
    by_id = {o["@id"]: o for o in objects if isinstance(o.get("@id"), str)}
    for obj in objects:
        publisher = obj.get("publisher")
        for pub in publisher if isinstance(publisher, list) else [publisher]:
            if isinstance(pub, dict) and not isinstance(pub.get("name"), str):
                ref = pub.get("@id")  # a reference to a node of the graph
                pub = by_id.get(ref) if isinstance(ref, str) else None
            if isinstance(pub, dict) and isinstance(pub.get("name"), str) and pub["name"].strip():
                return normalize_space(pub["name"])
    for obj in objects:
        if _types(obj) & SITE_TYPES and isinstance(obj.get("name"), str) and obj["name"].strip():
            return normalize_space(obj["name"])
    return _first(metas, SITE_NAME_META[1:]) or title_site_name(page)


def title_site_name(page: Page) -> str:
    """The side of the ``<title>`` that names the site ("Headline | Site"), when it holds a
    word of the host name (the title heuristic's strongest evidence), else ""."""
    title = raw_title(page)
    host_words = {w for w in re.split(r"[.\-]", page.domain.lower())
                  if len(w) > 2 and w not in ("www", "com", "org", "net")}
    for sep in SEPARATORS:
        if sep not in title:
            continue
        parts = [p.strip() for p in title.split(sep)]
        for side in (parts[-1], parts[0]):
            words = re.findall(r"\w+", side.lower())
            if side and len(words) <= SITE_NAME_MAX_WORDS_DEFAULT and \
                    any(w in host_words or any(h in w for h in host_words) for w in words):
                return side
    return ""


def find_license(page: Page, metas: dict[str, list[str]], objects: list[dict]) -> str:
    """The licence: its URL when the page links one (``rel=license``, JSON-LD, a Creative
    Commons link), else the rights statement of a meta."""
    for href, _ in _rel_links(page, "license"):
        url = _absolute(page, href)
        if url:
            return url
    for value in _jsonld(objects, "license"):
        return _absolute(page, value) if value.startswith(("http", "/")) else value
    value = _first(metas, LICENSE_META)
    if value:
        return value
    for el in page.tree.iter("a", "link"):
        href = el.get("href") or ""
        if _CC_RE.search(href):
            return _absolute(page, href)
    return ""


def find_modified(page: Page, metas: dict[str, list[str]], objects: list[dict]) -> str:
    """The date of the page's last change, ISO 8601."""
    candidates = _jsonld(objects, "dateModified") + [
        v for key in MODIFIED_META for v in metas.get(key, [])]
    candidates += [el.get("content") or el.get("datetime") or el.text_content()
                   for el in page.tree.xpath('//*[@itemprop="dateModified"]')]
    for value in candidates:
        iso = normalize_date(value)
        if iso:
            return iso
    return ""


def extract_page_info(page: Page, objects: list[dict] | None = None) -> PageInfo:
    """The :class:`PageInfo` of ``page`` (``objects``: its JSON-LD objects, when already read)."""
    if objects is None:
        objects = list(jsonld_objects(page))
    metas = _metas(page)
    description = _first(metas, DESCRIPTION_META) or next(iter(_jsonld(objects, "description")), "")
    if "<" in description:  # a description holding markup ("<p>...")
        description = normalize_space(re.sub(r"<[^>]*>", " ", description))
    categories = _split_terms([v for key in CATEGORY_META for v in metas.get(key, [])]
                              + _jsonld(objects, "articleSection"))
    categories += [text for _, text in _rel_links(page, "category") if text]
    tags = _split_terms([v for key in TAG_META for v in metas.get(key, [])]
                        + _jsonld(objects, "keywords"))
    # WordPress marks category links rel="category tag": they are categories, not tags
    tags += [text for _, text in _rel_links(page, "tag", unless="category") if text]
    image = _first(metas, IMAGE_META) or next(iter(
        _jsonld(objects, "image") + _jsonld(objects, "thumbnailUrl")), "")
    if not image:
        image = next((href for href, _ in _rel_links(page, "image_src")), "")
    canonical = next((href for href, _ in _rel_links(page, "canonical")), "") \
        or _first(metas, ("og:url",))
    return PageInfo(site_name=find_site_name(page, metas, objects), description=description,
                    categories=_unique(categories), tags=_unique(tags),
                    license=find_license(page, metas, objects), image=_absolute(page, image),
                    modified=find_modified(page, metas, objects),
                    canonical_url=_absolute(page, canonical))


def page_info_fields(info: PageInfo) -> dict[str, object]:
    """``info`` as document fields (lists copied)."""
    return {"site_name": info.site_name, "description": info.description,
            "categories": list(info.categories), "tags": list(info.tags),
            "license": info.license, "image": info.image, "modified": info.modified,
            "canonical_url": info.canonical_url}
