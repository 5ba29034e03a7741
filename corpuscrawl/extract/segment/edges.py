"""The text's tail: kept blocks after the article that belong to another part of the page.

Why: the block model scores one block at a time, so a site's call to action, newsletter
box, author box or "related" heading after the article often scores as text (short,
well-formed sentences) although it sits in another branch of the page than the article.
Phrase lists do not reach them (every site and language words them its own way); where
they sit does.  Two cuts, applied by ``auto`` after the section cuts
(:mod:`corpuscrawl.extract.segment.sections`):

- :func:`cut_detached_tail`: kept blocks after the last *anchor* (a kept block of at
  least :data:`ANCHOR_WORDS_DEFAULT` words, less than half of them link text) that lie
  outside the main container (:func:`~corpuscrawl.extract.segment.container.main_container`)
  in a branch that leaves the container's ancestors at least
  :data:`DETACHED_LEVELS_DEFAULT` levels above it are dropped.  A block in a sibling of
  the container (a second text widget of the same post) is kept; one in another region of
  the page (a footer's sign-up box, a site-wide call to action) is not.
- :func:`drop_trailing_headings`: a heading that ends the text heads nothing kept (its
  section was dropped as boilerplate: a related-posts list, a share bar), so it goes too.

Only the tail is cut: before the article the page's title, standfirst and byline often
sit outside the container and the gold sets keep them.  The constants were chosen on
pages no model trained on (figures in ``benchmarks/results/wholeweb.md``, "The text's
tail and the list gaps of the main container").
"""

from __future__ import annotations

from collections.abc import Sequence

from corpuscrawl.extract.segment.cdom import Block
from corpuscrawl.extract.segment.container import main_container
from corpuscrawl.html.dom import HEADING_TAGS

#: An anchor of the text has at least this many words ...
ANCHOR_WORDS_DEFAULT = 60
#: ... of which less than this share is link text.
ANCHOR_MAX_LINK_SHARE = 0.5
#: A tail block is detached when its branch joins the container's ancestors at least this
#: many levels above the container (1: a sibling of the container).
DETACHED_LEVELS_DEFAULT = 2
#: A trailing heading has at most this many words (a longer "heading" is a paragraph in
#: heading markup).
TRAILING_HEADING_MAX_WORDS = 12
#: A "heading" whose text ends a sentence so is a pull quote or a paragraph in heading
#: markup, not the title of a section.
SENTENCE_END = (".", "…")


def is_anchor(block: Block, anchor_words: int = ANCHOR_WORDS_DEFAULT) -> bool:
    """Whether ``block`` is long running text: at least ``anchor_words`` words, less than
    :data:`ANCHOR_MAX_LINK_SHARE` of them link text."""
    return block.words >= anchor_words and block.link_words < ANCHOR_MAX_LINK_SHARE * block.words


def levels_apart(container_chain: Sequence[int], path: Sequence[int]) -> int:
    """How many levels above the container (``container_chain``: the container and its
    ancestors, innermost first) the branch of ``path`` joins it (0: inside it)."""
    on_path = set(path)
    for level, node in enumerate(container_chain):
        if node in on_path:
            return level
    return len(container_chain)


def cut_detached_tail(blocks: Sequence[Block], labels: Sequence[int],
                      anchor_words: int = ANCHOR_WORDS_DEFAULT,
                      min_levels: int = DETACHED_LEVELS_DEFAULT) -> list[int]:
    """``labels`` without the kept blocks after the last anchor (:func:`is_anchor`) whose
    branch joins the main container's ancestors at least ``min_levels`` above it."""
    out = list(labels)
    kept = [i for i, label in enumerate(out) if label]
    anchors = [i for i in kept if is_anchor(blocks[i], anchor_words)]
    if not anchors or anchors[-1] == kept[-1]:  # nothing kept after the last anchor
        return out
    container = main_container(blocks, out)
    chain: tuple[int, ...] = ()
    for i in kept:
        path = blocks[i].path
        if container in path:
            chain = path[path.index(container):]
            break
    for i in kept:
        if i > anchors[-1] and levels_apart(chain, blocks[i].path) >= min_levels:
            out[i] = 0
    return out


def drop_trailing_headings(blocks: Sequence[Block], labels: Sequence[int],
                           max_words: int = TRAILING_HEADING_MAX_WORDS) -> list[int]:
    """``labels`` without the short headings that end the kept text (one after another
    when several do), unless a heading is all that is kept; one whose text ends a
    sentence (:data:`SENTENCE_END`) is a pull quote and stays."""
    out = list(labels)
    kept = [i for i, label in enumerate(out) if label]
    while len(kept) > 1:
        last = blocks[kept[-1]]
        if (last.container_tag not in HEADING_TAGS or last.words > max_words
                or last.text.rstrip().endswith(SENTENCE_END)):
            break
        out[kept.pop()] = 0
    return out


def trim_tail(blocks: Sequence[Block], labels: Sequence[int]) -> list[int]:
    """Both cuts: :func:`cut_detached_tail`, then :func:`drop_trailing_headings`."""
    return drop_trailing_headings(blocks, cut_detached_tail(blocks, labels))


__all__ = [
    "ANCHOR_MAX_LINK_SHARE",
    "ANCHOR_WORDS_DEFAULT",
    "DETACHED_LEVELS_DEFAULT",
    "SENTENCE_END",
    "TRAILING_HEADING_MAX_WORDS",
    "cut_detached_tail",
    "drop_trailing_headings",
    "is_anchor",
    "levels_apart",
    "trim_tail",
]
