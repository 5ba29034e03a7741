"""``scrapy crawl corpus`` with rendering, in real headless Chromium, against local pages.

Each crawl runs as a subprocess (a fresh reactor) with cwd at the repository.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpuscrawl.browse.browser import chromium_path
from corpuscrawl.browse.localsite import LocalSite
from tests.crawl_helpers import run_crawl, stat

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not Path(chromium_path()).exists(),
                       reason=f"Chromium not installed at {chromium_path()}"),
]

SITE = Path(__file__).parent / "data" / "dynamic"


def corpus_text(docs: list[dict]) -> str:
    return "\n".join(d["text"] for d in docs)


def test_rendered_crawl_reveals_scrolls_closes_and_follows_proxy(tmp_path: Path) -> None:
    """The browser's work on real-looking pages, every item of which must reach the text.

    Pinned to ``bte``, which keeps all the text a page shows: the scroll markers sit in a
    search-result stream of short posts, of which ``auto`` (an article extractor, the
    default) keeps the first screen only (its block probabilities fall along the list, below
    its threshold from the third page of posts on).  Infinite scroll under the default
    extractor is checked by the bed's scroll patterns (tests/test_dynamic_bed.py)."""
    with LocalSite(SITE) as site:
        seeds = ",".join(site.url(p) for p in ("news/article.html", "feed/index.html",
                                               "forum/thread.html"))
        docs, log, code = run_crawl(tmp_path / "out.jsonl", f"seeds={seeds}", "render=always",
                                    "depth=1", "max_scrolls=5", "follow=inner",
                                    "extractor=bte")
        outer_hits = site.hits.get("/forum/outer-target.html", 0)
        proxy_hits = site.hits.get("/news/hidden-article.html", 0)
    assert code == 0, log[-3000:]
    text = corpus_text(docs)
    assert "CLICK-REVEALED-ARTICLE" in text          # behind a click and a consent wall
    assert "SCROLL-PAGE-THREE" in text               # after infinite scroll
    assert "LOAD-MORE-PAGE-THREE" in text            # "load more" clicked until exhausted
    assert "PROXY-REACHED-ARTICLE" in text           # only linked through dex.hu-style proxy
    assert proxy_hits >= 1
    for overlay in ("CONSENT-WALL-TEXT", "MODAL-NEWSLETTER-TEXT"):
        assert overlay not in text                   # overlay/modal text stays out
    assert outer_hits == 0 and "OUTER-SITE-TEXT" not in text   # follow=inner
    assert all(d["rendered"] for d in docs)
    forum = next(d for d in docs if d["url"].endswith("/forum/thread.html"))
    assert set(forum["alternates"]) >= {"de", "hu"}
    assert stat(log, "corpuscrawl/fetch/rendered") >= 4
    assert stat(log, "corpuscrawl/render/reveals") >= 4
    assert "Closing page due to failed request" not in log


def test_render_auto_renders_only_script_built_pages(tmp_path: Path) -> None:
    with LocalSite(SITE) as site:
        seeds = ",".join(site.url(p) for p in ("app/index.html", "news/hidden-article.html"))
        docs, log, code = run_crawl(tmp_path / "auto.jsonl", f"seeds={seeds}", "render=auto",
                                    "depth=0")
    assert code == 0, log[-3000:]
    by_url = {d["url"].rsplit("/", 2)[-2] + "/" + d["url"].rsplit("/", 1)[-1]: d for d in docs}
    app = by_url["app/index.html"]
    assert app["rendered"] and "SCRIPT-BUILT-TEXT" in app["text"]
    static = by_url["news/hidden-article.html"]
    assert not static["rendered"] and "PROXY-REACHED-ARTICLE" in static["text"]
    assert stat(log, "corpuscrawl/render/auto_rerender") == 1
    assert stat(log, "corpuscrawl/fetch/plain") >= 2
    assert stat(log, "corpuscrawl/fetch/rendered") == 1


def test_follow_all_follows_outer_links(tmp_path: Path) -> None:
    with LocalSite(SITE) as site:
        docs, log, code = run_crawl(tmp_path / "all.jsonl",
                                    f"seeds={site.url('forum/thread.html')}", "render=always",
                                    "depth=1", "max_scrolls=0", "follow=all",
                                    # the "outer site" is localhost, a private address
                                    settings={"CORPUSCRAWL_ALLOWED_NETWORKS": "localhost"})
        outer_hits = site.hits.get("/forum/outer-target.html", 0)
    assert code == 0, log[-3000:]
    assert outer_hits >= 1
    assert "OUTER-SITE-TEXT" in corpus_text(docs)
