"""NewsFeed title heuristic: first title source, site name stripped."""

from corpuscrawl.extract.meta.title import (
    extract_title,
    logo_texts,
    own_title,
    raw_title,
    strip_site_name,
)
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


def _title(html: str) -> str:
    return extract_title(Page.from_html(html, url="http://127.0.0.1:8000/story-5.html"))


def test_a_title_that_is_only_the_site_name_gives_way_to_the_page_s_headline():
    head = "<title>The Harbour Gazette</title>"
    body = "<body><a href='/'>The Harbour Gazette</a><h1>Ferry repaired as pier plan moves on</h1>"
    assert _title(f"<html><head>{head}<meta property='og:title' content='Ferry repaired as "
                  f"pier plan moves on'></head>{body}</body></html>") == \
        "Ferry repaired as pier plan moves on"
    assert _title(f"<html><head>{head}</head>{body}</body></html>") == \
        "Ferry repaired as pier plan moves on"
    # a page that is the site's own (no other headline) keeps the name
    assert _title(f"<html><head>{head}</head><body><h1>The Harbour Gazette</h1></body></html>") \
        == "The Harbour Gazette"


def test_a_short_headline_beside_a_long_site_name_is_the_headline():
    # the site's name known from its home link, or the headline from og:title
    logo = ("<html><head><title>Budget approved | The Harbour Gazette Daily News</title></head>"
            "<body><h1><a href='/'>The Harbour Gazette Daily News</a></h1></body></html>")
    assert _title(logo) == "Budget approved"
    og = ("<html><head><title>Budget approved | The Harbour Gazette Daily News</title>"
          "<meta property='og:title' content='Budget approved'></head><body></body></html>")
    assert _title(og) == "Budget approved"
    # an <h1> alone is no evidence: it is a logo about as often as a headline
    logo_h1 = ("<html><head><title>EDDIE ROSS - My Tastemaker Tag Sale on One King's Lane"
               "</title></head><body><h1>Eddie Ross</h1></body></html>")
    assert _title(logo_h1) == "My Tastemaker Tag Sale on One King's Lane"


def test_the_h1_keeps_the_first_of_two_short_sides():
    html = ("<html><head><title>Story 0 | Small Site News</title></head>"
            "<body><a href='/'>Home</a><h1>Story 0</h1></body></html>")
    assert _title(html) == "Story 0"  # length alone would strip "Story 0"
    logo = ("<html><head><title>Just Keep Going « Rand's Blog</title></head>"
            "<body><h1>Rand's Blog</h1></body></html>")
    assert _title(logo) == "Just Keep Going"  # a logo <h1> never makes the suffix the title


_STORY = ("<body><div class='logo'><a href='/'><img alt='The Quay Reporter' src='/l.png'></a>"
          "</div><div class='story'><span class='kicker'>Town</span>"
          "<h2 class='story-title'>Lifeboat crew rescues two kayakers</h2>"
          "<p>Two kayakers were brought ashore on Sunday after their boats overturned.</p>"
          "</div></body>")
_TEXT = "Town\nLifeboat crew rescues two kayakers\nTwo kayakers were brought ashore on Sunday."


def _own(title_tag: str, body: str = _STORY, text: str = _TEXT, head: str = "") -> str:
    page = Page.from_html(f"<html><head><title>{title_tag}</title>{head}</head>{body}</html>",
                          url="http://127.0.0.1:8000/town/kayakers.html")
    return own_title(page, extract_title(page), text)


def test_a_site_name_title_gives_way_to_the_text_s_leading_heading():
    # the site's name by its logo's alt text, by og:site_name, by a home link's text
    assert _own("The Quay Reporter") == "Lifeboat crew rescues two kayakers"
    assert _own("Quay Daily", head="<meta property='og:site_name' content='Quay Daily'>") == \
        "Lifeboat crew rescues two kayakers"
    linked = _STORY.replace("<img alt='The Quay Reporter' src='/l.png'>", "Quay News")
    assert _own("Quay News", body=linked) == "Lifeboat crew rescues two kayakers"
    # an empty title too
    assert _own("") == "Lifeboat crew rescues two kayakers"
    # the host name spelt out, the logo a background image
    bare = _STORY.replace("<img alt='The Quay Reporter' src='/l.png'>", "")
    page = Page.from_html(f"<html><head><title>The Quay Reporter</title></head>{bare}</html>",
                          url="https://www.quayreporter.example/town/kayakers.html")
    assert own_title(page, extract_title(page), _TEXT) == "Lifeboat crew rescues two kayakers"


