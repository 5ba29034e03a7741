"""What kind of page this is, as numbers: the features of the page-type classifier.

One walk over the parsed page (:class:`~corpuscrawl.html.page.Page`'s full tree, scripts
included, since structured data lives in ``<script type="application/ld+json">``) gives:

* **structure**: counts (log-scaled) of the elements that tell page kinds apart —
  paragraphs, list items, tables, definition lists, code blocks, forms and buttons,
  images, ``<article>``/``<time>``/``<details>`` — and where the text is (share in
  paragraphs, in list items, in links, in tables);
* **structured data**: the schema.org types the page declares (JSON-LD ``@type``,
  microdata ``itemtype``) and its ``og:type``, folded into families (article, product,
  discussion, question, FAQ, item list, documentation, organisation);
* **class and id words**: how many elements carry a word of each family in their
  ``class``/``id`` (post/reply/thread, price/cart/sku, doc/toc/api, card/grid/tile, ...);
* **the URL**: path depth, a date in the path, a file ending, a query, and path words of
  each family (``/blog/``, ``/forum/``, ``/docs/``, ``/product/``, ``/category/``, ...);
* **text**: words, the longest paragraph, prices and rating words in the text.

The families are generic vocabulary of the web's page kinds, not site rules: the model
(:mod:`corpuscrawl.extract.page_typing.page_type`) learns how much each one says.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from urllib.parse import urlsplit

from lxml import etree

from corpuscrawl.html.page import Page
from corpuscrawl.resources.accelerators import accelerator, lxml_build_problem

#: Page types, in the order of the classifier's classes.
PAGE_TYPES = ("article", "forum", "documentation", "service", "product", "listing",
              "collection", "other")

#: Elements counted (log of 1 + count).
COUNTED_TAGS = ("p", "li", "ul", "ol", "table", "tr", "dl", "dt", "pre", "code", "h1", "h2",
                "h3", "h4", "article", "section", "form", "input", "button", "select", "img",
                "a", "nav", "aside", "details", "time", "blockquote", "iframe", "video",
                "textarea", "figure", "header", "footer", "main", "label", "option", "svg")

#: schema.org / Open Graph type families: a declared type containing one of the words.
SCHEMA_FAMILIES: dict[str, tuple[str, ...]] = {
    "article": ("article", "blogposting", "newsarticle", "report", "posting"),
    "product": ("product", "offer", "aggregaterating", "productgroup", "vehicle", "book"),
    "discussion": ("discussionforumposting", "socialmediaposting", "comment", "conversation"),
    "question": ("qapage", "question", "answer"),
    "faq": ("faqpage",),
    "itemlist": ("itemlist", "collectionpage", "searchresultspage", "offercatalog",
                 "listitem"),
    "documentation": ("techarticle", "apireference", "howto", "softwaresourcecode",
                      "softwareapplication"),
    "organisation": ("organization", "localbusiness", "service", "corporation",
                     "professionalservice", "medicalclinic", "educationalorganization",
                     "place", "store"),
    "event": ("event",),
    "recipe": ("recipe",),
    "person": ("person", "profilepage"),
    "webpage": ("webpage", "website", "aboutpage", "contactpage"),
    "breadcrumb": ("breadcrumblist",),
}
#: Words of class/id attributes, by family (a token of the attribute equal to or starting
#: with one of them).
CLASS_FAMILIES: dict[str, tuple[str, ...]] = {
    "post": ("post", "message", "reply", "replies", "thread", "topic", "forum", "bbcode",
             "quote", "signature", "userinfo", "postbody", "answer", "question", "vote",
             "upvote", "accepted"),
    "comment": ("comment", "disqus", "respond"),
    "commerce": ("price", "cart", "basket", "sku", "checkout", "buy", "stock", "variant",
                 "qty", "quantity", "swatch", "wishlist", "shipping", "addtocart"),
    "rating": ("rating", "review", "stars", "star"),
    "docs": ("doc", "docs", "documentation", "toc", "api", "method", "param", "signature",
             "highlight", "syntax", "sourcecode", "admonition", "note", "warning",
             "sidebar", "version"),
    "cards": ("card", "grid", "tile", "teaser", "item", "result", "listing", "product-item",
              "collection", "thumbnail", "thumb", "gallery"),
    "paging": ("pagination", "pager", "paging", "next", "prev", "load-more", "loadmore",
               "filter", "facet", "sort"),
    "article": ("article", "entry", "story", "byline", "author", "headline", "dateline",
                "published", "blog", "lede", "content-body", "post-content"),
    "service": ("hero", "cta", "feature", "benefit", "testimonial", "pricing", "plan",
                "accordion", "faq", "contact", "service", "banner", "section"),
    "social": ("share", "social", "follow", "newsletter", "subscribe"),
}
#: URL path words, by family (a path segment equal to one, or split on -_. containing one).
URL_FAMILIES: dict[str, tuple[str, ...]] = {
    "article": ("blog", "blogs", "news", "article", "articles", "post", "posts", "story",
                "stories", "insights", "magazine", "journal", "opinion", "press"),
    "forum": ("forum", "forums", "thread", "threads", "topic", "topics", "t", "questions",
              "question", "q", "community", "discussion", "discussions", "discuss",
              "comments", "r", "answers", "board", "boards", "viewtopic", "showthread"),
    "documentation": ("docs", "doc", "documentation", "api", "reference", "manual",
                      "guide", "guides", "wiki", "help", "kb", "knowledge", "learn",
                      "tutorial", "tutorials", "library", "developer", "developers", "sdk",
                      "man", "faq", "support", "handbook", "spec"),
    "product": ("product", "products", "p", "dp", "item", "items", "shop", "store", "buy",
                "app", "sku", "listing", "gp", "itm", "pd"),
    "listing": ("category", "categories", "c", "catalog", "catalogue", "tag", "tags",
                "search", "list", "browse", "s", "archive", "archives", "topics", "all",
                "results", "directory", "jobs", "events"),
    "collection": ("collections", "collection", "brands", "brand", "series", "range",
                   "department", "shop-all", "sale"),
    "service": ("services", "service", "pricing", "about", "contact", "solutions",
                "features", "plans", "treatments", "programs", "careers", "admissions",
                "tuition", "locations", "industries", "company", "why", "how-it-works"),
}
_TOKEN_RE = re.compile(r"[a-z0-9]+")
_DATE_PATH_RE = re.compile(r"/(19|20)\d\d[/-](0?[1-9]|1[0-2])([/-]|$)|/(19|20)\d\d/")
_PRICE_RE = re.compile(r"(?:[$€£¥₹]\s?\d|\d[\d.,]*\s?(?:€|USD|EUR|GBP|zł|Kč|kr)\b)")
_TYPE_RE = re.compile(r'"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")')
_WORD_RE = re.compile(r"\w+")


#: The ``itemtype`` values of the tree's elements (its root included), found by libxml2.
_ITEMTYPES = etree.XPath("descendant-or-self::*/@itemtype")


def _schema_types(scripts: list[str | None], itemtypes: list[str],
                  og_types: list[str | None]) -> set[str]:
    """The lower-cased schema.org / Open Graph types the page declares: in the text of its
    JSON-LD ``scripts``, its elements' ``itemtypes`` and its ``og:type`` metas' contents."""
    types: set[str] = set()
    for text in scripts:
        for m in _TYPE_RE.finditer(text or ""):
            types.update(t.lower() for t in re.findall(r'"([^"]+)"', m.group(1)))
    for itemtype in itemtypes:
        types.update(t.rstrip("/").rsplit("/", 1)[-1].lower() for t in itemtype.split())
    for content in og_types:
        types.add("og:" + (content or "").strip().lower())
    return {t.split(":")[-1] if t.startswith("schema:") else t for t in types}


def _document_parts(tree: etree._Element) -> tuple[dict[str, int] | None, list[str | None],
                                                   list[str], list[str | None]]:
    """What the features read off the whole tree besides the body's counts (the Python
    twin of ``_ptwalk.document_parts``): the tag counts of the first ``<head>`` with its
    elements (None without one), the JSON-LD scripts' texts, the ``itemtype`` values and
    the ``og:type`` metas' contents."""
    head_tags = None
    for el in tree.iter("head"):
        head_tags = dict(Counter(c.tag for c in el.iter() if isinstance(c.tag, str)))
        break
    scripts = [s.text for s in tree.iter("script")
               if "ld+json" in (s.get("type") or "").lower()]
    og_types = [el.get("content") for el in tree.iter("meta")
                if (el.get("property") or "").lower() == "og:type"]
    return head_tags, scripts, list(_ITEMTYPES(tree)), og_types


