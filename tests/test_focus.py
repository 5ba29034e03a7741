"""Focus: long, on-language, on-topic pages and their content links come first."""

import pytest

from corpuscrawl.focus import (
    Focus,
    FocusConfig,
    ShapeLearning,
    TextNovelty,
    anchors_in_content,
    url_shape,
)


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


@pytest.mark.parametrize(("url", "shape"), [
    ("http://x.org/2024/05/13/big-fire-12/", "x.org/D/D/D/S/"),
    ("http://x.org/2024/05/13/", "x.org/D/D/D/"),
    ("http://x.org/tag/fire/page/2/", "x.org/tag/W/W/D/"),
    ("http://x.org/Author/ana-horvat/", "x.org/author/S/"),
    ("http://x.org/article.php?id=12", "x.org/article.php?id=D"),
    ("http://x.org/index.php?view=tag&t=fire&p=2", "x.org/index.php?p=D&t=W&view=W"),
    ("http://x.org/news/a-long-story.html", "x.org/news/S.html"),
    ("http://x.org/", "x.org/"),
])
def test_url_shapes_abstract_numbers_slugs_and_words(url: str, shape: str) -> None:
    assert url_shape(url) == shape


def test_the_first_segment_is_kept_so_sections_differ_but_two_pages_of_one_kind_agree() -> None:
    assert url_shape("http://x.org/tag/fire/") == url_shape("http://x.org/tag/water/")
    assert url_shape("http://x.org/tag/fire/") != url_shape("http://x.org/author/fire/")
    assert url_shape("http://x.org/a") != url_shape("http://y.org/a")


def test_shape_learning_shrinks_a_links_prior_towards_what_its_shape_scored() -> None:
    learning = ShapeLearning(weight=1.0)
    assert learning.estimate(0.9, "tag") == 0.9  # nothing learned: the prior
    for _ in range(4):
        learning.observe("tag", 0.1)
    assert learning.observe("story", 0.8) == (1, 0.8)
    assert learning.estimate(0.9, "tag") == pytest.approx((0.9 + 0.4) / 5)
    assert learning.estimate(0.2, "story") > learning.estimate(0.9, "tag")
    assert learning.estimate(0.3, "story") > learning.estimate(0.2, "story")  # monotonic
    other = ShapeLearning(weight=1.0)
    other.load(learning.shapes)
    assert other.estimate(0.9, "tag") == learning.estimate(0.9, "tag")


def _calendar_and_tags() -> ShapeLearning:
    """A crawl that fetched stories, tag pages and calendar months, all reached by links
    whose priors it checked: months are full or empty, tag pages alike."""
    learning = ShapeLearning()
    for _ in range(6):
        learning.observe("story", 0.85, prior=0.8)
    for score in (0.5, 0.51, 0.5, 0.49, 0.5):
        learning.observe("tag", score, prior=0.42)
    for score in (0.5, 0.01, 0.5, 0.5, 0.01, 0.5):
        learning.observe("month", score, prior=0.42)
    return learning


def test_a_shape_whose_pages_differ_leaves_more_to_the_links_prior() -> None:
    learning = _calendar_and_tags()
    after_empty, after_full = learning.estimate(0.005, "month"), learning.estimate(0.42, "month")
    assert after_full - after_empty > 0.2, "an empty month's link is not ranked like a full one's"
    assert after_empty < learning.estimate(0.005, "tag")
    # pages that all score alike: the shape's mean decides more than the prior
    assert learning.coefficients("tag")[0] < learning.coefficients("month")[0] / 3
    assert learning.coefficients("story")[0] < learning.coefficients("month")[0] / 3
    assert learning.estimate(0.0, "story") > learning.estimate(0.9, "tag")
    for shape in ("story", "tag", "month", "never-seen"):  # linear, so re-rankable in Redis
        a, b = learning.coefficients(shape)
        assert 0 <= a <= 1
        assert learning.estimate(0.3, shape) == pytest.approx(a * 0.3 + b)
        assert learning.estimate(0.4, shape) >= learning.estimate(0.3, shape)  # monotonic
    assert learning.estimate(0.7, "never-seen") == 0.7


