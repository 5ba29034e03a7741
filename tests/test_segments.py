"""The thesis' div/table segmentation (Bakić's thesis §6.3.4) on hand-written pages."""

from __future__ import annotations

from corpuscrawl.extract.segment.segments import segment_page, segment_tree
from corpuscrawl.html.page import Page


def texts(page: Page) -> list[str]:
    return [s.text for s in segment_page(page)]


def test_div_children_become_segments_and_the_big_div_is_analysed(data_dir):
    page = Page.from_file(data_dir / "learned" / "segments.html")
    assert texts(page) == [
        "Site name Home",
        "Title of the story\nFirst paragraph with quite a lot of words so that the main div "
        "holds more than half of all the text of this page.",
        "A quoted box",
        "Second paragraph continues the story with more words about the river.",
        "Cell one\nCell two",
        "Footer text",
    ]


def test_table_cells_are_segments_and_the_big_cell_is_analysed(data_dir):
    page = Page.from_file(data_dir / "learned" / "table_layout.html")
    assert texts(page) == [
        "Town News",
        "Menu Home News",
        "The long article text sits in this cell and it is clearly longer than half of the "
        "text of the whole page, which makes the table analysis recurse into it.",
        "An inner box",
        "Closing words of the article.",
        "Header cell",
        "Small cell",
    ]


def test_segment_html_is_the_outer_html_of_its_nodes(data_dir):
    page = Page.from_file(data_dir / "learned" / "segments.html")
    segments = segment_page(page)
    assert segments[2].html.startswith('<div class="quote">A quoted box</div>')
    assert segments[0].words == ["Site", "name", "Home"]


def test_loose_text_joins_the_buffer_and_no_text_gives_no_segment():
    page = Page.from_html("<body>intro <b>bold</b><div>box</div>tail</body>")
    assert texts(page) == ["intro bold", "box", "tail"]
    assert segment_tree(Page.from_html("<body><div> </div></body>").clean_tree) == []


def test_page_tree_is_not_modified(data_dir):
    page = Page.from_file(data_dir / "learned" / "segments.html")
    before = page.html
    from lxml import etree
    snapshot = etree.tostring(page.clean_tree)
    segment_page(page)
    assert etree.tostring(page.clean_tree) == snapshot and page.html == before
