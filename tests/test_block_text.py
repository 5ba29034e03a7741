"""The per-block string statistics and title-word counts in C equal the Python ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpuscrawl.extract.learned import block_features as bf
from corpuscrawl.extract.learned import title_features
from corpuscrawl.extract.segment.cdom import Block, page_blocks
from corpuscrawl.html.page import Page

_blocktext = pytest.importorskip("corpuscrawl.extract.learned._blocktext",
                                 reason="the optional C accelerator is not built")

STOPWORDS = frozenset({"the", "and", "of", "der", "und", "straße", "ｔｈｅ"})


def blocks_of(texts: list[str]) -> list[Block]:
    """Blocks carrying only ``texts`` (the statistics read nothing else)."""
    return [Block(t, len(t.split()), 0, "p", (0,), 1, 0) for t in texts]


def assert_same(texts: list[str], stopwords: frozenset[str] = STOPWORDS) -> np.ndarray:
    """C and Python statistics of ``texts`` are identical; the C ones."""
    blocks = blocks_of(texts)
    expected = np.array(bf.python_text_columns(blocks, stopwords), dtype=np.float64).reshape(
        8, len(texts)).T
    got = np.column_stack(bf._text_columns(blocks, stopwords)) if texts else np.zeros((0, 8))
    assert got.shape == expected.shape
    assert np.array_equal(got, expected), (texts, got, expected)
    return got


CASES = [
    "The cat sat. And then? It ran!", "end.", "a.b c!d e?", "3.14 and 2,718 and ١٢٣ and ²",
    "© 2024 Example", "COPYRIGHT notice", "Copyright", "İstanbul ß Straße der", "É é Ǆ ǅ ǆ",
    "Home | News » Sport › Live · More • x | y | z", '"Quoted."', "He said ”yes”", "(aside)",
    "x.\u00a0y", "x.\u2003y", "x.\u200by", "x.\x1cy", "ｔｈｅ Ｔｈｅ", "中文。还有", "a,b,,c",
    "'", ".", "", "   ", "\u2028line.\u2029",
]


def test_same_statistics_on_cases() -> None:
    got = assert_same(CASES)
    assert got[0].tolist() == [3, 0, 3, 1, 0, 2, 0, 0]  # "The", "And": stopwords
    assert_same(CASES, frozenset())
    assert_same(CASES, set(STOPWORDS))  # a plain set is accepted as well


#: Texts whose lower-casing is not ASCII's (the C code lower-cases ASCII itself and asks
#: str.lower() for any other text), and tokens at the edges of the stopword table.
LOWERING = [
    "THE And OF", "KÅ the", "İ i̇ I", "STRASSE STRAßE Straße", "ΣΑΣ σας",
    "ＴＨＥ Ｔｈｅ", "theTHE the. the, (the)", "Copyright the", "COPYRİGHT", "copyrigh t",
    "cOpYrIgHt", "c" * 20 + "copyright", "x" * 300, "a_b a-b", "Ǆ ǅ ǆ",
]


def test_same_statistics_when_lower_casing_is_not_ascii() -> None:
    stop = frozenset({"the", "of", "and", "kå", "i̇", "straße", "σας", "ｔｈｅ", "x" * 300,
                      "a_b", "ǆ"})
    got = assert_same(LOWERING, stop)
    assert got[0, 5] == 3 and got[2, 5] == 2  # "THE And OF"; "İ" lower-cases to "i̇"
    assert_same(LOWERING, set(stop))
    assert_same(LOWERING, frozenset({"the", 1, b"the", ("the",)}))  # non-str members never match


def test_the_stoplist_table_follows_the_set_passed() -> None:
    """A frozenset passed again reuses its table; another one (even equal) or a set is read
    anew, so the counts always follow the set passed."""
    texts = ["the cat and the dog", "a cat"]
    cats = frozenset({"cat"})
    for stop in (STOPWORDS, cats, STOPWORDS, frozenset(STOPWORDS), {"dog"}, cats, frozenset()):
        assert_same(texts, stop)
    assert assert_same(texts, cats)[:, 5].tolist() == [1, 1]


ALPHABET = st.sampled_from(list("aZ .!?,|»›·•©\"')”0٣²İßǅ ｔ中\u00a0\u2003\u200b\x1c\n\t") +
                           ["the", "The", "copyright", "COPYRIGHT", "straße", "der"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(ALPHABET, max_size=20).map("".join), max_size=6))
def test_same_statistics_on_random_texts(texts: list[str]) -> None:
    assert_same(texts)


def test_same_statistics_on_fixture_pages(data_dir) -> None:
    for path in sorted(data_dir.rglob("*.html"))[:40]:
        blocks = page_blocks(Page.from_html(path.read_text(encoding="utf-8", errors="replace")))
        assert_same([b.text for b in blocks])


TITLE_WORDS = [{"the", "cat", "straße", "i̇stanbul", "_x", "e1", "ǆ"}, {"a"}, {"x" * 70},
               frozenset({"the", "K", "k", "σας", 7}), set()]


@pytest.mark.parametrize("wanted", TITLE_WORDS)
def test_same_title_matches_on_cases(wanted: set[str]) -> None:
    texts = [*CASES, *LOWERING, "The CAT, the cat_x and İstanbul", "STRASSE Straße a_x _x e1 ǅ",
             "x" * 70, "cat" * 30, "(cat)-cat's", "K K k ΣΑΣ the THE The"]
    blocks = blocks_of(texts)
    assert title_features._title_matches(blocks, wanted) == \
        title_features.python_title_matches(blocks, wanted)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(ALPHABET, max_size=20).map("".join), max_size=6),
       st.sets(st.sampled_from(["the", "a", "der", "straße", "ǅ", "t", "copyright", "中"])))
def test_same_title_matches_on_random_texts(texts: list[str], wanted: set[str]) -> None:
    blocks = blocks_of(texts)
    assert title_features._title_matches(blocks, wanted) == \
        title_features.python_title_matches(blocks, wanted)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(0, 12), min_size=1, max_size=8, unique=True), max_size=8),
       st.lists(st.integers(0, 12), min_size=1, max_size=8, unique=True))
def test_same_tree_distances_on_random_paths(paths: list[list[int]], head: list[int]) -> None:
    blocks = [Block("x", 1, 0, "p", tuple(p), len(p), 0) for p in paths]
    head_block = Block("h", 1, 0, "p", tuple(head), len(head), 0)
    assert bf.tree_distances(blocks, head_block) == bf.python_tree_distances(blocks, head_block)


def test_same_tree_distances_on_fixture_pages(data_dir) -> None:
    for path in sorted(data_dir.rglob("*.html"))[:40]:
        blocks = page_blocks(Page.from_html(path.read_text(encoding="utf-8", errors="replace")))
        for head in blocks[:: max(len(blocks) // 5, 1)]:
            assert bf.tree_distances(blocks, head) == bf.python_tree_distances(blocks, head)


def test_bad_input_raises() -> None:
    out = np.empty((1, 8))
    with pytest.raises(TypeError, match="not a str"):
        _blocktext.text_columns([b"bytes"], STOPWORDS, out)
    with pytest.raises(ValueError, match="expected"):
        _blocktext.text_columns(["a", "b"], STOPWORDS, out)
    with pytest.raises(TypeError, match="set"):
        _blocktext.text_columns(["a"], ["the"], out)
    with pytest.raises(TypeError, match="set"):
        _blocktext.title_tokens(["a"], ["the"], np.empty((1, 3)))
    with pytest.raises(ValueError, match="expected"):
        _blocktext.title_tokens(["a"], {"the"}, out)
    with pytest.raises(TypeError, match="not a tuple"):
        _blocktext.tree_distances([[1, 2]], (1,))


def assert_same_fields(blocks: list[Block]) -> bf.BlockFields:
    """The C reading of the blocks' fields covers them and equals the Python one."""
    expected = bf.python_block_fields(blocks)
    n, width = len(blocks), bf.ANCESTOR_LEVELS_DEFAULT + 1
    got = bf.BlockFields(np.empty((n, 7)), np.empty((n, width), dtype=np.int64),
                         np.empty(n, dtype=np.int64), np.empty(n, dtype=np.uint64),
                         np.empty(n, dtype=np.int64))
    assert _blocktext.block_fields(blocks, bf._CONTAINER_INDEX, len(bf.CONTAINER_TAGS), width,
                                   *got), "the C reading handed the blocks back to Python"
    for name, a, b in zip(bf.BlockFields._fields, got, expected, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert all(np.array_equal(a, b) for a, b in zip(bf.block_fields(blocks), expected,
                                                    strict=True))
    return got


def test_same_block_fields_on_fixture_pages(data_dir) -> None:
    for path in sorted(data_dir.rglob("*.html"))[:40]:
        blocks = page_blocks(Page.from_html(path.read_text(encoding="utf-8", errors="replace")))
        assert_same_fields(blocks)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(
    st.text(max_size=8), st.integers(0, 2**40), st.integers(0, 50),
    st.sampled_from([*bf.CONTAINER_TAGS[:5], "span", "x-unknown", ""]),
    st.lists(st.integers(-5, 2**62), min_size=1, max_size=9).map(tuple), st.integers(0, 60),
    st.integers(0, 2**64 - 1), st.integers(0, 9),
    st.frozensets(st.sampled_from(["br", "hr", "h2", "hx", "b", "p"]))), max_size=8))
