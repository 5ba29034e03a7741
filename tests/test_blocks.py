"""Text blocks and their shallow features (boilerpipe's block model), and main-unit selection."""

from __future__ import annotations

from corpuscrawl.extract.segment.blocks import (
    CoherentText,
    TextBlock,
    segment_kind,
    select_main,
    text_blocks,
)
from corpuscrawl.html.page import Page


def blocks_of(html: str) -> list[TextBlock]:
    page = Page.from_html(html)
    return text_blocks(page.clean_tree.find("body"))


def test_inline_tags_do_not_split_a_block_but_block_tags_do():
    blocks = blocks_of("<body><p>One <b>two</b> <a href='#'>three four</a></p><div>five</div></body>")
    assert [b.text for b in blocks] == ["One two three four", "five"]
    assert blocks[0].words == 4 and blocks[0].link_words == 2
    assert blocks[0].link_density == 0.5


def test_br_ends_a_block_like_any_unknown_tag():
    assert [b.text for b in blocks_of("<body><p>first line<br>second line</p></body>")] == [
        "first line", "second line"]


def test_words_without_letters_or_digits_do_not_count():
    (block,) = blocks_of("<body><p>Hello - world | 2024</p></body>")
    assert block.words == 3


def test_text_density_excludes_the_last_wrapped_line():
    text = " ".join(["word"] * 40)  # 40 five-char tokens: 16 per 80-column line -> 16, 16, 8
    (block,) = blocks_of(f"<body><p>{text}</p></body>")
    assert block.wrapped_lines == 2
    assert block.text_density == 16


def test_short_block_density_is_its_word_count():
    (block,) = blocks_of("<body><p>three short words</p></body>")
    assert block.text_density == 3


def test_ignored_elements_and_adjacent_text_are_glued_correctly():
    blocks = blocks_of("<body><p>a<b>b</b>c <select><option>x</option></select></p></body>")
    assert [b.text for b in blocks] == ["abc"]


def test_heading_blocks_are_labelled():
    blocks = blocks_of("<body><h2><span>Title here</span></h2><p>text</p></body>")
    assert "heading" in blocks[0].labels and "heading" not in blocks[1].labels


def test_merge_next_adds_features_and_keeps_lines():
    a, b = blocks_of("<body><p>one two</p><p><a href='#'>three</a></p></body>")
    a.merge_next(b)
    assert a.text == "one two\nthree" and a.words == 3 and a.link_words == 1
    assert a.offset == 0 and a.offset_end == 1


def test_segment_kind():
    assert segment_kind(10, 8, True) == "links"
    assert segment_kind(60, 5, True) == "body"
    assert segment_kind(12, 3, True) == "teaser"
    assert segment_kind(12, 0, False) == "text"


def test_select_main_keeps_best_and_comparable_link_poor_units():
    units = [CoherentText("a", "body", "/a", 0, 100, 0), CoherentText("b", "body", "/b", 0, 60, 2),
             CoherentText("c", "text", "/c", 0, 10, 0), CoherentText("d", "links", "/d", 0, 80, 70)]
    assert [u.text for u in select_main(units)] == ["a", "b"]
    assert select_main([]) == []
