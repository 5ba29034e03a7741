"""The collapsed-DOM walk in C gives exactly the Python walk's blocks, and is in use when built.

The accelerator (``corpuscrawl/extract/segment/_cdom.pyx``, Cython) reads libxml2's nodes
through lxml's public Cython API (``etreepublic.pxd``, ``tree.pxd``).  When it is built, these tests fail (they do not fall back) if its blocks
differ from :func:`corpuscrawl.extract.segment.cdom.python_tree_blocks` on any tree, or if
it is not in use although the running lxml and libxml2 are the ones it was built against
(another release is refused: here, and in ``tests/test_accelerator_fallbacks.py``).
"""

from __future__ import annotations

import lxml.html
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from corpuscrawl.extract.segment import cdom
from corpuscrawl.html.page import Page

_cdom = pytest.importorskip("corpuscrawl.extract.segment._cdom",
                            reason="the optional C accelerator is not built")


def c_blocks(root: etree._Element) -> list[cdom.Block] | None:
    """The C walk's blocks (None when it hands the tree to the Python walk)."""
    return _cdom.tree_blocks(root, cdom.Block, cdom.DROPPED_TAGS_DEFAULT, cdom.INLINE_TAGS,
                             cdom.BREAK_TAGS_DEFAULT, cdom.TAG_BIT, cdom.keyword_alternatives(),
                             cdom._HIDDEN_STYLE_RE.search)


def assert_same(root: etree._Element) -> list[cdom.Block]:
    """The C walk covers ``root`` and gives the Python walk's blocks, field by field."""
    expected = cdom.python_tree_blocks(root)
    got = c_blocks(root)
    assert got is not None, "the C walk handed an HTML tree back to Python"
    assert [type(b) for b in got] == [cdom.Block] * len(expected)
    assert got == expected
    return got


def body_of(html: str) -> etree._Element:
    """The walk's root for ``html`` in the page's cleaned tree."""
    root = Page.from_html(html, "http://example.com/").clean_tree
    body = root.find("body")
    return body if body is not None else root


def assert_same_page(html: str) -> list[cdom.Block]:
    """The C walk over the page's parsed tree (read as if cleaned) gives the Python walk's
    blocks of the cleaned tree, and so does :func:`cdom.page_blocks`."""
    page = Page.from_html(html, "http://example.com/")
    root = page.clean_tree
    body = root.find("body")
    expected = cdom.python_tree_blocks(body if body is not None else root)
    raw = _cdom.tree_blocks(page.body, cdom.Block, cdom.DROPPED_TAGS_DEFAULT, cdom.INLINE_TAGS,
                            cdom.BREAK_TAGS_DEFAULT, cdom.TAG_BIT, cdom.keyword_alternatives(),
                            cdom._HIDDEN_STYLE_RE.search, cdom._REMOVED_TAGS)
    assert raw is not None, "the C walk handed an HTML page back to Python"
    assert raw == expected
    assert cdom.page_blocks(Page.from_html(html, "http://example.com/")) == expected
    assert_same(body if body is not None else root)
    return raw


def test_the_c_walk_is_in_use_when_built() -> None:
    assert cdom.accelerator_problem() is None, cdom.accelerator_problem()
    assert cdom.accelerated()