#: URL schemes whose path says something about the page (a ``file:`` path names a place
#: on a disk, not the site's structure).
WEB_SCHEMES = frozenset(("http", "https"))


def _url_features(url: str) -> dict[str, float]:
    """The URL's features; all zero (``url_known`` 0) when the page has no web URL."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in WEB_SCHEMES:
        return dict.fromkeys(URL_FEATURES, 0.0)
    path = parts.path.lower()
    segments = [s for s in path.split("/") if s]
    words: set[str] = set()
    for s in segments:
        words.add(s)
        words.update(_TOKEN_RE.findall(s))
    out = {"url_known": 1.0, "url_depth": float(len(segments)),
           "url_date": float(bool(_DATE_PATH_RE.search(path))),
           "url_file": float(bool(re.search(r"\.(s?html?|php|aspx?|jsp)$", path))),
           "url_query": float(bool(parts.query)),
           "url_numeric": float(any(s.isdigit() or re.fullmatch(r"[a-z]*\d{4,}[a-z\d]*", s)
                                    for s in segments)),
           "url_last_words": float(len(_TOKEN_RE.findall(segments[-1])) if segments else 0),
           "url_root": float(not segments)}
    for family, vocab in URL_FAMILIES.items():
        out[f"url_{family}"] = float(sum(1 for w in vocab if w in words))
    return out


#: Elements whose text is counted as a share of the page's words.
SHARE_TAGS = ("a", "li", "p", "td", "th", "pre", "code", "h1", "h2", "h3", "dd", "dt",
              "button", "label", "option", "article", "main", "nav", "footer", "header",
              "aside", "form", "blockquote")
_SHARE = frozenset(SHARE_TAGS)
_SKIP = frozenset(("script", "style", "noscript", "template", "svg", "head"))


#: Each word of :data:`CLASS_FAMILIES` -> the families it belongs to.
_WORD_FAMILIES: dict[str, frozenset[str]] = {
    word: frozenset(f for f, vocab in CLASS_FAMILIES.items() if word in vocab)
    for vocab in CLASS_FAMILIES.values() for word in vocab}
_CLASS_SPLIT_RE = re.compile(r"[\s_]+")


@lru_cache(maxsize=8192)
def _class_families(attr: str) -> tuple[str, ...]:
    """The class-word families a ``class``/``id`` value names: a family whose word is one of
    the value's tokens (split on white space and ``_``, or a run of letters and digits), in
    :data:`CLASS_FAMILIES` order (cached: pages repeat a few hundred distinct values
    thousands of times)."""
    attr = attr.lower()
    found: set[str] = set()
    for tokens in (_CLASS_SPLIT_RE.split(attr), _TOKEN_RE.findall(attr)):
        for token in tokens:
            families = _WORD_FAMILIES.get(token)
            if families:
                found.update(families)
    return tuple(f for f in CLASS_FAMILIES if f in found) if found else ()


class _Walk:
    """Counts gathered in one walk over the tree."""

    def __init__(self) -> None:
        self.tags: Counter[str] = Counter()
        self.classes: Counter[str] = Counter()
        self.text_in: Counter[str] = Counter()
        self.longest_p = 0
        self.prices = 0

    def text(self, value: str | None, inside: tuple[str, ...]) -> int:
        value = (value or "").strip()
        if not value:
            return 0
        n = len(_WORD_RE.findall(value))
        self.text_in["all"] += n
        for where in inside:
            self.text_in[where] += n
        self.prices += len(_PRICE_RE.findall(value))
        return n

    def visit(self, root: etree._Element) -> None:
        """Count ``root``'s subtree (an explicit stack: broken pages nest thousands deep)."""
        stack: list[tuple[etree._Element, tuple[str, ...]]] = [(root, ())]
        while stack:
            el, inside = stack.pop()
            tag = el.tag
            if not isinstance(tag, str):
                continue
            self.tags[tag] += 1
            cls, el_id = el.get("class"), el.get("id")
            if cls or el_id:
                for family in _class_families(f"{cls or ''} {el_id or ''}"):
                    self.classes[family] += 1
            if tag in _SKIP:
                continue
            if tag in _SHARE and tag not in inside:
                inside = (*inside, tag)
            n = self.text(el.text, inside)
            if tag == "p":
                self.longest_p = max(self.longest_p, n)
            for child in el:
                stack.append((child, inside))
                if child.tail:
                    self.text(child.tail, inside)


