"""Links to follow and alternates from classified elements."""

from __future__ import annotations

from corpuscrawl.browse.elements import ElementRecord
from corpuscrawl.browse.links import alternates, discovered_links, head_alternates
from corpuscrawl.html.page import Page

PAGE = "http://www.euronews.com/2017/03/06/merkel"


def a(href: str, text: str = "", **attrs: str) -> ElementRecord:
    return ElementRecord(tag="a", attributes={"href": href, **attrs}, text=text, page_url=PAGE)


def test_site_boundary_comes_from_the_url_not_the_label() -> None:
    records = [a("/news/1", "One"), a("https://other.org/x", "Other site"),
               a("http://dex.hu/x.php?url=http%3A%2F%2Feuronews.com%2Fa", "Proxied"),
               a("#", "Load more"), a("/news/1#top", "One again")]
    # The tree called the outer link "Inner" and the fragment "Inner": neither is trusted.
    links = discovered_links(records, ["Inner", "Inner", "Outer", "Inner", "Inner"])
    assert [(link.kind, link.url) for link in links] == [
        ("inner", "http://www.euronews.com/news/1"), ("outer", "https://other.org/x"),
        ("inner", "http://euronews.com/a")]


def test_language_links_become_alternates() -> None:
    records = [a("http://hu.euronews.com/2017/03/06/merkel", "Magyar", hreflang="hu"),
               a("http://de.euronews.com/2017/03/06/merkel", "Deutsch", lang="de-DE"),
               a(PAGE, "English", hreflang="en"), a("/about", "About")]
    labels = ["LanguageSelection", "LanguageSelection", "LanguageSelection", "Other"]
    links = discovered_links(records, labels)
    assert alternates(links, PAGE, "en") == {"hu": "http://hu.euronews.com/2017/03/06/merkel",
                                             "de": "http://de.euronews.com/2017/03/06/merkel"}


def test_head_alternates() -> None:
    page = Page.from_html('<html><head><link rel="alternate" hreflang="de-AT" href="/de/">'
                          '<link rel="alternate" hreflang="x-default" href="/">'
                          '<link rel="canonical" href="/en/"></head><body></body></html>',
                          url="https://ex.org/en/")
    assert head_alternates(page.tree, page.url) == {"de": "https://ex.org/de/"}
