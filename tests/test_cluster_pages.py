"""The recrawl page store in Redis: the SQLite store's contract, shared by several workers."""

from __future__ import annotations

import itertools

import pytest
from scrapy.settings import Settings

from corpuscrawl.cluster.redis_pages import MAX_ETAG_CHARS, RedisPageStore
from corpuscrawl.crawlstate.pages import PageStoreError, SQLitePageStore, unit_key
from tests.redis_server import redis_url  # noqa: F401 (fixture)

pytestmark = pytest.mark.redis
_names = itertools.count()


@pytest.fixture
def client(redis_url):  # noqa: F811
    import redis

    return redis.Redis.from_url(redis_url)


def store_on(client, name: str, **kwargs) -> RedisPageStore:
    return RedisPageStore(client, f"corpuscrawl:{name}:pages", **kwargs)


@pytest.fixture(params=["sqlite", "redis"])
def store(request, tmp_path, client):
    """The same checks on both backends."""
    if request.param == "sqlite":
        made = SQLitePageStore(tmp_path / "pages.sqlite3")
    else:
        made = store_on(client, f"t{next(_names)}")
    yield made
    made.close()


def test_texts_validators_and_generations(store) -> None:
    assert store.get("http://a.test/x") is None
    store.record_text("http://a.test/x", "h1", 1, 200, '"e1"', "Tue, 01 Jan 2030 00:00:00 GMT",
                      words=40)
    record = store.get("http://a.test/x")
    assert (record.text_hash, record.etag, record.first_seen, record.last_seen, record.words,
            record.baseline(1), record.baseline(2)) == ("h1", '"e1"', 1, 1, 40, "", "h1")
    store.record_text("http://a.test/x", "h2", 2)
    store.record_text("http://a.test/x", "h3", 2)  # a resumed run / another worker of gen 2
    record = store.get("http://a.test/x")
    assert (record.text_hash, record.baseline(2), record.baseline(3)) == ("h3", "h1", "h3")
    assert not record.has_validators and record.first_seen == 1 and record.last_seen == 2
    store.touch("http://a.test/x", 3, 304)
    assert store.get("http://a.test/x").last_seen == 3 and store.get("http://a.test/x").status == 304
    store.touch("http://a.test/unknown", 3, 304)  # only known pages
    assert store.get("http://a.test/unknown") is None
    assert store.last_generation() == 3 and len(store) == 1


def test_gone_once_then_back(store) -> None:
    assert not store.mark_gone("http://a.test/unknown", 2, 404)
    store.record_text("http://a.test/x", "h", 1)
    assert store.mark_gone("http://a.test/x", 2, 410)
    assert not store.mark_gone("http://a.test/x", 3, 404)
    record = store.get("http://a.test/x")
    assert record.gone and record.status == 410 and record.last_seen == 2
    store.record_text("http://a.test/x", "h", 4)
    assert not store.get("http://a.test/x").gone


def test_revisit_sources_and_hubs_before_pages(store) -> None:
    store.record_text("http://a.test/article", "h", 1)
    store.record_text(unit_key("http://a.test/article", 2), "h2", 1)
    store.record_text("http://a.test/dead", "h", 1)
    store.mark_gone("http://a.test/dead", 1, 404)
    store.credit("http://a.test/section", 1, 3)
    store.credit("http://a.test/once", 1)
    store.record_text("http://a.test/related", "h", 1, words=300)
    store.credit("http://a.test/related", 1, 2)
    store.record_text("http://a.test/front", "h", 1, words=120)
    store.credit("http://a.test/front", 1, 10)
    store.record_source("http://a.test/feed.xml", 1)
    keys = [r.key for r in store.revisit(min_children=2, words_per_child=50)]
    assert set(keys[:3]) == {"http://a.test/feed.xml", "http://a.test/front",
                             "http://a.test/section"}
    assert set(keys[3:]) == {"http://a.test/article", "http://a.test/related"}
    assert len(keys) == 5
    assert store.get("http://a.test/feed.xml").source
    assert store.get("http://a.test/front").is_hub(2, 50)


