"""The 37-value structural feature vector of an HTML document or segment.

Source: Bakić's thesis (Josip Bakić, University of Zagreb, 2012) §4.2.1 and §6.3.2.  Every value is
in [0, 1] so that no feature dominates the SVM:

* 6 one-hot size buckets of the HTML (bytes): < 100, < 1 000, < 10 000,
  < 100 000, < 1 000 000, >= 1 000 000;
* total length of the tag markup / total length;
* total length of the link tags (``<a ...>`` and ``</a>``) / total length;
* over the text blocks outside links (maximal runs of text between two tags,
  not inside an ``<a>``): mean length / longest, median length / longest,
  longest / sum of lengths;
* counts of 26 structural tags (:data:`COUNTED_TAGS`), each divided by the
  largest of the 26 counts.

The thesis measured the HTML string itself (a document, or a segment's
``OuterHtml``), so this module works on HTML text with a small tokenizer
rather than on a tree.  Deviations, stated: scripts, styles and comments are
removed before measuring (the thesis removes scripts and styles before
segmenting; removing them for whole documents too keeps the two vectors
comparable); lengths are counted in characters, the size bucket in UTF-8
bytes; text-block lengths are taken after unescaping entities and collapsing
whitespace.  A value whose denominator is zero is 0.
"""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import dataclass
from statistics import median

from corpuscrawl.html.dom import normalize_space

#: Upper bounds (exclusive) of the first five size buckets in bytes; the sixth is open (§4.2.1).
SIZE_BOUNDS_DEFAULT = (100, 1_000, 10_000, 100_000, 1_000_000)
#: The 26 tags whose counts the thesis uses (§4.2.1), in its order.
COUNTED_TAGS = (
    "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "div", "dl", "form",
    "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "iframe", "object", "ol", "p",
    "samp", "span", "table", "ul",
)
#: Names of the 37 values, in vector order (for model cards and debugging).
FEATURE_NAMES = (
    *(f"size_lt_{b}" for b in SIZE_BOUNDS_DEFAULT), "size_ge_1000000",
    "markup_ratio", "link_markup_ratio",
    "block_mean_by_max", "block_median_by_max", "block_max_by_sum",
    *(f"count_{t}" for t in COUNTED_TAGS),
)
N_FEATURES = len(FEATURE_NAMES)  # 37
_SIZE_NAMES = FEATURE_NAMES[:len(SIZE_BOUNDS_DEFAULT) + 1]

_NON_TEXT_RE = re.compile(
    r"<!--.*?(?:-->|\Z)|<script\b[^>]*>.*?(?:</script\s*>|\Z)|<style\b[^>]*>.*?(?:</style\s*>|\Z)",
    re.IGNORECASE | re.DOTALL,
)
# A markup token: doctype/declaration, processing instruction, or a start/end tag.
_TAG_RE = re.compile(r"<![^>]*>|<\?[^>]*>|</?[A-Za-z][^>]*>")
_TAG_NAME_RE = re.compile(r"</?([A-Za-z][A-Za-z0-9:_-]*)")
_COUNTED_INDEX = {t: i for i, t in enumerate(COUNTED_TAGS)}


@dataclass(slots=True)
class HtmlStats:
    """Raw measurements of an HTML string from which the 37 values are computed."""

    size_bytes: int
    total_length: int
    markup_length: int
    link_markup_length: int
    block_lengths: list[int]
    tag_counts: list[int]


def strip_non_text(html: str) -> str:
    """The HTML without comments, ``<script>`` and ``<style>`` elements."""
    return _NON_TEXT_RE.sub("", html)


def measure(html: str) -> HtmlStats:
    """Tokenize ``html`` (already stripped of scripts/styles/comments) and measure it."""
    markup = link_markup = 0
    counts = [0] * len(COUNTED_TAGS)
    blocks: list[int] = []
    link_depth = 0
    pos = 0

    def add_text(raw: str) -> None:
        if link_depth == 0:
            text = normalize_space(html_lib.unescape(raw))
            if text:
                blocks.append(len(text))

    for m in _TAG_RE.finditer(html):
        if m.start() > pos:
            add_text(html[pos : m.start()])
        pos = m.end()
        token = m.group()
        markup += len(token)
        name_match = _TAG_NAME_RE.match(token)
        if name_match is None:
            continue
        name = name_match.group(1).lower()
        closing = token.startswith("</")
        if name == "a":
            link_markup += len(token)
            if closing:
                link_depth = max(0, link_depth - 1)
            elif not token.endswith("/>"):
                link_depth += 1
        elif not closing and name in _COUNTED_INDEX:
            counts[_COUNTED_INDEX[name]] += 1
    if pos < len(html):
        add_text(html[pos:])
    return HtmlStats(len(html.encode("utf-8")), len(html), markup, link_markup, blocks, counts)


def vector_from_stats(stats: HtmlStats) -> list[float]:
    """The 37 values of §4.2.1 from raw measurements, in :data:`FEATURE_NAMES` order (each
    computed under its name)."""
    values = dict.fromkeys(_SIZE_NAMES, 0.0)
    bucket = next((i for i, b in enumerate(SIZE_BOUNDS_DEFAULT) if stats.size_bytes < b),
                  len(SIZE_BOUNDS_DEFAULT))
    values[_SIZE_NAMES[bucket]] = 1.0
    total = stats.total_length
    values["markup_ratio"] = stats.markup_length / total if total else 0.0
    values["link_markup_ratio"] = stats.link_markup_length / total if total else 0.0
    blocks = stats.block_lengths
    if blocks:
        longest = max(blocks)
        values["block_mean_by_max"] = (sum(blocks) / len(blocks)) / longest
        values["block_median_by_max"] = median(blocks) / longest
        values["block_max_by_sum"] = longest / sum(blocks)
    else:
        values["block_mean_by_max"] = values["block_median_by_max"] = 0.0
        values["block_max_by_sum"] = 0.0
    top = max(stats.tag_counts)
    for tag, count in zip(COUNTED_TAGS, stats.tag_counts, strict=True):
        values[f"count_{tag}"] = count / top if top else 0.0
    if len(values) != N_FEATURES:
        raise ValueError(f"computed {sorted(set(values) - set(FEATURE_NAMES))} without a name")
    return [values[name] for name in FEATURE_NAMES]


def html_features(html: str) -> list[float]:
    """The 37-value feature vector of an HTML document or segment string."""
    return vector_from_stats(measure(strip_non_text(html)))


__all__ = [
    "COUNTED_TAGS",
    "FEATURE_NAMES",
    "N_FEATURES",
    "SIZE_BOUNDS_DEFAULT",
    "HtmlStats",
    "html_features",
    "measure",
    "strip_non_text",
    "vector_from_stats",
]
