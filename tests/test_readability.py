"""Readability (arc90): unlikely candidates, paragraph scores, siblings, relaxed reruns."""

from __future__ import annotations

import pytest
from lxml import etree

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.classic.readability import (
    ATTEMPTS,
    Flags,
    ReadabilityExtractor,
    grab_article,
    score_paragraphs,
    strip_unlikely,
)
from corpuscrawl.html.page import Page, parse_html


@pytest.fixture
def fixtures(data_dir):
    return data_dir / "extractors"


def test_unlikely_candidates_removed_unless_maybe():
    root = parse_html("<body><div class='sidebar'>s</div><div class='comment-body'>c</div>"
                      "<div id='footer-main'>f</div><div class='menu'>m</div></body>")
    strip_unlikely(root)
    assert root.find("body").text_content() == "cf"  # body/main rescue 2 of them


def test_paragraph_score_goes_to_parent_and_half_to_grandparent():
    root = parse_html("<body><section><div><p>" + "word, " * 30 + "</p></div></section></body>")
    p = root.find(".//p")
    scores = score_paragraphs([p], Flags())
    text_len = len(" ".join(p.text_content().split()))
    value = 1 + 30 + min(text_len // 100, 3)
    div, section = p.getparent(), p.getparent().getparent()
    assert scores[div] == 5 + value  # div starts at +5
    assert scores[section] == value / 2


def test_short_paragraphs_are_not_scored():
    root = parse_html("<body><div><p>too short</p></div></body>")
    assert score_paragraphs([root.find(".//p")], Flags()) == {}


def test_attempt_order_relaxes_one_rule_at_a_time():
    expected = (Flags(True, True, True), Flags(False, True, True),
                Flags(False, False, True), Flags(False, False, False))
    assert expected == ATTEMPTS


def test_relaxed_rerun_when_result_is_under_250_chars(fixtures):
    page = Page.from_file(fixtures / "readability_relaxed.html")
    assert grab_article(page, ATTEMPTS[0]) == ""  # the text sits in an "unlikely" container
    assert len(grab_article(page, ATTEMPTS[1])) < 250  # class weights still push it down
    text = ReadabilityExtractor().extract(page)
    assert text.startswith("This week the first broad beans came up")
    assert "waiting for the sun" in text and "patient toad" in text


def test_min_length_option_stops_at_first_attempt(fixtures):
    page = Page.from_file(fixtures / "readability_relaxed.html")
    assert ReadabilityExtractor(min_length=0).extract(page) == ""


def test_article_and_sentence_like_siblings(fixtures):
    page = Page.from_file(fixtures / "article.html")
    text = get_extractor("readability").extract(page)
    assert "After decades of automation" in text
    assert "Local residents welcomed the news." in text
    assert "Most read" not in text and "Copyright" not in text


def test_title_pair(fixtures):
    title, text = ReadabilityExtractor().extract_with_title(
        Page.from_file(fixtures / "article.html"))
    assert title == "Lighthouse keepers return to the northern coast"
    assert text


def test_empty_page_and_shared_tree_untouched(fixtures):
    assert get_extractor("readability").extract(Page.from_html("")) == ""
    page = Page.from_file(fixtures / "readability_relaxed.html")
    before = etree.tostring(page.tree), etree.tostring(page.clean_tree)
    get_extractor("readability").extract(page)
    assert (etree.tostring(page.tree), etree.tostring(page.clean_tree)) == before
