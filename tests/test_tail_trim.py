"""The text's tail and its list gaps: detached tail blocks, trailing headings, link lists
between kept blocks of the main container."""

from __future__ import annotations

import numpy as np
import pytest

import corpuscrawl.extract.learned.auto as auto_module
from corpuscrawl.evaluation.datasets import list_datasets
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.learned.auto import decoded_labels
from corpuscrawl.extract.segment.cdom import tree_blocks
from corpuscrawl.extract.segment.container import fill_list_gaps
from corpuscrawl.extract.segment.edges import (
    cut_detached_tail,
    drop_trailing_headings,
    levels_apart,
)
from corpuscrawl.html.page import Page

LONG = ("<p>Paragraph {} tells at length how the council met, what it decided about the "
        "new school building, who spoke for and against it, which budget lines pay for it, "
        "when the works start, how long they take, what the parents asked for at the "
        "meeting, what the teachers said about the old rooms and why the vote was put off "
        "twice before the members agreed on a plan that all parties could accept.</p>")


def _blocks(html: str) -> list:
    return tree_blocks(Page.from_html(html).tree.find("body"))


def _texts(blocks: list, labels: list[int]) -> list[str]:
    return [b.text for b, keep in zip(blocks, labels, strict=True) if keep]


def _article_page(after_article: str, elsewhere: str) -> list:
    """body > div#page > main > article (two long paragraphs, ``after_article``), then
    ``elsewhere`` in a footer of the body."""
    return _blocks("<html><body><div id='page'><main><article>" + LONG.format(1)
                   + LONG.format(2) + after_article + "</article></main></div>"
                   "<footer><div class='box'>" + elsewhere + "</div></footer></body></html>")


def test_a_kept_box_in_another_region_after_the_article_is_cut():
    blocks = _article_page("<p>Short closing line of the article.</p>",
                           "<p>Stay up to date on our work, sign up below.</p>")
    labels = [1] * len(blocks)
    texts = _texts(blocks, cut_detached_tail(blocks, labels))
    assert "Stay up to date on our work, sign up below." not in texts
    assert "Short closing line of the article." in texts  # inside the container: kept


def test_a_block_in_a_sibling_of_the_container_is_kept():
    blocks = _blocks("<html><body><div class='post'><div class='text'>" + LONG.format(1)
                     + LONG.format(2) + "</div><div class='text'><p>A second text widget "
                     "of the same post.</p></div></div></body></html>")
    labels = [1] * len(blocks)
    assert cut_detached_tail(blocks, labels) == labels
    container_chain = blocks[0].path[1:]  # the first div.text and its ancestors
    assert levels_apart(container_chain, blocks[-1].path) == 1


def test_without_an_anchor_nothing_is_cut():
    blocks = _article_page("", "<p>Stay up to date on our work.</p>")
    short = [b for b in blocks if b.words < 60]
    assert short  # the footer's line
    labels = [0 if b.words >= 60 else 1 for b in blocks]  # no long block kept
    assert cut_detached_tail(blocks, labels) == labels


def test_blocks_before_the_article_are_not_cut():
    blocks = _blocks("<html><body><header><div><h1>The council votes on the school</h1>"
                     "</div></header><div id='page'><main><article>" + LONG.format(1)
                     + LONG.format(2) + "</article></main></div></body></html>")
    labels = [1] * len(blocks)
    assert cut_detached_tail(blocks, labels) == labels


def test_a_heading_that_ends_the_text_goes():
    blocks = _blocks("<html><body><article>" + LONG.format(1) + "<h3>Related posts</h3>"
                     "<h4>More</h4><ul><li><a href='/x'>Another story</a></li></ul>"
                     "</article></body></html>")
    labels = [1, 1, 1, 0]
    assert drop_trailing_headings(blocks, labels) == [1, 0, 0, 0]
    assert drop_trailing_headings(blocks, [0, 1, 0, 0]) == [0, 1, 0, 0]  # all that is kept


