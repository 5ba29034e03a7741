"""One parsed web page, shared read-only by every extractor and feature function.

A :class:`Page` is built once per response (or per file offline); the HTML is
decoded and parsed a single time and every consumer reads the same lxml tree.
Extractors that need to change the tree work on ``page.copy_tree()``.
"""

from __future__ import annotations

import copy
import gzip
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import lxml.html
from lxml import etree

from corpuscrawl.html.content import (
    decode_body,
    has_binary_signature,
    looks_binary,
    plain_text_utf8,
    sanitize_text,
)
from corpuscrawl.html.parse_limits import parse_beyond_limits, resource_limit
from corpuscrawl.net.sites import domain_of

#: Notes a Page may carry: the body was not text; a UTF-16/32 charset label was not believed;
#: control characters were removed; the body ends inside text or a tag, not with a ">" (cut
#: short); the parse hit libxml2's limits and was repaired (re-parsed past the limits with
#: deep nesting cut, or flattened to text blocks).
PAGE_NOTES = ("binary", "charset_label_ignored", "control_chars_removed", "truncated",
              "parse_reparsed", "parse_flattened", "charset_undecodable")
#: Notes of a page with no readable text: not text at all, or labelled with a charset that
#: does not decode it while no other one does (corpuscrawl.html.charset_evidence).
UNREADABLE_NOTES = ("binary", "charset_undecodable")
#: What each of them means, for the log.
UNREADABLE_REASONS = {"binary": "the body is not text",
                      "charset_undecodable": "its charset label does not decode it and no "
                                             "other charset reads it"}

#: Elements whose content is never text a reader sees.
NON_TEXT_TAGS = ("script", "style", "noscript", "template", "svg", "math")


class PageError(ValueError):
    """The input cannot be parsed as an HTML page."""


def decode_html(body: bytes, declared_encoding: str | None = None) -> str:
    """Decode HTML bytes as a browser does (see :func:`corpuscrawl.html.content.decide_encoding`)."""
    return decode_body(body, declared_encoding)[0]


def parse_html(html: str) -> lxml.html.HtmlElement:
    """Parse HTML text into an lxml tree that always has a root, even for fragments or junk."""
    return parse_html_noted(html)[0]


def _parser(encoding: str | None = None) -> lxml.html.HTMLParser:
    """A parser for one page (``encoding``: of the bytes it is given; None for text)."""
    return lxml.html.HTMLParser(remove_comments=False, remove_pis=True, recover=True,
                                encoding=encoding)


def parse_html_noted(html: str, utf8: bytes | None = None) -> tuple[lxml.html.HtmlElement, str]:
    """The tree of ``html`` and the repair its parse needed at libxml2's limits ("" if none).

    See :mod:`corpuscrawl.html.parse_limits`: a page that hits the parser's depth or
    size limits is parsed again so that its text is kept.  ``utf8``: ``html``
    encoded as UTF-8 (:func:`corpuscrawl.html.content.plain_text_utf8`); libxml2 then
    reads those bytes as they are instead of converting the text (the same tree,
    ``tests/test_page.py``).
    """
    if "\x00" in html:
        html = html.replace("\x00", "")
        utf8 = None
    # lxml refuses str input with an XML encoding declaration; strip it.  A declaration
    # without its "?>" ends at its first ">", as an HTML parser reads it (seen with a
    # garbage encoding attribute: stripping to a "?>" that never comes dropped the page).
    stripped = html.lstrip()
    if stripped.startswith("<?xml"):
        end = stripped.find("?>")
        html = stripped[end + 2 :] if end >= 0 else stripped[stripped.find(">") + 1 :]
        utf8 = None
    parser = _parser("utf-8") if utf8 else _parser()
    repair = ""
    try:
        root = lxml.html.document_fromstring(utf8 or html or "<html></html>", parser=parser)
    except (etree.ParserError, ValueError):
        parser = _parser()
        root = lxml.html.document_fromstring("<html><body></body></html>", parser=parser)
    if resource_limit(parser):
        root, repair = parse_beyond_limits(html)
    if root.find("body") is None:
        repaired = _close_title(html)
        if repaired is not None:
            fixed = lxml.html.document_fromstring(repaired, parser=_parser())
            if fixed.find("body") is not None:
                root = fixed
    _gather_body(root)
    if _NOSCRIPT_RE.search(html):
        _unwrap_swallowing_noscripts(root)
    return root, repair


