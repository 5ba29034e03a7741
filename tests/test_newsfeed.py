"""NewsFeed DOM heuristic: preprocessing, schema.org shortcut, algorithm 2.1, "no content"."""

from __future__ import annotations

import pytest
from lxml import etree

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.classic.newsfeed import (
    NewsFeedExtractor,
    content_bearing,
    fallback_block,
    preprocess,
)
from corpuscrawl.html.page import Page, parse_html

LONG = "This paragraph is long enough to carry content for the heuristic."  # 65 chars


@pytest.fixture
def fixtures(data_dir):
    return data_dir / "extractors"


def extract(path) -> str:
    return get_extractor("newsfeed").extract(Page.from_file(path))


def test_paywall_stub_has_no_content(fixtures):
    assert extract(fixtures / "newsfeed_paywall.html") == ""


def test_paragraphs_of_one_parent_with_short_one_between(fixtures):
    lines = extract(fixtures / "newsfeed_paragraphs.html").split("\n")
    assert lines[0].startswith("Apple growers in the valley")
    assert "Short one." in lines  # surrounded by two content-bearing paragraphs
    assert len(lines) == 4
    text = "\n".join(lines)
    assert "sidebar" not in text and "hidden" not in text and "caption" not in text


def test_article_body_markup_wins(fixtures):
    assert extract(fixtures / "newsfeed_schema.html") == "The article body.\nSecond line."


def test_preprocess_removes_hidden_suspicious_and_html5_asides():
    root = parse_html("<body><aside>a</aside><figure>f</figure><div style='display: none'>h</div>"
                      "<div class='social-links'>s</div><div id='main-nav'>n</div>"
                      "<div class='navigator'>kept</div>tail</body>")
    preprocess(root)
    assert root.find("body").text_content() == "kepttail"


def test_tag_rich_paragraph_is_not_content_bearing():
    root = parse_html(f"<body><p>{LONG}</p><p><b>a</b><i>b</i><u>c</u>{LONG}</p></body>")
    # 65+ chars allow 2 nested tags (one per 30 characters), not 3.
    assert [p.text_content()[:4] for p in content_bearing(root)] == ["This"]


def test_constants_are_the_seeds():
    ex = NewsFeedExtractor()
    assert (ex.c_p, ex.c_t, ex.c_sum) == (40, 30, 350)


def test_fallback_takes_a_text_rich_div_when_no_paragraphs_qualify():
    text = " ".join([LONG.replace("This paragraph", "A line")] * 7)
    root = parse_html(f"<body><div><div>{text}<br>{text}</div><a href='#'>x</a></div></body>")
    block = fallback_block(root)
    assert block is not None and block.getparent().tag == "div"  # the innermost, last one
    assert get_extractor("newsfeed").extract(Page.from_html(etree.tostring(root))).startswith("A line")


def test_fallback_refuses_link_lists():
    # 30 links of ~16 characters: over C_Σ = 350 characters, but under C_T = 30 per link.
    links = "".join(f"<a href='/{i}'>Link headline {i:02d} </a>" for i in range(30))
    assert get_extractor("newsfeed").extract(Page.from_html(f"<body><div>{links}</div></body>")) == ""


def test_shared_tree_untouched(fixtures):
    page = Page.from_file(fixtures / "newsfeed_paragraphs.html")
    before = etree.tostring(page.tree), etree.tostring(page.clean_tree)
    get_extractor("newsfeed").extract(page)
    assert (etree.tostring(page.tree), etree.tostring(page.clean_tree)) == before