def _list_page() -> list:
    """A kept lead-in, a list of links, kept text after it, then a trailing link list."""
    return _blocks("<html><body><article>" + LONG.format(1) + "<p>Recommended by Dennis:</p>"
                   "<ul><li><a href='/a'>A book about robots</a></li>"
                   "<li><a href='/b'>A console to play on</a></li></ul>"
                   + LONG.format(2) + "<ul><li><a href='/c'>Tags</a></li></ul>"
                   "</article><ul><li><a href='/d'>Imprint</a></li></ul></body></html>")


def test_a_link_list_between_kept_blocks_of_the_container_is_kept():
    blocks = _list_page()
    p = np.array([0.99, 0.7, 0.05, 0.05, 0.99, 0.05, 0.01])
    labels = [1, 1, 0, 0, 1, 0, 0]
    filled = fill_list_gaps(blocks, labels, p)
    assert _texts(blocks, filled)[2:4] == ["A book about robots", "A console to play on"]
    assert filled[5:] == [0, 0]  # after the last kept block; outside the container


def test_a_list_after_a_paragraph_is_not_announced_and_stays_out():
    blocks = _blocks("<html><body><article>" + LONG.format(1) + "<ul class='share'>"
                     "<li><a href='#comments'>Comments</a></li><li><a href='/t'>Tweet</a></li>"
                     "</ul>" + LONG.format(2) + "</article></body></html>")
    p = np.array([0.99, 0.1, 0.1, 0.99])
    labels = [1, 0, 0, 1]
    assert fill_list_gaps(blocks, labels, p) == labels


def test_a_gap_with_a_block_the_model_is_sure_of_stays_open():
    blocks = _list_page()
    p = np.array([0.99, 0.7, 0.05, 0.01, 0.99, 0.05, 0.01])
    labels = [1, 1, 0, 0, 1, 0, 0]
    assert fill_list_gaps(blocks, labels, p) == labels


def test_the_decoding_trims_the_tail_unless_switched_off():
    blocks = _article_page("", "<p>Stay up to date on our work, sign up below.</p>")
    p = np.full(len(blocks), 0.9)
    pairs = np.full((len(blocks) - 1, 4), 0.25)
    plain = decoded_labels(blocks, p, pairs, 0.0, 0.0, tail_trim=False)
    trimmed = decoded_labels(blocks, p, pairs, 0.0, 0.0)
    assert sum(plain) == len(blocks) and sum(trimmed) == len(blocks) - 1


def _realworld_page(datasets_dir, name: str) -> Page:
    datasets = {d.name: d for d in list_datasets(datasets_dir)}
    if "trafilatura" not in datasets or name not in datasets["trafilatura"].html_files:
        pytest.skip(f"trafilatura page {name} not under {datasets_dir}")
    return Page.from_file(datasets["trafilatura"].html_files[name])


@pytest.mark.datasets
def test_a_site_wide_call_to_action_after_a_real_article_is_cut(datasets_dir, monkeypatch):
    """github.blog: the "Missed the main event?" box (``#cta-global``) after the post."""
    page = _realworld_page(datasets_dir, "github.blog.spiceland")
    extractor = get_extractor("auto")
    text = extractor.extract(page)
    assert "Missed the main event?" not in text
    monkeypatch.setattr(auto_module, "TAIL_TRIM_DEFAULT", False)
    monkeypatch.setattr(auto_module, "trim_tail", lambda blocks, labels: list(labels))
    plain = extractor.extract(page)
    assert "Missed the main event?" in plain
    assert len(text.split()) > 0.9 * len(plain.split())  # the post itself stays


@pytest.mark.datasets
def test_recommendation_lists_inside_a_real_article_are_kept(datasets_dir):
    """mixed.de: link lists under "Empfehlungen von …" lead-ins between kept text."""
    text = get_extractor("auto").extract(_realworld_page(datasets_dir, "mixed.de.vrodo"))
    assert "Niedlicher Roboter-Spielkamerad: Anki Cozmo" in text
    assert "Buch: Snow Crash" not in text  # the last list, after the kept text
