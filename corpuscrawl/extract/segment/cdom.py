"""The block sequence of a page: text-bearing leaves of a collapsed DOM (Web2Text).

Source: Web2Text (Vogels, Ganea & Eickhoff, ECIR 2018) §3.1–3.2.
Web2Text collapses the DOM (single-child chains merged; empty and invisible
nodes and ``br checkbox head hr iframe img input`` dropped) and labels the
text-bearing leaves of that collapsed tree, in document order.

Deviation, stated: inline formatting elements (``a b i em strong span font
...``) are not separate leaves here; their text is merged into the leaf of
the enclosing block-level element, as boilerpipe and jusText do.  A sentence
with a bold word or a link is then one block, not three, which gives fewer,
longer blocks whose labels are far less noisy, and the link share becomes a
block feature (``link_words``).  Phrasing elements without text (``<meta>``
microdata, ``<wbr>``, ``<picture>``) are inline too: they never split a
sentence.  ``<br>`` ends a block (it is a line break the reader sees).  Collapsing single-child chains is implicit: a block records the
element its text sits in (``container``) and the chain of ancestors above it;
element chains without text never produce a block.

One walk over ``page.clean_tree`` (read-only) with :func:`lxml.etree.iterwalk`
records everything the block and edge features need, so features never walk
the tree again.  The optional accelerator ``_cdom`` (Cython, ``setup.py``) does the
same walk on libxml2's nodes through lxml's C API and returns the same blocks
(``tests/test_cdom_walk.py``); it is used only with the lxml and libxml2 releases it was
built against, and :func:`accelerator_problem` says when it is not used (one warning at
import: the Python walk runs instead).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from functools import lru_cache

from lxml import etree

from corpuscrawl.html.dom import INLINE_TAGS
from corpuscrawl.html.page import NON_TEXT_TAGS, Page
from corpuscrawl.resources.accelerators import accelerator, lxml_release_problem

#: The interface of ``_cdom.pyx`` this module and :mod:`corpuscrawl.extract.meta.lookups` call.
CDOM_API = 2
#: The C walk; None when not built for :data:`CDOM_API` (the Python walk then, same blocks).
_cdom = accelerator("corpuscrawl.extract.segment._cdom", CDOM_API)

logger = logging.getLogger(__name__)

#: Elements dropped with their content (Web2Text §3.1 list, plus form controls).
DROPPED_TAGS_DEFAULT = frozenset(
    "head checkbox iframe img input button select option textarea map area".split()
)
#: Elements ``Page.clean_tree`` removes (with comments and processing instructions).
_REMOVED_TAGS = frozenset(NON_TEXT_TAGS)
#: Elements that end a block but hold no text themselves.
BREAK_TAGS_DEFAULT = frozenset(("br", "hr"))

#: Ancestor tags recorded as one bit each (for the "inside a list/table/nav..." features).
ANCESTOR_TAGS = (
    "a", "li", "ul", "ol", "dl", "table", "td", "th", "nav", "header", "footer", "aside",
    "form", "article", "main", "section", "blockquote", "pre", "p", "figure", "h1", "h2",
    "h3", "h4", "h5", "h6", "center", "b", "strong", "em", "i",
)
#: Class/id keyword groups recorded as one bit each (any ancestor's class or id matches).
CLASS_KEYWORDS = (
    ("article", r"article"), ("content", r"content"), ("entry", r"entry"), ("post", r"post"),
    ("story", r"story"), ("body", r"body"), ("text", r"text"), ("main", r"main"),
    ("comment", r"comment|disqus|repl"), ("nav", r"nav"), ("menu", r"menu"),
    ("footer", r"foot"), ("header", r"head|masthead|banner"), ("side", r"side|rail|column"),
    ("social", r"share|social|facebook|twitter|tweet"), ("related", r"related|more|also"),
    ("ad", r"(?<![a-z])ads?(?![a-z])|advert|sponsor|promo"), ("widget", r"widget|module"),
    ("crumb", r"crumb"), ("tag", r"tag|categor|topic"), ("meta", r"meta|info|detail"),
    ("byline", r"author|byline|by-line|credit"), ("date", r"date|time|publish"),
    ("caption", r"caption|photo|image|figure|media|gallery"), ("copy", r"copyright|legal"),
    ("search", r"search|login|signin|register"), ("subscribe", r"subscri|newsletter|signup"),
    ("popular", r"popular|trending|recommend|most"), ("title", r"title|headline|heading"),
    ("hidden", r"hidden|display-none|hide"), ("print", r"print"), ("teaser", r"teaser|summary"),
)
TAG_BIT = {t: 1 << i for i, t in enumerate(ANCESTOR_TAGS)}
_CLASS_BASE = len(ANCESTOR_TAGS)
_CLASS_RE = re.compile("|".join(f"(?P<k{i}>{pat})" for i, (_, pat) in enumerate(CLASS_KEYWORDS)))
_HIDDEN_STYLE_RE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


@dataclass(slots=True)
class Block:
    """One text-bearing leaf of the collapsed DOM with what its features need."""

    text: str
    words: int
    link_words: int
    container_tag: str
    #: Node ids of the container and its ancestors, innermost first (root last).
    path: tuple[int, ...]
    depth: int
    #: Bit set over ANCESTOR_TAGS + CLASS_KEYWORDS of the container and its ancestors.
    mask: int
    #: Block-level element boundaries crossed since the previous block.
    gap: int = 0
    #: Break tags (br/hr) and headings crossed since the previous block, as tag names.
    gap_tags: frozenset[str] = field(default_factory=frozenset)


#: Kana and CJK ideographs: Chinese and Japanese put no spaces between words (Korean does).
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
#: Characters of Chinese or Japanese text counted as one word.
CJK_CHARS_PER_WORD = 2


def word_count(text: str) -> int:
    """Words of ``text`` for the block features: its whitespace tokens plus one per
    :data:`CJK_CHARS_PER_WORD` kana/ideographs, so that a paragraph of Chinese (one or
    two "tokens") is as long to the model as the same paragraph in English.

    Without it a Chinese blog post looked like a run of one-word link-less blocks and
    ``auto`` kept nothing of it (the readability dataset's ``pixnet`` page, training split).
    """
    n = len(text.split())
    if not text.isascii():
        cjk = len(_CJK_RE.findall(text))
        if cjk:
            n += cjk // CJK_CHARS_PER_WORD
    return n


def class_bits(el: etree._Element) -> int:
    """Bits for the class/id keywords matched by ``el``'s class and id attributes."""
    attrs = el.get("class")
    ident = el.get("id")
    if not attrs and not ident:
        return 0
    return _value_bits(f"{attrs or ''} {ident or ''}".lower())


@lru_cache(maxsize=65536)
def _value_bits(value: str) -> int:
    bits = 0
    for m in _CLASS_RE.finditer(value):
        bits |= 1 << (_CLASS_BASE + int(m.lastgroup[1:]))  # type: ignore[index]
    return bits


_LOOKBEHIND = "(?<![a-z])"
_LOOKAHEAD = "(?![a-z])"
_LITERAL_RE = re.compile(r"[a-z-]+")


def keyword_alternatives() -> tuple[tuple[int, str, bool, bool], ...]:
    """:data:`CLASS_KEYWORDS` as the ordered literal alternatives the C walk scans for:
    ``(bit, literal, no letter before, no letter after)``.

    Each pattern is an alternation of literals, each optionally between the lookbehind
    ``(?<![a-z])`` and the lookahead ``(?![a-z])``, with an optional last character
    (``ads?``: ``ads`` then ``ad``, as the greedy regex tries them).  A pattern outside
    that form raises :class:`ValueError`, and the Python walk is used.
    """
    out = []
    for i, (_, pattern) in enumerate(CLASS_KEYWORDS):
        for alternative in pattern.split("|"):
            before = alternative.startswith(_LOOKBEHIND)
            after = alternative.endswith(_LOOKAHEAD)
            literal = alternative.removeprefix(_LOOKBEHIND).removesuffix(_LOOKAHEAD)
            forms = [literal[:-1], literal[:-2]] if literal.endswith("?") else [literal]
            for form in forms:
                if not _LITERAL_RE.fullmatch(form):
                    raise ValueError(f"class keyword pattern {pattern!r}: {alternative!r} is "
                                     "not a literal the C walk can scan for")
                out.append((_CLASS_BASE + i, form, before, after))
    return tuple(out)


def _hidden(el: etree._Element) -> bool:
    style = el.get("style")
    return bool(style and _HIDDEN_STYLE_RE.search(style)) or el.get("hidden") is not None


def accelerator_problem() -> str | None:
    """Why the C walk cannot be used here (None when it can): not built, or built against
    another lxml or libxml2 release (major.minor) than the running one, or class keywords
    it cannot scan for (:func:`keyword_alternatives`).

    The walk reads libxml2's nodes and lxml's element struct as the headers it was compiled
    with lay them out; another lxml or libxml2 release may lay them out otherwise, so the
    Python walk (same blocks, any lxml) runs until the accelerator is rebuilt against it.
    """
    if _cdom is None:
        return "the C accelerator corpuscrawl.extract.segment._cdom is not built"
    try:
        keyword_alternatives()
    except ValueError as exc:
        return str(exc)
    return lxml_release_problem(_cdom)


_walk_in_c = accelerator_problem() is None
_KEYWORDS = keyword_alternatives() if _walk_in_c else ()
if _cdom is not None and not _walk_in_c:
    logger.warning("collapsed-DOM walk and title lookups in Python (slower, same results): %s",
                   accelerator_problem())


def accelerated() -> bool:
    """True when :func:`tree_blocks` walks the tree in the C accelerator."""
    return _walk_in_c


def use_accelerator(flag: bool) -> None:
    """Use the C walk (``True``; :class:`RuntimeError` naming why when it cannot be used)
    or the Python walk (``False``), for comparisons and benchmarks."""
    global _walk_in_c, _KEYWORDS
    problem = accelerator_problem()
    if flag and problem:
        raise RuntimeError(problem)
    if flag:
        _KEYWORDS = keyword_alternatives()
    _walk_in_c = flag


def page_blocks(page: Page) -> list[Block]:
    """The block sequence of a page (its shared ``clean_tree`` is only read).

    The C walk reads the parsed tree itself as if it were ``clean_tree`` (same blocks,
    ``tests/test_cdom_walk.py``), so no cleaned copy of the tree is made for it.
    """
    if _walk_in_c:
        blocks = _cdom.tree_blocks(page.body, Block, DROPPED_TAGS_DEFAULT, INLINE_TAGS,
                                   BREAK_TAGS_DEFAULT, TAG_BIT, _KEYWORDS,
                                   _HIDDEN_STYLE_RE.search, _REMOVED_TAGS)
        if blocks is not None:
            return blocks
    root = page.clean_tree
    body = root.find("body")
    return python_tree_blocks(body if body is not None else root)


def tree_blocks(root: etree._Element) -> list[Block]:
    """The block sequence under ``root`` in document order (the C walk when it is in use,
    see :func:`accelerated`; the same blocks either way)."""
    if _walk_in_c:
        blocks = _cdom.tree_blocks(root, Block, DROPPED_TAGS_DEFAULT, INLINE_TAGS,
                                   BREAK_TAGS_DEFAULT, TAG_BIT, _KEYWORDS,
                                   _HIDDEN_STYLE_RE.search)
        if blocks is not None:
            return blocks
    return python_tree_blocks(root)


def python_tree_blocks(root: etree._Element) -> list[Block]:
    """:func:`tree_blocks` in Python, with :func:`lxml.etree.iterwalk`: the reference the
    C walk is tested against, and the walk when the accelerator is not in use."""
    blocks: list[Block] = []
    pieces: list[str] = []
    link_words = 0
    # Stack of open elements: (node id, tag, mask, inline, in_link).
    stack: list[tuple[int, str, int, bool, bool]] = []
    gap = 0
    gap_tags: set[str] = set()
    next_id = 0
    skip_depth = 0  # > 0 while inside a dropped/hidden element

    def add(text: str | None, in_link: bool) -> None:
        nonlocal link_words
        if not text:
            return
        if text.isspace():
            # The space between two inline elements ("<a>social</a> <a>media</a>") still
            # separates their words.
            if pieces:
                pieces.append(" ")
            return
        pieces.append(text)
        if in_link:
            link_words += word_count(text)

    def flush() -> None:
        nonlocal link_words, gap
        if pieces:
            text = " ".join("".join(pieces).split())
            if text:
                container = next((s for s in reversed(stack) if not s[3]), stack[-1])
                path = tuple(s[0] for s in reversed(stack) if not s[3])
                n_words = word_count(text)
                blocks.append(Block(text, n_words, min(link_words, n_words), container[1], path,
                                    len(stack), stack[-1][2], gap, frozenset(gap_tags)))
                gap = 0
                gap_tags.clear()
            pieces.clear()
        link_words = 0

    for event, el in etree.iterwalk(root, events=("start", "end")):
        tag = el.tag
        if not isinstance(tag, str):  # comment / PI in a tree that was not cleaned
            if event == "end" and skip_depth == 0 and stack:
                add(el.tail, stack[-1][4])
            continue
        tag = tag.lower()
        if event == "start":
            if skip_depth or tag in DROPPED_TAGS_DEFAULT or _hidden(el):
                skip_depth += 1
                continue
            inline = tag in INLINE_TAGS
            if not inline:
                flush()
                gap += 1
                if tag in BREAK_TAGS_DEFAULT or tag[0] == "h" and tag[1:].isdigit():
                    gap_tags.add(tag)
            parent_mask = stack[-1][2] if stack else 0
            in_link = (stack[-1][4] if stack else False) or tag == "a"
            mask = parent_mask | TAG_BIT.get(tag, 0) | class_bits(el)
            stack.append((next_id, tag, mask, inline, in_link))
            next_id += 1
            add(el.text, in_link)
        else:
            if skip_depth:
                skip_depth -= 1
                if skip_depth == 0 and stack:
                    add(el.tail, stack[-1][4])
                continue
            if not stack[-1][3]:
                flush()
                gap += 1
            stack.pop()
            if stack:
                add(el.tail, stack[-1][4])
    flush()
    return blocks


__all__ = [
    "ANCESTOR_TAGS",
    "BREAK_TAGS_DEFAULT",
    "CJK_CHARS_PER_WORD",
    "CLASS_KEYWORDS",
    "DROPPED_TAGS_DEFAULT",
    "TAG_BIT",
    "Block",
    "accelerated",
    "accelerator_problem",
    "class_bits",
    "keyword_alternatives",
    "page_blocks",
    "python_tree_blocks",
    "tree_blocks",
    "use_accelerator",
    "word_count",
]