def test_same_block_fields_on_random_blocks(rows) -> None:
    assert_same_fields([Block(*row) for row in rows])


def test_blocks_the_c_reading_does_not_cover_go_to_python() -> None:
    fine = Block("a b", 2, 1, "p", (3, 2, 1), 3, 5, 1, frozenset({"br"}))
    empty_path = Block("x", 1, 0, "p", (), 0, 0)
    empty_tag = Block("x", 1, 0, "p", (1,), 1, 0, 0, frozenset({""}))
    for odd in (empty_path, empty_tag):
        n, width = 2, bf.ANCESTOR_LEVELS_DEFAULT + 1
        out = (np.empty((n, 7)), np.empty((n, width), dtype=np.int64), np.empty(n, np.int64),
               np.empty(n, np.uint64), np.empty(n, np.int64))
        assert _blocktext.block_fields([fine, odd], bf._CONTAINER_INDEX,
                                       len(bf.CONTAINER_TAGS), width, *out) is False
        with pytest.raises(IndexError):  # what the Python reading does with them
            bf.block_fields([fine, odd])
    with pytest.raises(ValueError, match="do not fit"):
        _blocktext.block_fields([fine], bf._CONTAINER_INDEX, 30, 6, np.empty((2, 7)),
                                np.empty((1, 6), np.int64), np.empty(1, np.int64),
                                np.empty(1, np.uint64), np.empty(1, np.int64))
    with pytest.raises(OverflowError):
        bf.block_fields([Block("x", 1, 0, "p", (1,), 1, -1)])  # a mask below 0, as numpy


