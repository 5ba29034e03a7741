"""Documents as TEI P5 XML: one ``<TEI>`` element per document, in a ``<teiCorpus>`` for a feed.

The corpus linguists' format (the one trafilatura writes with ``output_format="xmltei"``),
in the TEI namespace, valid against the TEI for Linguistic Corpora DTD
(``tei_corpus.dtd``; ``tests/test_tei.py`` validates against the copy trafilatura's
package ships).  A feed is one ``teiCorpus`` with a corpus header (what wrote it, when)
and one ``TEI`` per document, so a whole crawl is one well-formed file.

Each document's ``teiHeader`` holds what the page said about itself, each element only
when known: ``titleStmt`` (title, author), ``publicationStmt`` (site name as publisher,
the licence in ``availability/licence``, the URL as ``idno type="URL"``),
``sourceDesc/bibl`` (title, author, site, dates: ``date type="published"`` and
``type="modified"``, the URL as ``ptr``), ``profileDesc`` (the description as
``abstract``, the language in ``langUsage``, the page type as ``classCode scheme="page_type"``,
categories and tags as ``keywords/term``).
The body is one ``div``: ``head`` (``rend="h2"``), ``p``, ``list`` (``rend="ul"`` or
``"ol"``) of ``item`` (nested lists inside their item), ``table`` of ``row`` of ``cell``
(``role="label"`` for header cells), ``quote`` holding ``p``, and ``ab type="code"``
for preformatted lines (``<lb/>`` between them).  Reader comments, when the document
has them, are a second ``div type="comments"``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lxml import etree

from corpuscrawl.extract.lines.structure import Role
from corpuscrawl.formats.line_blocks import (
    Block,
    CodeBlock,
    Heading,
    ListBlock,
    Paragraph,
    QuoteBlock,
    TableBlock,
    group_blocks,
)

TEI_NS = "http://www.tei-c.org/ns/1.0"
_T = f"{{{TEI_NS}}}"
#: Characters XML 1.0 cannot hold (control characters but tab, newline, carriage return).
_XML_BAD = {c: None for c in (*range(0, 9), 11, 12, *range(14, 32), 0xFFFE, 0xFFFF)}


def _clean(value: Any) -> str:
    return str(value or "").translate(_XML_BAD)


def _sub(parent: etree._Element, tag: str, text: str = "", **attrs: str) -> etree._Element:
    el = etree.SubElement(parent, _T + tag, {k: _clean(v) for k, v in attrs.items() if v})
    if text:
        el.text = _clean(text)
    return el


def _list(parent: etree._Element, block: ListBlock) -> None:
    el = _sub(parent, "list", rend="ol" if block.ordered else "ul")
    for item in block.items:
        it = _sub(el, "item", item.text)
        for child in item.children:
            _list(it, child)


def _table(parent: etree._Element, block: TableBlock) -> None:
    el = _sub(parent, "table")
    for cells, header in zip(block.rows, block.header, strict=False):
        row = _sub(el, "row", role="label" if header else "")
        for cell in cells:
            _sub(row, "cell", cell, role="label" if header else "")


def add_blocks(parent: etree._Element, blocks: Sequence[Block]) -> None:
    """Append the TEI elements of ``blocks`` to ``parent`` (a ``div``).

    TEI allows a ``head`` only at the start of a ``div``: each heading opens a
    ``div type="section"`` holding it and the blocks up to the next heading.
    """
    container = parent
    for block in blocks:
        if isinstance(block, Heading):
            container = _sub(parent, "div", type="section")
            _sub(container, "head", block.text, rend=f"h{block.level}")
        else:
            _add_block(container, block)


def _add_block(parent: etree._Element, block: Block) -> None:
    """Append the TEI element of one block that is not a heading."""
    if isinstance(block, ListBlock):
        _list(parent, block)
    elif isinstance(block, TableBlock):
        _table(parent, block)
    elif isinstance(block, QuoteBlock):
        quote = _sub(parent, "quote")
        for line in block.lines:
            _sub(quote, "p", line)
    elif isinstance(block, CodeBlock):
        ab = _sub(parent, "ab", type="code")
        ab.text = _clean(block.lines[0])
        for line in block.lines[1:]:
            lb = _sub(ab, "lb")
            lb.tail = _clean(line)
    else:
        assert isinstance(block, Paragraph)
        _sub(parent, "p", block.text)


def _terms(value: Any) -> list[str]:
    if isinstance(value, str):
        return [t.strip() for t in value.split(",") if t.strip()]
    if isinstance(value, (list, tuple)):
        return [str(t).strip() for t in value if str(t).strip()]
    return []


def _header(doc: Mapping[str, Any]) -> etree._Element:
    header = etree.Element(_T + "teiHeader")
    file_desc = _sub(header, "fileDesc")
    title_stmt = _sub(file_desc, "titleStmt")
    _sub(title_stmt, "title", doc.get("title") or doc.get("url") or "untitled", type="main")
    if doc.get("author"):
        _sub(title_stmt, "author", doc["author"])
    pub = _sub(file_desc, "publicationStmt")
    _sub(pub, "publisher", doc.get("site_name") or doc.get("domain") or "unknown")
    if doc.get("url"):
        _sub(pub, "idno", doc["url"], type="URL")
    if doc.get("license"):
        avail = _sub(pub, "availability")
        lic = _sub(avail, "licence", doc["license"],
                   target=doc["license"] if str(doc["license"]).startswith("http") else "")
        lic.text = _clean(doc["license"])
    source = _sub(_sub(file_desc, "sourceDesc"), "bibl")
    _sub(source, "title", doc.get("title") or doc.get("url") or "untitled", type="main")
    if doc.get("author"):
        _sub(source, "author", doc["author"])
    if doc.get("site_name"):
        _sub(source, "publisher", doc["site_name"])
    for key, kind in (("date", "published"), ("modified", "modified")):
        if doc.get(key):
            _sub(source, "date", doc[key], type=kind, when=str(doc[key])[:10])
    if doc.get("url"):
        _sub(source, "ptr", type="URL", target=doc["url"])
    if doc.get("fetched_at"):
        _sub(source, "date", doc["fetched_at"], type="downloaded")
    terms = _terms(doc.get("tags")) + _terms(doc.get("categories"))
    page_type = str(doc.get("page_type") or "")
    if doc.get("description") or doc.get("language") or terms or page_type:
        profile = _sub(header, "profileDesc")
        if doc.get("description"):
            _sub(_sub(profile, "abstract"), "p", doc["description"])
        if doc.get("language"):
            _sub(_sub(profile, "langUsage"), "language", doc["language"], ident=doc["language"])
        if terms or page_type:
            text_class = _sub(profile, "textClass")
            if page_type:  # the kind of page (article, forum, listing ...), when a document has one
                _sub(text_class, "classCode", page_type, scheme="page_type")
            if terms:
                keywords = _sub(text_class, "keywords")
                for term in dict.fromkeys(terms):
                    _sub(keywords, "term", term)
    return header


def tei_document(doc: Mapping[str, Any], roles: Sequence[Role] = (),
                 comment_roles: Sequence[Role] = ()) -> etree._Element:
    """The ``TEI`` element of one document (a mapping of its fields: ``text``, ``title``,
    ``url``, ...; ``roles``: one per line of its text)."""
    tei = etree.Element(_T + "TEI", nsmap={None: TEI_NS})
    tei.append(_header(doc))
    body = _sub(_sub(tei, "text"), "body")
    main = _sub(body, "div", type="entry")
    text = _clean(doc.get("text"))
    add_blocks(main, group_blocks(text, roles))
    if not len(main):
        _sub(main, "p")
    comments = _clean(doc.get("comments"))
    if comments:
        add_blocks(_sub(body, "div", type="comments"), group_blocks(comments, comment_roles))
    return tei


def tei_string(element: etree._Element) -> bytes:
    """``element`` serialised as indented UTF-8 XML (no declaration)."""
    etree.indent(element, space="  ")
    return etree.tostring(element, encoding="utf-8")


def corpus_header(title: str, when: str = "", application: str = "corpuscrawl") -> etree._Element:
    """The ``teiHeader`` of a ``teiCorpus``: the corpus title, its maker, when it was written."""
    header = etree.Element(_T + "teiHeader", nsmap={None: TEI_NS})
    file_desc = _sub(header, "fileDesc")
    _sub(_sub(file_desc, "titleStmt"), "title", title)
    pub = _sub(file_desc, "publicationStmt")
    _sub(pub, "publisher", application)
    if when:
        _sub(pub, "date", when, when=when[:10])
    _sub(_sub(file_desc, "sourceDesc"), "p", "Web pages crawled and extracted by corpuscrawl.")
    return header


def corpus_start(title: str, when: str = "") -> bytes:
    """The opening of a ``teiCorpus`` file, up to and with its header."""
    header = tei_string(corpus_header(title, when)).decode("utf-8")
    header = header.replace(f' xmlns="{TEI_NS}"', "", 1)
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<teiCorpus xmlns="{TEI_NS}">\n'
            + header + "\n").encode("utf-8")


CORPUS_END = b"</teiCorpus>\n"
