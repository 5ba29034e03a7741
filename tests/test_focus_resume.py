"""Focus-efficiency floors on resumed crawls and on a second, differently shaped site.

A crawl killed (SIGKILL) at half its 200-response budget and resumed with the rest must
find about as many articles as a fresh one: what the focus learned per URL shape, the
re-ranked frontier and the hand-out that keeps a host's requests ranked until it can
start one all survive the kill, and a kill redoes only the requests finished after the
last commit.  The second site (tests/bulletin_site.py) hides its articles behind
query-string ids among dated archives, an endless calendar and sort-order duplicates.
Counts, not timings; figures in benchmarks/results/focus.md.
"""

from __future__ import annotations

import pytest

from tests.bulletin_site import BulletinSite
from tests.focus_site import IN_PROCESS, FocusSite, measure

#: Articles among the exported documents of a 200-response crawl (200 on each site; the
#: sites' ceilings are about 160).  Measured on the bulletin site, seeds 1-3: fresh 151-155
#: with the default extractor and ``bte`` alike; killed at half and resumed 147-152 with
#: either (a kill redoes the 2-5 requests in flight or done in the last ~20 ms; robots.txt
#: and the error-page probe are kept in the crawl state); before the resumed crawl kept its
#: learning, killed and resumed: 139-142.  Since a link's prior is weighed against the
#: spread of its shape's pages (no more runs of empty calendar months), seeds 1, 3 and 5:
#: fresh 153-158, killed at half and resumed 149-154 with either extractor (seed 3, this
#: test's: 153-156), so ``bte`` killed and resumed is checked too
#: (benchmarks/results/focus.md).
FLOOR_DEFAULT = 145


@pytest.mark.slow
def test_killed_and_resumed_crawl_keeps_what_the_focus_learned() -> None:
    with FocusSite(200, "wordpress", seed=3) as site:
        got = measure(site, budget=200, resume="killed", extra=IN_PROCESS)
    assert got.resumed, "the second run did not resume the killed one"
    assert got.exported >= FLOOR_DEFAULT, got


@pytest.mark.slow
@pytest.mark.parametrize(("extractor", "resume"), [("", ""), ("", "killed"), ("bte", ""),
                                                   ("bte", "killed")],
                         ids=["fresh", "killed-and-resumed", "fresh-bte", "killed-and-resumed-bte"])
def test_focused_crawl_on_a_site_of_query_ids_dated_archives_and_endless_calendar(
        extractor: str, resume: str) -> None:
    """The default extractor, and ``bte``, which keeps a listing's headlines but not its pager."""
    with BulletinSite(200, seed=3) as site:
        got = measure(site, extractor, budget=200, resume=resume, extra=IN_PROCESS)
    if resume:
        assert got.resumed, "the second run did not resume the killed one"
    assert got.exported >= FLOOR_DEFAULT, got


def _crawl_steps(frontier, focus, pages):
    """What the durable scheduler does when the spider learns from ``pages`` (shape, score):
    keep the learning with the frontier and re-rank that shape's pending rows."""
    from functools import partial

    for shape, score in pages:
        frontier.save_learned(shape, *focus.learning.observe(shape, score))
        frontier.rerank(shape, partial(focus.rank, shape=shape))


def _small_frontier(frontier, focus):
    """A news site's pending links as its pages show them: 4 articles linked from a short
    listing's sidebar (0.25), 6 calendar days linked in the content of a long page (0.8)
    and 3 topic pages (0.5)."""
    links = [(f"http://x/news?aid={i}", "x/news?aid=D", 0.25) for i in range(4)]
    links += [(f"http://x/archive/2024-05-{i:02}", "x/archive/M", 0.8) for i in range(6)]
    links += [(f"http://x/topics/{t}", "x/topics/W", 0.5) for t in "abc"]
    for url, shape, prior in links:
        frontier.push(focus.rank(prior, shape), url, url, shape=shape, prior=prior)


def _kind(url: str) -> str:
    return url.split("/")[3].split("?")[0]


def test_a_resumed_frontier_ranks_with_what_the_killed_run_learned(tmp_path) -> None:
    """Fast, no crawl: what the focus learned per URL shape is committed with the frontier and
    its re-ranked priorities; after a kill the resumed run loads it and hands out what the
    run it resumes would have (the articles, then topics, the empty day archives last),
    where a cold start would take the day archives first."""
    from corpuscrawl.crawlstate.frontier import Frontier
    from corpuscrawl.crawlstate.store import StateStore
    from corpuscrawl.focus import Focus

    learned = [("x/news?aid=D", 0.85), ("x/news?aid=D", 0.85),
               ("x/archive/M", 0.1), ("x/archive/M", 0.1), ("x/archive/M", 0.02),  # empty days
               ("x/topics/W", 0.5)]
    # the run that is not killed
    store = StateStore(tmp_path / "alive.sqlite3")
    alive, focus = Frontier(store), Focus()
    _small_frontier(alive, focus)
    _crawl_steps(alive, focus, learned)
    expected = [_kind(alive.pop()[1]) for _ in range(alive.pending)]
    store.close()
    assert expected == ["news"] * 4 + ["topics"] * 3 + ["archive"] * 6

    # the same run killed after its last commit (later writes are lost), then resumed
    path = tmp_path / "state.sqlite3"
    store = StateStore(path)
    frontier, focus = Frontier(store), Focus()
    _small_frontier(frontier, focus)
    _crawl_steps(frontier, focus, learned)
    store.commit()
    _crawl_steps(frontier, focus, [("x/news?aid=D", 0.0)] * 9)  # after the last commit: lost
    frontier.push(99, "http://x/lost", "lost")
    store.db.close()
    store = StateStore(path)
    resumed, focus = Frontier(store), Focus()
    assert resumed.pending == 13
    focus.learning.load(resumed.learned())
    assert focus.learning.shapes["x/news?aid=D"] == (2, 1.7)
    assert [_kind(resumed.pop()[1]) for _ in range(resumed.pending)] == expected
    store.close()

    # without what was learned the order is not that one (the test can fail)
    store = StateStore(tmp_path / "cold.sqlite3")
    cold, focus = Frontier(store), Focus()
    _small_frontier(cold, focus)
    assert [_kind(cold.pop()[1]) for _ in range(cold.pending)][:6] == ["archive"] * 6
    store.close()


def test_commit_pages_setting_is_checked() -> None:
    from scrapy.utils.test import get_crawler

    from corpuscrawl.crawlstate.scrapy_glue.state_addon import StateConfig, StateConfigError

    def config(value: object) -> StateConfig:
        return StateConfig.from_settings(get_crawler(
            settings_dict={"CORPUSCRAWL_STATE_COMMIT_PAGES": value}).settings)

    assert config("3").commit_pages == 3
    assert config(0).commit_pages == 0  # by time only
    for bad in ("-1", "many"):
        with pytest.raises(StateConfigError, match="CORPUSCRAWL_STATE_COMMIT_PAGES"):
            config(bad)
