"""The page-level check on ``auto``: a cascade that replaces a lost article by the robust
extractors' consensus, and the fit of its thresholds on out-of-fold decoded pages."""

from __future__ import annotations

import numpy as np
import pytest

from corpuscrawl.extract.learned.page_check import (
    MIN_AGREEMENT_DEFAULT,
    PageCheck,
    agreement,
    consensus,
    covers,
    robust_agree,
    unsure_of_running_text,
    words_of,
)
from corpuscrawl.extract.segment.cdom import page_blocks
from corpuscrawl.html.page import Page
from corpuscrawl.learn.page_check_trainer import fit_page_check

SENTENCE = "the council met on tuesday and agreed a new budget for the schools of the town"
ARTICLE = [f"{SENTENCE} paragraph {i} ends here." for i in range(12)]
MENU = ["Home", "News", "Sport", "Contact us"]


def article_page() -> Page:
    body = "".join(f"<li><a href='/{m}'>{m}</a></li>" for m in MENU)
    paras = "".join(f"<p>{p}</p>" for p in ARTICLE)
    return Page.from_html(f"<html><body class='comments hidden'><ul>{body}</ul>"
                          f"<article><h1>Budget agreed</h1>{paras}</article></body></html>")


class Fixed:
    """A stand-in extractor returning a fixed text (or raising)."""

    def __init__(self, text: str | None):
        self.text = text
        self.calls = 0

    def extract(self, page: Page) -> str:
        self.calls += 1
        if self.text is None:
            raise RuntimeError("broken extractor")
        return self.text


def fitted_check(extractors) -> PageCheck:
    """A check of three robust extractors "a", "b", "c" with thresholds 0.5 and 0.5."""
    check = PageCheck(robust=("a", "b", "c"), min_running_words=100, min_consensus_words=50,
                      min_agreement=MIN_AGREEMENT_DEFAULT)
    check.keep_share_, check.confidence_ = 0.5, 0.5
    return check.with_extractors(extractors)


def test_word_overlaps() -> None:
    a, b = words_of("a b b c"), words_of("B b d")
    assert covers(a, b) == pytest.approx(2 / 3)
    assert agreement(a, b) == pytest.approx(2 * 2 / 7)
    assert agreement(a, words_of("")) == 0.0
    # a teaser contained in a long text does not agree with it
    assert agreement(words_of("x y"), words_of("x y " + "z " * 98)) < 0.1


def test_step1_fires_only_when_auto_is_unsure_and_keeps_little_of_the_running_text() -> None:
    blocks = page_blocks(article_page())
    running = [int(b.words >= 15) for b in blocks]
    low, high = np.full(len(blocks), 0.05), np.full(len(blocks), 0.95)
    assert unsure_of_running_text(blocks, low, [0] * len(blocks))
    assert not unsure_of_running_text(blocks, low, running)  # it kept the article
    assert not unsure_of_running_text(blocks, high, [0] * len(blocks))  # confident drop
    assert not unsure_of_running_text(blocks[:2], low[:2], [0, 0])  # no running text


def test_consensus_and_agreement_rules() -> None:
    article = "\n".join(ARTICLE)
    outputs = [words_of(article), words_of(article + " share this"), words_of("Home News")]
    chosen, score = consensus(outputs)
    assert chosen == 0 and score > 0.45  # agrees with the other long output only
    assert robust_agree(outputs, chosen)
    lonely = [words_of(article), words_of("Home News Sport"), words_of("")]
    assert not robust_agree(lonely, consensus(lonely)[0])


def test_cascade_replaces_a_lost_article_by_the_consensus() -> None:
    page = article_page()
    blocks = page_blocks(page)
    article = "\n".join(ARTICLE)
    low = np.full(len(blocks), 0.02)
    check = fitted_check([Fixed(article), Fixed(None), Fixed(article)])
    review = check.review(page, blocks, low, [0] * len(blocks), "Home")
    assert review.fired and review.replaced_by == "a" and review.text == article
    # the robust extractors disagree: auto's text stays
    check = fitted_check([Fixed(article), Fixed("Home News Sport"), Fixed("")])
    review = check.review(page, blocks, low, [0] * len(blocks), "Home")
    assert review.fired and review.text == "Home" and not review.replaced_by
    # auto kept the article: step 1 does not fire and no robust extractor runs
    kept = [int(b.words >= 15) for b in blocks]
    robust = [Fixed(None) for _ in range(3)]
    check = fitted_check(robust)
    assert not check.review(page, blocks, np.full(len(blocks), 0.9), kept, article).fired
    assert sum(r.calls for r in robust) == 0


def test_fit_learns_thresholds_that_replace_lost_articles_only() -> None:
    page = article_page()
    blocks = page_blocks(page)
    article = "\n".join(ARTICLE)
    n = 40
    lost = [i % 4 == 0 for i in range(n)]
    # lost pages: auto is unsure everywhere and keeps the menu; the others: auto confidently
    # keeps the first paragraph, which is all the gold has, and the robust ones add more
    texts = ["Home News" if x else ARTICLE[0] for x in lost]
    golds = [article if x else ARTICLE[0] for x in lost]
    robust = [[article, article + "\nHome", article] for _ in range(n)]
    probs = [np.full(len(blocks), 0.05 if x else 0.95) for x in lost]
    labels = [[0] * len(blocks) for _ in range(n)]
    check, info = fit_page_check([blocks] * n, probs, labels, texts, robust, golds)
    assert check is not None and check.fit_info_ == info
    assert info["replaced"] == sum(lost) and info["lost_before"] == sum(lost)
    assert info["lost_after"] == 0 and info["f1_after"] > info["f1_before"]
    assert check.confidence_ <= 0.9 and check.keep_share_ > 0
    check.with_extractors([Fixed(article)] * 3)
    assert check.review(page, blocks, probs[0], labels[0], texts[0]).text == article
    assert check.review(page, blocks, probs[1], labels[1], texts[1]).text == texts[1]


def test_fit_keeps_no_check_when_replacing_never_pays() -> None:
    blocks = page_blocks(article_page())
    article = "\n".join(ARTICLE)
    # auto is unsure, but it is right: the gold is the menu, not the article
    check, info = fit_page_check([blocks], [np.full(len(blocks), 0.05)], [[0] * len(blocks)],
                                 ["Home News"], [[article, article, article]], ["Home News"])
    assert check is None and info["replaced"] == 0 and "never" in info["note"]
