"""Where each block stands relative to the page's headline.

The headline is a strong, site-independent cue: the article text follows it,
usually in the same container, while navigation, teasers and footers sit
before it or in other subtrees.  boilerpipe's ArticleExtractor (Bakić's thesis §3)
uses the same cue as a rule (the block matching the ``<title>`` starts the
content); here it becomes features for the learned ``auto`` model: how well
a block matches the headline (:func:`corpuscrawl.extract.meta.title.extract_title`,
the ``<title>`` without the site name), whether it is the best-matching
heading, and the block's position and tree distance relative to that heading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from corpuscrawl.extract.learned.block_features import _blocktext, tree_distances
from corpuscrawl.extract.learned.columns import NamedMatrix
from corpuscrawl.extract.segment.cdom import Block

TITLE_FEATURE_NAMES = (
    "title_cover", "title_in_block", "is_title_block", "has_title_block",
    "words_from_title", "blocks_from_title", "tree_distance_to_title",
)
#: A block is the headline when its title-match F-score reaches this ...
TITLE_MATCH_MIN_DEFAULT = 0.5
#: ... and it has at most this many words (a heading, not a paragraph quoting the title).
TITLE_BLOCK_MAX_WORDS_DEFAULT = 40

_WORD_RE = re.compile(r"\w+")
_COL = {name: i for i, name in enumerate(TITLE_FEATURE_NAMES)}


def _tokens(text: str) -> list[str]:
    return _WORD_RE.findall(text.lower())


def _title_matches(blocks: Sequence[Block], wanted: set[str]
                   ) -> list[tuple[int, int, int, int]]:
    """``(index, distinct title words, tokens that are title words, tokens)`` of the blocks
    holding a title word, in order: in the C accelerator ``_blocktext`` when it is built
    (same counts, ``tests/test_block_text.py``), else with the regex."""
    if _blocktext is not None:
        counts = np.empty((len(blocks), 3), dtype=np.float64)
        _blocktext.title_tokens([b.text for b in blocks], wanted, counts)
        return [(i, int(f), int(k), int(t)) for i, (f, k, t) in enumerate(counts.tolist()) if f]
    return python_title_matches(blocks, wanted)


def python_title_matches(blocks: Sequence[Block], wanted: set[str]
                         ) -> list[tuple[int, int, int, int]]:
    """:func:`_title_matches` in Python (the reference the C accelerator is tested against)."""
    out = []
    for i, b in enumerate(blocks):
        tokens = _tokens(b.text)
        found = wanted.intersection(tokens)
        if found:
            out.append((i, len(found), sum(1 for t in tokens if t in wanted), len(tokens)))
    return out


def title_matrix(blocks: Sequence[Block], title: str) -> np.ndarray:
    """The ``len(blocks) × len(TITLE_FEATURE_NAMES)`` headline features of a page."""
    n = len(blocks)
    out = np.zeros((n, len(TITLE_FEATURE_NAMES)), dtype=np.float32)
    wanted = set(_tokens(title))
    if not n or not wanted:
        return out
    best, best_score = -1, TITLE_MATCH_MIN_DEFAULT
    for i, n_found, n_inside, n_tokens in _title_matches(blocks, wanted):
        cover = n_found / len(wanted)
        inside = n_inside / n_tokens
        out[i, _COL["title_cover"]], out[i, _COL["title_in_block"]] = cover, inside
        f = 2 * cover * inside / (cover + inside)
        if blocks[i].words <= TITLE_BLOCK_MAX_WORDS_DEFAULT and f > best_score:
            best, best_score = i, f
    if best < 0:
        return out
    out[best, _COL["is_title_block"]] = 1.0
    out[:, _COL["has_title_block"]] = 1.0
    words = np.cumsum([0, *(b.words for b in blocks)])[:-1].astype(np.float64)
    total = float(words[-1] + blocks[-1].words) or 1.0
    out[:, _COL["words_from_title"]] = (words - words[best]) / total
    steps = np.arange(n, dtype=np.float64) - best
    out[:, _COL["blocks_from_title"]] = np.sign(steps) * np.log1p(np.abs(steps))
    out[:, _COL["tree_distance_to_title"]] = np.log1p(tree_distances(blocks, blocks[best]))
    return out


def headline_features(blocks: Sequence[Block], title: str) -> NamedMatrix:
    """:func:`title_matrix` with its column names (:data:`TITLE_FEATURE_NAMES`)."""
    return NamedMatrix(title_matrix(blocks, title), TITLE_FEATURE_NAMES)


__all__ = ["TITLE_FEATURE_NAMES", "headline_features", "python_title_matches", "title_matrix"]
