"""The title heuristic's tree lookups in C give exactly what lxml gives, and are in use.

``corpuscrawl.extract.meta.lookups`` reads ``<title>``'s text, ``<meta>`` contents and the
texts of links home through the C accelerator ``_cdom`` when it is built; these tests fail
(they do not fall back) when its answers differ from the lxml reference on any page, or
when it hands an HTML page back to lxml.
"""

from __future__ import annotations

import lxml.html
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from corpuscrawl.extract.meta import lookups, title
from corpuscrawl.extract.segment import cdom
from corpuscrawl.html.page import Page

_cdom = pytest.importorskip("corpuscrawl.extract.segment._cdom",
                            reason="the optional C accelerator is not built")

URL = "http://example.com/news/"
#: Every (attribute, value) the heuristic asks for, and a few it does not.
PAIRS = (*title.TITLE_METAS, *title.SITE_NAME_METAS, ("name", "description"),
         ("charset", "utf-8"))


def reference_site_names(page: Page) -> set[str]:
    """``site_names`` as written with lxml's iter/get/text_content and XPath."""
    names: set[str] = set()
    for xpath in ('//meta[@property="og:site_name"]/@content',
                  '//meta[@name="application-name"]/@content'):
        names.update(title.normalize_space(v).lower() for v in page.tree.xpath(xpath))
    for a in page.body.iter("a"):
        href = (a.get("href") or "").strip()
        if href in ("/", "./", "index.html", "/index.html") or \
                href.rstrip("/") == page.url.rstrip("/"):
            text = title.normalize_space(a.text_content()).lower()
            if text and len(text.split()) <= 8:
                names.add(text)
    names.discard("")
    return names


def home(url: str):
    """The heuristic's link test for a page at ``url``."""
    return lambda href: href.strip() in title.HOME_HREFS or \
        href.strip().rstrip("/") == url.rstrip("/")


def assert_same(html: str, url: str = URL) -> Page:
    """Every lookup in C equals its lxml reference on the page (and was answered in C)."""
    page = Page.from_html(html, url)
    for tag in ("title", "a", "h1", "nosuch"):
        got = _cdom.first_text(page.tree, tag)
        assert got is not None, "the C lookup handed an HTML page back to lxml"
        assert got[0] == lookups.python_first_text(page.tree, tag)
    got = _cdom.meta_contents(page.tree, PAIRS)
    assert got is not None
    assert list(got) == lookups.python_meta_contents(page.tree, PAIRS)
    assert list(got) == [[str(v) for v in page.tree.xpath(f'//meta[@{a}="{v}"]/@content')]
                         for a, v in PAIRS]
    for accept in (home(url), home(""), lambda href: True, lambda href: "x" in href):
        both = _cdom.metas_and_links(page.tree, PAIRS, page.body, accept)
        assert both is not None
        assert (list(both[0]), both[1]) == (lookups.python_meta_contents(page.tree, PAIRS),
                                             lookups.python_link_texts(page.body, accept))
        head = page.tree.find("head")
        if head is not None:  # links of another subtree than the body
            assert _cdom.metas_and_links(page.tree, PAIRS, head, accept)[1] == \
                lookups.python_link_texts(head, accept)
    assert title.site_names(page) == reference_site_names(page)
    return page


def test_the_c_lookups_are_in_use_when_built() -> None:
    assert cdom.accelerated(), cdom.accelerator_problem()


