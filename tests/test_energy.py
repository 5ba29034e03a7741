"""Node energy (Dorosz's coherent-text paper §3.1): formula, descent, coverage, and portal splitting."""

from __future__ import annotations

import pytest
from lxml import etree

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.extract.classic.energy import (
    EnergyExtractor,
    assign_energies,
    build,
    coherent_nodes,
    retention,
    segments,
    units,
)
from corpuscrawl.html.page import Page, parse_html


@pytest.fixture
def fixtures(data_dir):
    return data_dir / "extractors"


def test_energy_formula_sums_children_times_retention():
    root = parse_html("<body><div><p>abcd</p><p>ab</p></div></body>").find("body")
    top, post, height = build(root)
    assert height == 4  # body > div > p > text
    assign_energies(post, 0.5)
    div = top.children[0]
    assert [c.energy for c in div.children] == [2.0, 1.0]  # r * m(text)
    assert div.energy == 1.5 and top.energy == 0.75


def test_retention_follows_the_prose_high_trees_dissipate_less():
    assert retention(10, 6) == pytest.approx(0.4)
    assert retention(30, 6) == pytest.approx(0.8)
    assert retention(3, 6) == 0.3  # clamped for very shallow trees


def test_descent_stops_where_no_child_has_more_energy():
    root = parse_html("<body><div><div><p>one two three</p><p>four five six</p></div></div>"
                      "</body>").find("body")
    top, post, _ = build(root)
    assign_energies(post, 0.8)
    found = coherent_nodes(top)
    # the inner div: two equal paragraphs, 0.8 * (a + a) > a, while each wrapper has one child
    assert len(found) == 1 and found[0].element.tag == "div"
    assert found[0].element.getparent().tag == "div"


def test_coherent_units_cover_every_word_once(fixtures):
    page = Page.from_file(fixtures / "portal.html")
    total = sum(len(t.split()) for t in page.clean_tree.find("body").xpath(".//text()"))
    assert sum(u.words for u in units(page)) == total


def test_portal_front_page_splits_into_many_units(fixtures):
    page = Page.from_file(fixtures / "portal.html")
    segs = segments(page)
    assert len(segs) >= 6
    texts = [s.text for s in segs]
    assert any("Polskie kino" in t for t in texts)
    assert not any("Polskie kino" in t and "Przedostatni" in t for t in texts)
    menu = [s for s in segs if "WWW" in s.text]
    assert menu and menu[0].kind == "links"


def test_article_page_keeps_the_article_as_one_unit(fixtures):
    page = Page.from_file(fixtures / "article.html")
    body = [s for s in segments(page) if s.kind == "body"]
    assert len(body) == 1
    assert body[0].text.startswith("Lighthouse keepers return")
    assert body[0].xpath == "/html/body/div[2]/div[1]"
    text = get_extractor("energy").extract(page)
    assert text == body[0].text


def test_text_node_units_point_to_their_text():
    page = Page.from_html("<body><div>lonely words here<p>" + "long paragraph text " * 20
                          + "</p></div></body>")
    paths = [s.xpath for s in segments(page)]
    assert "/html/body/div/text()[1]" in paths


def test_options_and_empty_page():
    assert get_extractor("energy").extract(Page.from_html("")) == ""
    assert EnergyExtractor(metric="words").extract(Page.from_html("<p>a b c</p>")) == "a b c"
    with pytest.raises(ExtractorError, match="chars, words"):
        EnergyExtractor(metric="bytes")


def test_shared_tree_untouched(fixtures):
    page = Page.from_file(fixtures / "portal.html")
    before = etree.tostring(page.tree), etree.tostring(page.clean_tree)
    segments(page)
    get_extractor("energy").extract(page)
    assert (etree.tostring(page.tree), etree.tostring(page.clean_tree)) == before
