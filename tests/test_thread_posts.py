"""What main text is follows the page type: a forum thread's replies are its main text (in
``text``), an article's reader comments stay apart (in ``comments``)."""

from __future__ import annotations

from pathlib import Path

from corpuscrawl.extract.base import Extracted
from corpuscrawl.html.page import Page
from corpuscrawl.pagetext.extraction import Extraction, thread_parts

DATA = Path(__file__).parent / "data" / "wholeweb"


def test_the_replies_of_a_forum_thread_are_its_text():
    page = Page.from_file(DATA / "forum_replies.html",
                          url="https://bakers.example/forum/baking/starters/1234-holiday")
    result = Extraction().run(page)
    assert result.page_type == "forum" and result.extractor == "auto"
    assert "nobody can feed my rye starter" in result.text
    assert "Feed it a stiff meal" in result.text and "dry a spoonful" in result.text
    assert result.comments == ""


def test_the_reader_comments_under_an_article_stay_comments():
    page = Page.from_file(DATA / "article_comments.html",
                          url="https://northport.example/news/2024/05/14/harbour-road-cycle-lanes")
    result = Extraction().run(page)
    assert result.page_type == "article"
    assert "protected cycle lanes" in result.text
    assert "dodging lorries" not in result.text
    assert "dodging lorries" in result.comments


def test_thread_parts_put_the_replies_after_the_first_post():
    assert thread_parts(Extracted("Question?", "Answer one.\nAnswer two.")) == \
        Extracted("Question?\nAnswer one.\nAnswer two.", "")
    assert thread_parts(Extracted("", "Only replies.")) == Extracted("Only replies.", "")
