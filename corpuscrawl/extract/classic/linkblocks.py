"""Coherent texts predicted from link positions (Dorosz): links cut a page into its texts.

Source: Dorosz's coherent-text paper §3.2 (with the coherence assumptions of §3)
"Coherent-text methods".  The rules, as the paper states them:

1. General rule: every ``<a>`` is a coherent node, and what remains once the
   links are carved out aggregates the remaining text nodes.
2. Links *inside* long text — an ``<a>`` with text directly on both sides in a
   block that is mostly not links — belong to that text; they are "inline"
   and do not cut anything.  Every other link with text is *structural*.
3. A subtree whose text is only links (flattened to ``<a>`` and text nodes it
   holds only ``<a>``) is a link structure: each link is its own unit.
4. A node grouping one link (one target) with its teaser text, inside a larger
   link structure, is one unit (title + teaser).
5. Links above long text bound it: the text's unit is the largest subtree
   without structural links, so navigation above an article never joins it.

:func:`split` applies them top-down from ``<body>``: a subtree without
structural links is a unit (rule 5); a subtree of links only yields one unit
per link (rule 3); a one-target subtree inside a larger link structure is a
teaser unit (rule 4); otherwise the children are split, and the link-free
children and text nodes between two link-bearing children are aggregated into
one unit (rule 1).

The paper gives the rules in words, not thresholds; the numbers we had to
choose are the module constants below.  The extractor (``linkblocks``)
returns the main text (the unit with most non-link words, plus comparable
link-poor units).  :func:`coherent_texts` is the exporter's entry point for
writing a page as several coherent documents (``CORPUSCRAWL_SPLIT_COHERENT``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lxml import etree

from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.extract.segment.blocks import (
    BODY_SHARE_DEFAULT,
    CoherentText,
    segment_kind,
    select_main,
)
from corpuscrawl.html.dom import BLOCK_TAGS, render_nodes
from corpuscrawl.html.page import Page

#: A link is inline only when its block has less than this share of link words (rule 2;
#: the same 0.5 that makes a unit a link structure in ``blocks.LINKS_MIN_DENSITY_DEFAULT``).
INLINE_MAX_LINK_DENSITY_DEFAULT = 0.5
#: Kinds of unit written as documents by default: everything but bare link lists.
DOCUMENT_KINDS_DEFAULT = ("body", "teaser", "text")
#: Units shorter than this are not worth a document of their own.
DOCUMENT_MIN_WORDS_DEFAULT = 5
#: Methods :func:`coherent_texts` can use.
METHODS = ("linkblocks", "energy")


@dataclass(slots=True)
class Stats:
    """Words of a subtree, words inside links, and its structural links."""

    words: int = 0
    link_words: int = 0
    links: int = 0  # structural <a> with text


def _words(text: str | None) -> int:
    return len(text.split()) if text else 0


def _container(a: etree._Element) -> etree._Element:
    el = a.getparent()
    while el is not None and el.getparent() is not None and el.tag not in BLOCK_TAGS:
        el = el.getparent()
    return el if el is not None else a


def structural_links(root: etree._Element) -> set[etree._Element]:
    """Every ``<a>`` with text that is not inline in running text (rules 2-3)."""
    density: dict[etree._Element, float] = {}
    found = set()
    for a in root.iter("a"):
        if not _words(a.text_content()):
            continue
        prev = a.getprevious()
        before = (prev.tail if prev is not None else a.getparent().text) or ""
        if before.strip() and (a.tail or "").strip():
            box = _container(a)
            if box not in density:
                total = _words(box.text_content())
                linked = sum(_words(x.text_content()) for x in box.iter("a"))
                density[box] = linked / total if total else 1.0
            if density[box] < INLINE_MAX_LINK_DENSITY_DEFAULT:
                continue
        found.add(a)
    return found


def subtree_stats(root: etree._Element, links: set[etree._Element]) -> dict[etree._Element, Stats]:
    """Stats of every element under ``root``, in one post-order pass."""
    table: dict[etree._Element, Stats] = {}

    def visit(el: etree._Element, in_link: bool) -> Stats:
        in_link = in_link or el.tag == "a"
        st = Stats(links=1 if el in links else 0)
        text = el.text
        n = len(text.split()) if text else 0
        for child in el:
            if child.tag.__class__ is not str:
                continue
            sub = visit(child, in_link)
            st.words += sub.words
            st.link_words += sub.link_words
            st.links += sub.links
            tail = child.tail
            if tail:
                n += len(tail.split())
        st.words += n
        if in_link:
            st.link_words += n
        table[el] = st
        return st

    visit(root, False)
    return table


def _targets(el: etree._Element, links: set[etree._Element]) -> int:
    return len({a.get("href") or id(a) for a in el.iter("a") if a in links})


@dataclass(slots=True)
class Unit:
    """A coherent unit before its text is rendered (rendering every unit is the costly part)."""

    parts: list[etree._Element | str]
    anchor: etree._Element
    kind: str
    words: int
    link_words: int

    def segment(self) -> CoherentText:
        """The unit as a :class:`CoherentText`."""
        text = render_nodes(self.parts)
        first = self.parts[0]
        el = first if len(self.parts) == 1 and not isinstance(first, str) else self.anchor
        return CoherentText(text, self.kind, el.getroottree().getpath(el),
                       float(self.words - self.link_words), self.words, self.link_words)


class _Splitter:
    """Applies the rules top-down and collects the units in document order."""

    def __init__(self, root: etree._Element):
        self.links = structural_links(root)
        self.stats = subtree_stats(root, self.links)
        self.units: list[Unit] = []

    def unit(self, parts: list[etree._Element | str], anchor: etree._Element,
             kind: str | None = None) -> None:
        while len(parts) > 1 and (parts[-1].isspace() if isinstance(parts[-1], str)
                                  else not self.stats[parts[-1]].words):
            parts = parts[:-1]  # trailing white space and wordless elements: not part of the unit
        words = link_words = links = 0
        for x in parts:
            if isinstance(x, str):
                words += _words(x)
            else:
                st = self.stats[x]
                words, link_words, links = words + st.words, link_words + st.link_words, links + st.links
        if not words:
            return
        if kind is None:
            kind = segment_kind(words, link_words, links > 0)
        self.units.append(Unit(parts, anchor, kind, words, link_words))

    def split(self, el: etree._Element, in_structure: bool = False) -> None:
        st = self.stats[el]
        if not st.words:
            return
        if not st.links:  # rule 5: no structural link inside
            self.unit([el], el)
            return
        if st.words == st.link_words:  # rule 3: a pure link structure
            for a in el.iter("a"):
                if a in self.links:
                    self.unit([a], a, "links")
            return
        if in_structure and _targets(el, self.links) == 1:  # rule 4: link + teaser
            self.unit([el], el, "teaser")
            return
        structure = st.links >= 2
        run: list[etree._Element | str] = []
        if el.text and el.text.strip():
            run.append(el.text)
        for child in el:
            if child.tag.__class__ is not str:
                continue
            if self.stats[child].links:  # link-bearing child: close the run (rule 1)
                if run:
                    self.unit(run, el)
                run = []
                self.split(child, structure)
            elif self.stats[child].words or run:  # a wordless <br>/<hr>/<img> inside a run
                run.append(child)                  # still breaks or continues its lines
            if child.tail and (run or child.tail.strip()):
                run.append(child.tail)
        if run:
            self.unit(run, el)


def units(page: Page) -> list[Unit]:
    """The page's coherent units (unrendered), in document order."""
    body = page.clean_tree.find("body")
    root = body if body is not None else page.clean_tree
    splitter = _Splitter(root)
    splitter.split(root)
    return splitter.units


