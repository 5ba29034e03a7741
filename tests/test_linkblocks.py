"""Link-position rules (Dorosz's coherent-text paper §3.2): link structures, teasers, inline links, coherent texts."""

from __future__ import annotations

import pytest
from lxml import etree

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.extract.classic.linkblocks import coherent_texts, segments, structural_links
from corpuscrawl.html.page import Page, parse_html


@pytest.fixture
def fixtures(data_dir):
    return data_dir / "extractors"


def test_each_link_of_a_pure_link_structure_is_its_own_unit(fixtures):
    segs = segments(Page.from_file(fixtures / "portal.html"))
    menu = [s for s in segs if s.xpath.startswith("/html/body/div[1]")]
    assert [s.text for s in menu] == ["WWW", "Katalog", "Zdjęcia", "Zakupy", "Ogłoszenia",
                                      "Encyklopedia"]
    assert {s.kind for s in menu} == {"links"}


def test_link_with_teaser_inside_a_link_structure_is_one_unit(fixtures):
    segs = segments(Page.from_file(fixtures / "portal.html"))
    teasers = [s for s in segs if s.kind == "teaser"]
    assert len(teasers) == 3
    assert teasers[0].text == ("Polskie kino nie jest złe\nW ciągu ostatniego roku młodzi "
                               "polscy filmowcy wielokrotnie pozytywnie zaskakiwali widzów")
    assert teasers[0].xpath == "/html/body/div[2]/div[1]/div[1]"


def test_inline_links_inside_running_text_are_not_structural():
    root = parse_html("<body><p>See the <a href='/a'>report</a> for details, or "
                      "<a href='/b'>read more</a></p><ul><li><a href='/c'>Menu</a></li></ul></body>")
    assert sorted(a.text for a in structural_links(root)) == ["Menu", "read more"]


def test_links_above_long_text_bound_it(fixtures):
    page = Page.from_file(fixtures / "article.html")
    body = [s for s in segments(page) if s.kind == "body"]
    assert len(body) == 1 and body[0].xpath == "/html/body/div[2]/div[1]"
    assert "Home" not in body[0].text and "programme" in body[0].text  # inline link kept
    assert get_extractor("linkblocks").extract(page) == body[0].text


def test_text_between_link_bearing_children_is_aggregated():
    html = ("<body><div><p>First part of the text.</p><p>Second part.</p>"
            "<ul><li><a href='/1'>one</a></li><li><a href='/2'>two</a></li></ul>"
            "<p>After the links.</p></div></body>")
    texts = [(s.kind, s.text) for s in segments(Page.from_html(html))]
    assert texts == [("text", "First part of the text.\nSecond part."), ("links", "one"),
                     ("links", "two"), ("text", "After the links.")]


def test_coherent_texts_for_the_exporter(fixtures):
    page = Page.from_file(fixtures / "portal.html")
    docs = coherent_texts(page)
    assert [kind for kind, _ in docs] == ["teaser", "teaser", "teaser"]
    assert coherent_texts(page, kinds=("links",), min_words=3)[0] == (
        "links", "Biskupi walczą z rządem")
    assert coherent_texts(page, method="energy", kinds=("text", "body"), min_words=10)
    with pytest.raises(ExtractorError, match="linkblocks, energy"):
        coherent_texts(page, method="vips")


def test_empty_page_and_shared_tree_untouched(fixtures):
    assert get_extractor("linkblocks").extract(Page.from_html("")) == ""
    page = Page.from_file(fixtures / "portal.html")
    before = etree.tostring(page.tree), etree.tostring(page.clean_tree)
    get_extractor("linkblocks").extract(page)
    assert (etree.tostring(page.tree), etree.tostring(page.clean_tree)) == before
