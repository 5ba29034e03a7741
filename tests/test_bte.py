"""BTE: the O(N) span equals the thesis' O(N²) search; extraction on fixtures."""

import random

from hypothesis import given
from hypothesis import strategies as st

from corpuscrawl.extract.classic.bte import BTEExtractor, best_span, best_span_quadratic, tokenize
from corpuscrawl.html.page import Page


@given(st.lists(st.integers(min_value=-30, max_value=30), max_size=60))
def test_linear_span_equals_quadratic_search(values):
    assert best_span(values) == best_span_quadratic(values)


def test_linear_span_on_alternating_tag_and_word_runs():
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(1, 80)
        values = [(rng.randint(1, 40) if k % 2 else -rng.randint(1, 12)) for k in range(n)]
        assert best_span(values) == best_span_quadratic(values)


def test_no_positive_span_gives_empty_text():
    assert best_span([-3, -1, -2]) is None
    page = Page.from_html("<html><body><div><span></span></div></body></html>")
    assert BTEExtractor().extract(page) == ""


def test_tokenize_merges_tag_runs_and_counts_words():
    page = Page.from_html("<html><body><div><p>one two three</p><br></div></body></html>")
    runs = tokenize(page.clean_tree.find("body"))
    kinds = [(r.is_text, r.count) for r in runs]
    # <body><div><p> = 3 tags, text of 3 words, </p><br></div></body> = 4 tags (br is void)
    assert kinds == [(False, 3), (True, 3), (False, 4)]


def test_bte_keeps_article_and_drops_link_lists():
    nav = "".join(f'<li><a href="/{i}">Item {i}</a></li>' for i in range(15))
    article = "".join(f"<p>{'word ' * 40}sentence {i}.</p>" for i in range(4))
    html = (f"<html><head><script>var a = 'not text';</script></head><body><ul>{nav}</ul>"
            f"<div>{article}</div><ul>{nav}</ul></body></html>")
    text = BTEExtractor().extract(Page.from_html(html))
    assert text.count("\n") == 3  # one line per paragraph
    assert "Item" not in text and "not text" not in text
    assert "sentence 0." in text and "sentence 3." in text


def test_bte_does_not_modify_the_shared_tree():
    page = Page.from_html("<html><body><p>some words here</p><script>x</script></body></html>")
    before = len(list(page.tree.iter()))
    BTEExtractor().extract(page)
    assert len(list(page.tree.iter())) == before