def test_what_was_learned_ranks_alike_once_loaded_in_a_resumed_run() -> None:
    learning = _calendar_and_tags()
    resumed = ShapeLearning()
    resumed.load(learning.shapes, learning.squares, learning.misses)
    for shape in ("story", "tag", "month"):
        assert resumed.coefficients(shape) == pytest.approx(learning.coefficients(shape))
    # sums from a run that kept no squares: those shapes get the Bayesian average
    old = ShapeLearning()
    old.load(learning.shapes, {}, learning.misses)
    old.observe("month", 0.5, prior=0.42)
    pages, total = old.shapes["month"]
    assert "month" not in old.squares
    assert old.estimate(0.1, "month") == pytest.approx((old.weight * 0.1 + total) / (old.weight + pages))


def test_a_focus_rank_is_the_priority_of_the_estimate() -> None:
    focus = Focus()
    focus.learning.observe("s", 0.8)
    assert focus.rank(0.2, "s") == focus.priority(focus.learning.estimate(0.2, "s"))


@pytest.mark.parametrize(("page", "link", "expected"), [
    ("http://x.org/topics/sport", "http://x.org/topics/sport?page=2", True),
    ("http://x.org/topics/sport", "http://x.org/topics/sport?sort=oldest", True),
    ("http://x.org/topics/sport?page=2", "http://x.org/topics/sport?page=3", True),
    ("http://x.org/topics/sport?page=2", "http://x.org/topics/sport", True),
    ("http://x.org/index.php?view=tag&t=fire", "http://x.org/index.php?view=tag&t=fire&p=2", True),
    ("http://x.org/tag/fire/", "http://x.org/tag/fire/page/2/", True),
    ("http://x.org/tag/fire/page/2/", "http://x.org/tag/fire/page/3/", True),
    # another listing, another kind of page, another site, the page itself
    ("http://x.org/index.php?view=tag&t=fire", "http://x.org/index.php?view=tag&t=water", False),
    ("http://x.org/index.php?view=tag&t=fire", "http://x.org/index.php?view=author&a=ana", False),
    ("http://x.org/tag/fire/", "http://x.org/tag/water/page/2/", False),
    ("http://x.org/news/sport/12", "http://x.org/news/politics/45", False),
    ("http://x.org/2024/05/", "http://x.org/2024/05/13/", False),
    ("http://x.org/calendar?d=2024-05-13", "http://x.org/calendar?d=2024-05-14", False),
    ("http://x.org/tag/fire/", "http://y.org/tag/fire/page/2/", False),
    ("http://x.org/tag/fire/", "http://x.org/tag/fire/", False),
    # on a page named by one query parameter, a link that sets another names another page
    ("http://x.org/?p=12", "http://x.org/?cat=3", False),
    ("http://x.org/?p=12", "http://x.org/?x=y", False),
    ("http://x.org/?m=202405&paged=2", "http://x.org/?cat=3", False),
    ("http://x.org/?p=12", "http://x.org/?p=12&print=1", True),
    ("http://x.org/?tag=fire&paged=2", "http://x.org/?tag=fire&order=asc", True),
    # a link that does not parse continues nothing (and raises nothing)
    ("http://x.org/tag/fire/", "http://[::1", False),
    ("http://x.org/tag/fire/", "http://a.com:99999/", False),
])
def test_a_listings_pager_and_sort_orders_continue_it(page: str, link: str, expected: bool) -> None:
    from corpuscrawl.focus import continues

    assert continues(page, link) is expected


def test_pager_and_sort_links_are_not_navigation_whether_or_not_the_extractor_kept_them() -> None:
    focus = Focus()
    page = "http://x.org/topics/sport"
    pager = focus.link_score(0.6, "2", page + "?page=2", in_content=False, page_url=page)
    sort = focus.link_score(0.6, "oldest", page + "?sort=oldest", in_content=False, page_url=page)
    menu = focus.link_score(0.6, "Weather", "http://x.org/topics/weather", False, page_url=page)
    assert pager == sort == 0.6
    assert menu == pytest.approx(0.3)


