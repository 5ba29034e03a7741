"""Readability (Arc90, 2009): paragraph scores flow to containers; the best one plus its siblings.

Source: Komporday's thesis §5.3, algorithm 1; Bakić's thesis §4.1.2.
The thesis gives the skeleton — remove scripts, find the title, drop nodes from
a static "unlikely" list, score every paragraph by its text, add the score to
the parent and half of it to the grandparent, pick the top candidate, collect
its qualifying siblings, and rerun with relaxed parameters when the result has
fewer than 250 characters.  The constants and sub-rules that the thesis leaves
unnamed are those of arc90's readability.js 1.7.1, the version the thesis
describes:

* unlikely candidates: class+id matches :data:`UNLIKELY_RE` and not
  :data:`MAYBE_RE` (never ``<body>``);
* a ``<div>`` without block children counts as a paragraph;
* a paragraph (``p``, ``td``, ``pre``) with at least 25 characters scores
  ``1 + commas + min(len/100, 3)``; a container starts from a tag score
  (div +5, pre/td/blockquote +3, lists/forms -3, headings/th -5) plus its
  class weight (±25 for :data:`POSITIVE_RE` / :data:`NEGATIVE_RE` in class and id);
* candidates are scaled by ``1 - link density``; the top one is kept with each
  sibling whose score reaches ``max(10, 0.2·top)`` (+0.2·top bonus for the same
  class) and each ``<p>`` sibling that is long with link density < 0.25 or
  short, link-free and sentence-like;
* the kept content is cleaned: headings with negative class weight, forms,
  objects, iframes, and "fishy" tables/lists/divs (arc90's cleanConditionally);
* the reruns switch off, in this order, unlikely-candidate stripping, class
  weighting and conditional cleaning.

Deviations: the page is never re-parsed — each attempt works on a fresh
``page.copy_tree()``; when every attempt stays under 250 characters the
longest attempt is returned (Mozilla's later fix) instead of arc90's "unable to
parse" (null), so short pages keep their text; the output is plain text (one
line per block) rather than HTML, as the thesis post-processes it (Bakić's thesis §4.1.2);
the title is found (``extract_title``) but is not part of the text, as in
Readability's ``<title, text>`` result.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from lxml import etree

from corpuscrawl.extract.meta.title import extract_title
from corpuscrawl.html.dom import HEADING_TAGS, render_text, tag_name
from corpuscrawl.html.page import Page

#: arc90 readability.js 1.7.1 regular expressions.
UNLIKELY_RE = re.compile(
    r"combx|comment|community|disqus|extra|foot|header|menu|remark|rss|shoutbox|sidebar|"
    r"sponsor|ad-break|agegate|pagination|pager|popup|tweet|twitter", re.I)
MAYBE_RE = re.compile(r"and|article|body|column|main|shadow", re.I)
POSITIVE_RE = re.compile(
    r"article|body|content|entry|hentry|main|page|pagination|post|text|blog|story", re.I)
NEGATIVE_RE = re.compile(
    r"combx|comment|com-|contact|foot|footer|footnote|masthead|media|meta|outbrain|promo|"
    r"related|scroll|shoutbox|sidebar|sponsor|shopping|tags|tool|widget", re.I)
#: A short link-free sibling paragraph must look like a sentence (arc90).
SENTENCE_END_RE = re.compile(r"\.( |$)")
#: A div holding any of these is a container, otherwise it is scored as a paragraph (arc90).
DIV_BLOCK_CHILDREN = ("a", "blockquote", "dl", "div", "img", "ol", "p", "pre", "table", "ul")
#: Elements scored as paragraphs (arc90 1.7.1: P, TD, PRE).
PARAGRAPH_TAGS = ("p", "td", "pre")
#: Result shorter than this triggers a relaxed rerun (Komporday's thesis §5.3).
MIN_LENGTH_DEFAULT = 250
#: Paragraphs shorter than this are not scored (arc90).
MIN_PARAGRAPH_LENGTH_DEFAULT = 25
#: Class weight for a positive/negative class or id (arc90).
CLASS_WEIGHT_DEFAULT = 25
#: Initial container scores by tag (arc90 initializeNode).
TAG_SCORES = {"div": 5, "pre": 3, "td": 3, "blockquote": 3, "address": -3, "ol": -3, "ul": -3,
              "dl": -3, "dd": -3, "dt": -3, "li": -3, "form": -3, "th": -5,
              **dict.fromkeys(HEADING_TAGS, -5)}


@dataclass(frozen=True, slots=True)
class Flags:
    """The three rules a rerun may relax (arc90's FLAG_* bits)."""

    strip_unlikely: bool = True
    weight_classes: bool = True
    clean_conditionally: bool = True


#: Attempts in order: all rules, then each relaxed in turn (arc90).
ATTEMPTS = (Flags(), Flags(False), Flags(False, False), Flags(False, False, False))


def inner_text(el: etree._Element) -> str:
    """Whitespace-normalized text content (arc90 getInnerText)."""
    return " ".join(el.text_content().split())


def link_density(el: etree._Element, text_len: int | None = None) -> float:
    """Characters inside links over all characters of ``el``."""
    total = len(inner_text(el)) if text_len is None else text_len
    if not total:
        return 0.0
    return sum(len(inner_text(a)) for a in el.iter("a")) / total


def class_weight(el: etree._Element, flags: Flags) -> int:
    """±25 for a positive/negative class and the same for the id (0 when weighting is off)."""
    if not flags.weight_classes:
        return 0
    return sum(_weight(value) for value in (el.get("class"), el.get("id")) if value)


@lru_cache(maxsize=4096)
def is_unlikely(class_and_id: str) -> bool:
    """True when a class+id string names an unlikely candidate (cached: class names repeat)."""
    return bool(UNLIKELY_RE.search(class_and_id)) and not MAYBE_RE.search(class_and_id)


@lru_cache(maxsize=4096)
def _weight(value: str) -> int:
    return (CLASS_WEIGHT_DEFAULT * bool(POSITIVE_RE.search(value))
            - CLASS_WEIGHT_DEFAULT * bool(NEGATIVE_RE.search(value)))


def strip_unlikely(root: etree._Element) -> None:
    """Remove elements whose class+id look like navigation, comments, footers, ... (in place)."""
    doomed = [el for el in root.xpath(".//*[@class or @id]")
              if is_unlikely((el.get("class") or "") + (el.get("id") or ""))
              and tag_name(el) not in ("html", "body")]
    for el in doomed:
        parent = el.getparent()
        if parent is not None:
            parent.remove(el)  # the tail goes too: arc90 removes the whole node


def paragraphs(root: etree._Element) -> list[etree._Element]:
    """Elements to score: p/td/pre, and divs without block children (renamed to p, in place)."""
    found = []
    for el in root.iter("p", "td", "pre", "div"):
        name = el.tag
        if name in PARAGRAPH_TAGS:
            found.append(el)
        elif name == "div" and not any(True for _ in _block_descendants(el)):
            el.tag = "p"
            found.append(el)
    return found


def _block_descendants(el: etree._Element) -> Iterator[etree._Element]:
    it = el.iter(*DIV_BLOCK_CHILDREN)
    next(it)  # the element itself (a div)
    return it


def score_paragraphs(paras: list[etree._Element], flags: Flags) -> dict[etree._Element, float]:
    """Add each paragraph's score to its parent and half of it to its grandparent."""
    scores: dict[etree._Element, float] = {}
    for p in paras:
        parent = p.getparent()
        if parent is None:
            continue
        text = inner_text(p)
        if len(text) < MIN_PARAGRAPH_LENGTH_DEFAULT:
            continue
        grand = parent.getparent()
        for node in (parent, grand):
            if node is not None and node not in scores:
                scores[node] = TAG_SCORES.get(tag_name(node), 0) + class_weight(node, flags)
        value = 1 + text.count(",") + min(len(text) // 100, 3)
        scores[parent] += value
        if grand is not None:
            scores[grand] += value / 2
    return scores


def top_candidate(scores: dict[etree._Element, float]) -> etree._Element | None:
    """The candidate with the best score after scaling by ``1 - link density`` (in place)."""
    best, best_score = None, 0.0
    for el in scores:
        scores[el] *= 1 - link_density(el)
        if best is None or scores[el] > best_score:
            best, best_score = el, scores[el]
    return best


def sibling_content(top: etree._Element, scores: dict[etree._Element, float]) -> list[etree._Element]:
    """The top candidate and each qualifying sibling, in document order."""
    parent = top.getparent()
    if parent is None or tag_name(top) == "body":
        return [top]
    threshold = max(10.0, scores[top] * 0.2)
    top_class = top.get("class") or ""
    kept = []
    for sib in parent.iterchildren(etree.Element):
        keep = sib is top
        bonus = scores[top] * 0.2 if top_class and sib.get("class") == top_class else 0.0
        if not keep and sib in scores and scores[sib] + bonus >= threshold:
            keep = True
        if not keep and tag_name(sib) == "p":
            text = inner_text(sib)
            density = link_density(sib, len(text))
            long_and_clean = len(text) > 80 and density < 0.25
            short_sentence = len(text) <= 80 and density == 0 and bool(SENTENCE_END_RE.search(text))
            keep = long_and_clean or short_sentence
        if keep:
            kept.append(sib)
    return kept


def _remove(el: etree._Element) -> None:
    parent = el.getparent()
    if parent is not None:
        parent.remove(el)


def clean_conditionally(el: etree._Element, tag: str, scores: dict[etree._Element, float],
                        flags: Flags) -> None:
    """Remove "fishy" ``tag`` elements under ``el`` (arc90 cleanConditionally), in place."""
    if not flags.clean_conditionally:
        return
    for node in reversed(list(el.iterdescendants(tag))):
        weight = class_weight(node, flags)
        if weight + scores.get(node, 0.0) < 0:
            _remove(node)
            continue
        text = inner_text(node)
        if text.count(",") >= 10:
            continue
        n_p = sum(1 for _ in node.iter("p"))
        n_img = sum(1 for _ in node.iter("img"))
        n_li = sum(1 for _ in node.iter("li")) - 100
        n_input = sum(1 for _ in node.iter("input"))
        n_embed = sum(1 for _ in node.iter("embed", "object", "iframe"))
        density = link_density(node, len(text))
        if (n_img > n_p or (n_li > n_p and tag not in ("ul", "ol"))
                or n_input > n_p // 3 or (len(text) < 25 and (n_img == 0 or n_img > 2))
                or (weight < 25 and density > 0.2) or (weight >= 25 and density > 0.5)
                or (n_embed == 1 and len(text) < 75) or n_embed > 1):
            _remove(node)


def prepare(article: list[etree._Element], scores: dict[etree._Element, float],
            flags: Flags) -> None:
    """arc90 prepArticle on the kept elements: drop forms, objects, bad headings, fishy blocks."""
    for el in article:
        for tag in ("object", "embed", "iframe"):
            for node in list(el.iterdescendants(tag)):
                _remove(node)
        for node in list(el.iterdescendants("h1", "h2")):
            if class_weight(node, flags) < 0:
                _remove(node)
        if sum(1 for _ in el.iter("h2")) == 1:  # a lone h2 is the headline again
            for node in list(el.iterdescendants("h2")):
                _remove(node)
        for node in list(el.iterdescendants("h1")):
            _remove(node)
        for tag in ("form", "table", "ul", "div"):
            clean_conditionally(el, tag, scores, flags)


def grab_article(page: Page, flags: Flags) -> str:
    """One attempt of the algorithm with the given rules, on a private copy of the tree."""
    root = page.copy_tree()
    body = root.find("body")
    body = body if body is not None else root
    if flags.strip_unlikely:
        strip_unlikely(body)
    scores = score_paragraphs(paragraphs(body), flags)
    top = top_candidate(scores)
    if top is None:
        top = body
        scores[body] = 0.0
    article = sibling_content(top, scores)
    prepare(article, scores, flags)
    return "\n".join(t for t in (render_text(el) for el in article) if t)


class ReadabilityExtractor:
    """Readability: top-scoring container and its siblings, rerun relaxed when too short."""

    name = "readability"

    def __init__(self, min_length: int = MIN_LENGTH_DEFAULT):
        self.min_length = min_length

    def extract_with_title(self, page: Page) -> tuple[str, str]:
        """Readability's ``<title, text>`` pair."""
        return extract_title(page), self.extract(page)

    def extract(self, page: Page) -> str:
        """The article text; a relaxed attempt follows while it is under ``min_length`` chars."""
        best = ""
        for flags in ATTEMPTS:
            text = grab_article(page, flags)
            if len(text) >= self.min_length:
                return text
            if len(text) > len(best):
                best = text
        return best