CASES = {
    "plain": "<html><head><title> A  headline | Site </title><meta property='og:site_name' "
             "content='The Site'></head><body><a href='/'>The <b>Site</b></a></body></html>",
    "no title, metas": "<html><head><meta name=title content='  '><meta property=og:title "
                       "content='OG headline'><meta name='og:title' content='x'>"
                       "<meta name=title></head><body>text</body></html>",
    "title in body, metas in body": "<body><p>x</p><title>Late <i>title</i></title>"
                                    "<meta name=application-name content='App'>"
                                    "<meta name=application-name content='App two'></body>",
    "two titles": "<title>first</title><title>second</title><p>x</p>",
    "empty title": "<title></title><meta name=title content='from meta'><p>x</p>",
    "links": "<p><a href=' / '>Home <!-- c --> page<script>js()</script></a>"
             "<a>no href</a><a href=''>empty</a><a href='index.html'>Index</a>"
             "<a href='http://example.com/news'>Self</a><a href='/index.html'><img>"
             "</a><a href='./'>dot</a><a href='//'>slashes</a>"
             "<a href='/other'>other</a><svg><a href='/'>in svg</a></svg></p>",
    "unicode": "<title>Überschrift – Zeitung</title><meta property='og:site_name' "
               "content='Die Zeitung'><a href='/'>Die\u00a0Zeitung ✓</a>",
    "case and spaces in attributes": "<META NAME='title' CONTENT='Upper'><meta name='Title' "
                                     "content='other case'><meta name=' title' content='sp'>"
                                     "<TITLE>T</TITLE><A HREF='/'>Up</A>",
    "nested links and tails": "<div><a href='/'>outer <a href='/x'>inner</a> tail</a>"
                              "after</div><a href='/'><span>a<span>b</span>c</span>d</a>",
    "no body": "<html><head><title>t</title></head></html>",
    "empty": "",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_answers_as_lxml_on_cases(name: str) -> None:
    assert_same(CASES[name])
    assert_same(CASES[name], url="")  # no URL: every link without an href is a home link


def test_same_answers_on_every_html_fixture(data_dir) -> None:
    paths = sorted(data_dir.rglob("*.html"))
    assert len(paths) > 20
    for path in paths:
        assert_same(path.read_text(encoding="utf-8", errors="replace"))


def test_trees_lxml_must_read_are_handed_back() -> None:
    """A namespaced element or an entity reference: the C lookups answer None and the public
    functions give lxml's answers."""
    root = lxml.html.document_fromstring("<html><head><title>t</title></head><body>"
                                         "<a href='/'>home</a></body></html>")
    body = root.find("body")
    etree.SubElement(body, "{http://example.com/ns}a", href="/").text = "namespaced"
    assert _cdom.meta_contents(root, PAIRS) is None
    assert lookups.meta_contents(root, PAIRS) == lookups.python_meta_contents(root, PAIRS)
    assert _cdom.metas_and_links(root, PAIRS, body, home(URL)) is None
    assert lookups.metas_and_link_texts(root, PAIRS, body, home(URL)) == (
        lookups.python_meta_contents(root, PAIRS), lookups.python_link_texts(body, home(URL)))
    other = lxml.html.document_fromstring("<p><a href='/'>x</a></p>")
    assert _cdom.metas_and_links(root, PAIRS, other, home(URL)) is None  # another document
    assert _cdom.first_text(root, "title") == ("t",)  # found before the namespaced element
    assert _cdom.first_text(root, "nosuch") is None
    xml = etree.fromstring('<!DOCTYPE d [<!ENTITY e "ent">]><d><a href="/">a &e; b</a></d>',
                           etree.XMLParser(resolve_entities=False))
    assert _cdom.metas_and_links(xml, PAIRS, xml, home(URL)) is None
    assert _cdom.first_text(xml, "a") is None


def test_bad_input_raises() -> None:
    with pytest.raises(TypeError):
        _cdom.first_text("not an element", "title")
    root = lxml.html.document_fromstring("<p>x</p>")
    with pytest.raises(TypeError):
        _cdom.meta_contents(root, [("name",)])
    with pytest.raises(ValueError, match="at most 16"):
        _cdom.meta_contents(root, [("name", "x")] * 17)
    with pytest.raises(ZeroDivisionError):
        linked = lxml.html.document_fromstring("<a href=x>y</a>")
        _cdom.metas_and_links(linked, PAIRS, linked, lambda href: 1 / 0)


def test_the_lxml_lookups_can_be_forced() -> None:
    page = Page.from_html(CASES["plain"], URL)
    with_c = title.extract_title(page), title.site_names(page)
    cdom.use_accelerator(False)
    try:
        assert (title.extract_title(page), title.site_names(page)) == with_c
    finally:
        cdom.use_accelerator(True)
    assert with_c == ("A headline", {"the site"})


TEXTS = ["", "x", " Home ", "Über uns", "a\u00adb", "  ", "Site | Name"]
HREFS = ["", " / ", "/", "./", "index.html", "/index.html", URL, URL.rstrip("/"), "/x", None]


@st.composite
def pages(draw) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["a", "meta", "title", "p", "nested"]))
        text = draw(st.sampled_from(TEXTS))
        if kind == "a":
            href = draw(st.sampled_from(HREFS))
            attr = "" if href is None else f" href='{href}'"
            parts.append(f"<a{attr}>{text}</a>")
        elif kind == "meta":
            attr, value = draw(st.sampled_from(PAIRS))
            content = draw(st.sampled_from([None, *TEXTS]))
            extra = "" if content is None else f" content='{content}'"
            parts.append(f"<meta {attr}='{value}'{extra}>")
        elif kind == "title":
            parts.append(f"<title>{text}</title>")
        elif kind == "nested":
            parts.append(f"<div><a href='/'>{text}<b>{text}</b><!-- c -->{text}</a></div>")
        else:
            parts.append(f"<p>{text}</p>")
    return "".join(parts)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pages(), st.booleans())
def test_same_answers_as_lxml_on_random_pages(body: str, in_head: bool) -> None:
    html = f"<html><head>{body}</head><body>{body}</body></html>" if in_head else body
    assert_same(html)


@pytest.mark.datasets
@pytest.mark.slow
def test_same_answers_on_the_dataset_pages(datasets_dir) -> None:
    from corpuscrawl.evaluation.names import GOLD_DATASETS
    from corpuscrawl.learn.trainset import documents

    pages = 0
    for ds in GOLD_DATASETS:
        for split in ("test", "train"):
            for doc in documents([datasets_dir / ds], split):
                assert_same(doc.dataset.read_html(doc.id), doc.dataset.urls.get(doc.id, ""))
                pages += 1
    assert pages > 2000
