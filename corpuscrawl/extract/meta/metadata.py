"""Title, publication date and author of a page, from its own markup (no network access).

Every Document carries its page's title, date and author.  The title is NewsFeed's
heuristic (Trampuš & Novak; :mod:`corpuscrawl.extract.meta.title`).  Sources are tried from
the most explicit to the least:

* **schema.org JSON-LD** (``<script type="application/ld+json">``, also inside
  ``@graph`` and lists): ``headline``/``name``, ``datePublished`` (else
  ``dateCreated``, ``uploadDate``, ``dateModified``), ``author`` (a string, a
  Person/Organization with ``name``, or a list of them);
* **meta tags**: Open Graph / ``article:published_time``, ``date``,
  ``pubdate``, Dublin Core, ``parsely-pub-date``, ``sailthru.date``…;
  ``author``, ``article:author`` (when not a URL), ``dc.creator``…;
* **microdata**: ``itemprop="datePublished"`` / ``itemprop="author"``;
* **``<time>``**: the first one with ``pubdate`` or inside an ``<article>``,
  else the first on the page; ``rel="author"`` links and ``byline`` classes;
* the URL path (``/2019/05/17/``) as the last resort for the date.

Dates are normalized to ISO 8601: ``YYYY-MM-DD`` or, when the source has a
time, ``YYYY-MM-DDTHH:MM:SS`` with the offset it gave.  Unparseable values are
skipped, never guessed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime

from corpuscrawl.extract.meta.title import extract_title
from corpuscrawl.html.dom import normalize_space
from corpuscrawl.html.page import Page

#: Meta tags carrying the publication date, most specific first (name or property, lower case).
DATE_META = ("article:published_time", "og:published_time", "datepublished", "pubdate",
             "publishdate", "publish-date", "publish_date", "date", "dc.date.issued",
             "dcterms.issued", "dc.date", "dcterms.created", "dcterms.date", "parsely-pub-date",
             "sailthru.date", "article.published", "published_time", "article:modified_time",
             "og:updated_time", "last-modified")
#: Meta tags carrying the author.
AUTHOR_META = ("author", "article:author", "dc.creator", "dcterms.creator", "parsely-author",
               "sailthru.author", "byl")
#: JSON-LD date keys, most specific first.
JSONLD_DATE_KEYS = ("datePublished", "dateCreated", "uploadDate", "dateModified")
#: An author string longer than this is prose, not a name.
AUTHOR_MAX_WORDS_DEFAULT = 8

_ISO_RE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?"
                     r"(?:\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?)?")
_COMPACT_RE = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:T?(\d{2})(\d{2})(\d{2})?)?")
_URL_DATE_RE = re.compile(r"/((?:19|20)\d{2})[/-](\d{1,2})[/-](\d{1,2})(?:/|-|$)")
_BY_RE = re.compile(r"^\s*(?:by|von|par|por|door|di|av|przez|autor)\s*[:\s]\s*", re.I)
_TEXT_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%B %d %Y", "%b. %d, %Y",
                 "%d.%m.%Y", "%Y/%m/%d", "%m/%d/%Y")


@dataclass(frozen=True, slots=True)
class Metadata:
    """What a page says about itself: headline, ISO 8601 date and author ("" when unknown)."""

    title: str = ""
    date: str = ""
    author: str = ""


def _iso(y: str, mo: str, d: str, h: str | None, mi: str | None, sec: str | None,
         zone: str | None) -> str:
    try:
        day = date(int(y), int(mo), int(d))
    except ValueError:
        return ""
    if not h or mi is None:
        return day.isoformat()
    try:
        stamp = datetime(day.year, day.month, day.day, int(h), int(mi), int(sec or 0))
    except ValueError:
        return day.isoformat()
    zone = zone or ""
    if zone and zone != "Z" and ":" not in zone:
        zone = f"{zone[:3]}:{zone[3:]}"
    return stamp.isoformat() + zone


def normalize_date(value: str) -> str:
    """An ISO 8601 form of a date string, or "" when it is not a recognizable date."""
    value = normalize_space(value)
    if not value:
        return ""
    match = _ISO_RE.search(value)
    if match:
        return _iso(*match.groups())
    match = _COMPACT_RE.match(value)
    if match:
        y, mo, d, h, mi, sec = match.groups()
        return _iso(y, mo, d, h, mi, sec, None)
    cleaned = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", value)
    for fmt in _TEXT_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt).date().isoformat()
        except ValueError:
            continue
    return ""


def clean_author(value: str) -> str:
    """An author string without a "By" prefix, or "" when it does not look like a name."""
    value = _BY_RE.sub("", normalize_space(value)).strip(" ,;|-")
    if not value or value.startswith(("http://", "https://", "www.")):
        return ""
    if len(value.split()) > AUTHOR_MAX_WORDS_DEFAULT:
        return ""
    return value


def jsonld_objects(page: Page) -> Iterator[dict]:
    """Every JSON object in the page's ld+json scripts (``@graph`` and lists flattened)."""
    for script in page.tree.iter("script"):
        if "ld+json" not in (script.get("type") or "").lower():
            continue
        try:
            data = json.loads(script.text or "")
        except (json.JSONDecodeError, ValueError):
            continue
        stack = [data]
        while stack:
            item = stack.pop(0)
            if isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, dict):
                yield item
                if isinstance(item.get("@graph"), list):
                    stack.extend(item["@graph"])


