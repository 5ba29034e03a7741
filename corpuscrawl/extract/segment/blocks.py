"""Page segmentation into text blocks with shallow text features, and coherent segments.

Source: boilerpipe's block model (Kohlschütter et al. 2010, described in
Bakić's thesis §4.1.1 and Komporday's thesis §5.4.4).  A *text block* is a
maximal run of text not interrupted by a block-level tag; inline tags (``<a>``,
``<b>``, ``<span>``...) do not interrupt it.  Each block carries the features
the boilerpipe classifiers read:

* ``words`` — tokens holding at least one letter or digit;
* ``link_words`` — those of them inside ``<a>``; ``link_density = link_words / words``;
* ``text_density`` — words per line when the block is wrapped at 80 columns,
  not counting the last (partial) line when there are several;
* ``tag_level`` — DOM depth where the block's text starts; ``offset`` — its index.

Like boilerpipe, every tag that is not a known inline tag ends a block (so
``<br>`` does; deviation: phrasing elements without text such as ``<img>`` and
``<meta>`` do not, so that they never split a sentence), and ``<option>``,
``<object>``, ``<embed>``, ``<applet>`` are ignored with their content.  Deviation: the block's
``element`` (the element its text starts in) is kept so callers can point back
into the tree; boilerpipe's SAX handler has no tree.

The module also holds :class:`CoherentText`, the coherent text unit that the
coherent-text methods (``energy.py``, ``linkblocks.py``) split a page into.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from lxml import etree

from corpuscrawl.html.dom import HEADING_TAGS, INLINE_TAGS, tag_name

#: Inline tags that still end a text block here, as in boilerpipe, which ends a block at
#: every tag it has no action for (form labels, ``<nobr>``); the figures of the extractors
#: built on text blocks (boilerpipe, energy, link blocks, hybrid A) are measured so.
BLOCK_ENDING_INLINE_TAGS = frozenset(("label", "nobr"))
#: Tags that do not end a text block (the phrasing elements without text, ``<meta>``,
#: ``<img>``, ``<wbr>``, are inline too: they never split a sentence).
TEXT_BLOCK_INLINE_TAGS = INLINE_TAGS - BLOCK_ENDING_INLINE_TAGS
#: Elements skipped with their content (boilerpipe's TA_IGNORABLE_ELEMENT; script/style are
#: already gone from ``Page.clean_tree``).
IGNORED_TAGS = frozenset(("option", "object", "embed", "applet"))
#: Line width used for the text-density feature (boilerpipe's ``maxLineLength = 80``).
LINE_WIDTH_DEFAULT = 80

#: A unit with at least this many non-link words is running text ("body"); 40 words is
#: boilerpipe's threshold above which a block is content whatever its neighbours (Komporday's thesis §5.4.4).
BODY_MIN_WORDS_DEFAULT = 40
#: A unit with at least this share of its words in links is a link structure (Dorosz's coherent-text paper §3.2).
LINKS_MIN_DENSITY_DEFAULT = 0.5
#: A second main-text unit needs this share of the best unit's non-link words; tuned on the
#: train part of cleaneval+dragnet (benchmarks/results/classic.md).
BODY_SHARE_DEFAULT = 0.25

_WORD_RE = re.compile(r"[^\W_]")


@dataclass(slots=True)
class TextBlock:
    """One text block: its lines of text and boilerpipe's shallow text features."""

    lines: list[str]
    words: int
    link_words: int
    wrapped_words: int
    wrapped_lines: int
    tag_level: int
    offset: int
    offset_end: int
    element: etree._Element | None = field(default=None, repr=False)
    labels: set[str] = field(default_factory=set)
    is_content: bool = False

    @property
    def text(self) -> str:
        """The block's text, one line per merged block."""
        return "\n".join(self.lines)

    @property
    def link_density(self) -> float:
        """Share of the block's words that are inside links (0 for a block without words)."""
        return self.link_words / self.words if self.words else 0.0

    @property
    def text_density(self) -> float:
        """Words per wrapped line (boilerpipe's text density)."""
        return self.wrapped_words / self.wrapped_lines if self.wrapped_lines else 0.0

    def merge_next(self, other: TextBlock) -> None:
        """Absorb the following block (boilerpipe's ``TextBlock.mergeNext``)."""
        self.lines.extend(other.lines)
        self.words += other.words
        self.link_words += other.link_words
        self.wrapped_words += other.wrapped_words
        self.wrapped_lines += other.wrapped_lines
        self.offset_end = other.offset_end
        self.tag_level = min(self.tag_level, other.tag_level)
        self.labels |= other.labels
        self.is_content = self.is_content or other.is_content


