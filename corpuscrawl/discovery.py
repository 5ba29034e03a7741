"""Link sources besides page links: sitemaps, robots.txt ``Sitemap:`` lines, RSS/Atom feeds.

Komporday's thesis (§4.3) points at feeds and sitemaps as link sources.  Everything here
parses bytes the crawler already downloaded; nothing fetches.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from lxml import etree
from protego import Protego
from scrapy.robotstxt import ProtegoRobotParser
from scrapy.utils.gz import gunzip

from corpuscrawl.browse.elements import decode_proxy, same_site
from corpuscrawl.html.dom import normalize_space
from corpuscrawl.html.page import Page

#: Feed MIME types announced by ``<link rel="alternate" type=…>``.
FEED_TYPES = frozenset(("application/rss+xml", "application/atom+xml", "application/feed+json",
                        "application/rdf+xml", "application/xml", "text/xml"))
#: Decompressed sitemaps larger than this are refused (the sitemap protocol's limit is 50 MB).
MAX_SITEMAP_BYTES_DEFAULT = 50 * 1024 * 1024


@dataclass(frozen=True)
class SitemapEntries:
    """URLs listed by a sitemap: pages (``urlset``) or further sitemaps (``sitemapindex``)."""

    pages: list[str]
    sitemaps: list[str]


class SitemapTooLarge(ValueError):
    """A sitemap or feed is larger than the size cap once decompressed (a gzip bomb, or just huge)."""


def maybe_gunzip(body: bytes, max_size: int = MAX_SITEMAP_BYTES_DEFAULT) -> bytes:
    """Decompress gzip bytes (e.g. ``sitemap.xml.gz``); other bytes are returned unchanged.

    Raises :class:`SitemapTooLarge` when the (decompressed) body is over
    ``max_size`` bytes (0 = no cap); a broken gzip stream gives what could be
    decompressed, or ``b""``.
    """
    if body[:2] != b"\x1f\x8b":
        if max_size and len(body) > max_size:
            raise SitemapTooLarge(f"{len(body)} bytes, over the cap of {max_size}")
        return body
    try:
        return gunzip(body, max_size=max_size)
    except (OSError, EOFError, struct.error, zlib.error):
        return b""
    except ValueError as exc:  # scrapy.utils.gz's size-cap error
        raise SitemapTooLarge(f"over the cap of {max_size} bytes once decompressed") from exc


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def _parse_xml(body: bytes, max_size: int = MAX_SITEMAP_BYTES_DEFAULT) -> etree._Element | None:
    parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True,
                             remove_comments=True, remove_pis=True, huge_tree=False)
    data = maybe_gunzip(body, max_size)  # SitemapTooLarge goes to the caller
    try:
        root = etree.fromstring(data, parser=parser)
    except (etree.XMLSyntaxError, ValueError):
        return None
    return root


def parse_sitemap(body: bytes, base_url: str = "",
                  max_size: int = MAX_SITEMAP_BYTES_DEFAULT) -> SitemapEntries | None:
    """Entries of a sitemap or sitemap index (gzipped or not); ``None`` if it is not one.

    Raises :class:`SitemapTooLarge` over ``max_size`` decompressed bytes.
    """
    root = _parse_xml(body, max_size)
    if root is None or _local(root.tag) not in ("urlset", "sitemapindex"):
        return None
    pages: list[str] = []
    sitemaps: list[str] = []
    for entry in root:
        kind = _local(entry.tag)
        for child in entry:
            if _local(child.tag) == "loc" and child.text and child.text.strip():
                url = join_url(base_url, child.text)
                (sitemaps if kind == "sitemap" else pages).append(url)
    return SitemapEntries(pages=pages, sitemaps=sitemaps)


def sitemaps_from_robots(text: str, base_url: str) -> list[str]:
    """URLs of the ``Sitemap:`` lines of a robots.txt, joined with ``base_url``.

    Protego (Scrapy's robots.txt parser) reads the lines: case-insensitive,
    comments stripped, relative URLs allowed.
    """
    return [join_url(base_url, url) for url in Protego.parse(text).sitemaps]


class SitemapRobotParser(ProtegoRobotParser):
    """Scrapy's default robots.txt parser that also keeps the file's ``Sitemap:`` lines.

    Set as ``ROBOTSTXT_PARSER``, so the spider reads a host's sitemaps from the
    robots.txt Scrapy's RobotsTxtMiddleware fetched (``robots_parsed`` signal)
    instead of fetching the file a second time.  ``sitemaps`` are as written
    (possibly relative to the host).
    """

    def __init__(self, robotstxt_body: bytes, spider: Any = None) -> None:
        super().__init__(robotstxt_body, spider)
        self.sitemaps: list[str] = list(self.rp.sitemaps)


def parse_feed(body: bytes, base_url: str = "",
               max_size: int = MAX_SITEMAP_BYTES_DEFAULT) -> list[str] | None:
    """Item/entry links of an RSS (0.9x/1.0/2.0) or Atom feed; ``None`` if it is not a feed.

    Raises :class:`SitemapTooLarge` over ``max_size`` decompressed bytes.
    """
    root = _parse_xml(body, max_size)
    if root is None:
        return None
    kind = _local(root.tag)
    if kind not in ("rss", "rdf", "feed"):
        return None
    links: list[str] = []
    for el in root.iter():
        name = _local(el.tag)
        if name not in ("item", "entry"):
            continue
        for child in el:
            if _local(child.tag) != "link":
                continue
            href = child.get("href")
            rel = child.get("rel", "alternate")
            if href and rel == "alternate":
                links.append(join_url(base_url, href))
                break
            if not href and child.text and child.text.strip():
                links.append(join_url(base_url, child.text))
                break
        else:
            guid = next((c for c in el if _local(c.tag) == "guid"
                         and c.get("isPermaLink", "true") != "false"), None)
            if guid is not None and guid.text and guid.text.strip().startswith("http"):
                links.append(guid.text.strip())
    return links


def feed_links(page: Page) -> list[str]:
    """Feeds a page announces with ``<link rel="alternate" type="application/rss+xml" …>``."""
    out = []
    for link in page.tree.iter("link"):
        rel = (link.get("rel") or "").lower().split()
        if "alternate" in rel and (link.get("type") or "").lower() in FEED_TYPES:
            href = link.get("href")
            if href:
                out.append(join_url(page.url, href))
    return out


@dataclass(frozen=True)
class Link:
    """A hyperlink found on a page with its anchor text."""

    url: str
    text: str
    nofollow: bool = False


def page_links(page: Page) -> Iterator[Link]:
    """Every ``<a href>``/``<area href>`` of a page, resolved against ``<base href>`` or the URL.

    Never raises: an href that cannot be resolved (a broken IPv6 literal, say) is
    passed on as written, so the crawler's URL check rejects it with a reason
    (:func:`corpuscrawl.net.urls.check_url`) and the page's other links still count.
    Only same-page ``#fragment`` links are left out; ``mailto:``, ``javascript:``
    and the like are yielded for the crawler to count and skip.

    A link through a redirect proxy on another site (``out.example/go?url=...``,
    double-encoded or base64 targets) is given as its target, as the rendered path
    does (:func:`corpuscrawl.browse.elements.decode_proxy`).
    """
    base = page.url
    base_el = page.tree.find(".//base[@href]")
    if base_el is not None:
        base = join_url(page.url, base_el.get("href", ""))
    for el in page.tree.iter("a", "area"):
        href = (el.get("href") or "").strip()
        if not href or href.startswith("#"):
            continue
        rel = (el.get("rel") or "").lower().split()
        url = _proxy_target(join_url(base, href))
        yield Link(url, normalize_space(el.text_content()), "nofollow" in rel)


def _proxy_target(url: str) -> str:
    """The target of a link through a redirect proxy on another site, else ``url``."""
    try:
        target = decode_proxy(url)
        if target is not None and not same_site(target, url):
            return target
    except ValueError:  # an unparsable URL is passed on for the crawler's check
        pass
    return url


def join_url(base: str, href: str) -> str:
    """``href`` resolved against ``base``; ``href`` as written when either is unparsable."""
    href = href.strip()
    try:
        return urljoin(base, href)
    except ValueError:
        return href
