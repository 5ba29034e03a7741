"""The domain history: distinct-document counts, template seeding, persistence, both backends."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpuscrawl.boilerplate.backends import open_history
from corpuscrawl.boilerplate.history import (
    DomainHistory,
    HistoryError,
    ParagraphStats,
    document_key,
)
from corpuscrawl.boilerplate.normalize import Paragraph, split_paragraphs
from corpuscrawl.boilerplate.redis_history import RedisHistory
from corpuscrawl.boilerplate.sqlite_history import SQLiteHistory
from tests.redis_server import redis_url  # noqa: F401 - pytest fixture

NOTICE = Paragraph.of("© 2019 Example Media. All rights reserved.")
SHARE = Paragraph.of("Share this story")


def body(n: int) -> Paragraph:
    return Paragraph.of(f"Unique body paragraph about topic {'x' * n}.")


@pytest.fixture(params=["sqlite", "redis"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(kind, location) of a fresh store; the domain name is unique per test."""
    if request.param == "sqlite":
        yield "sqlite", str(tmp_path / "history.sqlite3")
    else:
        url = request.getfixturevalue("redis_url")
        yield "redis", url


@pytest.fixture
def domain() -> str:
    return f"site-{uuid.uuid4().hex[:8]}.example"


def test_counts_distinct_documents_per_fingerprint(backend, domain):
    with open_history(backend[1]) as h:
        assert h.observe(domain, 1, [NOTICE, SHARE, body(1)])
        assert h.observe(domain, 2, [NOTICE, body(2), NOTICE])  # repeated within one doc: once
        stats = h.lookup(domain, [NOTICE.fingerprint, SHARE.fingerprint, body(2).fingerprint,
                                  body(99).fingerprint])
        assert h.document_count(domain) == 2
    assert stats[NOTICE.fingerprint].documents == 2
    assert stats[SHARE.fingerprint].documents == 1
    assert stats[body(2).fingerprint].documents == 1
    assert body(99).fingerprint not in stats
    assert stats[NOTICE.fingerprint].first_seen <= stats[NOTICE.fingerprint].last_seen


def test_a_document_is_counted_once(backend, domain):
    with open_history(backend[1]) as h:
        assert h.observe(domain, 7, [NOTICE])
        assert not h.observe(domain, 7, [NOTICE, SHARE])
        assert h.document_count(domain) == 1
        assert h.lookup(domain, [NOTICE.fingerprint])[NOTICE.fingerprint].documents == 1
        assert SHARE.fingerprint not in h.lookup(domain, [SHARE.fingerprint])


def test_record_returns_the_domain_count(backend, domain):
    with open_history(backend[1]) as h:
        assert h.record(domain, 1, [NOTICE]) == (1, None)
        assert h.record(domain, 2, [NOTICE, SHARE]) == (2, None)
        assert h.record(domain, 2, [SHARE]) == (2, None)  # counted before: unchanged
        assert h.record("other-" + domain, 1, []) == (1, None)
        assert h.document_count(domain) == 2
        assert h.lookup(domain, [SHARE.fingerprint])[SHARE.fingerprint].documents == 1


def test_domains_are_separate(backend, domain):
    other = "other-" + domain
    with open_history(backend[1]) as h:
        h.observe(domain, 1, [NOTICE])
        assert h.document_count(other) == 0
        assert h.lookup(other, [NOTICE.fingerprint]) == {}


def test_changing_years_share_one_fingerprint(backend, domain):
    with open_history(backend[1]) as h:
        for year in (2019, 2020, 2024):
            h.observe(domain, year, split_paragraphs(
                f"© {year} Example Media. All rights reserved.\nStory {'x' * (year - 2000)}"))
        assert h.lookup(domain, [NOTICE.fingerprint])[NOTICE.fingerprint].documents == 3


def test_error_page_seeds_the_template(backend, domain):
    with open_history(backend[1]) as h:
        assert h.error_pages(domain) == 0
        seeded = h.seed_from_error_page(domain, ["Home\nNews\nPage not found", SHARE])
        assert seeded == 4
        assert h.error_pages(domain) == 1
        stats = h.lookup(domain, [Paragraph.of("News").fingerprint, SHARE.fingerprint])
        assert all(s.template for s in stats.values()) and len(stats) == 2
        assert h.document_count(domain) == 0  # an error page is not a document


def test_history_survives_reopening(backend, domain):
    with open_history(backend[1]) as h:
        h.observe(domain, 1, [NOTICE, body(1)])
        h.observe(domain, 2, [NOTICE])
    with open_history(backend[1]) as h:
        assert h.document_count(domain) == 2
        assert h.lookup(domain, [NOTICE.fingerprint])[NOTICE.fingerprint].documents == 2
        assert not h.observe(domain, 1, [NOTICE])


