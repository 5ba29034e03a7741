"""Body Text Extraction (BTE), Finn, Kushmerick & Smyth (2001).

Source: Bakić's thesis (Josip Bakić, University of Zagreb, 2012) §4.1.3 and §6.3.1.

The document (scripts, styles and comments removed) becomes a token sequence
where every tag counts 1 and every word 0.  BTE picks the span ``[i, j]``
maximising ``tags before i + words inside [i, j] + tags after j``: the longest
stretch with much text and few tags.

Deviations from the thesis, both deliberate:

* The thesis searches ``(i, j)`` with an O(N²) double loop.  The objective is
  ``total tags + Σ_{k∈[i,j]} v_k`` with ``v = +words`` for text runs and
  ``v = -tags`` for tag runs, so the best span is a maximum-sum subarray and is
  found here in O(N) with Kadane's algorithm (ties resolved like the thesis:
  the earliest ``i``, then the earliest ``j``, only strictly larger sums win).
* The thesis joins the chosen text nodes with single spaces.  We join them
  as a browser renders them: with a newline when a block-level tag or ``<br>``
  lies between them, so the corpus keeps paragraphs, and with nothing else, so
  that ``<a>Metro Bank</a>.`` stays "Metro Bank." and ``exam<b>ple</b>`` one
  word (the white space the HTML has is kept).  The objective and the span do
  not change.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from corpuscrawl.html.dom import BLOCK_TAGS, join_lines, tag_name
from corpuscrawl.html.page import NON_TEXT_TAGS, Page

#: Elements without an end tag: they contribute one tag token, not two.
VOID_TAGS = frozenset(
    "area base br col embed hr img input link meta param source track wbr".split()
)


@dataclass(slots=True)
class Run:
    """A merged run of tokens: ``tags`` tag tokens, or one text node of ``words`` words."""

    is_text: bool
    count: int
    text: str = ""
    breaks_line: bool = False  # a tag run containing a block-level or <br> tag
    spaced: bool = False  # a tag run with white space between its tags (separates words)

    @property
    def value(self) -> int:
        """Contribution to the BTE objective: +words for text, -tags for tags."""
        return self.count if self.is_text else -self.count


def tokenize(root: etree._Element) -> list[Run]:
    """Turn a tree into merged runs of tags and text nodes (Bakić's thesis §6.3.1).

    Scripts, styles and comments are skipped as if removed (their tails kept),
    so the shared tree needs no cleaned copy.
    """
    runs: list[Run] = []

    def add_tags(n: int, block: bool) -> None:
        if runs and not runs[-1].is_text:
            runs[-1].count += n
            runs[-1].breaks_line = runs[-1].breaks_line or block
        else:
            runs.append(Run(False, n, breaks_line=block))

    def add_text(text: str | None) -> None:
        if text:
            n = len(text.split())
            if n:
                runs.append(Run(True, n, text))
            elif runs and not runs[-1].is_text:  # white space between tags: not a run
                runs[-1].spaced = True
            elif runs:
                runs[-1].text += text

    def walk(el: etree._Element) -> None:
        name = tag_name(el)
        if not name or name in NON_TEXT_TAGS:  # comments, scripts, styles: skipped, tails kept
            return
        block = name in BLOCK_TAGS or name == "br"
        add_tags(1, block)
        add_text(el.text)
        for child in el:
            walk(child)
            add_text(child.tail)
        if name not in VOID_TAGS:
            add_tags(1, block)

    walk(root)
    return runs


def best_span(values: list[int]) -> tuple[int, int] | None:
    """Indices ``(i, j)`` of the maximum-sum subarray with a positive sum, in O(N).

    ``None`` when no span has a positive sum (then BTE's answer is empty, as in
    the thesis, whose initial best is "all tags outside, no words inside").
    """
    best_sum, best = 0, None
    cur_sum, cur_start = -1, 0
    for k, v in enumerate(values):
        if cur_sum < 0:  # a zero-sum prefix is kept: the thesis prefers the earliest i
            cur_sum, cur_start = v, k
        else:
            cur_sum += v
        if cur_sum > best_sum:
            best_sum, best = cur_sum, (cur_start, k)
    return best


def best_span_quadratic(values: list[int]) -> tuple[int, int] | None:
    """The thesis' O(N²) search, kept as the reference the O(N) version is tested against."""
    best_sum, best = 0, None
    for i in range(len(values)):
        acc = 0
        for j in range(i, len(values)):
            acc += values[j]
            if acc > best_sum:
                best_sum, best = acc, (i, j)
    return best


def spans_text(runs: list[Run], span: tuple[int, int] | None) -> str:
    """Join the text runs inside ``span`` as rendered; a block-level tag run between them breaks the line."""
    if span is None:
        return ""
    i, j = span
    lines: list[str] = [""]
    for run in runs[i : j + 1]:
        if run.is_text:
            lines[-1] += run.text
        elif run.breaks_line:
            lines.append("")
        elif run.spaced:
            lines[-1] += " "
    return join_lines(lines)


class BTEExtractor:
    """Body Text Extraction: the longest span with many words and few tags."""

    name = "bte"

    def extract(self, page: Page) -> str:
        """Main text of ``page`` by BTE; "" when no span holds more words than tags."""
        runs = tokenize(page.body)
        return spans_text(runs, best_span([r.value for r in runs]))
