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
#: Inline (phrasing) elements: text inside them continues the surrounding line or block.
#: Every segmenter (text blocks, the collapsed DOM) uses this one list.
INLINE_TAGS = frozenset(
    """a abbr acronym b bdi bdo big cite code data del dfn em font i ins kbd label mark nobr q
    s samp small span strike strong sub sup time tt u var""".split()
)
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
    ``<br>`` and block-level elements break lines; empty lines are dropped.
    """
    parts: list[str] = []
    _render_into(el, parts)
    if with_tail and el.tail:
        parts.append(el.tail)
    return join_lines("".join(parts).split("\n"))


def _render_into(el: etree._Element, parts: list[str]) -> None:
    name = tag_name(el)
    if name:
        block = name in BLOCK_TAGS
        if block:
            parts.append("\n")
        if name == "br":
            parts.append("\n")
        if el.text:
            parts.append(el.text)
        for child in el:
            _render_into(child, parts)
            if child.tail:
                parts.append(child.tail)
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