def test_lookup_of_many_fingerprints_is_chunked(backend, domain):
    paragraphs = [body(i) for i in range(1, 2100)]
    with open_history(backend[1]) as h:
        h.observe(domain, 1, paragraphs)
        assert len(h.lookup(domain, [p.fingerprint for p in paragraphs])) == len(paragraphs)


def test_sqlite_commits_in_batches_and_on_close(tmp_path, domain):
    path = tmp_path / "h.sqlite3"
    h = SQLiteHistory(path, commit_every=1000)
    h.observe(domain, 1, [NOTICE])
    with SQLiteHistory(path) as reader:  # WAL: uncommitted writes are invisible to others
        assert reader.document_count(domain) == 0
    h.close()
    with SQLiteHistory(path) as reader:
        assert reader.document_count(domain) == 1


def test_parallel_redis_clients_share_one_history(redis_url, domain):  # noqa: F811
    a, b = RedisHistory(redis_url), RedisHistory(redis_url)
    try:
        assert a.observe(domain, 1, [NOTICE])
        assert not b.observe(domain, 1, [NOTICE])  # the same page fetched by another crawler
        assert b.observe(domain, 2, [NOTICE, body(2)])
        assert a.lookup(domain, [NOTICE.fingerprint])[NOTICE.fingerprint].documents == 2
        b.clear(domain)
        assert a.document_count(domain) == 0
    finally:
        a.close()
        b.close()


def test_open_history_picks_the_backend(tmp_path):
    assert isinstance(open_history(tmp_path / "x.sqlite3"), SQLiteHistory)
    assert isinstance(open_history(":memory:"), DomainHistory)


def test_unreachable_redis_is_reported_with_its_url():
    with pytest.raises(HistoryError, match="127.0.0.1:1"):
        RedisHistory("redis://127.0.0.1:1/0")


def test_bad_sqlite_path_is_reported(tmp_path):
    not_a_db = tmp_path / "garbage.sqlite3"
    not_a_db.write_bytes(b"this is not a database" * 100)
    with pytest.raises(HistoryError, match="garbage.sqlite3"):
        SQLiteHistory(not_a_db)


def test_document_key_uses_url_then_text():
    assert document_key("http://a/1") == document_key("http://a/1", "other text")
    assert document_key("", "abc") != document_key("", "abd")


def test_record_counts_and_returns_the_stats_after_counting(backend, domain):
    with open_history(backend[1]) as h:
        h.observe(domain, 1, [NOTICE, body(1)])
        documents, stats = h.record(domain, 2, [NOTICE, SHARE], floor=lambda n: 0)
        assert documents == 2
        assert stats[NOTICE.fingerprint].documents == 2
        assert stats[SHARE.fingerprint].documents == 1
        assert body(1).fingerprint not in stats
        again = h.record(domain, 2, [NOTICE, SHARE], floor=lambda n: 0)  # only looked up
        assert again == (2, stats)
        assert h.document_count(domain) == 2


def test_scheme_host_and_port_do_not_change_the_document_key():
    assert document_key("http://www.x.example:8080/a?b=1") == document_key("https://x.example/a?b=1")
    assert document_key("http://x.example/a") != document_key("http://x.example/b")


def test_lookup_can_leave_out_rare_paragraphs(backend, domain):
    with open_history(backend[1]) as h:
        h.observe(domain, 1, [NOTICE, body(1)])
        h.observe(domain, 2, [NOTICE, body(2)])
        h.seed_from_error_page(domain, [SHARE])
        fps = [NOTICE.fingerprint, body(1).fingerprint, SHARE.fingerprint,
               body(99).fingerprint, -(2**63), 2**63 - 1]
        assert set(h.lookup(domain, fps)) == set(fps[:3])
        repeated = h.lookup(domain, fps, min_documents=2)
        assert set(repeated) == {NOTICE.fingerprint, SHARE.fingerprint}  # template kept
        assert repeated[NOTICE.fingerprint].documents == 2
        assert set(h.lookup(domain, fps, min_documents=2.5)) == {SHARE.fingerprint}


