"""Focus: long, on-language, on-topic pages and their content links come first."""

from corpuscrawl.focus import Focus, FocusConfig, anchors_in_content


def test_longer_text_scores_higher_and_language_matters():
    focus = Focus(FocusConfig.from_values(languages="hr"))
    short, long_ = "riječ " * 20, "riječ " * 600
    assert focus.page_score(long_, "hr") > focus.page_score(short, "hr")
    assert focus.page_score(long_, "en") < focus.page_score(long_, "hr") / 2


def test_keywords_raise_pages_and_links():
    focus = Focus(FocusConfig.from_values(keywords="orchard, apple"))
    text = "word " * 300
    assert focus.page_score(text + " apple orchard apple", title="Orchard") > focus.page_score(text)
    base = focus.link_score(0.5, "Latest news today", "http://a.com/news", in_content=False)
    assert focus.link_score(0.5, "Apple festival returns", "http://a.com/x", False) > base


def test_content_links_beat_navigation_links():
    focus = Focus()
    content = focus.link_score(0.6, "the clean-up report", "http://a.com/r", in_content=True)
    nav = focus.link_score(0.6, "Home", "http://a.com/", in_content=False)
    assert Focus.priority(content) > Focus.priority(nav)
    assert anchors_in_content(["Home", "clean-up report"], "read the clean-up report here") == \
        {"clean-up report"}
