"""Block features: clearing the class/id keyword bits that (nearly) every block of a page carries."""

from __future__ import annotations

import numpy as np

from corpuscrawl.extract.learned.block_features import (
    BLOCK_FEATURE_NAMES,
    MASK_COLUMNS,
    TAG_BITS,
    block_matrix,
    clear_page_wide,
    mask_bits,
)
from corpuscrawl.extract.segment.cdom import page_blocks
from corpuscrawl.html.page import Page

STOP = frozenset({"the", "a", "of", "and", "to", "in", "is", "it"})
BODY = """<div id="masthead"><a href="/">Home</a> <a href="/tech">Tech</a></div>
<div class="entry-content">
<h1>How to keep a sourdough starter alive</h1>
<p>A starter is a culture of yeast and bacteria that lives in flour and water.</p>
<p>Feed it every day and it will rise and fall in the jar like a slow tide.</p>
<p>Keep it in the fridge when you bake only once a week, and feed it the day before.</p>
</div>
<div class="sidebar"><a href="/a">Most read</a> <a href="/b">Newsletter</a></div>
<div id="footer">Copyright 2026 Example Media</div>"""
#: The same page with the keywords on ``<body>`` (as lifehacker's), on every block.
PAGE_WIDE = f'<html><body class="post comments footer-widgets has-ads">{BODY}</body></html>'
PLAIN = f"<html><body>{BODY}</body></html>"
NAMES = BLOCK_FEATURE_NAMES[MASK_COLUMNS]


def _bits(html: str) -> np.ndarray:
    return mask_bits(page_blocks(Page.from_html(html)))


def column(name: str) -> int:
    return NAMES.index(name)


def test_page_wide_keywords_are_cleared_and_block_keywords_kept() -> None:
    bits = _bits(PAGE_WIDE)
    for name in ("class_post", "class_comment", "class_footer", "class_ad", "class_widget"):
        assert bits[:, column(name)].all(), name  # the body gives every block the keyword
    cleared = clear_page_wide(bits, 0.95)
    for name in ("class_post", "class_comment", "class_footer", "class_ad", "class_widget"):
        assert not cleared[:, column(name)].any(), name
    # The keywords of some blocks only stay as they were.
    for name in ("class_content", "class_entry", "class_side", "class_header"):
        assert (cleared[:, column(name)] == bits[:, column(name)]).all(), name
        assert 0 < bits[:, column(name)].sum() < len(bits), name
    assert bits[:, column("class_post")].all()  # the input is not changed


def test_cleared_rows_equal_those_of_the_page_without_the_keywords() -> None:
    """What the model reads on the cleared page is what it reads on the plain page, except
    for the one keyword ("footer") that a block of its own also carries."""
    wide = page_blocks(Page.from_html(PAGE_WIDE))
    plain = page_blocks(Page.from_html(PLAIN))
    assert [b.text for b in wide] == [b.text for b in plain]
    a = block_matrix(wide, STOP, page_wide_share=0.95)
    b = block_matrix(plain, STOP)
    footer = MASK_COLUMNS.start + column("class_footer")
    keep = [i for i in range(a.shape[1]) if i != footer]
    assert np.array_equal(a[:, keep], b[:, keep])
    assert not np.array_equal(block_matrix(wide, STOP)[:, keep], b[:, keep])


def test_a_page_without_page_wide_bits_is_unchanged() -> None:
    bits = _bits(PLAIN)
    assert not (bits.mean(axis=0) >= 0.95).any()
    assert clear_page_wide(bits, 0.95) is bits
    blocks = page_blocks(Page.from_html(PLAIN))
    assert np.array_equal(block_matrix(blocks, STOP, page_wide_share=0.95),
                          block_matrix(blocks, STOP))


def test_page_wide_ancestor_tags_are_kept_unless_asked_for() -> None:
    """A page laid out in one table: every block is in_table, a layout the model knows."""
    bits = _bits(f"<html><body><table><tr><td>{BODY}</td></tr></table></body></html>")
    assert bits[:, column("in_table")].all() and bits[:, column("in_td")].all()
    cleared = clear_page_wide(bits, 0.98)
    assert cleared[:, column("in_table")].all() and cleared[:, column("in_td")].all()
    both = clear_page_wide(bits, 0.98, slice(0, len(NAMES)))
    assert not both[:, column("in_table")].any()
    assert clear_page_wide(bits, 0.98, TAG_BITS)[:, column("in_td")].sum() == 0


def test_share_none_or_above_one_leaves_every_bit() -> None:
    bits = _bits(PAGE_WIDE)
    assert clear_page_wide(bits, None) is bits
    assert clear_page_wide(bits, 1.01) is bits
    empty = np.zeros((0, len(NAMES)), dtype=np.float32)
    assert clear_page_wide(empty, 0.9) is empty


def test_share_is_a_share_of_blocks() -> None:
    bits = np.zeros((10, len(NAMES)), dtype=np.float32)
    first, second = column("class_article"), column("class_content")
    bits[:9, first] = 1  # 90 % of the blocks
    bits[:, second] = 1  # all of them
    assert clear_page_wide(bits, 0.95)[:, first].sum() == 9
    assert clear_page_wide(bits, 0.95)[:, second].sum() == 0
    assert clear_page_wide(bits, 0.9)[:, first].sum() == 0


def test_subtree_sums_of_all_levels_at_once_equal_level_by_level():
    from corpuscrawl.extract.learned.block_features import _subtree_sums

    rng = np.random.default_rng(7)
    for n in (1, 2, 17, 200):
        nodes = rng.integers(0, max(2, n // 3), size=(5, n))
        values = [rng.random(n) * 10 ** rng.integers(0, 6), np.ones(n)]
        together = _subtree_sums(nodes, *values)
        for row in range(5):
            alone = _subtree_sums(nodes[row], *values)
            for a, b in zip(together, alone, strict=True):
                assert a[row].tobytes() == b.tobytes()
