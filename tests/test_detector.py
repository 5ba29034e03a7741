"""The detector: history thresholds, error-page template, the prior, warm domains."""

from __future__ import annotations

import pytest

from corpuscrawl.boilerplate.detector import Detector, DetectorConfig
from corpuscrawl.boilerplate.normalize import Paragraph, split_paragraphs
from corpuscrawl.boilerplate.sqlite_history import SQLiteHistory

DOMAIN = "news.example"
NOTICE = ("Copyright 2003-{year} Daily Example Media Group Limited. The material on this site "
          "may not be reproduced except with the prior written permission of the company.")


def article(i: int) -> str:
    return f"Headline number {'abc'[i % 3]}{chr(97 + i)}\nBody text {chr(97 + i) * 5} is unique.\n" \
           + NOTICE.format(year=2000 + i)


@pytest.fixture
def history():
    with SQLiteHistory(":memory:") as h:
        yield h


def observe_all(detector: Detector, texts: list[str], first_key: int = 0) -> None:
    for key, text in enumerate(texts, start=first_key):
        detector.observe(DOMAIN, key, split_paragraphs(text))


def test_a_notice_with_changing_years_is_removed_once_seen_often(history):
    detector = Detector(history, DetectorConfig(min_documents=3, min_fraction=0.1,
                                                use_patterns=False))
    observe_all(detector, [article(i) for i in range(2)])
    assert detector.clean(DOMAIN, article(1)).removed == ()  # 2 documents < 3
    observe_all(detector, [article(2)], first_key=2)
    cleaned = detector.clean(DOMAIN, article(2))
    assert cleaned.text == "\n".join(article(2).split("\n")[:2])
    assert len(cleaned.removed) == 1 and len(cleaned.removed_hashes[0]) == 16


def test_the_fraction_threshold_protects_rare_repeats_in_big_domains(history):
    detector = Detector(history, DetectorConfig(min_documents=3, min_fraction=0.5,
                                                use_patterns=False))
    texts = [f"Unique story {chr(97 + i)}{chr(98 + i)}" for i in range(10)]
    texts[:3] = [t + "\nA quote repeated in three follow-up stories." for t in texts[:3]]
    observe_all(detector, texts)
    verdicts = detector.judge(DOMAIN, split_paragraphs(texts[0]))
    assert [v.boilerplate for v in verdicts] == [False, False]  # 3 of 10 < 50 %


def test_error_page_paragraphs_are_template_at_once(history):
    detector = Detector(history, DetectorConfig(use_patterns=False))
    history.seed_from_error_page(DOMAIN, ["Home\nSubscribe to our newsletter\nPage not found"])
    verdicts = detector.judge(DOMAIN, split_paragraphs("Subscribe to our newsletter\nReal text"))
    assert [v.reason for v in verdicts] == ["template", None]


def test_the_prior_works_on_the_first_page(history):
    detector = Detector(history)
    verdicts = detector.judge(DOMAIN, split_paragraphs(
        "A real paragraph of the article.\n© 2024 Example. All rights reserved."))
    assert [v.reason for v in verdicts] == [None, "rights"]
    off = Detector(history, DetectorConfig(use_patterns=False))
    assert not any(v.boilerplate for v in off.judge(DOMAIN, verdicts and
                                                    split_paragraphs("© 2024 Example.")))


def test_warm_after_enough_documents(history):
    detector = Detector(history, DetectorConfig(warm_documents=2))
    assert not detector.is_warm(DOMAIN)
    observe_all(detector, ["one", "two"])
    assert detector.is_warm(DOMAIN)
    assert not detector.is_warm("other.example")


def test_observing_a_document_twice_does_not_inflate_counts(history):
    detector = Detector(history, DetectorConfig(min_documents=2, min_fraction=0.0,
                                                use_patterns=False))
    paragraphs = [Paragraph.of("Only in one page")]
    detector.observe(DOMAIN, 1, paragraphs)
    detector.observe(DOMAIN, 1, paragraphs)
    assert not detector.judge(DOMAIN, paragraphs)[0].boilerplate


@pytest.mark.parametrize("kwargs", [{"min_documents": 0}, {"min_fraction": 1.5},
                                    {"warm_documents": -1}])
