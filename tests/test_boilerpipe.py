"""boilerpipe: the seed's decision tree and the article heuristics."""

from __future__ import annotations

import pytest

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.extract.classic.boilerpipe import (
    END_OF_TEXT,
    BoilerpipeArticleExtractor,
    classify_words_tree,
    fuse_proximity,
    is_end_marker,
)
from corpuscrawl.extract.segment.blocks import TextBlock
from corpuscrawl.html.page import Page


def block(words: int, link_words: int = 0, offset: int = 0, text: str = "") -> TextBlock:
    return TextBlock([text or " ".join(["w"] * words)], words, link_words, words, 1, 0,
                     offset, offset)


@pytest.fixture
def fixtures(data_dir):
    return data_dir / "extractors"


def sentence(n: int) -> str:
    return " ".join(f"word{i}" for i in range(n))


def test_tree_link_density_above_a_third_is_boilerplate():
    assert not classify_words_tree(None, block(100, 34), None)
    assert classify_words_tree(None, block(100, 33), None)


def test_tree_short_block_between_two_content_blocks_is_content():
    assert classify_words_tree(block(30), block(8), block(30))


def test_tree_short_block_with_short_neighbours_depends_on_previous_words():
    assert not classify_words_tree(block(4), block(8), block(15))
    assert classify_words_tree(block(5), block(8), block(15))
    assert classify_words_tree(block(4), block(17), block(15))  # more than 16 words


def test_tree_after_a_link_heavy_block():
    nav = block(10, 6)  # link density 0.6 > 0.555556
    assert not classify_words_tree(nav, block(40), block(17))
    assert classify_words_tree(nav, block(40), block(18))
    assert classify_words_tree(nav, block(41), block(0))


def test_page_keeps_short_block_only_between_content_blocks():
    html = (f"<body><p>{sentence(30)}</p><p>Short middle block here.</p><p>{sentence(30)}</p>"
            f"<p>Tags: politics</p><p>Share this story</p></body>")
    text = get_extractor("boilerpipe-default").extract(Page.from_html(html)).split("\n")
    assert "Short middle block here." in text
    assert "Tags: politics" in text  # previous block has more than 4 words
    assert "Share this story" not in text  # previous block has at most 4 words


def test_default_keeps_comments_article_cuts_them(fixtures):
    page = Page.from_file(fixtures / "article_comments.html")
    default = get_extractor("boilerpipe-default").extract(page)
    article = get_extractor("boilerpipe-article").extract(page)
    assert "my children have been waiting" in default
    assert "my children have been waiting" not in article
    assert "3 comments" not in article
    assert "Town council approves the new library" in article  # the title block
    assert "funded by a regional grant" in article


def test_end_markers():
    assert is_end_marker(block(2, text="3 comments"))
    assert is_end_marker(block(3, text="Post a comment"))
    assert is_end_marker(block(4, text="Add your comment below"))
    assert not is_end_marker(block(2, text="Comment"))  # under 8 characters
    assert not is_end_marker(block(20, text="comments " + sentence(19)))


def test_article_keeps_only_the_largest_block(data_dir):
    html = (f"<body><div><p>{sentence(30)}</p></div>"
            + "".join(f"<li><a href='/{i}'>menu item {i}</a></li>" for i in range(6))
            + f"<div><p>{sentence(80)}</p><p>{sentence(40)}</p></div></body>")
    blocks = BoilerpipeArticleExtractor().blocks(Page.from_html(html))
    kept = [b for b in blocks if b.is_content]
    assert len(kept) == 1 and kept[0].words >= 120


def test_proximity_fusion_bridges_one_removed_block():
    a, b, c = block(10, offset=0), block(10, offset=2), block(10, offset=5)
    for x in (a, b, c):
        x.is_content = True
    fused = fuse_proximity([a, b, c], content_only=True)
    assert len(fused) == 2 and fused[0].words == 20


def test_end_marker_needs_enough_content_before(fixtures):
    html = f"<body><p>Comments are welcome</p><p>{sentence(40)}</p></body>"
    text = get_extractor("boilerpipe-article").extract(Page.from_html(html))
    assert sentence(40) in text
    page = Page.from_html(html)
    blocks = BoilerpipeArticleExtractor().blocks(page)
    assert not any(END_OF_TEXT in b.labels and b.is_content for b in blocks[1:])


def test_density_tree_option_and_bad_option():
    page = Page.from_html(f"<body><p>{sentence(50)}</p><p>{sentence(40)}</p></body>")
    # The library's density tree drops a dense block whose next block is empty (the end).
    assert get_extractor("boilerpipe-default", tree="density").extract(page) == sentence(50)
    assert get_extractor("boilerpipe-default").extract(page) == f"{sentence(50)}\n{sentence(40)}"
    with pytest.raises(ExtractorError, match="known: words, density"):
        get_extractor("boilerpipe-default", tree="nope")


@pytest.mark.parametrize("name", ["boilerpipe-default", "boilerpipe-article"])
def test_empty_page_and_shared_tree_untouched(name, fixtures):
    assert get_extractor(name).extract(Page.from_html("")) == ""
    page = Page.from_file(fixtures / "article.html")
    from lxml import etree
    before = etree.tostring(page.tree), etree.tostring(page.clean_tree)
    get_extractor(name).extract(page)
    assert (etree.tostring(page.tree), etree.tostring(page.clean_tree)) == before
