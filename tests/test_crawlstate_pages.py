"""The page store: records per document key, across runs of the same file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from corpuscrawl.crawlstate.pages import (
    PAGES_FILE,
    PageStoreError,
    SQLitePageStore,
    open_page_store,
    unit_key,
)


def test_a_recorded_text_survives_reopening(tmp_path: Path) -> None:
    with open_page_store(tmp_path) as store:
        assert store.get("http://a.test/x") is None
        store.record_text("http://a.test/x", "h1", 1, 200, '"e1"', "Tue, 01 Jan 2030 00:00:00 GMT")
    assert (tmp_path / PAGES_FILE).exists()
    with open_page_store(tmp_path) as store:
        record = store.get("http://a.test/x")
        assert record is not None and record.has_validators
        assert (record.text_hash, record.etag, record.first_seen, record.last_seen) == \
            ("h1", '"e1"', 1, 1)
        store.record_text("http://a.test/x", "h2", 3)
        record = store.get("http://a.test/x")
        assert (record.text_hash, record.first_seen, record.last_seen) == ("h2", 1, 3)
        assert not record.has_validators  # the new response sent none
        assert store.last_generation() == 3 and len(store) == 1


def test_gone_is_recorded_once_and_cleared_by_a_new_text(tmp_path: Path) -> None:
    with open_page_store(tmp_path) as store:
        assert not store.mark_gone("http://a.test/unknown", 2, 404)  # only known pages
        store.record_text("http://a.test/x", "h", 1)
        assert store.mark_gone("http://a.test/x", 2, 410)
        assert not store.mark_gone("http://a.test/x", 3, 404)  # already gone
        record = store.get("http://a.test/x")
        assert record.gone and record.status == 410 and record.last_seen == 2
        store.record_text("http://a.test/x", "h", 4)
        assert not store.get("http://a.test/x").gone


def test_revisit_lists_hubs_first_then_pages_with_text(tmp_path: Path) -> None:
    with open_page_store(tmp_path) as store:
        store.record_text("http://a.test/article", "h", 1)
        store.record_text(unit_key("http://a.test/article", 2), "h2", 1)
        store.record_text("http://a.test/dead", "h", 1)
        store.mark_gone("http://a.test/dead", 1, 404)
        store.credit("http://a.test/section", 1, 3)
        store.credit("http://a.test/once", 1)  # led to one document: not a hub at 2
        store.record_text("http://a.test/related", "h", 1, words=300)
        store.credit("http://a.test/related", 1, 2)  # an article with a related box
        store.record_text("http://a.test/front", "h", 1, words=120)
        store.credit("http://a.test/front", 1, 10)  # teasers: 12 words per document
        store.record_source("http://a.test/feed.xml", 1)
        keys = [r.key for r in store.revisit(min_children=2, words_per_child=50)]
        assert keys == ["http://a.test/feed.xml", "http://a.test/front", "http://a.test/section",
                        "http://a.test/article", "http://a.test/related"]
        assert store.get("http://a.test/feed.xml").source
        assert store.get("http://a.test/front").is_hub(2, 50)
        assert not store.get("http://a.test/related").is_hub(2, 50)
        store.touch("http://a.test/article", 5, 304)
        assert store.get("http://a.test/article").last_seen == 5


def test_many_records_are_read_in_batches(tmp_path: Path) -> None:
    with open_page_store(tmp_path / "pages.sqlite3") as store:
        for i in range(2500):
            store.record_text(f"http://a.test/{i:05d}", "h", 1)
        assert len(list(store.revisit(2, 50))) == 2500


def test_unit_keys() -> None:
    assert unit_key("http://a.test/x") == "http://a.test/x"
    assert unit_key("http://a.test/x", 1) == "http://a.test/x#unit=1"


def test_a_damaged_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "pages.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(PageStoreError, match="pages.sqlite3"):
        SQLitePageStore(path)


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "pages.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(PageStoreError, match="newer"):
        SQLitePageStore(path)


def test_a_generation_compares_with_the_hash_from_before_it(tmp_path: Path) -> None:
    with open_page_store(tmp_path) as store:
        store.record_text("http://a.test/x", "h1", 1)
        assert store.get("http://a.test/x").baseline(1) == ""  # new in generation 1
        assert store.get("http://a.test/x").baseline(2) == "h1"
        store.record_text("http://a.test/x", "h2", 2)
        store.record_text("http://a.test/x", "h3", 2)  # a resumed run of generation 2
        record = store.get("http://a.test/x")
        assert (record.text_hash, record.baseline(2), record.baseline(3)) == ("h3", "h1", "h3")


def test_an_unwritable_place_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(PageStoreError, match="page store"):
        SQLitePageStore(blocker / "sub" / "pages.sqlite3")


def test_a_version_1_file_gets_the_shape_column(tmp_path: Path) -> None:
    path = tmp_path / PAGES_FILE
    db = sqlite3.connect(str(path))
    db.execute("CREATE TABLE pages (key TEXT PRIMARY KEY, etag TEXT NOT NULL DEFAULT '', "
               "last_modified TEXT NOT NULL DEFAULT '', text_hash TEXT NOT NULL DEFAULT '', "
               "words INTEGER NOT NULL DEFAULT 0, status INTEGER NOT NULL DEFAULT 0, "
               "first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL, "
               "gone INTEGER NOT NULL DEFAULT 0, children INTEGER NOT NULL DEFAULT 0, "
               "hashed_in INTEGER NOT NULL DEFAULT 0, prior_hash TEXT NOT NULL DEFAULT '', "
               "source INTEGER NOT NULL DEFAULT 0)")
    db.execute("INSERT INTO pages (key, etag, text_hash, first_seen, last_seen, hashed_in) "
               "VALUES ('http://a.test/x', '\"e\"', 'h', 1, 1, 1)")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with open_page_store(tmp_path) as store:
        record = store.get("http://a.test/x")
        assert record.text_hash == "h" and record.shape == "" and record.has_validators
        store.record_text("http://a.test/x", "h", 2, 200, '"e"', "", 10, "s")
        assert store.get("http://a.test/x").shape == "s"
    with sqlite3.connect(str(path)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 2
