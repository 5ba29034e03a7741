"""NewsFeed title heuristic: first title source, site name stripped."""

from corpuscrawl.extract.meta.title import extract_title, raw_title, strip_site_name
from corpuscrawl.html.page import Page


def test_seed_example_suffix_is_stripped():
    assert strip_site_name("First medal for Tanzania in Sochi | BBC Sports") == \
        "First medal for Tanzania in Sochi"


def test_prefix_matching_host_is_stripped():
    assert strip_site_name("BBC Sports - First medal for Tanzania", "bbc.co.uk") == \
        "First medal for Tanzania"


def test_known_site_name_from_home_link_wins_over_length():
    page = Page.from_html('<html><head><title>Latest news | The Valley Chronicle</title></head>'
                          '<body><a href="/">The Valley Chronicle</a></body></html>',
                          url="http://127.0.0.1:8000/")
    assert extract_title(page) == "Latest news"


def test_title_sources_in_order_and_untouched_titles():
    assert raw_title(Page.from_html('<html><head><meta name="title" content="Meta T">'
                                    '</head><body></body></html>')) == "Meta T"
    assert raw_title(Page.from_html('<html><head><meta property="og:title" content="OG">'
                                    '</head><body></body></html>')) == "OG"
    assert strip_site_name("A plain headline without separators") == \
        "A plain headline without separators"
    assert extract_title(Page.from_html("<html><body>no title</body></html>")) == ""