#: The interface of ``_ptwalk.pyx`` this module calls.
PTWALK_API = 1
#: The C walk of :meth:`_Walk.visit`; None when not built for :data:`PTWALK_API` or for the
#: running lxml and libxml2 (the Python walk then, same counts).
_ptwalk = accelerator("corpuscrawl.extract.page_typing._ptwalk", PTWALK_API)
if _ptwalk is not None and lxml_build_problem(_ptwalk):
    _ptwalk = None
_SHARE_INDEX = {tag: i for i, tag in enumerate(SHARE_TAGS)}
_FAMILY_NAMES = tuple(CLASS_FAMILIES)
_WORD_BITS = {word: sum(1 << _FAMILY_NAMES.index(f) for f in families)
              for word, families in _WORD_FAMILIES.items()}


def _visited(root: etree._Element, walk: _Walk, native: bool = True) -> None:
    """:meth:`_Walk.visit` of ``root`` into ``walk``: by the C walk when it is built and
    reads the tree (``native``), else in Python; the counts are the same."""
    counts = (_ptwalk.body_counts(root, _SHARE_INDEX, _SKIP, _FAMILY_NAMES, _WORD_BITS,
                                  _class_families, _PRICE_RE.findall)
              if native and _ptwalk is not None else None)
    if counts is None:
        walk.visit(root)
        return
    tags, classes, text_in, walk.longest_p, walk.prices = counts
    walk.tags.update(tags)
    walk.classes.update(classes)
    walk.text_in["all"] = text_in[0]
    for tag, words in zip(SHARE_TAGS, text_in[1:], strict=True):
        if words:
            walk.text_in[tag] = words


