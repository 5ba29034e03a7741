"""Node energy (Dorosz): coherent texts are the DOM nodes where text energy peaks.

Source: Dorosz's coherent-text paper §3 (assumption of one coherent node per text) and §3.1
(formula 1 and the descent).

Every text node ``t`` has energy ``m(t)`` — its information, here its number of
characters (or words, option ``metric="words"``).  An element's energy is the
sum of its children's energies times a dissipation factor ``r``::

    E(v) = m(v)                      for a text node
    E(v) = Σ_{w ∈ childs(v)} r·E(w)  otherwise

Walking down from ``<body>``, a node is *coherent* when none of its children
has at least its energy; otherwise the walk continues in every child.
Coherent nodes are disjoint and together cover every text node (a lone text
node can be one).  Since ``E(v) = r·Σ E(children)``, a node is coherent
exactly when no single child holds a share ``r`` or more of its children's
energy: long runs of sibling paragraphs stay together, while a wrapper whose
energy comes mostly from one child hands it down.

The paper writes the factor as ``p/k`` (``k`` = height of the DOM tree) but its
prose says the opposite of that formula: energy dissipates *less* per step in
high trees ("in relatively high DOM trees the dissipated energy is relatively
small").  We follow the prose, the stated intent: a fraction ``p/k`` of the
energy is dissipated per level, ``r = 1 - p/k`` (clamped to
[:data:`MIN_RETENTION_DEFAULT`, 1)).  This is the one deviation in the energy
model.

The extractor (``energy``) returns the main text: the coherent unit with the
most non-link text, plus other link-poor units of comparable size
(``blocks.select_main``) when the descent split the article.  :func:`segments` exposes all units; a text
node that is a coherent unit on its own becomes a :class:`CoherentText` whose xpath
ends in ``text()[i]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.extract.segment.blocks import (
    BODY_SHARE_DEFAULT,
    CoherentText,
    segment_kind,
    select_main,
)
from corpuscrawl.html.dom import render_text
from corpuscrawl.html.page import Page

#: Dissipation constant p (a fraction p/k of energy is lost per level).  The paper fixes it
#: "a priori" without a value; 10 was best of {4, 6, 8, 10, 12, 15} on the train part of
#: cleaneval+dragnet (100 pages each; benchmarks/results/classic.md).
DISSIPATION_DEFAULT = 10.0
#: Lowest retention factor allowed for very shallow trees (keeps r positive).
MIN_RETENTION_DEFAULT = 0.3
METRICS = ("chars", "words")


@dataclass(slots=True)
class Node:
    """One element of the energy tree with what the descent and the units need."""

    element: etree._Element
    order: int  # pre-order index: document order
    children: list[Node] = field(default_factory=list)
    texts: list[tuple[int, str, float]] = field(default_factory=list)  # (text() index, text, m)
    words: int = 0  # words in the subtree
    link_words: int = 0  # of which inside <a>
    energy: float = 0.0
    in_link: bool = False  # the element is an <a> or inside one


def text_energy(text: str, metric: str = "chars") -> float:
    """m(t): information of one text node (characters or words, whitespace collapsed)."""
    tokens = text.split()
    if metric == "words":
        return float(len(tokens))
    return float(len(" ".join(tokens)))


def build(root: etree._Element, metric: str = "chars") -> tuple[Node, list[Node], int]:
    """Read the tree once: the node tree, its nodes in post-order, and its height k.

    The height counts a text node as a leaf level below its element.
    """
    post: list[Node] = []
    counter = [0]
    height = [0]

    def visit(el: etree._Element, depth: int, in_link: bool) -> Node:
        in_link = in_link or el.tag == "a"
        node = Node(el, counter[0], in_link=in_link)
        counter[0] += 1
        index = 0
        pieces = [el.text]
        kids = [c for c in el if c.tag.__class__ is str]
        pieces.extend(c.tail for c in kids)
        chars = metric == "chars"
        for piece in pieces:
            if piece is None:
                continue
            index += 1
            tokens = piece.split()
            n = len(tokens)
            if n:
                m = float(sum(map(len, tokens)) + n - 1) if chars else float(n)
                node.texts.append((index, piece, m))
                node.words += n
                if in_link:
                    node.link_words += n
        if node.texts and depth + 1 > height[0]:
            height[0] = depth + 1
        elif depth > height[0]:
            height[0] = depth
        for child in kids:
            sub = visit(child, depth + 1, in_link)
            node.children.append(sub)
            node.words += sub.words
            node.link_words += sub.link_words
        post.append(node)
        return node

    top = visit(root, 1, False)
    return top, post, height[0]


def retention(height: int, p: float = DISSIPATION_DEFAULT) -> float:
    """r = 1 - p/k, the share of energy passed up per level (see the module docstring)."""
    if height <= 0:
        return 1.0
    return min(max(1.0 - p / height, MIN_RETENTION_DEFAULT), 0.999)


def assign_energies(post: list[Node], r: float) -> None:
    """E(v) = r · (Σ m(own text nodes) + Σ E(child elements)), children before parents."""
    for node in post:
        node.energy = r * (sum(m for _, _, m in node.texts)
                           + sum(c.energy for c in node.children))


def coherent_nodes(top: Node) -> list[Node | tuple[Node, int, str]]:
    """The descent from ``top``: coherent nodes, and ``(node, index, text)`` lone text nodes."""
    found: list[Node | tuple[Node, int, str]] = []
    stack = [top]
    while stack:
        node = stack.pop()
        if node.energy <= 0:
            continue
        strongest = max([c.energy for c in node.children] + [m for _, _, m in node.texts],
                        default=0.0)
        if strongest < node.energy:
            found.append(node)
            continue
        found.extend((node, index, text) for index, text, _ in node.texts)
        stack.extend(reversed(node.children))
    return found


@dataclass(slots=True)
class Unit:
    """A coherent unit before its text is rendered (rendering every unit is the costly part)."""

    node: Node
    text_index: int  # 0 for the element itself, else the text() position of a lone text node
    text: str
    words: int
    link_words: int
    energy: float

    def segment(self) -> CoherentText:
        """The unit as a :class:`CoherentText` (renders the element's text)."""
        el = self.node.element
        path = el.getroottree().getpath(el)
        if self.text_index:
            text = " ".join(self.text.split())
            return CoherentText(text, segment_kind(self.words, self.link_words, False),
                           f"{path}/text()[{self.text_index}]", self.energy, self.words,
                           self.link_words)
        return CoherentText(render_text(el), segment_kind(self.words, self.link_words, self.link_words > 0),
                       path, self.energy, self.words, self.link_words)


def units(page: Page, p: float = DISSIPATION_DEFAULT, metric: str = "chars") -> list[Unit]:
    """The coherent units of the page's cleaned body, in document order."""
    body = page.clean_tree.find("body")
    root = body if body is not None else page.clean_tree
    top, post, height = build(root, metric)
    assign_energies(post, retention(height, p))
    found: list[tuple[int, int, Unit]] = []
    for item in coherent_nodes(top):
        if isinstance(item, tuple):
            node, index, text = item
            n = len(text.split())
            linked = n if node.in_link else 0
            found.append((node.order, index,
                          Unit(node, index, text, n, linked, text_energy(text, metric))))
        elif item.words:
            found.append((item.order, 0, Unit(item, 0, "", item.words, item.link_words, item.energy)))
    found.sort(key=lambda t: (t[0], t[1]))
    return [u for _, _, u in found]


def segments(page: Page, p: float = DISSIPATION_DEFAULT, metric: str = "chars") -> list[CoherentText]:
    """The page's coherent texts by node energy, in document order."""
    return [u.segment() for u in units(page, p, metric)]


class EnergyExtractor:
    """Main text = the coherent unit(s) with most text by the node-energy method."""

    name = "energy"

    def __init__(self, p: float = DISSIPATION_DEFAULT, metric: str = "chars",
                 share: float = BODY_SHARE_DEFAULT):
        if metric not in METRICS:
            raise ExtractorError(f"unknown energy metric {metric!r}; known: {', '.join(METRICS)}")
        self.p, self.metric, self.share = p, metric, share

    def segments(self, page: Page) -> list[CoherentText]:
        """All coherent units of the page (see :func:`segments`)."""
        return segments(page, self.p, self.metric)

    def extract(self, page: Page) -> str:
        """Text of the main coherent unit(s), "" for a page without text."""
        chosen = select_main(units(page, self.p, self.metric), self.share)
        return "\n".join(t for t in (u.segment().text for u in chosen) if t)