def _author_names(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        name = value.get("name")
        return [name] if isinstance(name, str) else []
    if isinstance(value, list):
        return [n for v in value for n in _author_names(v)]
    return []


def _meta(page: Page, keys: tuple[str, ...]) -> Iterator[str]:
    found: dict[str, str] = {}
    for meta in page.tree.iter("meta"):
        key = (meta.get("property") or meta.get("name") or meta.get("itemprop") or "").lower()
        content = meta.get("content")
        if key in keys and content and key not in found:
            found[key] = content
    for key in keys:
        if key in found:
            yield found[key]


def find_date(page: Page, objects: list[dict]) -> str:
    """The publication date in ISO 8601, from the most explicit source that has one."""
    candidates: list[str] = []
    for key in JSONLD_DATE_KEYS:
        candidates.extend(o[key] for o in objects if isinstance(o.get(key), str))
    candidates.extend(_meta(page, DATE_META))
    for el in page.tree.xpath('//*[@itemprop="datePublished"]'):
        candidates.append(el.get("content") or el.get("datetime") or el.text_content())
    times = page.tree.xpath("//time[@pubdate] | //article//time | //time")
    candidates.extend(t.get("datetime") or t.text_content() for t in times)
    for value in candidates:
        iso = normalize_date(value)
        if iso:
            return iso
    match = _URL_DATE_RE.search(page.url)
    if match:
        return normalize_date("-".join(match.groups()))
    return ""


def find_author(page: Page, objects: list[dict]) -> str:
    """The author's name(s), comma-separated, from the most explicit source that has them."""
    for obj in objects:
        names = [clean_author(n) for n in _author_names(obj.get("author"))]
        names = [n for n in names if n]
        if names:
            return ", ".join(dict.fromkeys(names))
    for value in _meta(page, AUTHOR_META):
        name = clean_author(value)
        if name:
            return name
    xpaths = ('//*[@itemprop="author"]//*[@itemprop="name"]', '//*[@itemprop="author"]',
              '//a[@rel="author"]', '//*[contains(concat(" ", normalize-space(@class), " "), " byline ")]',
              '//*[contains(concat(" ", normalize-space(@class), " "), " author ")]')
    for xpath in xpaths:
        for el in page.tree.xpath(xpath):
            name = clean_author(el.get("content") or el.text_content())
            if name:
                return name
    return ""


def find_title(page: Page, objects: list[dict]) -> str:
    """The headline: ``extract_title`` (site name stripped), else JSON-LD headline, else ``<h1>``."""
    title = extract_title(page)
    if title:
        return title
    for obj in objects:
        if isinstance(obj.get("headline"), str) and obj["headline"].strip():
            return normalize_space(obj["headline"])
    h1 = page.tree.find(".//h1")
    return normalize_space(h1.text_content()) if h1 is not None else ""


def extract_metadata(page: Page) -> Metadata:
    """Title, date (ISO 8601) and author of ``page``; each "" when the page does not say."""
    objects = list(jsonld_objects(page))
    return Metadata(title=find_title(page, objects), date=find_date(page, objects),
                    author=find_author(page, objects))
