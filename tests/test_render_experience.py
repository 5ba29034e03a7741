"""render=auto's per-site experience outlives the crawl: SQLite in the collection's state, Redis
in cluster mode; a second real crawl of a site whose pages needed a browser renders them directly."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest
from scrapy.settings import Settings

from corpuscrawl.browse.browser import chromium_path
from corpuscrawl.browse.experience import (
    EXPERIENCE_FILE,
    ExperienceConfig,
    ExperienceConfigError,
    MemoryExperienceStore,
    RedisExperienceStore,
    RenderExperience,
    SqliteExperienceStore,
    open_experience_store,
)
from tests.crawl_helpers import run_crawl, stat
from tests.dynamic_bed import TestBed
from tests.redis_server import redis_url  # noqa: F401 (fixture)

SITE = "http://127.0.0.1:8123/a"
OTHER = "http://127.0.0.1:8124/a"


def teach(experience: RenderExperience, url: str, pages: int, gained: bool) -> None:
    for _ in range(pages):
        experience.judged(url)
        experience.rendered(url, gained)


def test_sqlite_experience_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "exp.sqlite3"
    first = RenderExperience(store=SqliteExperienceStore(path))
    teach(first, SITE, 4, gained=True)
    teach(first, OTHER, 4, gained=False)
    first.close()
    second = RenderExperience(store=SqliteExperienceStore(path))
    assert second.advice(SITE + "/next") == "render"
    assert second.advice(OTHER + "/next") == "plain"
    assert second.advice("http://127.0.0.1:8125/") == ""  # another port: no experience
    second.close()


def test_sqlite_experience_expires(tmp_path: Path) -> None:
    path = tmp_path / "exp.sqlite3"
    store = SqliteExperienceStore(path)
    teach(RenderExperience(store=store), SITE, 4, gained=True)
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE sites SET updated = ?", (time.time() - 10 * 86400,))
    assert RenderExperience(store=SqliteExperienceStore(path, 30)).advice(SITE) == "render"
    assert RenderExperience(store=SqliteExperienceStore(path, 5)).advice(SITE) == ""


def test_a_corrupt_store_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "exp.sqlite3"
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(ExperienceConfigError, match="exp.sqlite3"):
        SqliteExperienceStore(path)
    assert path.read_bytes() == b"not a database" * 100  # left as it was


def test_settings_choose_the_store_and_bad_values_name_the_key(tmp_path: Path) -> None:
    state = Settings({"CORPUSCRAWL_STATE_DIR": str(tmp_path), "CORPUSCRAWL_COLLECTION": "c1"})
    store = open_experience_store(state)
    assert isinstance(store, SqliteExperienceStore)
    assert store.path == tmp_path / "c1" / EXPERIENCE_FILE
    store.close()
    in_project = open_experience_store(Settings({"CORPUSCRAWL_COLLECTION": "c2"}),
                                       project_root=lambda: tmp_path / "project")
    assert in_project.path == tmp_path / "project" / "c2" / EXPERIENCE_FILE
    in_project.close()
    demo = Settings({"CORPUSCRAWL_STATE_TEMPORARY": True, "CORPUSCRAWL_COLLECTION": "demo"})
    assert isinstance(open_experience_store(demo), MemoryExperienceStore)
    memory = Settings({"CORPUSCRAWL_RENDER_EXPERIENCE": "memory"})
    assert isinstance(open_experience_store(memory), MemoryExperienceStore)
    with pytest.raises(ExperienceConfigError, match="CORPUSCRAWL_RENDER_EXPERIENCE_MAX_AGE_DAYS"):
        ExperienceConfig.from_settings(Settings({
            "CORPUSCRAWL_RENDER_EXPERIENCE_MAX_AGE_DAYS": "soon"}))
    with pytest.raises(ExperienceConfigError, match="CORPUSCRAWL_RENDER_EXPERIENCE="):
        ExperienceConfig.from_settings(Settings({"CORPUSCRAWL_RENDER_EXPERIENCE": str(tmp_path)}))


@pytest.mark.redis
def test_redis_experience_is_shared_by_workers(redis_url: str) -> None:  # noqa: F811
    import redis

    prefix = f"corpuscrawl:test-{os.getpid()}:render:"
    one = RenderExperience(store=RedisExperienceStore(redis.Redis.from_url(redis_url), prefix))
    two = RenderExperience(store=RedisExperienceStore(redis.Redis.from_url(redis_url), prefix))
    teach(one, SITE, 2, gained=True)
    teach(two, SITE, 2, gained=True)
    assert one.advice(SITE) == "render"  # its cache is dropped by its own writes
    fresh = RenderExperience(store=RedisExperienceStore(redis.Redis.from_url(redis_url), prefix))
    assert fresh.advice(SITE) == "render"  # 4 pages judged by two workers
    ttl = redis.Redis.from_url(redis_url).ttl(prefix + "127.0.0.1:8123")
    assert 0 < ttl <= 90 * 86400
    for exp in (one, two, fresh):
        exp.close()


@pytest.mark.redis
def test_redis_away_loses_counts_not_the_crawl() -> None:
    import redis

    store = RedisExperienceStore(redis.Redis.from_url("redis://127.0.0.1:1/0",
                                                      socket_connect_timeout=0.2), "x:")
    experience = RenderExperience(store=store)
    experience.judged(SITE)  # logged, not raised
    assert experience.advice(SITE) == ""


@pytest.mark.browser
@pytest.mark.skipif(not Path(chromium_path()).exists(),
                    reason=f"Chromium not installed at {chromium_path()}")
def test_second_crawl_renders_the_site_directly(tmp_path: Path) -> None:
    """Two real crawls of one collection: the second skips the plain fetch of a JS site."""
    names = ["reveal-fetch", "tabs", "spa-pushstate", "shadow-dom", "scroll-events"]
    settings = {"CORPUSCRAWL_STATE_DIR": str(tmp_path / "state")}
    with TestBed(seed=51, names=names) as bed:
        seeds = ",".join(bed.url(n) for n in names)
        args = (f"seeds={seeds}", "render=auto", "depth=0", "sitemaps=0", "collection=jsnews")
        first, log1, code1 = run_crawl(tmp_path / "first.jsonl", *args, settings=settings)
        assert code1 == 0, log1[-3000:]
        second, log2, code2 = run_crawl(tmp_path / "second.jsonl", *args, settings=settings)
        assert code2 == 0, log2[-3000:]
        key = f"127.0.0.1:{bed.port}"
    assert stat(log1, "corpuscrawl/render/auto_rerender") == len(names)
    assert stat(log1, "corpuscrawl/render/direct") == 0
    with sqlite3.connect(tmp_path / "state" / "jsnews" / EXPERIENCE_FILE) as db:
        judged, gains = db.execute("SELECT judged, gains FROM sites WHERE site = ?",
                                   (key,)).fetchone()
    assert judged == len(names) and gains == len(names)
    # the second crawl: every page rendered directly, none fetched plainly first (its
    # documents are unchanged, so not exported again: the stats tell)
    assert stat(log2, "corpuscrawl/fetch/rendered") == len(names)
    assert stat(log2, "corpuscrawl/fetch/plain") == 0
    assert stat(log2, "corpuscrawl/render/auto_rerender") == 0
    assert stat(log2, "corpuscrawl/render/reason/domain-experience") >= len(names)
    assert len(first) == len(names) and all(d["rendered"] for d in first)
