"""DOM helpers shared by every part: the tag vocabulary, whitespace, words and text rendering.

Algorithms keep their own logic in their modules; what lives here is only what
two or more of them need in exactly the same form.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lxml import etree

#: Elements that start a new line of text when rendered (HTML block-level and table cells).
BLOCK_TAGS = frozenset(
    """address article aside blockquote body caption center dd details dialog dir div dl dt
    fieldset figcaption figure footer form frameset h1 h2 h3 h4 h5 h6 header hgroup hr html
    legend li main menu nav ol p pre section summary table tbody td tfoot th thead tr ul
    option select textarea title""".split()
)
#: Phrasing content (WHATWG HTML, "content models": what sits inside a line of text) without
#: text of its own (void elements and ``<picture>``): they stand inside sentences (``Written by
#: <span itemscope><meta itemprop="name" content="x">Name</span> today`` is one sentence; so is
#: one with an emoji ``<img>`` or a ``<wbr>``).
TEXTLESS_PHRASING_TAGS = frozenset("area embed img link meta picture source track wbr".split())
#: Phrasing elements around words of a sentence that older inline lists miss.
TEXT_PHRASING_TAGS_EXTRA = frozenset("output rp rt ruby slot".split())
#: Inline (phrasing) elements: text inside them continues the surrounding line or block.
#: Every segmenter (text blocks, the collapsed DOM) uses this one list; :func:`render_text`
#: breaks lines at block tags and ``<br>`` only, so every phrasing element is inline to it.
INLINE_TAGS = frozenset(
    """a abbr acronym b bdi bdo big cite code data del dfn em font i ins kbd label mark nobr q
    s samp small span strike strong sub sup time tt u var""".split()
) | TEXTLESS_PHRASING_TAGS | TEXT_PHRASING_TAGS_EXTRA
#: Headings, used by several extractors and feature functions.
HEADING_TAGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))

_SPACE_RE = re.compile(r"\s+")


def normalize_space(text: str) -> str:
    """Collapse runs of whitespace (including non-breaking spaces) to one space and trim."""
    return _SPACE_RE.sub(" ", text.replace("\xa0", " ")).strip()


def words(text: str) -> list[str]:
    """Split text into words on whitespace, the seeds' definition of a word."""
    return text.split()


def tag_name(el: etree._Element) -> str:
    """Lower-case tag name of an element; "" for comments and processing instructions."""
    tag = el.tag
    return tag.lower() if isinstance(tag, str) else ""


def render_text(el: etree._Element, *, with_tail: bool = False) -> str:
    """The visible text of ``el``: one line per block element, whitespace normalized.

    Comments and processing instructions are skipped (their tails are kept);
    ``<br>`` and block-level elements break lines; empty lines are dropped.  A
    line break in the HTML source is white space like any other (a browser
    shows ``<li>Solid\n    selection</li>`` on one line), except inside
    ``<pre>`` and ``<textarea>``, whose lines are kept.
    """
    parts: list[str] = []
    _render_into(el, parts, False)
    if with_tail and el.tail:
        parts.append(_flat(el.tail))
    return join_lines("".join(parts).split("\n"))


def render_nodes(nodes: Iterable[etree._Element | str]) -> str:
    """The visible text of a run of sibling nodes (text strings and elements, tails given
    as strings of their own), rendered as :func:`render_text` renders their parent: an
    inline element continues the current line, a block element or ``<br>`` breaks it."""
    parts: list[str] = []
    for node in nodes:
        if isinstance(node, str):
            parts.append(_flat(node))
        else:
            _render_into(node, parts, False)
    return join_lines("".join(parts).split("\n"))


#: Elements whose text keeps its line breaks (preformatted text).
PREFORMATTED_TAGS = frozenset(("pre", "textarea", "listing", "plaintext", "xmp"))
_LINE_BREAK_RE = re.compile(r"[\n\r\v\f\x85\u2028\u2029]")


def _flat(text: str) -> str:
    """Source text outside ``<pre>``: its line breaks are white space, not lines."""
    return _LINE_BREAK_RE.sub(" ", text) if _LINE_BREAK_RE.search(text) else text


def _render_into(el: etree._Element, parts: list[str], pre: bool) -> None:
    name = tag_name(el)
    if name:
        block = name in BLOCK_TAGS
        pre = pre or name in PREFORMATTED_TAGS
        if block:
            parts.append("\n")
        if name == "br":
            parts.append("\n")
        if el.text:
            parts.append(el.text if pre else _flat(el.text))
        for child in el:
            _render_into(child, parts, pre)
            if child.tail:
                parts.append(child.tail if pre else _flat(child.tail))
        if block:
            parts.append("\n")


def join_lines(lines: Iterable[str]) -> str:
    """Normalize each line's whitespace, drop empty lines and join with newlines."""
    out = [normalize_space(line) for line in lines]
    return "\n".join(line for line in out if line)


def own_text(el: etree._Element) -> str:
    """Text directly inside ``el`` (its text and its children's tails), not its children's."""
    parts = [el.text or ""]
    parts.extend(child.tail or "" for child in el)
    return normalize_space(" ".join(parts))


def link_text_length(el: etree._Element) -> int:
    """Number of characters of normalized text inside ``<a>`` descendants of ``el``."""
    total = 0
    for a in el.iter("a"):
        total += len(normalize_space(a.text_content()))
    return total