def test_two_workers_update_one_record_without_losing_a_change(client) -> None:
    a, b = store_on(client, "pair", commit_every=1), store_on(client, "pair", commit_every=7)
    for _ in range(20):
        a.credit("http://a.test/hub", 1)
        b.credit("http://a.test/hub", 1)
    b.flush()
    assert a.get("http://a.test/hub").children == 40
    a.record_text("http://a.test/p", "h", 1)
    assert b.mark_gone("http://a.test/p", 2, 404)  # counted by one worker only
    assert not a.mark_gone("http://a.test/p", 2, 404)


def test_writes_are_buffered_and_read_back(client) -> None:
    writer = store_on(client, "buffered", commit_every=100, commit_seconds=3600)
    reader = store_on(client, "buffered")
    writer.record_text("http://a.test/x", "h", 1)
    assert reader.get("http://a.test/x") is None  # not sent yet
    assert writer.get("http://a.test/x").text_hash == "h"  # a read of its own key sends it
    writer.record_text("http://a.test/y", "h", 1)
    writer.close()
    assert reader.get("http://a.test/y").text_hash == "h"
    with pytest.raises(PageStoreError, match="closed"):
        writer.touch("http://a.test/y", 2, 304)


def test_a_record_stays_small_and_overlong_validators_are_not_kept(client) -> None:
    store = store_on(client, "small", commit_every=1)
    store.record_text("http://a.test/x", "a" * 40, 1, 200, '"' + "e" * MAX_ETAG_CHARS + '"',
                      "x" * 500, words=1234)
    record = store.get("http://a.test/x")
    assert record.etag == "" and record.last_modified == "" and not record.has_validators
    store.record_text("http://a.test/x", "b" * 40, 2, 200, '"etag-1"',
                      "Tue, 01 Jan 2030 00:00:00 GMT", words=1234)
    raw = client.hget("corpuscrawl:small:pages", "http://a.test/x")
    assert len(raw) < 170, raw
    usage = client.memory_usage("corpuscrawl:small:pages")
    assert usage is not None and usage < 400


def test_settings_name_what_is_missing() -> None:
    with pytest.raises(PageStoreError, match="CORPUSCRAWL_REDIS_URL"):
        RedisPageStore.from_settings(Settings({"CORPUSCRAWL_COLLECTION": "x"}))
    with pytest.raises(PageStoreError, match="collection"):
        RedisPageStore.from_settings(Settings({"CORPUSCRAWL_REDIS_URL": "redis://127.0.0.1:1/0"}))


def test_the_shape_of_a_text_is_kept_and_read_from_older_records(store, client) -> None:
    store.record_text("http://a.test/x", "h1", 1, 200, '"e"', "", 50, "shape-1")
    record = store.get("http://a.test/x")
    assert record.shape == "shape-1"
    assert record.reshaped("shape-2") and not record.reshaped("shape-1")
    assert not record.reshaped("")  # unknown now: no evidence of a change
    store.touch("http://a.test/x", 2, 304)
    assert store.get("http://a.test/x").shape == "shape-1"
    store.record_text("http://a.test/x", "h2", 2, 200, '"e2"', "", 50, "shape-2")
    assert store.get("http://a.test/x").shape == "shape-2"
    if isinstance(store, RedisPageStore):  # a record written before shapes were kept
        store.flush()
        client.hset(store.key, "http://a.test/old",
                    '["\\"e\\"", "", "h", 10, 200, 1, 1, 0, 0, 1, "", 0]')
        old = store.get("http://a.test/old")
        assert old.shape == "" and not old.reshaped("shape-2") and old.text_hash == "h"
        store.record_text("http://a.test/old", "h", 2, 200, '"e"', "", 10, "shape-2")
        assert store.get("http://a.test/old").shape == "shape-2"