def page_type_features(page: Page, native: bool = True) -> dict[str, float]:
    """The page's features by name (see the module docstring); the same names for every
    page, so a row is ``[features[n] for n in FEATURE_NAMES]``.  ``native``: count in the
    C walk when it is built (False: in Python; the features are the same)."""
    tree = page.tree
    walk = _Walk()
    parts = (_ptwalk.document_parts(tree) if native and _ptwalk is not None else None) \
        or _document_parts(tree)
    head_tags, scripts, itemtypes, og_types = parts
    if head_tags:
        walk.tags.update(head_tags)
    _visited(page.body, walk, native)
    tags, text_in = walk.tags, walk.text_in
    words = text_in["all"]
    out: dict[str, float] = {f"n_{t}": math.log1p(tags[t]) for t in COUNTED_TAGS}
    out["n_elements"] = math.log1p(sum(tags.values()))
    out["words"] = math.log1p(words)
    for where in SHARE_TAGS:
        out[f"share_{where}"] = text_in[where] / words if words else 0.0
    out["longest_p"] = math.log1p(walk.longest_p)
    out["prices"] = math.log1p(walk.prices)
    out["words_per_li"] = text_in["li"] / tags["li"] if tags["li"] else 0.0
    out["words_per_p"] = text_in["p"] / tags["p"] if tags["p"] else 0.0
    out["words_per_link"] = text_in["a"] / tags["a"] if tags["a"] else 0.0
    for family in CLASS_FAMILIES:
        out[f"class_{family}"] = math.log1p(walk.classes[family])
    types = _schema_types(scripts, itemtypes, og_types)
    for family, vocab in SCHEMA_FAMILIES.items():
        out[f"schema_{family}"] = float(any(any(v == t or t.endswith(v) for v in vocab)
                                            for t in types if not t.startswith("og:")))
    for og in ("article", "product", "website", "profile", "book", "video"):
        out[f"og_{og}"] = float(any(t.startswith("og:") and og in t for t in types))
    out.update(_url_features(page.url))
    return out


#: The feature names, in row order.
#: The features read off the URL (blanked for a page whose URL is not known).
URL_FEATURES: tuple[str, ...] = ("url_known", "url_depth", "url_date", "url_file", "url_query",
                                 "url_numeric", "url_last_words", "url_root",
                                 *(f"url_{family}" for family in URL_FAMILIES))
FEATURE_NAMES: tuple[str, ...] = tuple(page_type_features(
    Page.from_html("<html><body></body></html>", "https://example.com/")))


def feature_row(page: Page) -> list[float]:
    """The page's features in :data:`FEATURE_NAMES` order."""
    feats = page_type_features(page)
    return [feats[n] for n in FEATURE_NAMES]


__all__ = ["FEATURE_NAMES", "PAGE_TYPES", "URL_FEATURES", "feature_row", "page_type_features"]
