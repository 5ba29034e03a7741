"""Structured content inside the main container: lists, tables and code blocks.

Why: the block model learned from the article sets that a list, a table cell or a code
line is usually navigation or furniture (dragnet's and l3s-gn1's gold keep 1-8 % of list
items), while on documentation, service and listing pages the lists, tables and code
blocks inside the main text's own element are the text (wcxb's gold keeps 54 % of a
documentation page's list items, 82 % of its table cells).  Each such block is scored
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

#: The main container holds at least this share of the kept words (the deepest such
#: element): 0.6, 0.7 and 0.8 scored alike out of fold (summed F1 0.9032-0.9033).
CONTAINER_SHARE_DEFAULT = 0.6
#: A structured block inside it is kept from this content probability up (the decision
#: threshold itself is about 0.35 at the shipped bias): 0.1 and 0.15 scored 0.9033, 0.25
#: 0.9028 (no fill: 0.9025).
FILL_MIN_PROBABILITY_DEFAULT = 0.15
#: The ancestor tags that make a block structured: list items, definition lists, tables
#: and preformatted (code) blocks.
STRUCTURED_MASK = (TAG_BIT["li"] | TAG_BIT["dl"] | TAG_BIT["table"] | TAG_BIT["td"]
                   | TAG_BIT["th"] | TAG_BIT["pre"])


def main_container(blocks: Sequence[Block], labels: Sequence[int],
                   share: float = CONTAINER_SHARE_DEFAULT) -> int | None:
    """Node id of the deepest element holding at least ``share`` of the kept words (None
    when nothing with words is kept)."""
    kept: dict[int, int] = {}
    depth: dict[int, int] = {}
    total = 0
    for block, label in zip(blocks, labels, strict=True):
        for d, node in enumerate(reversed(block.path)):
            depth[node] = d
        if label:
            total += block.words
            for node in block.path:
                kept[node] = kept.get(node, 0) + block.words
    if not total:
        return None
    candidates = [node for node, words in kept.items() if words >= share * total]
    return max(candidates, key=depth.__getitem__) if candidates else None


def fill_container(blocks: Sequence[Block], labels: Sequence[int], unary_p: np.ndarray,
                   share: float = CONTAINER_SHARE_DEFAULT,
                   min_probability: float = FILL_MIN_PROBABILITY_DEFAULT) -> list[int]:
    """``labels`` with the structured blocks (:data:`STRUCTURED_MASK`) inside the main
    container (:func:`main_container`), between its first and last kept block and with a
    content probability of at least ``min_probability``, labelled text."""
    out = list(labels)
    container = main_container(blocks, labels, share)
    if container is None:
        return out
    kept = [i for i, label in enumerate(labels) if label]
    probabilities = unary_p.tolist()
    for i in range(kept[0] + 1, kept[-1]):
        block = blocks[i]
        if (not out[i] and probabilities[i] >= min_probability
                and block.mask & STRUCTURED_MASK and container in block.path):
            out[i] = 1
    return out


__all__ = [
    "CONTAINER_SHARE_DEFAULT",
    "FILL_MIN_PROBABILITY_DEFAULT",
    "STRUCTURED_MASK",
    "fill_container",
    "main_container",
]