def test_invalid_config_is_rejected(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        DetectorConfig(**kwargs)


def test_prose_repeated_with_other_figures_in_two_stories_of_forty_is_kept(history):
    from corpuscrawl.boilerplate.detector import is_prose

    detector = Detector(history)  # the defaults
    nav = "Home World Business Sport"
    notice = ("The material on this site may not be reproduced, distributed or transmitted "
              "except with the prior written permission of Harbour Gazette Media Group.")
    texts = []
    for i in range(40):
        lines = [f"Story {i} unique body line number {chr(97 + i % 26) * (1 + i // 26)}.", nav,
                 notice]
        if i in (15, 16):  # the same sentence with other figures, as market reports have
            lines.insert(1, f"Shares of Harbour Foods rose {i}.2 percent to {i * 3}.10 pounds.")
        if i in (3, 4):  # a short template line in two documents: boilerplate still
            lines.append("Related: Port news")
        texts.append("\n".join(lines))
    observe_all(detector, texts)
    cleaned = detector.clean(DOMAIN, texts[15])
    assert "Shares of Harbour Foods rose 15.2 percent to 45.10 pounds." in cleaned.text
    assert nav not in cleaned.text and notice not in cleaned.text
    assert "Related: Port news" not in detector.clean(DOMAIN, texts[3]).text
    # prose: a sentence ending of PROSE_WORDS words or more; not a teaser cut short
    assert is_prose(Paragraph.of("Turnout was 34 percent."))
    assert not is_prose(Paragraph.of("Read more about the festival and the orchard…"))
    assert not is_prose(Paragraph.of("Home World Business Sport"))


def test_the_document_s_own_headline_is_kept(history):
    detector = Detector(history, DetectorConfig(use_patterns=False))
    headline = "Council approves the harbour budget"
    observe_all(detector, [f"{headline}\nBody {c} text." for c in "abcde"])
    paragraphs = split_paragraphs(f"{headline}\nBody b text.")
    keep = frozenset({Paragraph.of(headline).fingerprint})
    assert detector.clean_paragraphs(DOMAIN, paragraphs).text == "Body b text."
    assert detector.clean_paragraphs(DOMAIN, paragraphs, keep=keep).text == \
        f"{headline}\nBody b text."
    assert [v.reason for v in detector.judge(DOMAIN, paragraphs, keep=keep)] == [None, None]


def test_prose_thresholds_are_validated():
    with pytest.raises(ValueError, match="prose_min_fraction"):
        DetectorConfig(prose_min_fraction=1.5)
    with pytest.raises(ValueError, match="prose_min_documents"):
        DetectorConfig(prose_min_documents=0)


def _story(i: int, figures: str, last: str = "") -> str:
    return (f"Headline {chr(97 + i)}{chr(98 + i)}\nThe story {chr(97 + i) * 4} begins with its "
            f"own opening sentence.\n{figures}\nAnd it goes on {chr(97 + i) * 3} with more "
            f"of its own prose.{last}\n© 2019-{2015 + i} Example Ltd")


MARKET = ("The harbour share index closed at {a} points on the day, {b} points above the "
          "close of the week before.")


def test_a_sentence_repeated_with_other_figures_in_many_stories_is_kept(history):
    detector = Detector(history, DetectorConfig(use_patterns=False))
    texts = [_story(i, MARKET.format(a=300 + 7 * i, b=i + 1)) for i in range(10)]
    observe_all(detector, texts)
    for text in texts:
        cleaned = detector.clean(DOMAIN, text)
        assert MARKET.format(a=300, b=1)[:30] in cleaned.text
        assert "Example Ltd" not in cleaned.text  # the notice's years are dates, not figures
    # without the rule, history boilerplate (10 of 10 documents)
    off = Detector(history, DetectorConfig(use_patterns=False, figures_words=0))
    assert "share index" not in off.clean(DOMAIN, texts[0]).text


def test_a_short_sentence_with_other_figures_in_every_story_is_kept(history):
    """Six words ("The euro stood at 1.12 dollars."), in every story with other figures."""
    texts = [_story(i, f"The euro stood at 1.{10 + i} dollars.") for i in range(10)]
    detector = Detector(history, DetectorConfig(use_patterns=False))
    observe_all(detector, texts)
    for text in texts:
        assert "The euro stood at" in detector.clean(DOMAIN, text).text
    longer = Detector(history, DetectorConfig(use_patterns=False, figures_words=10))
    assert "The euro stood at" not in longer.clean(DOMAIN, texts[0]).text


def test_the_same_figures_on_every_page_are_template_text(history):
    detector = Detector(history, DetectorConfig(use_patterns=False))
    texts = [_story(i, MARKET.format(a=300, b=1)) for i in range(10)]
    observe_all(detector, texts)
    verdicts = detector.judge(DOMAIN, split_paragraphs(texts[3]))
    assert [v.reason for v in verdicts][2] == "history"


def test_the_same_figures_in_two_stories_of_a_warming_domain_are_still_their_own(history):
    """Two stories of the same week print the same fuel price: with 20 documents (the
    domain just warm, where the history floor is 2) the sentence with those figures is in
    2 of them, below the prose thresholds (4 of 20), so it stays in both."""
    detector = Detector(history, DetectorConfig(use_patterns=False))
    figures = [(300 + 7 * i, i + 1) for i in range(20)]
    figures[5] = figures[4]
    texts = [_story(i, MARKET.format(a=a, b=b)) for i, (a, b) in enumerate(figures)]
    observe_all(detector, texts)
    for text in texts:
        assert MARKET[:30] in detector.clean(DOMAIN, text).text
    # with the same figures on every fourth page (5 of 20) it is a template's line
    with SQLiteHistory(":memory:") as other:
        detector = Detector(other, DetectorConfig(use_patterns=False))
        same = [_story(i, MARKET.format(a=300 if i % 4 == 0 else 300 + 7 * i, b=1))
                for i in range(20)]
        observe_all(detector, same)
        assert "share index" not in detector.clean(DOMAIN, same[0]).text
        assert "share index" in detector.clean(DOMAIN, same[1]).text


def test_a_sentence_with_its_own_figures_at_the_text_s_edge_beside_template_is_removed(history):
    # "either": a kept sentence of prose on one side at least; here only template lines
    detector = Detector(history, DetectorConfig(use_patterns=False))
    texts = [f"Menu\n{MARKET.format(a=300 + i, b=i)}\nSubscribe now\nUnique {chr(97 + i) * 6}"
             for i in range(10)]
    observe_all(detector, texts)
    assert "share index" not in detector.clean(DOMAIN, texts[0]).text
    anywhere = Detector(history, DetectorConfig(use_patterns=False, figures_flow="any"))
    assert "share index" in anywhere.clean(DOMAIN, texts[0]).text


def test_figures_flow_both_needs_prose_on_both_sides(history):
    texts = [_story(i, "Final line.", last="\n" + MARKET.format(a=300 + i, b=i)).replace(
        "\n© ", "\nMenu\n© ") for i in range(10)]
    for flow, kept in (("either", True), ("both", False)):
        detector = Detector(history, DetectorConfig(use_patterns=False, figures_flow=flow))
        if flow == "either":
            observe_all(detector, texts)
        assert ("share index" in detector.clean(DOMAIN, texts[0]).text) is kept, flow
    with pytest.raises(ValueError):
        DetectorConfig(figures_flow="nowhere")


def test_figures_fingerprints_mask_dates_not_quantities():
    from corpuscrawl.boilerplate.figures import figures_fingerprint

    def fp(text: str) -> int | None:
        return figures_fingerprint(Paragraph.of(text))

    # dates and times only: no figures
    assert fp("This entry was written by matt, posted on 10/18/2012 at 12:22 pm.") is None
    assert fp("Published at 13.04 EDT on Monday 29 October 2012 and updated later.") is None
    assert fp("Copyright 2003-2011 Example Media. All rights reserved.") is None
    # quantities: the same figures share a fingerprint, other figures do not
    assert fp("Shares rose 3.2 percent to 45.10 on 3 March.") == \
        fp("Shares rose 3.2 percent to 45.10 on 9 March.")
    assert fp("Shares rose 3.2 percent to 45.10.") != fp("Shares rose 1.1 percent to 44.30.")
    assert fp("Prices rose ٣٢ percent.") is not None  # digits of other scripts
    assert fp("No figures at all in this sentence.") is None