#: Elements that belong in ``<head>``; anything else there is page content that an unknown
#: tag kept the parser from moving into the body.
HEAD_TAGS = frozenset({"title", "meta", "link", "style", "script", "base", "noscript",
                       "template"})


def _gather_body(root: lxml.html.HtmlElement) -> None:
    """Move page content that the parser left outside ``<body>`` into it (in place).

    Two shapes of broken markup put the text of real pages there (l3s-gn1,
    CleanEval): content after an early ``</body>`` becomes siblings of the
    body (libxml2 still drops what follows ``</html>``), and an unknown element inside ``<head>`` (``<mbox>``)
    keeps the whole page in the head, with no body at all.  Every extractor
    reads the body only, so such pages came out empty.
    """
    body = root.find("body")
    if body is None:
        head = root.find("head")
        if head is None:
            return
        content = next((child for child in head if isinstance(child.tag, str)
                        and child.tag not in HEAD_TAGS), None)
        if content is None:
            return
        body = etree.SubElement(root, "body")
        for element in list(head)[head.index(content):]:
            body.append(element)
        return
    for element in list(root)[root.index(body) + 1:]:
        body.append(element)


_NOSCRIPT_RE = re.compile(r"<noscript", re.IGNORECASE)
#: A ``<noscript>`` holding at least this many words ...
SWALLOWING_NOSCRIPT_MIN_WORDS = 50
#: ... and at least this share of the page's words is unwrapped, not dropped.
SWALLOWING_NOSCRIPT_SHARE = 0.5


def _unwrap_swallowing_noscripts(root: lxml.html.HtmlElement) -> None:
    """Keep the content of a ``<noscript>`` that holds most of the page (in place).

    libxml2 ignores ``</noscript>`` while an element opened inside it is still
    open, so ``<noscript><div id="x"></noscript>`` makes the rest of the page
    noscript content, and every extractor (which drop ``<noscript>`` as text
    no reader sees) lost the whole page (CleanEval ``final-714``).  A
    ``<noscript>`` that holds most of the page's words is either that or a
    site's no-JavaScript copy of its content; in both cases its content is the
    page, so the tag is dropped and its content kept.
    """
    total = 0
    for noscript in list(root.iter("noscript")):
        words = len(noscript.text_content().split())
        if words < SWALLOWING_NOSCRIPT_MIN_WORDS:
            continue
        total = total or len(root.text_content().split())
        if words >= SWALLOWING_NOSCRIPT_SHARE * total:
            noscript.drop_tag()


_TITLE_START_RE = re.compile(r"<title\b[^>]*>", re.IGNORECASE)
_TITLE_END_RE = re.compile(r"</title\s*>", re.IGNORECASE)


def _close_title(html: str) -> str | None:
    """``html`` with an unclosed ``<title>`` closed at its first line break or tag, else None.

    A ``<title>`` without its end tag makes the rest of the document title text
    (the HTML rules for RCDATA), so the page has no body at all: seen in
    truncated or spliced pages and after a malformed end tag such as
    ``</titlevalue="true" -->`` (5 of the l3s-gn1 benchmark pages).  The title
    is then taken to end where its first line or the next tag starts, which
    recovers the body of such a page.
    """
    start = _TITLE_START_RE.search(html)
    if start is None or _TITLE_END_RE.search(html, start.end()):
        return None
    cut = len(html)
    for mark in ("\n", "<"):
        found = html.find(mark, start.end())
        if 0 <= found < cut:
            cut = found
    if cut == len(html):
        return None
    return html[:cut] + "</title>" + html[cut:]