def segments(page: Page) -> list[CoherentText]:
    """The page's coherent texts by the link-position rules, in document order."""
    return [u.segment() for u in units(page)]


def coherent_texts(page: Page, method: str = "linkblocks",
                   kinds: Iterable[str] = DOCUMENT_KINDS_DEFAULT,
                   min_words: int = DOCUMENT_MIN_WORDS_DEFAULT) -> list[tuple[str, str]]:
    """``(kind, text)`` units of a page, each fit to be a separate corpus document.

    ``method`` is ``"linkblocks"`` (default; the paper finds it the more robust)
    or ``"energy"``; units of other ``kinds`` or under ``min_words`` words are
    left out (bare link lists by default).
    """
    if method == "linkblocks":
        found = segments(page)
    elif method == "energy":
        from corpuscrawl.extract.classic.energy import segments as energy_segments
        found = energy_segments(page)
    else:
        raise ExtractorError(f"unknown coherent-text method {method!r}; known: {', '.join(METHODS)}")
    wanted = set(kinds)
    return [(u.kind, u.text) for u in found if u.kind in wanted and u.words >= min_words]


class LinkBlocksExtractor:
    """Main text = the coherent unit(s) with most text by the link-position rules."""

    name = "linkblocks"

    def __init__(self, share: float = BODY_SHARE_DEFAULT):
        self.share = share

    def segments(self, page: Page) -> list[CoherentText]:
        """All coherent units of the page (see :func:`segments`)."""
        return segments(page)

    def extract(self, page: Page) -> str:
        """Text of the main coherent unit(s), "" for a page without text."""
        chosen = select_main(units(page), self.share)
        return "\n".join(t for t in (u.segment().text for u in chosen) if t)
