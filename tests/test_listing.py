"""Listings: front and section pages whose text is teasers of other pages of the site
(:mod:`corpuscrawl.extract.page_typing.listing`), judged on the text an extractor kept and the page's
links; and the crawl's extraction giving the verdict with the text."""

from __future__ import annotations

from corpuscrawl.extract.page_typing.listing import (
    ListingShape,
    is_listing,
    listing_shape,
    listing_verdict,
)
from corpuscrawl.html.page import Page
from corpuscrawl.pagetext.extraction import Extraction

URL = "https://news.example.org/section/town"
LEDES = [
    ("Council approves the new ferry timetable",
     "The harbour council voted on Tuesday to run the morning ferry every half hour from "
     "March, after a year of complaints from commuters who missed their trains on the "
     "mainland."),
    ("Library extension opens in the old grain store",
     "The town library's long-awaited extension opened to the public on Thursday, turning "
     "the derelict grain store on Mill Lane into a bright reading room with space for "
     "two hundred readers."),
    ("Bakery trains a new generation of bakers",
     "At four in the morning the ovens at Harlow's Bakery are already hot, and three "
     "apprentices are shaping the first loaves of the day under the eye of the owner."),
    ("Apple festival returns to the orchard",
     "The community orchard on Hill Road was crowded on Sunday as the apple festival "
     "returned after a two-year pause, with juice pressed in wooden presses all day."),
]


def front_page(href: str = "/news/{i}.html", teaser_end: str = "") -> str:
    """A section page: linked headlines, each with its whole lede."""
    items = "".join(f'<div class="card"><h2><a href="{href.format(i=i)}">{title}</a></h2>'
                    f"<p>{lede}{teaser_end}</p></div>" for i, (title, lede) in enumerate(LEDES))
    return f"<html><body><main><h1>Town</h1>{items}</main></body></html>"


def text_of(page: Page) -> str:
    """What an extractor keeping the main element gives: one line per block."""
    return "\n".join(" ".join(el.text_content().split()) for el in page.tree.iter("h1", "h2", "p"))


def test_linked_headlines_with_whole_ledes_are_a_listing():
    page = Page.from_html(front_page(), url=URL)
    shape = listing_shape(page, text_of(page))
    assert shape.items == 4 and shape.preamble == 1 and 25 <= shape.longest <= 40
    assert is_listing(shape)
    assert "4 linked items of other pages" in listing_verdict(page, text_of(page))


def test_teasers_cut_short_and_card_links_are_listings_too():
    cut = Page.from_html(front_page(teaser_end="…"), url=URL)
    assert listing_verdict(cut, text_of(cut))
    cards = "".join(f'<a href="/news/{i}.html"><h2>{t}</h2><p>{lede}</p></a>'
                    for i, (t, lede) in enumerate(LEDES))
    page = Page.from_html(f"<html><body><main>{cards}</main></body></html>", url=URL)
    assert listing_shape(page, text_of(page)).items == 8  # headline and lede both linked
    assert listing_verdict(page, text_of(page))


def test_an_article_with_related_links_under_it_is_no_listing():
    body = "".join(f"<p>{lede} {lede}</p>" for _, lede in LEDES)
    related = "".join(f'<li><a href="/news/{i}.html">{t}</a></li>' for i, (t, _) in enumerate(LEDES))
    html = (f"<html><body><article><h1>Ferry timetable</h1>{body}<h3>Related</h3>"
            f"<ul>{related}</ul></article></body></html>")
    page = Page.from_html(html, url=URL)
    text = "\n".join([text_of(page), *(t for t, _ in LEDES)])
    shape = listing_shape(page, text)
    assert shape.items == 4 and shape.preamble > 100
    assert not listing_verdict(page, text)


def test_only_links_to_other_pages_of_the_site_make_items():
    """Links to another site (a link aggregator's sources) or to the page itself (a table
    of contents) are no teasers of the crawl's documents."""
    for href in ("https://elsewhere.example.com/{i}", "#part-{i}", URL + "#part-{i}"):
        page = Page.from_html(front_page(href), url=URL)
        assert listing_shape(page, text_of(page)).items == 0, href
    sub = Page.from_html(front_page("https://www.example.org/{i}"), url=URL)
    assert listing_shape(sub, text_of(sub)).items == 4  # another host of the same site


def test_long_teasers_a_long_preamble_or_few_items_are_no_listing():
    assert is_listing(ListingShape(items=3, preamble=60, teasers=180, longest=150))
    assert not is_listing(ListingShape(items=2, preamble=0, teasers=40, longest=20))
    assert not is_listing(ListingShape(items=5, preamble=61, teasers=100, longest=30))
    assert not is_listing(ListingShape(items=5, preamble=0, teasers=400, longest=90))
    assert not is_listing(ListingShape(items=5, preamble=0, teasers=200, longest=151))


def test_a_forum_thread_is_never_a_listing():
    """A thread's posts are linked user names, each over a short post: the listing's shape,
    and the page's text."""
    shape = ListingShape(items=6, preamble=10, teasers=120, longest=40)
    assert is_listing(shape, "article") and not is_listing(shape, "forum")


def test_one_word_links_are_controls_not_headlines():
    items = "".join(f'<p><a href="/d/{i}">Details</a></p><p><a href="/r/{i}">Itinerary</a></p>'
                    f"<p>Golf course number {i} by the sea.</p>" for i in range(5))
    page = Page.from_html(f"<html><body>{items}</body></html>", url=URL)
    assert listing_shape(page, text_of(page)).items == 0


def test_extraction_gives_the_verdict_with_the_text():
    extraction = Extraction()
    listing = extraction.run(Page.from_html(front_page(), url=URL))
    assert listing.text and listing.listing.startswith("4 linked items")
    article = extraction.run(Page.from_html(
        "<html><body><article><h1>Ferry</h1>" + "".join(f"<p>{lede}</p>" for _, lede in LEDES)
        + "</article></body></html>", url=URL))
    assert article.text and article.listing == ""


def test_a_page_of_links_alone_is_judged_on_its_whole_text():
    """An extractor keeping nothing of a front page made of headline links: the verdict
    reads the page's text, so the page is dropped as a listing, not as empty."""
    links = "".join(f'<li><a href="/news/{i}.html">{t}</a></li>' for i, (t, _) in enumerate(LEDES))
    page = Page.from_html(f"<html><body><ul>{links}</ul></body></html>", url=URL)
    assert listing_verdict(page, "\n".join(t for t, _ in LEDES))
    result = Extraction().run(page)
    assert result.listing
