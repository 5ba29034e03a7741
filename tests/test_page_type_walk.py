"""The page-type features' walk in C gives exactly the Python walk's features.

The accelerator (``corpuscrawl/extract/page_typing/_ptwalk.pyx``, Cython) counts tags,
class-word families, words by where they sit, the longest paragraph and prices over
libxml2's nodes.  When it is built these tests fail (they do not fall back) if any feature
differs from the Python walk's (``page_type_features(page, native=False)``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpuscrawl.extract.page_typing import page_type_features as ptf
from corpuscrawl.html.page import Page

_ptwalk = pytest.importorskip("corpuscrawl.extract.page_typing._ptwalk",
                              reason="the optional C accelerator is not built")

DATA = Path(__file__).parent / "data"

TRICKY = [
    # comments and PIs: their tails are text, their content is not
    "<p>one <!-- a comment two three --> four<?pi x?> five</p>",
    # skipped elements: tag and class counted, no text below, their tail counted
    "<div class='post-body'><script class='cart'>var a = 1;</script> after <style>p{}</style>"
    "<noscript><p>hidden words</p></noscript> tail</div>",
    # nested share tags count once; words inside links inside list items
    "<ul><li><a href='/x'>link words <a>inner</a></a> rest</li><li><p>in p <p>deeper</p></p></li>"
    "</ul><table><tr><td>cell $5 and 10 € and 3,50 zł</td></tr></table>",
    # class/id tokens: white space, underscores, hyphens, digits, upper case, non-ASCII
    "<div class='Product-Item  price_box load-more' id='doc2toc'><span class='carté  Card'>"
    "x</span><i class='\u00a0review\u2003stars' id='İtem'>y</i><b class='__post__' id=''>z</b>"
    "<em class='signature-v2 api_ref'>w</em></div>",
    # words: underscores, digits, non-Latin scripts, ideographs, full-width digits
    "<p>snake_case ２０２４ word-with-dash Ελληνικά 漢字テキスト ١٢٣ $ 5 ₹100</p><p></p><p>   </p>",
    # an empty body
    "",
]


def assert_same(page: Page) -> None:
    native = ptf.page_type_features(page, native=True)
    python = ptf.page_type_features(page, native=False)
    assert native == python, {k: (native[k], python[k]) for k in native
                              if native[k] != python[k]}


@pytest.mark.parametrize("body", TRICKY)
def test_tricky_trees(body: str) -> None:
    page = Page.from_html(f"<html><head><title>t</title></head><body>{body}</body></html>",
                          "https://shop.example/products/item-2")
    assert ptf._ptwalk is _ptwalk
    assert_same(page)


@pytest.mark.parametrize("html", [
    "<html><head><meta property='OG:Type' content=' Product '><meta property='og:type'>"
    "<script type='application/LD+JSON'>{\"@type\": [\"Product\", \"Offer\"]}</script>"
    "<script type='application/ld+json'></script><!-- c --><link rel='x'></head>"
    "<body itemscope itemtype='https://schema.org/ItemList http://schema.org/Thing/'>"
    "<div itemtype=''>x</div><script type='text/javascript'>{\"@type\": \"Article\"}</script>"
    "</body></html>",
    "<p>no head, no body element</p>",
    "<html><head></head><body><head><title>a second head</title></head></body></html>",
])
def test_the_head_and_structured_data(html: str) -> None:
    assert_same(Page.from_html(html, "https://shop.example/p/1"))
    native = _ptwalk.document_parts(Page.from_html(html).tree)
    assert native is not None
    assert native == ptf._document_parts(Page.from_html(html).tree)


def test_every_html_fixture() -> None:
    files = sorted(DATA.rglob("*.htm*"))
    assert len(files) > 20
    for path in files:
        assert_same(Page.from_file(path, url="https://example.org/blog/2024/05/post"))


def test_a_tree_deeper_than_the_recursion_limit() -> None:
    html = "<html><body>" + "<div class='card'>" * 5000 + "<p>deep words</p>" + "</div>" * 5000
    assert_same(Page.from_html(html + "</body></html>", "https://example.org/a"))


def test_the_class_families_of_the_c_walk_and_python() -> None:
    values = ["Product-Item price_box", "load-more", "x-post_content", "ÜBER card",
              "docs\tapi\nnote", "grid12 tile-3", "", " _ "]
    for value in values:
        page = Page.from_html(f"<html><body><div class='{value}'>w</div></body></html>")
        assert_same(page)
