"""Link sources besides page links: sitemaps, robots.txt ``Sitemap:`` lines, RSS/Atom feeds.

Komporday's thesis (§4.3) points at feeds and sitemaps as link sources.  Everything here
parses bytes the crawler already downloaded; nothing fetches.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from lxml import etree
from protego import Protego

from corpuscrawl.browse.elements import decode_proxy
from corpuscrawl.html.dom import normalize_space
from corpuscrawl.html.page import Page
from corpuscrawl.net.sites import same_site

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


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


#: Bytes of a gzipped or plain source handed to the XML parser at once: small enough that
#: one step of the reader is a fraction of a millisecond, large enough to cost nothing.
READ_CHUNK_BYTES = 64 * 1024
#: Root elements of the sources :class:`SourceReader` reads, by kind.
SOURCE_ROOTS = {"urlset": "sitemap", "sitemapindex": "sitemap",
                "rss": "feed", "rdf": "feed", "feed": "feed"}


def _chunks(body: bytes, max_size: int) -> Iterator[bytes]:
    """``body`` in pieces of at most :data:`READ_CHUNK_BYTES`, gunzipped on the fly when gzip.

    Raises :class:`SitemapTooLarge` once more than ``max_size`` (decompressed) bytes were
    given (0 = no cap).  A broken gzip stream ends the pieces where it breaks; concatenated
    gzip members are read one after the other.
    """
    given = 0

    def counted(piece: bytes) -> bytes:
        nonlocal given
        given += len(piece)
        if max_size and given > max_size:
            raise SitemapTooLarge(f"over the cap of {max_size} bytes once decompressed")
        return piece

    if body[:2] != b"\x1f\x8b":
        for at in range(0, len(body), READ_CHUNK_BYTES):
            yield counted(body[at:at + READ_CHUNK_BYTES])
        return
    data = body
    while data:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        pending = data
        try:
            while pending or not inflater.eof:
                piece = inflater.decompress(pending, READ_CHUNK_BYTES)
                pending = inflater.unconsumed_tail
                if piece:
                    yield counted(piece)
                elif not pending:
                    break  # the stream ends before its gzip trailer (cut short)
        except zlib.error:
            return
        data = inflater.unused_data if inflater.eof else b""
        if data[:2] != b"\x1f\x8b":
            return


class SourceReader:
    """The entries of a sitemap, sitemap index or RSS/Atom feed, read as a stream.

    Iterating yields ``("page", url)`` and ``("sitemap", url)`` pairs as the (gzipped or
    plain) bytes are parsed, a :data:`READ_CHUNK_BYTES` piece at a time with lxml's pull
    parser; each entry's element is freed once read, so memory stays flat with the size of
    the source and a caller can stop after any entry (a cap on the URLs it takes).
    ``kind`` is ``"sitemap"`` or ``"feed"`` once the root element was seen, ``"none"``
    when the bytes are not one of these (or not XML), ``""`` before.  Raises
    :class:`SitemapTooLarge` past ``max_size`` decompressed bytes (entries already
    yielded stand).
    """

    def __init__(self, body: bytes, base_url: str = "",
                 max_size: int = MAX_SITEMAP_BYTES_DEFAULT) -> None:
        self.body = body
        self.base_url = base_url
        self.max_size = max_size
        self.kind = ""

    def __iter__(self) -> Iterator[tuple[str, str]]:
        parser = etree.XMLPullParser(events=("start", "end"), recover=True,
                                     resolve_entities=False, no_network=True,
                                     remove_comments=True, remove_pis=True, huge_tree=False)
        depth = 0
        pieces = _chunks(self.body, self.max_size)
        while True:
            piece = next(pieces, None)
            try:
                if piece is None:
                    parser.close()
                else:
                    parser.feed(piece)
            except (etree.XMLSyntaxError, ValueError):
                piece = None
            for event, element in parser.read_events():
                if event == "start":
                    depth += 1
                    if depth == 1:
                        self.kind = SOURCE_ROOTS.get(_local(element.tag), "none")
                    continue
                depth -= 1
                entry = self._entry(element, depth)
                if entry is not None:
                    yield entry
            if self.kind == "none" or piece is None:
                break
        if not self.kind:
            self.kind = "none"

    def _entry(self, element: etree._Element, depth: int) -> tuple[str, str] | None:
        """The entry an element that just ended holds (freeing it), else ``None``."""
        if self.kind == "sitemap":
            if depth != 1:
                return None
            loc = next((child.text for child in element if _local(child.tag) == "loc"
                        and child.text and child.text.strip()), None)
            url = None if loc is None else join_url(self.base_url, loc)
            kind = "sitemap" if _local(element.tag) == "sitemap" else "page"
        elif self.kind == "feed" and depth >= 1 and _local(element.tag) in ("item", "entry"):
            url, kind = _item_link(element, self.base_url), "page"
        else:
            return None
        _free(element)
        return None if url is None else (kind, url)


def _item_link(item: etree._Element, base_url: str) -> str | None:
    """The link of an RSS item or Atom entry: its alternate ``link``, else a permalink guid."""
    for child in item:
        if _local(child.tag) != "link":
            continue
        href = child.get("href")
        rel = child.get("rel", "alternate")
        if href and rel == "alternate":
            return join_url(base_url, href)
        if not href and child.text and child.text.strip():
            return join_url(base_url, child.text)
    guid = next((c for c in item if _local(c.tag) == "guid"
                 and c.get("isPermaLink", "true") != "false"), None)
    if guid is not None and guid.text and guid.text.strip().startswith("http"):
        return guid.text.strip()
    return None


def _free(element: etree._Element) -> None:
    """Drop an entry read and the entries before it from the tree being built."""
    element.clear()
    parent = element.getparent()
    if parent is not None:
        while element.getprevious() is not None:
            del parent[0]


def parse_sitemap(body: bytes, base_url: str = "",
                  max_size: int = MAX_SITEMAP_BYTES_DEFAULT) -> SitemapEntries | None:
    """Entries of a sitemap or sitemap index (gzipped or not); ``None`` if it is not one.

    Raises :class:`SitemapTooLarge` over ``max_size`` decompressed bytes.  The whole list
    at once: a crawl reads sources with :class:`SourceReader`, entry by entry.
    """
    reader = SourceReader(body, base_url, max_size)
    pages: list[str] = []
    sitemaps: list[str] = []
    for kind, url in reader:
        if reader.kind != "sitemap":
            break
        (sitemaps if kind == "sitemap" else pages).append(url)
    if reader.kind != "sitemap":
        return None
    return SitemapEntries(pages=pages, sitemaps=sitemaps)


def sitemaps_from_robots(text: str, base_url: str) -> list[str]:
    """URLs of the ``Sitemap:`` lines of a robots.txt, joined with ``base_url``.

    Protego (Scrapy's robots.txt parser) reads the lines: case-insensitive,
    comments stripped, relative URLs allowed.
    """
    return [join_url(base_url, url) for url in Protego.parse(text).sitemaps]


def _sitemap_robot_parser() -> type:
    """Define :class:`SitemapRobotParser` (Scrapy imported only then)."""
    from scrapy.robotstxt import ProtegoRobotParser

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

    return SitemapRobotParser


def __getattr__(name: str) -> Any:
    """``SitemapRobotParser`` made on first use: the extraction workers import this module
    for its link listing and need not load Scrapy and Twisted (about 30 MB a process)."""
    if name == "SitemapRobotParser":
        globals()[name] = _sitemap_robot_parser()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_feed(body: bytes, base_url: str = "",
               max_size: int = MAX_SITEMAP_BYTES_DEFAULT) -> list[str] | None:
    """Item/entry links of an RSS (0.9x/1.0/2.0) or Atom feed; ``None`` if it is not a feed.

    Raises :class:`SitemapTooLarge` over ``max_size`` decompressed bytes.  The whole list
    at once: a crawl reads sources with :class:`SourceReader`, entry by entry.
    """
    reader = SourceReader(body, base_url, max_size)
    links = [url for _, url in reader if reader.kind == "feed"]
    return links if reader.kind == "feed" else None


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
