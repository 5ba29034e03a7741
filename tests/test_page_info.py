"""Page metadata beyond title/date/author (extract/meta/page_info.py), source by source."""

from __future__ import annotations

from corpuscrawl.extract.meta.page_info import PageInfo, extract_page_info
from corpuscrawl.html.page import Page

URL = "https://www.example-news.com/2024/05/story.html"


def info(head: str, body: str = "<p>Text.</p>", url: str = URL) -> PageInfo:
    return extract_page_info(Page.from_html(f"<html><head>{head}</head><body>{body}</body></html>",
                                            url=url))


def test_a_page_that_says_nothing_gives_empty_fields() -> None:
    assert info("<title>Just a page</title>") == PageInfo()


def test_open_graph_and_meta_tags() -> None:
    got = info('<meta property="og:site_name" content="Example News">'
               '<meta name="description" content="A short summary.">'
               '<meta property="article:section" content="Science">'
               '<meta property="article:tag" content="space"><meta property="article:tag" content="Mars">'
               '<meta name="keywords" content="space, rockets; Mars">'
               '<meta property="og:image" content="/img/a.jpg">'
               '<meta property="article:modified_time" content="2024-05-03T10:00:00Z">'
               '<link rel="canonical" href="/2024/05/story">')
    assert got.site_name == "Example News" and got.description == "A short summary."
    assert got.categories == ["Science"]
    assert got.tags == ["space", "Mars", "rockets"]  # case-insensitively unique, in order
    assert got.image == "https://www.example-news.com/img/a.jpg"
    assert got.modified == "2024-05-03T10:00:00Z"
    assert got.canonical_url == "https://www.example-news.com/2024/05/story"


def test_json_ld_sources() -> None:
    got = info('<script type="application/ld+json">{"@graph": ['
               '{"@type": "NewsArticle", "publisher": {"@id": "#org"}, "dateModified": "2024-05-04",'
               ' "articleSection": ["World", "Europe"], "keywords": "elections, EU",'
               ' "image": {"@type": "ImageObject", "url": "https://cdn.example/x.png"},'
               ' "license": "https://creativecommons.org/licenses/by/4.0/",'
               ' "description": "From JSON-LD."},'
               '{"@type": "Organization", "@id": "#org", "name": "Example Media Group"}]}</script>')
    assert got.site_name == "Example Media Group"  # the publisher's @id is not a name
    assert got.categories == ["World", "Europe"] and got.tags == ["elections", "EU"]
    assert got.image == "https://cdn.example/x.png"
    assert got.license == "https://creativecommons.org/licenses/by/4.0/"
    assert got.modified == "2024-05-04" and got.description == "From JSON-LD."


def test_licence_sources_in_order() -> None:
    assert info('<link rel="license" href="/licence.html">').license == \
        "https://www.example-news.com/licence.html"
    assert info('<meta name="dcterms.license" content="CC0 1.0">').license == "CC0 1.0"
    cc = '<a href="https://creativecommons.org/licenses/by-sa/3.0/de/"><img src="cc.png"></a>'
    assert info("", body=f"<p>Text.</p><footer>{cc}</footer>").license == \
        "https://creativecommons.org/licenses/by-sa/3.0/de/"
    anchor = '<a rel="license" href="https://creativecommons.org/publicdomain/zero/1.0/">CC0</a>'
    assert info("", body=anchor).license.endswith("/zero/1.0/")


def test_wordpress_category_and_tag_links() -> None:
    body = ('<a rel="category tag" href="/c/linux">Linux</a>'
            '<a rel="category tag" href="/c/tools">Tools, Tips</a>'
            '<a rel="tag" href="/t/plex">plex</a>')
    got = info("", body=body)
    assert got.categories == ["Linux", "Tools, Tips"]  # a link's text is not split at commas
    assert got.tags == ["plex"]


def test_site_name_from_the_title_side_naming_the_host() -> None:
    assert info("<title>Storms hit the coast | Example News</title>").site_name == "Example News"
    # a side without a word of the host name is not taken for the site
    assert info("<title>Storms hit the coast | Weather</title>").site_name == ""


def test_markup_in_a_description_is_dropped_and_dates_are_normalised() -> None:
    got = info('<meta name="description" content="<p>Calendar of the <b>season</b></p>">'
               '<meta name="datemodified" content="3 May 2024">')
    assert got.description == "Calendar of the season"
    assert got.modified == "2024-05-03"


def test_jsonld_types_given_as_lists_and_graph_references_by_list_are_read():
    html = ('<html><head><title>Restaurant | Words</title><script type="application/ld+json">'
            '[{"@type": "NewsArticle", "publisher": {"@id": ["#org"]}},'
            ' {"@type": ["WebSite", "Thing"], "name": "Example Words"}]'
            '</script></head><body><p>An establishment where meals are served.</p></body></html>')
    info = extract_page_info(Page.from_html(html, url="https://words.example/browse/r"))
    assert info.site_name == "Example Words"