def test_anchor_text_does_not_lengthen_a_page() -> None:
    from corpuscrawl.focus import anchor_words

    focus = Focus()
    headlines = [f"Harbour story number {i} told" for i in range(10)]
    teasers = "\n".join(f"{h}\n{'teaser word ' * 5}" for h in headlines)
    assert anchor_words(headlines, teasers) == 50
    # a listing that kept its headlines scores as one that did not
    assert focus.page_score(teasers, anchors=headlines) == pytest.approx(
        focus.page_score("teaser word " * 50))
    # an anchor counts at most as often as links carry it, and only when in the text
    assert anchor_words(["politics"], "politics and more politics") == 1
    assert anchor_words(["politics", "politics"], "politics and more politics") == 2
    assert anchor_words(["Weather"], "no such word") == 0
    article = "word " * 500
    assert focus.page_score(article, anchors=["Home", "Weather news"]) == focus.page_score(article)


def test_a_page_copying_one_fetched_page_is_not_new_and_one_quoting_many_is():
    novelty = TextNovelty()
    stories = [f"Story {i} opens with a paragraph of its own words.\nIts second paragraph {i}."
               for i in range(4)]
    for i, story in enumerate(stories):
        assert novelty.observe(story, f"http://x/?p={i}") == 1.0
    print_view = "Story 0 opens WITH a paragraph   of its own words.\nIts second paragraph 0."
    assert novelty.observe(print_view, "http://x/?p=0&print=1") == 0.0
    # a listing of the four stories' first lines: each earlier page showed a quarter of it
    listing = "\n".join(story.splitlines()[0] for story in stories)
    assert novelty.observe(listing, "http://x/?tag=a") == pytest.approx(0.75)
    assert novelty.observe("", "http://x/empty") == 1.0
    assert novelty.observe(stories[2], "http://x/?p=2") == 1.0, "a page fetched again is new"


def test_a_listing_scores_by_the_headlines_it_discovers_whatever_its_extracted_text():
    novelty, focus = TextNovelty(), Focus()
    teasers = [(f"http://x/?p={i}", f"A harbour story number {i}") for i in range(10)]
    navigation = [("http://x/?cat=1", "News"), ("http://x/?m=202405", "May 2024")]
    offsite = [("http://y/?p=1", "A story on another site")]
    listing = "http://x/?cat=2"
    assert novelty.new_links(teasers + navigation + offsite, listing) == 10
    # an article extractor kept nothing of the listing: it still ranks by what it discovered
    hub = focus.page_score("", new_links=10)
    assert hub == pytest.approx(1 - 2.718281828 ** -1, abs=1e-6)
    assert focus.page_score("", new_links=1) < hub / 5
    # another listing of the same teasers (an anchor #fragment is the same link) adds nothing
    again = [(url + "#comments", text) for url, text in teasers]
    assert novelty.new_links(again, "http://x/?cat=2&order=asc") == 0
    assert focus.page_score("", new_links=0) == 0.0
    # fetched again after a kill, the listing still shows them
    assert novelty.new_links(teasers, listing) == 10
    # a long article keeps its length score; a copy of one gets only what it discovered
    article = "word " * 600
    assert focus.page_score(article, new_links=2) == focus.page_score(article)
    assert focus.page_score(article, novelty=0.0, new_links=2) == focus.page_score("", new_links=2)
    assert novelty.new_links([("http://[::1", "a broken link anchor")], "http://x/") == 0


def test_the_first_link_of_an_untried_url_shape_is_raised_to_the_exploration_floor():
    from corpuscrawl.focus import EXPLORE_PRIOR_DEFAULT

    focus = Focus()
    floor = focus.priority(EXPLORE_PRIOR_DEFAULT)
    tags, day = url_shape("http://e.com/?tag=7"), url_shape("http://e.com/2024/05/01/")
    assert focus.link_rank(0.04, tags) == floor  # first of its shape: tried early
    assert focus.link_rank(0.04, tags) == focus.rank(0.04, tags) < floor  # not the second
    assert focus.link_rank(0.9, day) == focus.rank(0.9, day) > floor  # never lowered
    learned = url_shape("http://e.com/?cat=2")
    focus.learning.observe(learned, 0.0)
    assert focus.link_rank(0.04, learned) == focus.rank(0.04, learned)  # taught by a page