@dataclass
class Page:
    """A URL and its HTML, parsed once.

    ``tree`` is the full parsed document; ``clean_tree`` is a cached copy without
    scripts, styles, comments and other non-text elements.  Both are shared:
    never modify them, take ``copy_tree()`` instead.
    """

    url: str
    html: str
    tree: lxml.html.HtmlElement = field(repr=False)
    status: int = 200
    #: What was unusual about the body (see :data:`PAGE_NOTES`); each one is counted by the crawl.
    notes: tuple[str, ...] = ()
    #: Size of the body in bytes (of the decoded text as UTF-8 when built from text).
    size: int = 0
    #: The page's type (article, forum, ... : ``corpuscrawl.extract.page_typing.page_type``)
    #: once a stage has predicted it, so that every later stage (the extractor's decoding,
    #: the document's ``page_type``, the listing check) reads the same one and it is
    #: computed once per page; None until then.
    page_type: str | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_html(cls, html: str | bytes, url: str = "", status: int = 200,
                  encoding: str | None = None) -> Page:
        """Build a page from HTML text or bytes (bytes are decoded as a browser does).

        A body that is not text (a binary signature, or mostly control and
        undecodable characters) gives an empty page noted ``binary``; characters
        an XML tree cannot hold are removed once here, for every extractor.
        """
        notes: list[str] = []
        size: int | None = None
        if isinstance(html, bytes):
            size = len(html)
            if has_binary_signature(html):
                return cls.not_text(url, status, size)
            html, charset = decode_body(html, encoding)
            if not charset.readable:
                return cls.not_text(url, status, size, "binary" if looks_binary(html)
                                    else "charset_undecodable")
            if charset.ignored_label:
                notes.append("charset_label_ignored")
        utf8 = plain_text_utf8(html)  # None: a character the full checks must see
        if size is None:
            size = len(utf8) if utf8 is not None else len(html.encode("utf-8", "replace"))
        if utf8 is None:
            if looks_binary(html):
                return cls.not_text(url, status, size)
            html, removed = sanitize_text(html)
            if removed:
                notes.append("control_chars_removed")
        if html[-1024:].rstrip()[-1:] not in (">", ""):
            notes.append("truncated")  # a body cut inside text or a tag (e.g. a lying Content-Length)
        tree, repair = parse_html_noted(html, utf8)
        if repair:
            notes.append(f"parse_{repair}")
        return cls(url=url, html=html, tree=tree, status=status, notes=tuple(notes), size=size)

    @classmethod
    def not_text(cls, url: str = "", status: int = 200, size: int = 0,
                 note: str = "binary") -> Page:
        """The empty page standing for a body with no readable text (noted ``note``, one of
        :data:`UNREADABLE_NOTES`)."""
        return cls(url=url, html="", tree=parse_html("<html><body></body></html>"),
                   status=status, notes=(note,), size=size)

    @property
    def binary(self) -> bool:
        """True when the body was not text (the page is empty and must not become a document)."""
        return "binary" in self.notes

    @property
    def unreadable(self) -> str:
        """Why the page has no readable text ("binary", "charset_undecodable"), else ""."""
        return next((note for note in self.notes if note in UNREADABLE_NOTES), "")

    @classmethod
    def from_file(cls, path: str | Path, url: str = "") -> Page:
        """Read a page from ``.html`` or gzip-compressed ``.html.gz`` file."""
        path = Path(path)
        data = path.read_bytes()
        if path.suffix == ".gz" or data[:2] == b"\x1f\x8b":
            try:
                data = gzip.decompress(data)
            except OSError as exc:
                raise PageError(f"{path}: not a valid gzip file ({exc})") from exc
        return cls.from_html(data, url=url or path.resolve().as_uri())

    @property
    def domain(self) -> str:
        """The host name of the page's URL, lower-cased, without a leading ``www.``."""
        return domain_of(self.url)

    @cached_property
    def body(self) -> lxml.html.HtmlElement:
        """The ``<body>`` element, or the root when the page has none."""
        body = self.tree.find("body")
        return body if body is not None else self.tree

    @cached_property
    def clean_tree(self) -> lxml.html.HtmlElement:
        """A shared copy of the tree with non-text elements and comments removed."""
        root = copy.deepcopy(self.tree)
        strip_non_text(root)
        return root

    def copy_tree(self, clean: bool = True) -> lxml.html.HtmlElement:
        """A private deep copy that the caller may modify freely."""
        return copy.deepcopy(self.clean_tree if clean else self.tree)


def strip_non_text(root: etree._Element) -> None:
    """Remove scripts, styles, comments, processing instructions and similar in place.

    The text that followed a removed element (its tail) is kept.
    """
    for el in list(root.iter(etree.Comment, etree.ProcessingInstruction, *NON_TEXT_TAGS)):
        remove_keeping_tail(el)


def remove_keeping_tail(el: etree._Element) -> None:
    """Remove ``el`` from its parent (nothing when it has none), keeping the text that
    followed it (its tail) where it was."""
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail
    prev = el.getprevious()
    parent.remove(el)
    if tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
