"""Structured content inside the main container: lists, tables and code blocks.

Why: the block model learned from the article sets that a list, a table cell or a code
line is usually navigation or furniture (their gold keeps few list items), while on
documentation, service and listing pages the lists, tables and code blocks inside the
main text's own element are the text (wcxb's gold keeps most of them; the shares per
dataset and page type are in ``benchmarks/results/wholeweb.md``).  Each such block is scored
alone, so a table or a code listing between kept paragraphs often falls just under the
decision threshold.  Where the kept text lives says more than the block does: a list,
table or code block inside the element that holds the kept text, between its first and
last kept block, belongs to it unless the model is nearly sure it does not.

:func:`fill_container` re-labels those blocks; ``auto`` applies it after its decoding and
fallback and before the section cuts (:mod:`corpuscrawl.extract.segment.sections`), so a
comment thread or related box that the fill reaches is still cut.  The constants were
chosen on the out-of-fold decoding of ``auto``'s training pages (the article sets'
train split and wcxb's train part, folds by site; figures in
``benchmarks/results/wholeweb.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from corpuscrawl.extract.segment.cdom import TAG_BIT, Block
from corpuscrawl.html.dom import HEADING_TAGS

#: The main container holds at least this share of the kept words (the deepest such
#: element); the shares tried scored alike out of fold, so the lowest that still names
#: one element is used (grid in ``benchmarks/results/wholeweb.md``, "The rule, chosen
#: out of fold").
CONTAINER_SHARE_DEFAULT = 0.6
#: A structured block inside it is kept from this content probability up, well under the
#: decision threshold at the shipped bias, so only blocks the model is nearly sure are
#: not text stay out; a higher floor lost most of the gain (same grid).
FILL_MIN_PROBABILITY_DEFAULT = 0.15
#: On the pages of these types (:mod:`corpuscrawl.extract.page_typing.page_type`) every kind
#: of block inside the main container between its first and last kept block is kept from
#: :data:`WHOLE_FILL_MIN_PROBABILITY` up (``fill_container(..., structured_only=False)``):
#: a service page's paragraphs between its kept sections are its text.  Chosen on the
#: out-of-fold decoding of ``auto``'s training pages with their page types predicted out of
#: fold (``benchmarks/results/wholeweb.md``, "The paragraphs of service pages"); on every
#: page it cost products and articles as much as it gave.
WHOLE_FILL_TYPES = frozenset({"service"})
WHOLE_FILL_MIN_PROBABILITY = 0.2
#: The ancestor tags that make a block structured: list items, definition lists, tables
#: and preformatted (code) blocks.
STRUCTURED_MASK = (TAG_BIT["li"] | TAG_BIT["dl"] | TAG_BIT["table"] | TAG_BIT["td"]
                   | TAG_BIT["th"] | TAG_BIT["pre"])
#: The ancestor bit of list items.
LIST_ITEM_BIT = TAG_BIT["li"]
#: A list that fills a gap of the kept text is kept from this content probability up: a
#: list of links between a kept lead-in and kept text after it scores as navigation
#: (0.02-0.1), a menu the model is sure of lower still (``benchmarks/results/wholeweb.md``,
#: "The text's tail and the list gaps of the main container").
GAP_MIN_PROBABILITY_DEFAULT = 0.03
#: A line ending so announces a list (ASCII and full-width colon).
LEAD_IN_ENDS = (":", "\uff1a")


def main_container(blocks: Sequence[Block], labels: Sequence[int],
                   share: float = CONTAINER_SHARE_DEFAULT) -> int | None:
    """Node id of the deepest element holding at least ``share`` of the kept words (None
    when nothing with words is kept)."""
    kept: dict[int, int] = {}
    depth: dict[int, int] = {}  # of the kept blocks' ancestors: the only candidates
    total = 0
    for block, label in zip(blocks, labels, strict=True):
        if label:
            total += block.words
            for d, node in enumerate(reversed(block.path)):
                depth[node] = d
                kept[node] = kept.get(node, 0) + block.words
    if not total:
        return None
    candidates = [node for node, words in kept.items() if words >= share * total]
    return max(candidates, key=depth.__getitem__) if candidates else None


def fill_container(blocks: Sequence[Block], labels: Sequence[int], unary_p: np.ndarray,
                   share: float = CONTAINER_SHARE_DEFAULT,
                   min_probability: float = FILL_MIN_PROBABILITY_DEFAULT,
                   structured_only: bool = True) -> list[int]:
    """``labels`` with the structured blocks (:data:`STRUCTURED_MASK`; every kind of block
    when not ``structured_only``) inside the main container (:func:`main_container`),
    between its first and last kept block and with a content probability of at least
    ``min_probability``, labelled text."""
    out = list(labels)
    kept = [i for i, label in enumerate(labels) if label]
    if not kept:
        return out
    probabilities = unary_p.tolist()
    candidates = [i for i in range(kept[0] + 1, kept[-1])
                  if not labels[i] and probabilities[i] >= min_probability
                  and (not structured_only or blocks[i].mask & STRUCTURED_MASK)]
    if not candidates:  # the container is not needed (the walk over the kept paths is not free)
        return out
    container = main_container(blocks, labels, share)
    if container is None:
        return out
    for i in candidates:
        if container in blocks[i].path:
            out[i] = 1
    return out


def is_lead_in(block: Block) -> bool:
    """Whether ``block`` announces what follows it: a heading, or a line that ends with a
    colon (:data:`LEAD_IN_ENDS`)."""
    return block.container_tag in HEADING_TAGS or block.text.rstrip().endswith(LEAD_IN_ENDS)


def fill_list_gaps(blocks: Sequence[Block], labels: Sequence[int], unary_p: np.ndarray,
                   min_probability: float = GAP_MIN_PROBABILITY_DEFAULT) -> list[int]:
    """``labels`` with every gap of the kept text that is a list under a kept lead-in
    inside the main container labelled text: a run of dropped blocks, each a list item
    inside the container with a content probability of at least ``min_probability``,
    after a kept heading or lead-in line (:func:`is_lead_in`) and before kept text.  Link
    lists under a heading of the article (recommendations, a list of clips) look like
    navigation block by block; the heading that announces them and the text going on
    after them say they are part of it.  A list after a paragraph (a share bar between
    two parts of a story) is not announced and stays out."""
    out = list(labels)
    probabilities = unary_p.tolist()
    gaps: list[tuple[int, int]] = []  # candidate runs [start, end) before the container
    start = None  # first block of the current run of dropped blocks
    for i, label in enumerate(labels):
        if not label:
            if start is None:
                start = i
            continue
        if start is not None and start > 0 and is_lead_in(blocks[start - 1]) and all(
                blocks[j].mask & LIST_ITEM_BIT and probabilities[j] >= min_probability
                for j in range(start, i)):
            gaps.append((start, i))
        start = None
    if not gaps:
        return out
    container = main_container(blocks, labels)
    for start, end in gaps:
        if all(container in blocks[j].path for j in range(start, end)):
            out[start:end] = [1] * (end - start)
    return out


__all__ = [
    "CONTAINER_SHARE_DEFAULT",
    "FILL_MIN_PROBABILITY_DEFAULT",
    "GAP_MIN_PROBABILITY_DEFAULT",
    "LEAD_IN_ENDS",
    "LIST_ITEM_BIT",
    "STRUCTURED_MASK",
    "WHOLE_FILL_MIN_PROBABILITY",
    "WHOLE_FILL_TYPES",
    "fill_container",
    "fill_list_gaps",
    "is_lead_in",
    "main_container",
]
