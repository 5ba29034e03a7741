"""Page-furniture lines (corpuscrawl.extract.lines.furniture): reading-time badges and related-content lists."""

from __future__ import annotations

import pytest

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.lines.furniture import (
    drop_furniture,
    is_reading_time_badge,
    is_related_heading,
)
from corpuscrawl.html.page import Page

ARTICLE = ("The council approved the budget on Monday after a long debate about school funding.\n"
           "The opposition voted against it, saying the cuts to libraries went too far.")


@pytest.mark.parametrize("line", [
    "5 min read", "12 minute read", "By Jane Doe · 5 min read", "Reading time: 3 minutes",
    "Lesezeit: 2 Minuten", "7 min Lesezeit", "4 min de lecture", "Mar 3, 2024 · 11 min read",
])
def test_reading_time_badges(line: str) -> None:
    assert is_reading_time_badge(line)
    assert drop_furniture(f"{line}\n{ARTICLE}") == ARTICLE


@pytest.mark.parametrize("line", [
    "The report is a 5 min read for anyone who wants to understand why the council changed its "
    "mind on the library budget.",
    "He ran the first mile in 5 min and read the results aloud.",
    "The shot clock after the 20 minutes read Wings 16, Canucks 5.",
])
def test_sentences_mentioning_reading_time_are_kept(line: str) -> None:
    assert not is_reading_time_badge(line)
    assert drop_furniture(line) == line


@pytest.mark.parametrize("heading", [
    "Related posts", "Related Stories:", "Related", "You might also like", "Recommended for you",
    "More stories", "Read more", "Das könnte dich auch interessieren", "Lesen Sie auch:",
    "À lire aussi",
])
def test_related_heading_and_its_link_titles_are_dropped(heading: str) -> None:
    text = (f"{ARTICLE}\n{heading}\nSnake plant care: the complete guide\n"
            "The best potting mix for indoor plants\nSeven signs you are overwatering your plants")
    assert is_related_heading(heading)
    assert drop_furniture(text) == ARTICLE


def test_running_text_after_the_list_is_kept() -> None:
    text = (f"Related posts\nSnake plant care\nHow to propagate a monstera\n{ARTICLE}\n"
            "Short final line.")
    assert drop_furniture(text) == f"{ARTICLE}\nShort final line."


def test_section_label_over_date_and_byline_is_kept() -> None:
    text = f"More from Front Page\nFriday, January 11, 2008\nBy Jalilur Rehman, AFP\n{ARTICLE}"
    assert drop_furniture(text) == text


def test_headings_inside_sentences_are_not_headings() -> None:
    line = "More from the rally, where thousands gathered in the square to hear the candidates speak"
    assert not is_related_heading(line)
    assert not is_related_heading("Related posts about plants are everywhere on this site today")
    assert drop_furniture(f"{ARTICLE}\n{line}") == f"{ARTICLE}\n{line}"


def test_every_registered_extractor_drops_furniture() -> None:
    paragraphs = "".join(f"<p>{ARTICLE} Paragraph {i} adds a detail about the vote.</p>" for i in range(6))
    page = Page.from_html(
        "<html><body><article><h1>Council passes budget</h1><div class='meta'><span>By Jane Doe</span>"
        f" · <span>5 min read</span></div>{paragraphs}<h3>Related posts</h3><ul>"
        "<li><a href='/a'>Snake plant care</a></li><li><a href='/b'>How to propagate a monstera</a></li>"
        "</ul></article></body></html>", url="https://example.com/budget")
    for name in ("bte", "readability", "linkblocks", "auto"):
        text = get_extractor(name).extract(page)
        assert "5 min read" not in text and "Related posts" not in text, name
        assert "Snake plant care" not in text, name
        assert "adds a detail about the vote" in text, name