@dataclass(slots=True)
class CoherentText:
    """A coherent text of a page (Dorosz's coherent-text paper): one unit that can be a document on its own.

    ``kind`` says what the unit looks like: ``"body"`` (long running text),
    ``"teaser"`` (a link with its short summary), ``"text"`` (other short text),
    ``"links"`` (a link or link list).  ``xpath`` points at the unit's element
    and ``score`` is the method's strength of the unit (energy, or words).
    """

    text: str
    kind: str
    xpath: str
    score: float
    words: int = 0
    link_words: int = 0

    @property
    def link_density(self) -> float:
        """Share of the unit's words inside links."""
        return self.link_words / self.words if self.words else 0.0


def segment_kind(words: int, link_words: int, has_link: bool,
                 body_words: int = BODY_MIN_WORDS_DEFAULT) -> str:
    """Kind of a coherent unit from its size and links: links, body, teaser or text."""
    if words and link_words / words >= LINKS_MIN_DENSITY_DEFAULT:
        return "links"
    if words - link_words >= body_words:
        return "body"
    if has_link:
        return "teaser"
    return "text"


class Sized(Protocol):
    """Anything with a word count and a link-word count (segments, energy units)."""

    words: int
    link_words: int


S = TypeVar("S", bound=Sized)


def select_main(units: Sequence[S], share: float = BODY_SHARE_DEFAULT,
                body_words: int = BODY_MIN_WORDS_DEFAULT) -> list[S]:
    """The unit with most non-link words, plus the other link-poor units of comparable size.

    A page whose article the segmentation split in two keeps both halves; a
    second unit must hold at least ``share`` of the best unit's non-link words
    (and ``body_words``) with less than half of its words in links.
    """
    if not units:
        return []
    best = max(units, key=lambda u: u.words - u.link_words)
    floor = max(share * (best.words - best.link_words), body_words)
    return [u for u in units if u is best
            or (u.link_words < u.words * LINKS_MIN_DENSITY_DEFAULT
                and u.words - u.link_words >= floor)]


class _BlockBuilder:
    """Accumulates the tokens of the current block and turns them into TextBlocks."""

    def __init__(self, line_width: int):
        self.line_width = line_width
        self.blocks: list[TextBlock] = []
        self.tokens: list[str] = []
        self.in_link: list[bool] = []
        self.glue = False  # the last piece ended without whitespace: next token continues it
        self.level = 0
        self.element: etree._Element | None = None

    def add(self, text: str, in_anchor: bool, level: int, element: etree._Element) -> None:
        if not text:
            return
        pieces = text.split()
        if not pieces:
            self.glue = False
            return
        if self.element is None:
            self.level, self.element = level, element
        start = 0
        if self.glue and self.tokens and not text[0].isspace():
            self.tokens[-1] += pieces[0]
            self.in_link[-1] = self.in_link[-1] or in_anchor
            start = 1
        for piece in pieces[start:]:
            self.tokens.append(piece)
            self.in_link.append(in_anchor)
        self.glue = not text[-1].isspace()

    def flush(self) -> None:
        self.glue = False
        if not self.tokens:
            self.element = None
            return
        words = link_words = lines = line_words = 0
        line_len = -1  # boilerpipe does not count the first space
        for token, linked in zip(self.tokens, self.in_link, strict=True):
            if not _WORD_RE.search(token):
                continue
            words += 1
            line_words += 1
            link_words += linked
            line_len += len(token) + 1
            if line_len > self.line_width:
                lines += 1
                line_len = len(token)
                line_words = 1
        if words:
            if lines == 0:
                wrapped_words, lines = words, 1
            else:
                wrapped_words = words - line_words
            offset = len(self.blocks)
            block = TextBlock([" ".join(self.tokens)], words, link_words, wrapped_words, lines,
                              self.level, offset, offset, self.element)
            if self.element is not None and _in_heading(self.element):
                block.labels.add("heading")
            self.blocks.append(block)
        self.tokens, self.in_link, self.element = [], [], None


def _in_heading(el: etree._Element) -> bool:
    for _ in range(4):
        if el is None:
            return False
        if tag_name(el) in HEADING_TAGS:
            return True
        el = el.getparent()
    return False


def text_blocks(root: etree._Element, line_width: int = LINE_WIDTH_DEFAULT) -> list[TextBlock]:
    """Segment the tree under ``root`` into text blocks in document order (read-only)."""
    builder = _BlockBuilder(line_width)

    def walk(el: etree._Element, level: int, anchor: bool) -> None:
        name = tag_name(el)
        if not name or name in IGNORED_TAGS:
            return
        inline = name in TEXT_BLOCK_INLINE_TAGS
        if not inline:
            builder.flush()
        in_anchor = anchor or name == "a"
        builder.add(el.text or "", in_anchor, level, el)
        for child in el:
            walk(child, level + 1, in_anchor)
            if child.tail:
                builder.add(child.tail, in_anchor, level, el)
        if not inline:
            builder.flush()

    walk(root, 0, False)
    builder.flush()
    return builder.blocks