def test_record_finds_what_a_lookup_after_counting_finds(backend, domain):
    """The SQLite backend finds the stats while counting (a trigger); every floor, the
    template flag and plain observe() calls in between must give a look-up's answer."""
    floors = [lambda n: 2, lambda n: 0.5 * n, lambda n: 1, lambda n: 0, lambda n: None]
    with open_history(backend[1]) as h:
        h.seed_from_error_page(domain, [SHARE])
        for i in range(1, 13):
            paragraphs = [NOTICE, body(i % 4 + 1), body(100 + i)] + ([SHARE] if i % 3 else [])
            if i % 5 == 0:  # a plain count of a page with a template line: leaves nothing behind
                assert h.observe(domain, 1000 + i, [SHARE, NOTICE])
            floor = floors[i % len(floors)]
            documents, stats = h.record(domain, i, paragraphs, floor=floor)
            assert documents == h.document_count(domain)
            least = floor(documents)
            if least is None:
                assert stats is None
            else:
                assert stats == h.lookup(domain, [p.fingerprint for p in paragraphs], least)
                assert stats  # the notice or the template line is always there
        documents, stats = h.record(domain, 3, [NOTICE, SHARE], floor=lambda n: 2)
        assert documents == h.document_count(domain)  # counted before: looked up only
        assert stats == h.lookup(domain, [NOTICE.fingerprint, SHARE.fingerprint], 2)


def test_two_sqlite_writers_share_domain_ids(tmp_path, domain):
    path = tmp_path / "h.sqlite3"
    a, b = SQLiteHistory(path, commit_every=1), SQLiteHistory(path, commit_every=1)
    try:
        assert a.document_count(domain) == 0  # a read creates nothing
        assert b.observe(domain, 1, [NOTICE])
        assert a.observe(domain, 2, [NOTICE, SHARE])
        assert not b.observe(domain, 2, [NOTICE])
        assert a.document_count(domain) == b.document_count(domain) == 2
        assert b.lookup(domain, [NOTICE.fingerprint])[NOTICE.fingerprint].documents == 2
    finally:
        a.close()
        b.close()


# The schema of version 1 (domain names as keys), as written before 2026-11-22 19:00.
_V1_SCHEMA = """
CREATE TABLE domains (domain TEXT PRIMARY KEY, documents INTEGER NOT NULL DEFAULT 0,
    error_pages INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
CREATE TABLE documents (domain TEXT NOT NULL, doc INTEGER NOT NULL,
    PRIMARY KEY (domain, doc)) WITHOUT ROWID;
CREATE TABLE paragraphs (domain TEXT NOT NULL, fp INTEGER NOT NULL,
    documents INTEGER NOT NULL DEFAULT 0, template INTEGER NOT NULL DEFAULT 0,
    first_seen REAL NOT NULL, last_seen REAL NOT NULL, PRIMARY KEY (domain, fp)) WITHOUT ROWID;
"""


def test_a_version_1_file_is_converted_and_keeps_its_history(tmp_path):
    import sqlite3

    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(_V1_SCHEMA)
    db.executemany("INSERT INTO domains VALUES (?, ?, ?)",
                   [("a.example", 2, 0), ("b.example", 1, 1)])
    db.executemany("INSERT INTO documents VALUES (?, ?)",
                   [("a.example", 11), ("a.example", 12), ("b.example", 11)])
    db.executemany("INSERT INTO paragraphs VALUES (?, ?, ?, ?, ?, ?)",
                   [("a.example", NOTICE.fingerprint, 2, 0, 1.0, 2.0),
                    ("b.example", NOTICE.fingerprint, 1, 0, 1.5, 1.5),
                    ("b.example", SHARE.fingerprint, 0, 1, 3.0, 3.0)])
    db.commit()
    db.close()
    with SQLiteHistory(path) as h:
        assert h.document_count("a.example") == 2 and h.document_count("b.example") == 1
        assert h.error_pages("b.example") == 1
        assert h.lookup("a.example", [NOTICE.fingerprint]) == {
            NOTICE.fingerprint: ParagraphStats(2, False, 1.0, 2.0)}
        assert h.lookup("b.example", [SHARE.fingerprint])[SHARE.fingerprint].template
        assert not h.observe("a.example", 12, [NOTICE])  # counted before the conversion
        assert h.record("a.example", 13, [NOTICE], floor=lambda n: 3, now=3.0) == (
            3, {NOTICE.fingerprint: ParagraphStats(3, False, 1.0, 3.0)})
    with SQLiteHistory(path) as h:  # converted once; reopening reads version 2
        assert h.document_count("a.example") == 3
        assert h.lookup("a.example", [NOTICE.fingerprint])[NOTICE.fingerprint].documents == 3


def test_a_newer_or_foreign_sqlite_file_is_refused(tmp_path):
    import sqlite3

    newer = tmp_path / "newer.sqlite3"
    with sqlite3.connect(newer) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(HistoryError, match="schema version 99"):
        SQLiteHistory(newer)
    foreign = tmp_path / "foreign.sqlite3"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE domains (host TEXT)")
    with pytest.raises(HistoryError, match="not a corpuscrawl boilerplate history"):
        SQLiteHistory(foreign)
    with sqlite3.connect(foreign) as db:  # nothing was changed in it
        assert [r[1] for r in db.execute("PRAGMA table_info(domains)")] == ["host"]
        assert db.execute("PRAGMA user_version").fetchone()[0] == 0