CASES = {
    "inline and links": "<p>A <b>bold</b> and <a href=x>a <i>link</i> here</a>, then<span> "
                        "</span><a>social</a> <a>media</a></p>",
    "breaks and headings": "<div>one<br>two<hr>three<h2>Head</h2>four<h7>x</h7><h>y</h></div>",
    "dropped with tails": "<p>before<img src=x>after<iframe>no</iframe>tail<select>"
                          "<option>o</option></select>end</p>",
    "hidden": "<div style='DISPLAY : none'>gone</div>kept<p hidden>gone</p>shown"
              "<p style='color: red'>red</p><p style=''>empty</p>",
    "class keywords": "<div class='Article-Body main' id='post-1'><p class='byline'>By me"
                      "</p><p id=''>x</p><p class='ad-slot'>ad</p><p class='loads'>no</p></div>",
    "unicode": "<p>中文的段落没有空格中文的段落</p><p>naïve\u00a0 text\u2003with\u3000space</p>"
               "<p>\u200bzero</p><p>ｈｅｌｌｏ　ワールド</p>",
    "whitespace only": "<div>   <span>  </span>\n\t</div><p> x </p>",
    "deep": "<div>" * 300 + "deep text" + "</div>" * 300,
    "tables and lists": "<table><tr><td>a</td><td><ul><li>b<li>c</ul></td></tr></table>",
    "comments removed": "<p>a<!-- c -->b<?pi x?>c</p>",
    "text outside body": "<html><head><title>T</title></head>text<p>p</p></html>",
    "empty": "<html><body></body></html>",
    "uppercase": "<DIV CLASS='Content'><P>Upper <A HREF=x>Link</A></P></DIV>",
    "custom elements": "<my-widget class=sidebar>w</my-widget><svg:rect>r</svg:rect>"
                       "<fb:like>l</fb:like>",
    "removed elements": "<p>one<script>var x;</script>two<style>p{}</style> three<!-- c -->"
                        "fo<!-- c -->ur<b>b</b><!-- c --><noscript>n</noscript>tail</p>"
                        "<div><!-- c -->lead<template>t</template><svg><text>s</text></svg>"
                        "<math>m</math>end<img>after<!-- c -->img</div>"
                        "<a href=x>li<!-- c -->nk <script>s</script>words</a>"
                        "<div>中<!-- c -->文</div><div><script></script></div>",
    "script first": "<body><script>x</script>text<p>p</p><script>y</script></body>",
    # More tag names than the walk's first tag table holds, all open at once.
    "many tag names": "".join(f"<x-{i} class=c{i}>w{i} " for i in range(300))
                      + "".join(f"</x-{i}>tail{i}" for i in reversed(range(300))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_blocks_as_python_on_cases(name: str) -> None:
    assert_same_page(CASES[name])


def test_same_blocks_on_every_html_fixture(data_dir) -> None:
    paths = sorted(data_dir.rglob("*.html"))
    assert len(paths) > 20
    for path in paths:
        assert_same_page(path.read_text(encoding="utf-8", errors="replace"))


def test_trees_straight_from_the_parser_with_comments_and_pis() -> None:
    """Comments and processing instructions are skipped with their tails, as iterwalk does."""
    root = lxml.html.fromstring("<div><p>a<!-- c -->b<?pi x?>c</p><!-- d -->e<p>f</p></div>",
                                parser=lxml.html.HTMLParser(remove_comments=False))
    blocks = assert_same(root)
    assert [b.text for b in blocks] == ["a", "f"]


def test_what_the_c_walk_does_not_cover_goes_to_the_python_walk() -> None:
    xml = etree.fromstring('<!DOCTYPE d [<!ENTITY e "ent">]><d><p>a &e; b</p></d>',
                           etree.XMLParser(resolve_entities=False))
    assert c_blocks(xml) is None  # an entity reference
    assert cdom.tree_blocks(xml) == cdom.python_tree_blocks(xml)
    ns = etree.fromstring('<html xmlns="http://www.w3.org/1999/xhtml"><p>x</p></html>')
    assert c_blocks(ns) is None  # namespaced tags
    assert cdom.tree_blocks(ns) == cdom.python_tree_blocks(ns)
    inline_root = lxml.html.fromstring("<span>loose text</span>")
    assert c_blocks(inline_root) is None  # the Python walk raises on it; so does tree_blocks
    with pytest.raises(IndexError):
        cdom.tree_blocks(inline_root)


def test_xml_trees_with_cdata_and_split_text() -> None:
    root = etree.fromstring("<div><p>a<![CDATA[ b ]]>c</p><p>d</p></div>")
    assert_same(root)
    p = root[1]
    p.text = "one"
    p.append(etree.Element("br"))
    p[-1].tail = "two"
    assert [b.text for b in assert_same(root)] == ["a b c", "one", "two"]


def test_bad_input_raises() -> None:
    with pytest.raises(TypeError):
        _cdom.tree_blocks("not an element", cdom.Block, cdom.DROPPED_TAGS_DEFAULT,
                          cdom.INLINE_TAGS, cdom.BREAK_TAGS_DEFAULT, cdom.TAG_BIT,
                          cdom.keyword_alternatives(), cdom._HIDDEN_STYLE_RE.search)
    with pytest.raises(TypeError):
        _cdom.tree_blocks(body_of("<p>x</p>"), cdom.Block)


@pytest.mark.parametrize("attribute", ["LXML_VERSION", "LIBXML_VERSION"])
def test_another_lxml_or_libxml2_release_is_refused(monkeypatch, attribute: str) -> None:
    major, minor = getattr(cdom.etree, attribute)[:2]
    monkeypatch.setattr(cdom.etree, attribute, (major, minor + 1, 0, 0)[:len(
        getattr(cdom.etree, attribute))])
    assert "rebuild it" in cdom.accelerator_problem()
    with pytest.raises(RuntimeError, match="was built against lxml"):
        cdom.use_accelerator(True)


def test_the_python_walk_can_be_forced() -> None:
    root = body_of(CASES["class keywords"])
    try:
        cdom.use_accelerator(False)
        assert not cdom.accelerated()
        assert cdom.tree_blocks(root) == cdom.python_tree_blocks(root)
    finally:
        cdom.use_accelerator(True)
    assert cdom.accelerated()


KEYWORD_PARTS = sorted({p for _, pat in cdom.CLASS_KEYWORDS for p in
                        pat.replace("(?<![a-z])", "").replace("(?![a-z])", "").replace("?", "")
                        .split("|")}) + ["a", "s", "-", "_", " ", "\t", "X", "É", "İ", "\u212a",
                                          "ß", "1", "loads", "Ads", "ad-", "ΑΣ"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(KEYWORD_PARTS), max_size=8).map("".join),
       st.lists(st.sampled_from(KEYWORD_PARTS), max_size=4).map("".join))
def test_keyword_scan_finds_what_the_regex_finds(cls: str, ident: str) -> None:
    expected = cdom._value_bits.__wrapped__(f"{cls} {ident}".lower())
    assert _cdom.keyword_bits(cls, ident, cdom.keyword_alternatives()) == expected


def test_keyword_scan_on_every_class_and_id_of_the_fixtures(data_dir) -> None:
    table = cdom.keyword_alternatives()
    seen = 0
    for path in sorted(data_dir.rglob("*.html")):
        tree = lxml.html.fromstring(path.read_bytes())
        for el in tree.iter():
            if isinstance(el.tag, str) and (el.get("class") or el.get("id")):
                cls, ident = el.get("class") or "", el.get("id") or ""
                assert _cdom.keyword_bits(cls, ident, table) == cdom.class_bits(el)
                seen += 1
    assert seen > 100


def test_keyword_patterns_the_scan_cannot_follow_are_refused(monkeypatch) -> None:
    assert ("ads", True, True) in [a[1:] for a in cdom.keyword_alternatives()]
    monkeypatch.setattr(cdom, "CLASS_KEYWORDS", (*cdom.CLASS_KEYWORDS, ("x", r"fo+o")))
    with pytest.raises(ValueError, match="not a literal"):
        cdom.keyword_alternatives()
    assert "not a literal" in cdom.accelerator_problem()
    with pytest.raises(ValueError):
        _cdom.keyword_bits("a", "b", [(64, "x", False, False)])


TAGS = ["div", "p", "span", "a", "b", "li", "ul", "td", "h2", "br", "hr", "img", "iframe",
        "section", "article", "nav", "footer", "em", "meta", "wbr", "label", "font", "pre",
        "script", "style", "noscript", "svg", "template"]
ATTRS = ["", " class='content'", " class='comment-list nav'", " id='sidebar'",
         " style='display:none'", " hidden", " class='post' id='main'", " style='x'"]
TEXTS = ["", " ", "word", "two words", "中文字符", "\u00a0", "a.\n", "Link text", "  x  "]


@st.composite
def html_fragments(draw: st.DrawFn, depth: int = 0) -> str:
    """Random nested HTML over tags, attributes and texts that touch every rule of the walk."""
    parts = [draw(st.sampled_from(TEXTS))]
    for _ in range(draw(st.integers(0, 3 if depth < 4 else 0))):
        tag = draw(st.sampled_from(TAGS))
        attrs = draw(st.sampled_from(ATTRS))
        inner = draw(html_fragments(depth + 1))
        parts.append(f"<{tag}{attrs}>{inner}</{tag}>" + draw(st.sampled_from(TEXTS)))
        if draw(st.booleans()):
            parts.append("<!-- note -->" + draw(st.sampled_from(TEXTS)))
    return "".join(parts)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(html_fragments())
def test_same_blocks_as_python_on_random_html(fragment: str) -> None:
    html = f"<html><body>{fragment}</body></html>"
    assert_same_page(html)
    raw = lxml.html.document_fromstring(
        html, parser=lxml.html.HTMLParser(remove_comments=False))
    body = raw.find("body")
    assert_same(body if body is not None else raw)


@pytest.mark.datasets
@pytest.mark.slow
def test_same_blocks_on_the_dataset_test_pages(datasets_dir) -> None:
    from corpuscrawl.evaluation.names import GOLD_DATASETS
    from corpuscrawl.learn.trainset import documents

    pages = 0
    for ds in GOLD_DATASETS:
        for doc in documents([datasets_dir / ds], "test")[:40]:
            assert_same_page(doc.dataset.read_html(doc.id))
            pages += 1
    assert pages > 100