def assert_same_text_features(blocks: list[Block], stopwords: frozenset[str] = STOPWORDS
                              ) -> np.ndarray:
    """The C text features equal numpy's bit for bit (float64, and as the float32 rows)."""
    fields = bf.python_block_fields(blocks)
    text = bf._text_matrix(blocks, stopwords)
    expected = bf.python_text_features(fields, text)
    got = bf.text_features(fields, text)
    assert got.shape == expected.shape == (len(blocks), len(bf.TEXT_FEATURES))
    assert np.array_equal(got.view(np.uint64), expected.view(np.uint64)), \
        [bf.TEXT_FEATURES[j] for j in np.flatnonzero((got != expected).any(axis=0))]
    return got


def test_same_text_features_on_fixture_pages(data_dir) -> None:
    for path in sorted(data_dir.rglob("*.html"))[:40]:
        blocks = page_blocks(Page.from_html(path.read_text(encoding="utf-8", errors="replace")))
        if blocks:
            assert_same_text_features(blocks)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(
    st.sampled_from(["", "a", "The cat sat.", "x, y, z | ©", "1 2 3", "Über uns."]),
    st.integers(0, 40), st.integers(0, 40), st.sampled_from(["p", "div", "li", "x"]),
    st.lists(st.sampled_from([0, 1, 2, 3, 7, -4, 2**40]), min_size=1, max_size=8).map(tuple),
    st.integers(0, 80), st.integers(0, 3), st.integers(0, 9),
    st.frozensets(st.sampled_from(["br", "h2", "p"]))), min_size=1, max_size=12))
def test_same_text_features_on_random_blocks(rows) -> None:
    assert_same_text_features([Block(*row) for row in rows])


def test_text_features_reject_arrays_that_do_not_fit() -> None:
    blocks = blocks_of(["a b", "c"])
    fields = bf.python_block_fields(blocks)
    text = bf._text_matrix(blocks, STOPWORDS)
    out = np.empty((2, len(bf.TEXT_FEATURES)))
    logs = np.empty((6 + 2 * bf.ANCESTOR_LEVELS_DEFAULT, 2))
    args = (fields.own, fields.paths, text, bf.ANCESTOR_LEVELS_DEFAULT, 3, 15.0, 0.3)
    with pytest.raises(ValueError, match="do not fit"):
        _blocktext.text_features(*args, out, bf._C_TARGETS, np.empty((3, 2)))
    bad = bf._C_TARGETS.copy()
    bad[0] = len(bf.TEXT_FEATURES)
    with pytest.raises(ValueError, match="out of range"):
        _blocktext.text_features(*args, out, bad, logs)
