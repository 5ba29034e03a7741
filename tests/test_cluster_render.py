"""Cluster mode with ``render=auto``: rendered re-requests go through the Redis queue."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpuscrawl.browse.browser import chromium_path
from corpuscrawl.browse.localsite import LocalSite
from tests.crawl_helpers import run_crawl, stat
from tests.redis_server import redis_url  # noqa: F401 (fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.skipif(not Path(chromium_path()).exists(),
                       reason=f"Chromium not installed at {chromium_path()}"),
]

SITE = Path(__file__).parent / "data" / "dynamic"


def test_render_auto_in_cluster_mode(tmp_path: Path, redis_url: str) -> None:  # noqa: F811
    with LocalSite(SITE) as site:
        seeds = ",".join(site.url(p) for p in ("app/index.html", "news/hidden-article.html"))
        docs, log, code = run_crawl(
            tmp_path / "auto.jsonl", f"seeds={seeds}", "render=auto", "depth=0",
            "collection=rendered",
            settings={"CORPUSCRAWL_REDIS_URL": redis_url,
                      "CORPUSCRAWL_BOILERPLATE_HISTORY": redis_url})
    assert code == 0, log[-3000:]
    assert "LeasingScheduler" in log
    by_url = {d["url"].rsplit("/", 2)[-2] + "/" + d["url"].rsplit("/", 1)[-1]: d for d in docs}
    assert by_url["app/index.html"]["rendered"]
    assert "SCRIPT-BUILT-TEXT" in by_url["app/index.html"]["text"]
    assert not by_url["news/hidden-article.html"]["rendered"]
    assert stat(log, "corpuscrawl/render/auto_rerender") == 1
    assert stat(log, "corpuscrawl/cluster/unserializable") == 0
    assert len(docs) == len({(d["url"], d.get("unit_index", 0)) for d in docs})
