"""Block features, edge features and base-extractor votes over a collapsed-DOM block sequence.

Source: Web2Text (Vogels, Ganea & Eickhoff 2018) §3.3: per block, features of the block itself
(text, link and stopword statistics, tag path, position) and aggregates of
its parent and grandparent in the collapsed DOM; per pair of neighbouring
blocks, edge features (tree distance bucketed 1, 2, 3, 4, > 4, tags crossed).
Web2Text has 128 block and 25 edge features; this module has
:data:`N_BLOCK_FEATURES` block features (own + ancestors + page) to which
:func:`unary_matrix` adds the features of the two blocks on either side,
because the models here are not convolutional and see context only that way.

:func:`vote_matrix` adds Bakić's thesis (§4.2.3, the agreement features of
hybrid B) at block level: for each base extractor, the share of the block's
word 3-grams (words, for blocks under 3 words) found in that extractor's
output.  Deviation: the thesis measures agreement by LCS; on blocks the
n-gram test is linear, order-aware enough, and does not match a short block
("Home") against one stray word of a long output.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from corpuscrawl.extract.learned.columns import NamedMatrix, prefixed
from corpuscrawl.extract.segment.cdom import ANCESTOR_TAGS, CLASS_KEYWORDS, Block
from corpuscrawl.resources.accelerators import accelerator

#: The interface of ``_blocktext.pyx`` this module and :mod:`.title_features` call.
BLOCKTEXT_API = 2
#: The C statistics; None when not built for :data:`BLOCKTEXT_API` (the Python code then,
#: same numbers).
_blocktext = accelerator("corpuscrawl.extract.learned._blocktext", BLOCKTEXT_API)

#: Container tags with a one-hot feature each (any other tag sets "other").
CONTAINER_TAGS = (
    "p", "div", "td", "th", "li", "h1", "h2", "h3", "h4", "h5", "h6", "dd", "dt", "pre",
    "blockquote", "section", "article", "center", "caption", "figcaption", "address",
    "header", "footer", "nav", "aside", "body", "tr", "form", "label", "strong",
)
_CONTAINER_INDEX = {t: i for i, t in enumerate(CONTAINER_TAGS)}
_N_MASK_BITS = len(ANCESTOR_TAGS) + len(CLASS_KEYWORDS)
#: Numeric own-text features, in order (see :func:`block_matrix`).
TEXT_FEATURES = (
    "log_words", "log_chars", "link_density", "mean_word_len", "upper_initial_ratio",
    "digit_ratio", "sentence_punct_per_word", "ends_with_punct", "comma_per_word",
    "stopword_ratio", "copyright", "separators", "log_gap", "gap_break", "gap_heading",
    "depth", "rel_depth", "rel_index", "rel_word_pos",
    "log_page_words", "log_page_blocks", "page_link_density",
    "log_window_words", "window_long_share",
    *(f"up{k}_{f}" for k in range(1, 6)
      for f in ("log_words", "link_density", "log_blocks", "share_of", "page_long_share")),
)
BLOCK_FEATURE_NAMES = (
    *TEXT_FEATURES,
    *(f"container_{t}" for t in CONTAINER_TAGS), "container_other",
    *(f"in_{t}" for t in ANCESTOR_TAGS), *(f"class_{k}" for k, _ in CLASS_KEYWORDS),
)
N_BLOCK_FEATURES = len(BLOCK_FEATURE_NAMES)
#: The columns of the ancestor-tag and class-keyword bits in a block (and unary) row.
MASK_COLUMNS = slice(N_BLOCK_FEATURES - _N_MASK_BITS, N_BLOCK_FEATURES)
#: Within the mask bits (:func:`mask_bits`): the ancestor-tag bits, then the class/id keyword bits.
TAG_BITS = slice(0, len(ANCESTOR_TAGS))
KEYWORD_BITS = slice(len(ANCESTOR_TAGS), _N_MASK_BITS)
#: Ancestor levels above the container whose subtree aggregates are features (Web2Text uses 2).
ANCESTOR_LEVELS_DEFAULT = 5
#: A "long" block (running text, not a link list): at least this many words ...
LONG_BLOCK_WORDS_DEFAULT = 15  # about one sentence; jusText's LENGTH_LOW is 70 characters
#: ... and at most this link density.
LONG_BLOCK_LINK_DENSITY_DEFAULT = 0.3
#: Blocks on either side counted by the window features.
WINDOW_DEFAULT = 3
#: Offsets of the neighbouring blocks whose key features join a block's row.
NEIGHBOUR_OFFSETS_DEFAULT = (-2, -1, 1, 2)
#: Features copied from each neighbour (indices into TEXT_FEATURES).
NEIGHBOUR_FEATURES = ("log_words", "link_density", "stopword_ratio", "sentence_punct_per_word")
_NEIGHBOUR_INDEX = [TEXT_FEATURES.index(n) for n in NEIGHBOUR_FEATURES]
UNARY_FEATURE_NAMES = (
    *BLOCK_FEATURE_NAMES,
    *(f"n{o:+d}_{n}" for o in NEIGHBOUR_OFFSETS_DEFAULT for n in (*NEIGHBOUR_FEATURES, "same_parent")),
)
EDGE_FEATURE_NAMES = (
    "dist_1", "dist_2", "dist_3", "dist_4", "dist_gt4", "same_container", "log_gap",
    "gap_br", "gap_hr", "gap_heading", "link_diff", "log_words_diff",
)
_EDGE_INDEX = {name: i for i, name in enumerate(EDGE_FEATURE_NAMES)}

_SENT_RE = re.compile(r"[.!?](?:\s|$)")
_SEP_RE = re.compile(r"[|»›·•]")
#: ``str.translate`` table deleting the ASCII digits (counting digits of ASCII text fast).
_ASCII_DIGITS = str.maketrans("", "", "0123456789")


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


@lru_cache(maxsize=1024)
def _gap_flags(tags: frozenset[str]) -> tuple[bool, bool]:
    """Whether a block's gap tags hold a line break (``br``/``hr``) and a heading; a page's
    blocks share a handful of gap-tag sets, so this is computed once per set."""
    return "br" in tags or "hr" in tags, any(t[0] == "h" for t in tags)


def _subtree_sums(nodes: np.ndarray, *values: np.ndarray) -> list[np.ndarray]:
    """For each block, the sum of each of ``values`` over the blocks sharing its node.

    ``nodes`` is one column of node ids per block, or a ``levels × blocks``
    matrix: each row is then grouped on its own (the result is ``levels ×
    blocks`` per value), in one ``np.unique`` and one ``np.bincount`` per
    value for all rows.  Each group sums its blocks in block order either way,
    so the sums are the same floats as row by row.
    """
    if nodes.ndim == 1:
        _, inverse = np.unique(nodes, return_inverse=True)
        return [np.bincount(inverse, weights=v)[inverse] for v in values]
    levels, n = nodes.shape
    span = int(nodes.max()) - int(nodes.min()) + 1 if n else 1
    keys = (nodes - nodes.min() + span * np.arange(levels, dtype=nodes.dtype)[:, None]).ravel()
    _, inverse = np.unique(keys, return_inverse=True)
    return [np.bincount(inverse, weights=np.tile(v, levels))[inverse].reshape(levels, n)
            for v in values]


class BlockFields(NamedTuple):
    """What :func:`block_matrix` reads of each block, as arrays (one row per block)."""

    #: words, link words, characters, depth, gap, gap holds a br/hr, gap holds a heading.
    own: np.ndarray
    #: The path from the container up, cut or padded (with its root) to the ancestor levels + 1.
    paths: np.ndarray
    #: The container tag's column among :data:`CONTAINER_TAGS` (their count: another tag).
    containers: np.ndarray
    #: The ancestor-tag and class-keyword bit set (:func:`mask_bits`).
    masks: np.ndarray
    #: The node id above the container (-1 at the root), for the same-parent flags.
    parents: np.ndarray


def block_fields(blocks: Sequence[Block]) -> BlockFields:
    """The blocks' fields :func:`block_matrix` reads, in one pass of the C accelerator
    ``_blocktext`` when it is built (same numbers, ``tests/test_block_text.py``), else
    :func:`python_block_fields`."""
    if _blocktext is None or not isinstance(blocks, list):
        return python_block_fields(blocks)
    n, width = len(blocks), ANCESTOR_LEVELS_DEFAULT + 1
    fields = BlockFields(np.empty((n, 7)), np.empty((n, width), dtype=np.int64),
                         np.empty(n, dtype=np.int64), np.empty(n, dtype=np.uint64),
                         np.empty(n, dtype=np.int64))
    if _blocktext.block_fields(blocks, _CONTAINER_INDEX, len(CONTAINER_TAGS), width, *fields):
        return fields
    return python_block_fields(blocks)


def python_block_fields(blocks: Sequence[Block]) -> BlockFields:
    """:func:`block_fields` in Python (the reference the C accelerator is tested against)."""
    width = ANCESTOR_LEVELS_DEFAULT + 1
    own = np.array([(b.words, b.link_words, len(b.text), b.depth, b.gap, *_gap_flags(b.gap_tags))
                    for b in blocks], dtype=np.float64).reshape(len(blocks), 7)
    paths = np.array([(p + (p[-1],) * width)[:width] for p in (b.path for b in blocks)],
                     dtype=np.int64).reshape(len(blocks), width)
    containers = np.array([_CONTAINER_INDEX.get(b.container_tag, len(CONTAINER_TAGS))
                           for b in blocks], dtype=np.int64)
    masks = np.array([b.mask for b in blocks], dtype=np.uint64)
    parents = np.array([b.path[1] if len(b.path) > 1 else -1 for b in blocks], dtype=np.int64)
    return BlockFields(own, paths, containers, masks, parents)


def _ratios(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` elementwise, 0 where ``den`` is 0 (as :func:`_ratio`); also on
    matrices (many ratios in one call)."""
    out = np.zeros(np.shape(num), dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _text_columns(blocks: Sequence[Block], stopwords: frozenset[str]
                  ) -> Sequence[Sequence[float]]:
    """The per-block string statistics, one column per statistic: in the C accelerator
    ``_blocktext`` when it is built (same numbers, ``tests/test_block_text.py``), else
    :func:`python_text_columns`."""
    if _blocktext is None or not isinstance(stopwords, (set, frozenset)):
        return python_text_columns(blocks, stopwords)
    out = np.empty((len(blocks), 8), dtype=np.float64)
    _blocktext.text_columns([b.text for b in blocks], stopwords, out)
    return list(np.ascontiguousarray(out.T))


def python_text_columns(blocks: Sequence[Block], stopwords: frozenset[str]
                        ) -> list[list[float]]:
    """The per-block string statistics in Python, one list per statistic: upper-case
    initials, digits, sentence ends, ends with punctuation, commas, stopwords, copyright,
    separators (the reference the C accelerator is tested against)."""
    upper, digits, sentences, ends, commas, stops, copyright, seps = ([] for _ in range(8))
    is_stop = stopwords.__contains__
    for b in blocks:
        text = b.text
        lower = text.lower()
        upper.append(sum(1 for t in text.split() if t[0].isupper()))
        digits.append(len(text) - len(text.translate(_ASCII_DIGITS)) if text.isascii()
                      else sum(map(str.isdigit, text)))
        sentences.append(len(_SENT_RE.findall(text)))
        ends.append(float(text[-1] in ".!?\"'”)") if text else 0.0)
        commas.append(text.count(","))
        stops.append(sum(map(is_stop, lower.split())) if stopwords else 0)
        copyright.append(float("©" in text or "copyright" in lower))
        seps.append(min(len(_SEP_RE.findall(text)), 5) / 5)
    return [upper, digits, sentences, ends, commas, stops, copyright, seps]


def named_columns(columns: dict[str, np.ndarray], names: Sequence[str]) -> list[np.ndarray]:
    """The ``columns`` computed by name, in the order of ``names``; a column computed but
    not named, or named but not computed, is a bug in this module (ValueError)."""
    if set(columns) != set(names) or len(columns) != len(names):
        raise ValueError(f"feature columns computed {sorted(set(columns) - set(names))} "
                         f"without a name, named {sorted(set(names) - set(columns))} "
                         "without a value")
    return [columns[name] for name in names]


def mask_bits(blocks: Sequence[Block], masks: np.ndarray | None = None) -> np.ndarray:
    """The ``len(blocks) × (ancestor tags + class keywords)`` 0/1 matrix of the blocks' masks
    (``masks``: the blocks' masks already read, :class:`BlockFields`)."""
    if masks is None:
        masks = np.array([b.mask for b in blocks], dtype=np.uint64)
    return ((masks[:, None] >> np.arange(_N_MASK_BITS, dtype=np.uint64))
            & np.uint64(1)).astype(np.float32)


def clear_page_wide(bits: np.ndarray, share: float | None,
                    columns: slice = KEYWORD_BITS) -> np.ndarray:
    """Mask bits with each of ``columns`` (default: the class/id keyword bits) that at least
    ``share`` of the page's blocks carry set to 0.

    A class keyword on (nearly) every block of a page (the classes of
    ``<body class="... post comments footer-widgets ...">``) says nothing about
    which block is content, yet a model trained on raw bits reads it on every
    block as if it were the block's own: a "comment" or "footer" bit pulls the
    whole article down.  Cleared, the page's rows are those of the same page
    without the keyword, a kind of row the model was trained on, so no
    retraining is needed (unlike :func:`page_relative`, whose values are new to
    a raw-bit model).  Ancestor-tag bits are not cleared by default: a page laid
    out in one ``<table>`` or ``<form>`` is a layout the model has learned, and
    clearing them cost F1 and lost articles on the training pages
    (``benchmarks/results/learned.md``).  ``None`` (or a share above 1) leaves
    the bits as they are; ``bits`` itself is never changed.
    """
    if share is None or not len(bits):
        return bits
    wide = np.zeros(bits.shape[1], dtype=bool)
    wide[columns] = bits[:, columns].mean(axis=0) >= share
    if not wide.any():
        return bits
    out = bits.copy()
    out[:, wide] = 0.0
    return out


def page_relative(bits: np.ndarray) -> np.ndarray:
    """Mask bits relative to the page: each bit minus its share of the page's blocks.

    A class keyword or ancestor tag that most blocks of the page share (a
    ``<body class="... comments-hidden ...">``, a page laid out in one
    ``<table>`` or ``<form>``) says nothing about which block is content, yet
    as a raw bit it drags every block of the page the same way; relative to
    the page it is near 0 for all of them, while a keyword of few blocks keeps
    its contrast (near 1 on its blocks, near 0 elsewhere).
    """
    if not len(bits):
        return bits
    return bits - bits.mean(axis=0, keepdims=True)


def _text_matrix(blocks: Sequence[Block], stopwords: frozenset[str]) -> np.ndarray:
    """The per-block string statistics as a ``len(blocks) × 8`` float64 matrix (one row per
    block, the columns of :func:`python_text_columns`)."""
    if _blocktext is None or not isinstance(stopwords, (set, frozenset)):
        return np.array(python_text_columns(blocks, stopwords), dtype=np.float64).reshape(
            8, len(blocks)).T
    out = np.empty((len(blocks), 8), dtype=np.float64)
    _blocktext.text_columns([b.text for b in blocks], stopwords, out)
    return out


#: The text features the C accelerator computes, in its order (:func:`text_features`) ...
_C_COLUMNS = (
    "link_density", "mean_word_len", "upper_initial_ratio", "digit_ratio",
    "sentence_punct_per_word", "ends_with_punct", "comma_per_word", "stopword_ratio",
    "copyright", "separators", "gap_break", "gap_heading", "depth", "rel_depth", "rel_index",
    "rel_word_pos", "page_link_density", "window_long_share",
    *(f"up{k}_{f}" for k in range(1, ANCESTOR_LEVELS_DEFAULT + 1)
      for f in ("link_density", "share_of", "page_long_share")),
)
#: ... and those whose logarithm numpy takes of the arguments it writes, in their order.
_LOG_COLUMNS = (
    "log_words", "log_chars", "log_gap", "log_window_words", "log_page_words",
    "log_page_blocks", *(f"up{k}_log_words" for k in range(1, ANCESTOR_LEVELS_DEFAULT + 1)),
    *(f"up{k}_log_blocks" for k in range(1, ANCESTOR_LEVELS_DEFAULT + 1)),
)
if sorted(_C_COLUMNS + _LOG_COLUMNS) != sorted(TEXT_FEATURES):  # a bug in this module
    raise ImportError("block_features: the C text features do not cover TEXT_FEATURES")
_C_TARGETS = np.array([TEXT_FEATURES.index(c) for c in _C_COLUMNS], dtype=np.int64)
_LOG_TARGETS = np.array([TEXT_FEATURES.index(c) for c in _LOG_COLUMNS], dtype=np.int64)


def text_features(fields: BlockFields, text: np.ndarray) -> np.ndarray:
    """The ``len(blocks) × len(TEXT_FEATURES)`` float64 own, window, page and ancestor
    features from the blocks' fields and string statistics (:func:`_text_matrix`): in the C
    accelerator ``_blocktext`` when it is built (the same numbers, its logarithms taken by the
    same numpy call on the same layout; ``tests/test_block_text.py``), else
    :func:`python_text_features`."""
    if _blocktext is None:
        return python_text_features(fields, text)
    n, levels = len(text), ANCESTOR_LEVELS_DEFAULT
    out = np.empty((n, len(TEXT_FEATURES)), dtype=np.float64)
    log_args = np.empty((6 + 2 * levels, n), dtype=np.float64)
    _blocktext.text_features(np.ascontiguousarray(fields.own), np.ascontiguousarray(fields.paths),
                             np.ascontiguousarray(text, dtype=np.float64), levels,
                             WINDOW_DEFAULT, float(LONG_BLOCK_WORDS_DEFAULT),
                             LONG_BLOCK_LINK_DENSITY_DEFAULT, out, _C_TARGETS, log_args)
    out[:, _LOG_TARGETS] = np.log1p(log_args).T
    return out


def python_text_features(fields: BlockFields, text: np.ndarray) -> np.ndarray:
    """:func:`text_features` with numpy (the reference the C accelerator is tested against)."""
    n = len(text)
    f64 = np.float64
    # Contiguous columns, as numpy's vectorised loops (log1p ...) get them from a list.
    nw, links, chars, depth, gaps, gap_break, gap_heading = np.ascontiguousarray(fields.own.T)
    paths = fields.paths
    upper, digits, sentences, ends, commas, stops, copyright, seps = (
        np.asarray(c, dtype=f64) for c in np.ascontiguousarray(text.T))
    total_words = float(nw.sum())
    total_links = float(links.sum())
    max_depth = float(depth.max()) or 1.0
    long_words = np.where((nw >= LONG_BLOCK_WORDS_DEFAULT)
                          & (links <= LONG_BLOCK_LINK_DENSITY_DEFAULT * nw), nw, 0.0)
    total_long = float(long_words.sum())
    word_cum = np.concatenate([[0.0], np.cumsum(nw)])
    long_cum = np.concatenate([[0.0], np.cumsum(long_words)])
    idx = np.arange(n)
    lo = np.maximum(0, idx - WINDOW_DEFAULT)
    hi = np.minimum(n, idx + WINDOW_DEFAULT + 1)
    window = word_cum[hi] - word_cum[lo]
    levels = ANCESTOR_LEVELS_DEFAULT
    # Every ancestor level at once: rows are levels (see _subtree_sums).
    up_words, up_links, up_count, up_long = _subtree_sums(
        np.ascontiguousarray(paths[:, 1:levels + 1].T), nw, links, np.ones(n), long_words)
    # The ratios and logarithms in one numpy call each (elementwise: the same numbers).
    ratios = _ratios(
        np.vstack([links, chars - nw + 1, upper, digits, sentences, commas, stops,
                   word_cum[:-1], long_cum[hi] - long_cum[lo], up_links, np.broadcast_to(nw, (levels, n)),
                   up_long]),
        np.vstack([nw, nw, nw, chars, nw, nw, nw, np.full(n, total_words), window, up_words,
                   up_words, np.full((levels, n), total_long)]))
    (link_density, mean_word_len, upper_initial, digit_ratio, sentence_punct, comma_per_word,
     stopword_ratio, rel_word_pos, window_long) = ratios[:9]
    up_link_density, up_share, up_long_share = (ratios[9 + k * levels:9 + (k + 1) * levels]
                                                for k in range(3))
    logs = np.log1p(np.vstack([nw, chars, gaps, window, np.full(n, total_words),
                               np.full(n, float(n)), up_words, up_count]))
    log_words, log_chars, log_gap, log_window, log_page_words, log_page_blocks = logs[:6]
    up_log_words, up_log_blocks = logs[6:6 + levels], logs[6 + levels:]
    cols = {
        "log_words": log_words, "log_chars": log_chars,
        "link_density": link_density, "mean_word_len": mean_word_len,
        "upper_initial_ratio": upper_initial, "digit_ratio": digit_ratio,
        "sentence_punct_per_word": sentence_punct, "ends_with_punct": ends,
        "comma_per_word": comma_per_word, "stopword_ratio": stopword_ratio,
        "copyright": copyright, "separators": seps, "log_gap": log_gap,
        "gap_break": gap_break, "gap_heading": gap_heading,
        "depth": np.minimum(depth, 60) / 60, "rel_depth": depth / max_depth,
        "rel_index": idx / n, "rel_word_pos": rel_word_pos,
        "log_page_words": log_page_words,
        "log_page_blocks": log_page_blocks,
        "page_link_density": np.full(n, _ratio(total_links, total_words)),
        "log_window_words": log_window,
        "window_long_share": window_long,
    }
    for level in range(1, levels + 1):
        row = level - 1
        cols |= {f"up{level}_log_words": up_log_words[row],
                 f"up{level}_link_density": up_link_density[row],
                 f"up{level}_log_blocks": up_log_blocks[row], f"up{level}_share_of": up_share[row],
                 f"up{level}_page_long_share": up_long_share[row]}
    return np.column_stack(named_columns(cols, TEXT_FEATURES))


def block_matrix(blocks: Sequence[Block], stopwords: frozenset[str],
                 relative_masks: bool = False, page_wide_share: float | None = None,
                 fields: BlockFields | None = None) -> np.ndarray:
    """The ``len(blocks) × N_BLOCK_FEATURES`` matrix of own, ancestor and page features.

    ``relative_masks`` replaces the ancestor-tag and class-keyword bits by
    :func:`page_relative` values (``auto``); the raw bits otherwise.
    ``page_wide_share`` first clears the bits that share of the blocks carry
    (:func:`clear_page_wide`: class/id keywords only; None: none).  ``fields``: the
    blocks' :func:`block_fields` when already read.
    """
    n = len(blocks)
    out = np.zeros((n, N_BLOCK_FEATURES), dtype=np.float32)
    if n == 0:
        return out
    if fields is None:
        fields = block_fields(blocks)
    n_text = len(TEXT_FEATURES)
    idx = np.arange(n)
    out[:, :n_text] = text_features(fields, _text_matrix(blocks, stopwords))
    out[idx, n_text + fields.containers] = 1.0
    bits = clear_page_wide(mask_bits(blocks, fields.masks), page_wide_share)
    out[:, n_text + len(CONTAINER_TAGS) + 1:] = page_relative(bits) if relative_masks else bits
    return out


def with_neighbours(blocks: Sequence[Block], base: np.ndarray,
                    offsets: Sequence[int] = NEIGHBOUR_OFFSETS_DEFAULT,
                    parents: np.ndarray | None = None) -> np.ndarray:
    """Append each neighbour's key features (zeros past the ends) and a same-parent flag
    (``parents``: the blocks' :attr:`BlockFields.parents` when already read)."""
    n = len(blocks)
    cols = [base]
    if parents is None:
        parents = np.array([b.path[1] if len(b.path) > 1 else -1 for b in blocks],
                           dtype=np.int64)
    key = base[:, _NEIGHBOUR_INDEX] if n else np.zeros((0, len(_NEIGHBOUR_INDEX)), np.float32)
    for off in offsets:
        shifted = np.zeros((n, len(_NEIGHBOUR_INDEX) + 1), dtype=np.float32)
        if n and abs(off) < n:
            if off > 0:
                shifted[:-off, :-1] = key[off:]
                shifted[:-off, -1] = parents[:-off] == parents[off:]
            else:
                shifted[-off:, :-1] = key[:off]
                shifted[-off:, -1] = parents[-off:] == parents[:off]
        cols.append(shifted)
    return np.hstack(cols)


def unary_matrix(blocks: Sequence[Block], stopwords: frozenset[str],
                 relative_masks: bool = False, page_wide_share: float | None = None
                 ) -> np.ndarray:
    """Block features plus neighbour features: the input of the unary potentials
    (``relative_masks``, ``page_wide_share``: as in :func:`block_matrix`)."""
    fields = block_fields(blocks)
    return with_neighbours(blocks, block_matrix(blocks, stopwords, relative_masks,
                                                page_wide_share, fields),
                           parents=fields.parents)


def tree_distance(a: Block, b: Block) -> int:
    """Edges between the containers of two blocks through their lowest common ancestor."""
    return tree_distances((a,), b)[0]


def tree_distances(blocks: Sequence[Block], head: Block) -> list[int]:
    """:func:`tree_distance` of every block to ``head``: in the C accelerator ``_blocktext``
    when it is built (same numbers, ``tests/test_block_text.py``), else
    :func:`python_tree_distances`."""
    if _blocktext is not None:
        return _blocktext.tree_distances([b.path for b in blocks], head.path)
    return python_tree_distances(blocks, head)


def python_tree_distances(blocks: Sequence[Block], head: Block) -> list[int]:
    """:func:`tree_distances` in Python (``head``'s path indexed once)."""
    steps = {node: k for k, node in enumerate(head.path)}
    out = []
    for b in blocks:
        # Paths run from the container up to the root: the first of b's nodes on head's
        # path is the lowest common ancestor.
        for k, node in enumerate(b.path):
            if node in steps:
                out.append(k + steps[node])
                break
        else:
            out.append(len(b.path) + len(head.path))
    return out


def edge_matrix(blocks: Sequence[Block]) -> np.ndarray:
    """The ``(len(blocks) - 1) × len(EDGE_FEATURE_NAMES)`` features between neighbours."""
    n = max(len(blocks) - 1, 0)
    out = np.zeros((n, len(EDGE_FEATURE_NAMES)), dtype=np.float32)
    col = _EDGE_INDEX
    for i in range(n):
        a, b = blocks[i], blocks[i + 1]
        dist = min(max(tree_distance(a, b), 1), 5)
        out[i, col["dist_gt4" if dist == 5 else f"dist_{dist}"]] = 1.0
        out[i, col["same_container"]] = a.path[0] == b.path[0]
        out[i, col["log_gap"]] = math.log1p(b.gap)
        out[i, col["gap_br"]] = "br" in b.gap_tags
        out[i, col["gap_hr"]] = "hr" in b.gap_tags
        out[i, col["gap_heading"]] = any(t[0] == "h" for t in b.gap_tags)
        out[i, col["link_diff"]] = abs(_ratio(a.link_words, a.words)
                                       - _ratio(b.link_words, b.words))
        out[i, col["log_words_diff"]] = abs(math.log1p(a.words) - math.log1p(b.words))
    return out


def pair_matrix(unary: np.ndarray, edges: np.ndarray, columns: int | None = None) -> np.ndarray:
    """Input of the pairwise potentials: both blocks' unary rows (their first ``columns``
    columns, or all) and the edge features."""
    width = unary.shape[1] if columns is None else min(columns, unary.shape[1])
    if len(unary) < 2:
        return np.zeros((0, 2 * width + edges.shape[1]), dtype=np.float32)
    return np.hstack([unary[:-1, :width], unary[1:, :width], edges])


def _shingles(tokens: Sequence[str], n: int = 3) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def vote_matrix(blocks: Sequence[Block], outputs: Sequence[str]) -> np.ndarray:
    """For each base extractor output, the share of each block found in it (see module doc)."""
    out = np.zeros((len(blocks), len(outputs)), dtype=np.float32)
    for j, text in enumerate(outputs):
        tokens = text.split()
        if not tokens:
            continue
        grams = _shingles(tokens)
        vocab = set(tokens)
        padded = f" {' '.join(tokens)} "
        for i, b in enumerate(blocks):
            bt = b.text.split()
            if len(bt) >= 3:
                found = sum(1 for k in range(len(bt) - 2) if tuple(bt[k : k + 3]) in grams)
                out[i, j] = found / (len(bt) - 2)
            elif all(t in vocab for t in bt):
                out[i, j] = float(f" {' '.join(bt)} " in padded)
    return out


def unary_features(blocks: Sequence[Block], stopwords: frozenset[str],
                   relative_masks: bool = False, page_wide_share: float | None = None
                   ) -> NamedMatrix:
    """:func:`unary_matrix` with its column names (:data:`UNARY_FEATURE_NAMES`)."""
    return NamedMatrix(unary_matrix(blocks, stopwords, relative_masks, page_wide_share),
                       UNARY_FEATURE_NAMES)


def vote_features(blocks: Sequence[Block], outputs: Sequence[str],
                  voters: Sequence[str]) -> NamedMatrix:
    """:func:`vote_matrix` with one column ``vote_<extractor>`` per base extractor."""
    if len(voters) != len(outputs):
        raise ValueError(f"{len(outputs)} base outputs for the {len(voters)} voters {voters}")
    return NamedMatrix(vote_matrix(blocks, outputs), prefixed("vote_", voters))


def edge_features(blocks: Sequence[Block]) -> NamedMatrix:
    """:func:`edge_matrix` with its column names (:data:`EDGE_FEATURE_NAMES`)."""
    return NamedMatrix(edge_matrix(blocks), EDGE_FEATURE_NAMES)


def pair_features(unary: NamedMatrix, edges: NamedMatrix,
                  columns: Sequence[str] | None = None) -> NamedMatrix:
    """:func:`pair_matrix` of the unary ``columns`` (all when None) of both blocks
    (``left_``/``right_`` names) and the edge features."""
    chosen = unary.select(columns) if columns is not None else unary
    return NamedMatrix(pair_matrix(chosen.values, edges.values),
                       prefixed("left_", chosen.names) + prefixed("right_", chosen.names)
                       + edges.names)


__all__ = [
    "BLOCK_FEATURE_NAMES",
    "CONTAINER_TAGS",
    "EDGE_FEATURE_NAMES",
    "NEIGHBOUR_OFFSETS_DEFAULT",
    "N_BLOCK_FEATURES",
    "TEXT_FEATURES",
    "UNARY_FEATURE_NAMES",
    "KEYWORD_BITS",
    "MASK_COLUMNS",
    "TAG_BITS",
    "BlockFields",
    "block_fields",
    "block_matrix",
    "clear_page_wide",
    "edge_features",
    "edge_matrix",
    "mask_bits",
    "named_columns",
    "page_relative",
    "pair_features",
    "pair_matrix",
    "python_block_fields",
    "python_text_columns",
    "python_text_features",
    "python_tree_distances",
    "text_features",
    "tree_distance",
    "tree_distances",
    "unary_features",
    "unary_matrix",
    "vote_features",
    "vote_matrix",
    "with_neighbours",
]