def test_a_title_of_the_page_s_own_is_kept():
    # the home page's own title is the site's name
    home = Page.from_html(f"<html><head><title>The Quay Reporter</title></head>{_STORY}</html>",
                          url="http://127.0.0.1:8000/")
    assert own_title(home, extract_title(home), _TEXT) == "The Quay Reporter"
    assert _own("Kayakers rescued off the quay") == "Kayakers rescued off the quay"
    # a site-name title with no heading among the text's first lines stays
    assert _own("The Quay Reporter", text="Town\nTwo kayakers were brought ashore.") == \
        "The Quay Reporter"
    # a heading that is itself the site's name is not taken
    named = _STORY.replace("Lifeboat crew rescues two kayakers", "The Quay Reporter")
    assert _own("The Quay Reporter", body=named,
                text="The Quay Reporter\nTwo kayakers were brought ashore.") == "The Quay Reporter"


def test_a_title_of_several_parts_is_the_part_the_page_states_as_its_headline():
    # og:title names one part of "Headline | Section | Site"
    page = Page.from_html(
        "<html><head><title>Bridge reopens early | News | The Quay Reporter</title>"
        "<meta property='og:title' content='Bridge reopens early'></head>"
        "<body><p>Text.</p></body></html>", url="http://127.0.0.1:8000/news/bridge.html")
    assert own_title(page, extract_title(page), "Text.") == "Bridge reopens early"
    # extract_title, an input of the learned extractors' features, keeps its two parts
    assert extract_title(page) == "Bridge reopens early | News"
    # without og:title: the part the text starts with as a heading of the page, in any place
    for title in ("Lifeboat crew rescues two kayakers | Town | The Quay Reporter",
                  "Town - Lifeboat crew rescues two kayakers - The Quay Reporter",
                  "Quay » Lifeboat crew rescues two kayakers"):
        assert _own(title) == "Lifeboat crew rescues two kayakers", title
    # a part the text does not start with stays where it is
    assert _own("Town | Kayakers | The Quay Reporter", text="Two kayakers were brought ashore.") \
        == "Town | Kayakers"


def test_a_text_opens_with_the_headline_the_page_shows_when_the_extractor_left_it_out():
    from corpuscrawl.extract.meta.title import with_headline

    html = ("<html><head><title>Bridge closes | The Chronicle</title></head><body>"
            "<p class='site-title'><a href='/'>The Chronicle</a></p>"
            "<article><h1 class='entry-title'>Bridge closes</h1><p>The bridge closed.</p>"
            "</article></body></html>")
    page = Page.from_html(html, url="http://127.0.0.1:8000/2025/bridge/")
    assert with_headline(page, "Bridge closes", "The bridge closed.") == \
        "Bridge closes\nThe bridge closed."
    # already there (first line, or inside a leading line): unchanged
    assert with_headline(page, "Bridge closes", "Bridge closes\nThe bridge closed.") == \
        "Bridge closes\nThe bridge closed."
    assert with_headline(page, "bridge closes", "News: Bridge closes\nText.") == \
        "News: Bridge closes\nText."
    # a title the page shows as no heading, the site's name, no title, an empty text: unchanged
    assert with_headline(page, "Bridge shut", "The bridge closed.") == "The bridge closed."
    assert with_headline(page, "The Chronicle", "The bridge closed.") == "The bridge closed."
    assert with_headline(page, "", "The bridge closed.") == "The bridge closed."
    assert with_headline(page, "Bridge closes", "") == ""
    # a logo <h1> that names no home link is still the logo
    logo = Page.from_html("<html><body><header class='masthead'><h1>Harbour Post</h1></header>"
                          "<p>The bridge closed.</p></body></html>", url="http://h.example/a/")
    assert with_headline(logo, "Harbour Post", "The bridge closed.") == "The bridge closed."
    home = Page.from_html(html, url="http://127.0.0.1:8000/")
    assert with_headline(home, "Bridge closes", "The bridge closed.") == "The bridge closed."


def test_a_logo_is_marked_by_its_class_or_id_in_any_case():
    body = ("<body><div class='MastHeadLogo'>Cape Gazette</div><span id='brand'>Gazette"
            "</span><p class='siteName'>The Gazette</p><div class='masthead'><a href='/'>"
            "<img alt='Gazette logo' src='/l.png'></a></div><p class='intro'>Ferries</p>")
    page = Page.from_html(f"<html>{body}</body></html>", url="https://gazette.example/a")
    assert logo_texts(page) == {"cape gazette", "gazette", "the gazette", "gazette logo"}
