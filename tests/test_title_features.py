"""Headline features of ``auto``: title match, headline block, position relative to it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from corpuscrawl.extract.learned.block_features import TEXT_FEATURES, tree_distance
from corpuscrawl.extract.learned.sequence import page_inputs
from corpuscrawl.extract.learned.title_features import TITLE_FEATURE_NAMES, title_matrix
from corpuscrawl.extract.segment.cdom import page_blocks
from corpuscrawl.html.page import Page

COL = {n: i for i, n in enumerate(TITLE_FEATURE_NAMES)}


@pytest.fixture
def blocks(data_dir):
    # Home | World news | A short title | First line ... it. | After the break. | Copyright ...
    return page_blocks(Page.from_file(data_dir / "learned" / "blocks.html"))


def test_title_match_and_headline_block_hand_checked(blocks):
    x = title_matrix(blocks, "A short title of the day")  # 6 distinct title words
    assert x.shape == (len(blocks), len(TITLE_FEATURE_NAMES))
    # "A short title": 3 of the 6 title words, all of its 3 words in the title.
    assert x[2, COL["title_cover"]] == pytest.approx(0.5)
    assert x[2, COL["title_in_block"]] == pytest.approx(1.0)
    # "First line of text with a link inside it.": "of" and "a"; 2 of its 9 words.
    assert x[3, COL["title_cover"]] == pytest.approx(2 / 6)
    assert x[3, COL["title_in_block"]] == pytest.approx(2 / 9)
    assert x[0, COL["title_cover"]] == 0.0 and x[5, COL["title_in_block"]] == 0.0
    assert x[:, COL["is_title_block"]].tolist() == [0, 0, 1, 0, 0, 0]
    assert (x[:, COL["has_title_block"]] == 1).all()


def test_position_relative_to_headline_hand_checked(blocks):
    x = title_matrix(blocks, "A short title")
    # Words before each block: 0, 1, 3, 6, 15, 18 of 22 (the last block has 4).
    expected = [(w - 3) / 22 for w in (0, 1, 3, 6, 15, 18)]
    assert x[:, COL["words_from_title"]] == pytest.approx(expected)
    assert x[:, COL["blocks_from_title"]] == pytest.approx(
        [-math.log(3), -math.log(2), 0, math.log(2), math.log(3), math.log(4)])
    # li -> ul -> body <- div <- h1 is 4 edges; p -> div <- h1 is 2.
    assert x[0, COL["tree_distance_to_title"]] == pytest.approx(math.log1p(4))
    assert x[3, COL["tree_distance_to_title"]] == pytest.approx(math.log1p(2))
    assert x[:, COL["tree_distance_to_title"]] == pytest.approx(
        [math.log1p(tree_distance(b, blocks[2])) for b in blocks])


def test_no_headline_when_nothing_matches_well_enough(blocks):
    assert not title_matrix(blocks, "").any()
    x = title_matrix(blocks, "Completely different words about inside")  # "inside": 1 of 9
    assert x[:, COL["has_title_block"]].sum() == 0
    assert x[:, COL["is_title_block"]].sum() == 0
    assert x[3, COL["title_cover"]] == pytest.approx(1 / 5)


def test_a_long_paragraph_quoting_the_title_is_not_the_headline():
    words = " ".join(f"w{i}" for i in range(50))
    page = Page.from_html(f"<html><head><title>{words}</title></head><body>"
                          f"<p>{words}</p><h2>w1 w2 w3</h2></body></html>")
    x = title_matrix(page_blocks(page), words)
    assert x[0, COL["title_cover"]] == 1.0 and x[0, COL["is_title_block"]] == 0.0
    assert x[1, COL["has_title_block"]] == 0.0  # w1-w3 cover 3 of 50 words: F below 0.5


def test_page_inputs_append_the_headline_columns_only_when_asked_not_to_pairs(data_dir):
    page = Page.from_file(data_dir / "learned" / "blocks.html")
    plain = page_inputs(page, pair_columns=TEXT_FEATURES)
    with_title = page_inputs(page, pair_columns=TEXT_FEATURES, title=True)
    assert with_title.unary.names == plain.unary.names + TITLE_FEATURE_NAMES
    assert np.array_equal(with_title.unary.values[:, : len(plain.unary.names)],
                          plain.unary.values)
    assert np.array_equal(with_title.pairs.values, plain.pairs.values)
    assert with_title.pairs.names == plain.pairs.names
    assert with_title.pairs.names[0] == f"left_{TEXT_FEATURES[0]}"
