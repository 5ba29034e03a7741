"""Segmentation of an HTML document into div/table segments, as in the Croatian thesis.

Source: Bakić's thesis §4.2.3 and §6.3.4 (algorithms "analiza segmenta" and
"analiza tablice").  Starting at ``<body>`` (or the whole document),
with ``total`` = the length of the document's text:

* **segment analysis** of a node walks its child nodes (text and elements,
  comments skipped): a child element holding more than ``total / 2`` of the
  text is analysed recursively (a ``table`` with the table analysis, anything
  else with the segment analysis), after flushing the buffer; any other child
  that is not a ``div``/``table`` is accumulated in the current segment
  buffer; a ``div``/``table`` child flushes the buffer and becomes a segment
  of its own;
* **table analysis** walks the table depth-first down to its cells: a cell
  holding more than half of the text is analysed with the segment analysis,
  any other cell is one segment.

Deviations, stated: ``th`` cells are treated like ``td`` cells (the thesis
only names ``td`` and ``caption``, so the text of header cells without element
children was silently lost); segments without any word are dropped (they can
never change an extraction); scripts, styles and comments are removed first by
using the page's ``clean_tree``, as the thesis does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from html import escape

import lxml.html
from lxml import etree

from corpuscrawl.html.dom import normalize_space, render_nodes, tag_name
from corpuscrawl.html.page import Page

#: A segment part: an element (with its whole content) or a loose text node.
Part = etree._Element | str

#: Elements that always close the buffer and become a segment of their own (§6.3.4).
SEGMENT_TAGS_DEFAULT = frozenset(("div", "table"))
#: Table cells the table analysis stops at (§6.3.4 names td and caption; th added, see above).
CELL_TAGS_DEFAULT = frozenset(("td", "th", "caption"))


@dataclass
class Segment:
    """A run of sibling nodes (or one div/table/cell) decided on as a whole."""

    parts: list[Part] = field(default_factory=list)

    @cached_property
    def html(self) -> str:
        """The segment's HTML (the thesis' ``OuterHtml`` of its nodes, concatenated)."""
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(escape(part, quote=False))
            else:
                out.append(lxml.html.tostring(part, encoding="unicode", with_tail=False))
        return "".join(out)

    @cached_property
    def text(self) -> str:
        """The visible text, one line per block element."""
        nodes: list[Part] = []
        for part in self.parts:
            nodes.append(part)
            if not isinstance(part, str) and part.tail and part.tail.isspace():
                nodes.append(" ")  # the white space after an inline element still separates words
        return render_nodes(nodes)

    @cached_property
    def words(self) -> list[str]:
        """The segment's words (whitespace split)."""
        return self.text.split()


def text_length(el: etree._Element) -> int:
    """Length of the element's text (the DOM's InnerText), whitespace collapsed."""
    return len(normalize_space(el.text_content()))


def child_nodes(el: etree._Element) -> list[Part]:
    """The element's child nodes in order: its text, each child element, each child's tail."""
    nodes: list[Part] = []
    if el.text:
        nodes.append(el.text)
    for child in el:
        if tag_name(child):
            nodes.append(child)
        if child.tail:
            nodes.append(child.tail)
    return nodes


def analyse_segment(node: etree._Element, total: int) -> list[Segment]:
    """The thesis' segment analysis of ``node`` (§6.3.4)."""
    result: list[Segment] = []
    buffer = Segment()

    def flush() -> None:
        nonlocal buffer
        if buffer.parts:
            result.append(buffer)
            buffer = Segment()

    for child in child_nodes(node):
        if isinstance(child, str):
            if child.strip():
                buffer.parts.append(child)
            continue
        name = tag_name(child)
        has_children = len(child) > 0 or bool((child.text or "").strip())
        if has_children and text_length(child) > total / 2:
            flush()
            if name == "table":
                result.extend(analyse_table(child, total))
            else:
                result.extend(analyse_segment(child, total))
        elif name not in SEGMENT_TAGS_DEFAULT:
            buffer.parts.append(child)
        else:
            flush()
            result.append(Segment([child]))
    flush()
    return result


def analyse_table(table: etree._Element, total: int) -> list[Segment]:
    """The thesis' table analysis: cells become segments; a big cell is analysed further."""
    result: list[Segment] = []

    def walk(el: etree._Element) -> None:
        for child in el:
            name = tag_name(child)
            if not name:
                continue
            if name in CELL_TAGS_DEFAULT:
                if text_length(child) > total / 2:
                    result.extend(analyse_segment(child, total))
                else:
                    result.append(Segment([child]))
            elif len(child):
                walk(child)

    walk(table)
    return result


def segment_tree(root: etree._Element) -> list[Segment]:
    """Segments of a cleaned tree, starting at ``<body>`` when there is one; wordless ones dropped."""
    body = root.find("body")
    start = body if body is not None else root
    total = text_length(start)
    if tag_name(start) == "table":
        segments = analyse_table(start, total)
    else:
        segments = analyse_segment(start, total)
    return [s for s in segments if s.words]


def segment_page(page: Page) -> list[Segment]:
    """Segments of a page (its shared clean tree is read, never modified)."""
    return segment_tree(page.clean_tree)


__all__ = [
    "CELL_TAGS_DEFAULT",
    "SEGMENT_TAGS_DEFAULT",
    "Segment",
    "analyse_segment",
    "analyse_table",
    "child_nodes",
    "segment_page",
    "segment_tree",
    "text_length",
]
