"""Web2Text-style sequence labelling: collapsed-DOM blocks, features, labels, Viterbi, model."""

from __future__ import annotations

import numpy as np
import pytest

from corpuscrawl.extract.learned.block_features import (
    EDGE_FEATURE_NAMES,
    UNARY_FEATURE_NAMES,
    edge_matrix,
    unary_matrix,
    vote_matrix,
)
from corpuscrawl.extract.learned.sequence import SequenceExtractor, viterbi
from corpuscrawl.extract.segment.cdom import page_blocks, word_count
from corpuscrawl.html.page import Page
from corpuscrawl.learn.alignment import lcs_coverage, sequence_coverage
from corpuscrawl.learn.trainset import documents


@pytest.fixture
def blocks(data_dir):
    return page_blocks(Page.from_file(data_dir / "learned" / "blocks.html"))


def test_blocks_merge_inline_text_split_at_br_and_skip_hidden(blocks):
    assert [b.text for b in blocks] == [
        "Home", "World news", "A short title", "First line of text with a link inside it.",
        "After the break.", "Copyright © 2024 Example.",
    ]
    assert [b.container_tag for b in blocks] == ["li", "li", "h1", "p", "p", "p"]
    assert [b.link_words for b in blocks] == [1, 2, 0, 2, 0, 0]
    assert "br" in blocks[4].gap_tags


def test_space_between_inline_elements_separates_their_words():
    page = Page.from_html("<p>other <a href=x>social</a> <a href=y>media</a> <b>users</b>"
                          "\n<i>have</i> sa<b>id</b></p><div> <p>next</p> </div>")
    blocks = page_blocks(page)
    assert [b.text for b in blocks] == ["other social media users have said", "next"]
    assert blocks[0].words == 6 and blocks[0].link_words == 2


def test_chinese_and_japanese_count_two_characters_a_word_korean_its_spaces():
    assert word_count("一波波接續性低溫寒流報到") == 1 + 12 // 2
    assert word_count("これは ペンです") == 2 + 7 // 2
    assert word_count("한국어 문장 입니다") == 3
    page = Page.from_html("<p>已將新竹尖石鄉 <a href=x>後山一帶</a></p>")
    [block] = page_blocks(page)
    assert (block.words, block.link_words) == (2 + 11 // 2, 1 + 4 // 2)


def test_unary_features_hand_checked(blocks):
    x = unary_matrix(blocks, frozenset({"a", "of", "with", "it", "the"}))
    assert x.shape == (len(blocks), len(UNARY_FEATURE_NAMES))
    col = {n: i for i, n in enumerate(UNARY_FEATURE_NAMES)}
    first_line = x[3]
    # "First line of text with a link inside it." : 9 words, 2 in the link.
    assert first_line[col["log_words"]] == pytest.approx(np.log1p(9))
    assert first_line[col["link_density"]] == pytest.approx(2 / 9)
    assert first_line[col["stopword_ratio"]] == pytest.approx(3 / 9)  # of, with, a ("it." no)
    assert first_line[col["container_p"]] == 1.0
    assert first_line[col["class_article"]] == 1.0 and first_line[col["class_body"]] == 1.0
    assert x[0][col["in_li"]] == 1.0 and x[0][col["class_nav"]] == 1.0
    assert x[5][col["copyright"]] == 1.0
    # Neighbour columns: block 3's previous block is the title (3 words).
    assert first_line[col["n-1_log_words"]] == pytest.approx(np.log1p(3))
    assert x[0][col["n-1_log_words"]] == 0.0


def test_edge_features_bucket_tree_distance(blocks):
    e = edge_matrix(blocks)
    assert e.shape == (len(blocks) - 1, len(EDGE_FEATURE_NAMES))
    assert e[0, EDGE_FEATURE_NAMES.index("dist_2")] == 1.0  # li -> ul <- li
    assert e[3, EDGE_FEATURE_NAMES.index("same_container")] == 1.0  # both lines in one <p>
    assert e[3, EDGE_FEATURE_NAMES.index("gap_br")] == 1.0


def test_votes_are_share_of_block_trigrams_found(blocks):
    v = vote_matrix(blocks, ["First line of text with a", "Home"])
    assert v[3, 0] == pytest.approx(4 / 7)  # 4 of the block's 7 word trigrams
    assert v[0, 1] == 1.0 and v[1, 1] == 0.0


def test_labels_align_whole_sequence_not_single_words():
    units = [["Home"], ["The", "river", "rose"], ["Home"]]
    gold = ["The", "river", "rose", "Home"]
    assert sequence_coverage(units, gold) == [0.0, 1.0, 1.0]
    assert lcs_coverage(["Home"], gold) == 1.0  # the thesis' per-segment measure
    assert lcs_coverage([], gold) == 0.0


def test_viterbi_without_pairwise_term_is_the_unary_argmax():
    unary = np.array([0.9, 0.2, 0.7])
    pairs = np.full((2, 4), 0.25)
    assert viterbi(unary, pairs, lam=0.0) == [1, 0, 1]


def test_viterbi_pairwise_term_smooths_an_isolated_label():
    unary = np.array([0.9, 0.45, 0.9])
    sticky = np.array([[0.45, 0.05, 0.05, 0.45]] * 2)  # (0,0) (0,1) (1,0) (1,1)
    assert viterbi(unary, sticky, lam=0.0) == [1, 0, 1]
    assert viterbi(unary, sticky, lam=1.0) == [1, 1, 1]
    assert viterbi(np.array([]), np.zeros((0, 4))) == []


def test_bias_moves_the_decision_threshold():
    unary = np.array([0.4])
    assert viterbi(unary, np.zeros((0, 4)), bias=0.0) == [0]
    assert viterbi(unary, np.zeros((0, 4)), bias=1.0) == [1]


def test_train_save_load_predict_round_trip(data_dir, tmp_path):
    from corpuscrawl.evaluation.metrics import score
    from corpuscrawl.learn.training import train

    tinyset = data_dir / "learned" / "tinyset"
    train("sequence", [tinyset], models_dir=tmp_path, show_progress=False, hidden=(30, 10))
    loaded = SequenceExtractor(models_dir=tmp_path)
    for doc in documents([tinyset], "test"):
        text = loaded.extract(doc.page)
        whole = "\n".join(b.text for b in page_blocks(doc.page))
        assert score(text, doc.gold).f1 > score(whole, doc.gold).f1
    assert "| tinyset |" in (tmp_path / "sequence.md").read_text()


def test_a_model_depends_on_its_training_pages_not_their_order(data_dir):
    """The MLP's mini-batches follow row order: fit_model takes the pages by key."""
    from corpuscrawl.learn.sequence_trainer import collect
    from corpuscrawl.learn.training import fit_model

    docs = documents([data_dir / "learned" / "tinyset"], "train")
    forward = fit_model("sequence", docs, None, show_progress=False, hidden=(30, 10))
    backward = fit_model("sequence", docs[::-1], None, show_progress=False, hidden=(30, 10))
    x = np.vstack(collect(docs[:2], None, forward.threshold).xs)
    assert np.array_equal(forward.unary_.predict_proba(x), backward.unary_.predict_proba(x))


def test_missing_model_file_says_how_to_train(tmp_path):
    from corpuscrawl.extract.base import ExtractorError

    with pytest.raises(ExtractorError, match="corpuscrawl train sequence"):
        SequenceExtractor(models_dir=tmp_path)
