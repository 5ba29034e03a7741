"""What main text is follows the page type: a forum thread's replies are its main text (in
``text``), an article's reader comments stay apart (in ``comments``)."""

from __future__ import annotations

from pathlib import Path

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.page_type import page_type
from corpuscrawl.html.page import Page

DATA = Path(__file__).parent / "data" / "wholeweb"


def test_the_replies_of_a_forum_thread_are_its_text():
    page = Page.from_file(DATA / "forum_replies.html",
                          url="https://bakers.example/forum/baking/starters/1234-holiday")
    assert page_type(page) == "forum"
    parts = get_extractor("auto").extract_parts(page)
    assert "nobody can feed my rye starter" in parts.text
    assert "Feed it a stiff meal" in parts.text and "dry a spoonful" in parts.text
    assert parts.comments == ""
    assert "Feed it a stiff meal" in get_extractor("auto").extract(page)


def test_the_reader_comments_under_an_article_stay_comments():
    page = Page.from_file(DATA / "article_comments.html",
                          url="https://northport.example/news/2024/05/14/harbour-road-cycle-lanes")
    assert page_type(page) == "article"
    parts = get_extractor("auto").extract_parts(page)
    assert "protected cycle lanes" in parts.text
    assert "dodging lorries" not in parts.text
    assert "dodging lorries" in parts.comments
