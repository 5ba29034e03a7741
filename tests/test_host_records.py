"""A resumed crawl does not ask a host again what its generation already asked.

Real crawls of a local site that counts the requests per path: killed once the
crawl state holds the host's robots.txt and its error-page probe, then resumed
with the same command.  The resumed run must obey the kept robots.txt without
fetching it and must not probe again; a damaged or stale kept copy is fetched
again without harm.  Plus the records themselves, on SQLite and on a real
redis-server.  Counts, not timings.
"""

from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path

import pytest

from corpuscrawl.crawlstate.hosts import (
    ROBOTS_MAX_AGE,
    RedisHostRecords,
    SqliteHostRecords,
    StoredRobots,
)
from corpuscrawl.crawlstate.runs import begin_run
from corpuscrawl.crawlstate.store import StateStore
from tests.crawl_helpers import TEST_CRAWL_OPTIONS, stat
from tests.redis_server import redis_url  # noqa: F401 (fixture)
from tests.resume_site import ResumeSite
from tests.test_resume import run_and_kill, run_to_end

#: Articles 1, 10-19 and 100-199 are out of bounds: most of them are reached after the kill.
ROBOTS = "User-agent: *\nDisallow: /article/1\n"


class CountingSite(ResumeSite):
    """The resume test site with a robots.txt and a plain-text 404, which cannot seed the
    boilerplate history: only the crawl state's record stops a second probe."""

    def reply(self, path: str) -> tuple[int, str, bytes]:
        """robots.txt, the site's pages, a plain-text 404."""
        if path == "/robots.txt":
            return 200, "text/plain", ROBOTS.encode()
        status, content_type, body = super().reply(path)
        return (status, content_type, body) if status == 200 else (404, "text/plain", b"not found")


def command(out: Path, state: Path, site: CountingSite) -> list[str]:
    """The crawl command, the same for every run of a test (two requests at a time)."""
    return [sys.executable, "-m", "scrapy", "crawl", "corpus", "-O", str(out),
            "-a", f"seeds={site.url}", "-s", f"CORPUSCRAWL_STATE_DIR={state}",
            "-s", "LOG_LEVEL=INFO", "-s", "AUTOTHROTTLE_ENABLED=False",
            "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=2", *TEST_CRAWL_OPTIONS]


def _state_db(state: Path) -> Path | None:
    found = sorted(state.glob("*/state.sqlite3"))
    return found[0] if found else None


def _committed(state: Path, sql: str) -> int:
    """A count read from the committed state database (0 while it does not exist yet)."""
    path = _state_db(state)
    if path is None:
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as db:
            return int(db.execute(sql).fetchone()[0])
    except sqlite3.Error:
        return 0


def _kill_once_asked(site: CountingSite, cmd: list[str], log: Path, state: Path) -> None:
    """Run ``cmd`` and kill it once the state holds the robots.txt and the probe's answer."""
    def asked() -> bool:
        return (_committed(state, "SELECT COUNT(*) FROM robots_txt") == 1
                and _committed(state, "SELECT COUNT(*) FROM error_probes "
                                      "WHERE outcome != 'scheduled'") == 1
                and site.requests >= 12)
    assert run_and_kill(cmd, log, asked), "the crawl ended before the kill"
    assert site.hits("/robots.txt") == 1 and site.hits("/corpuscrawl-") == 1


@pytest.mark.slow
def test_a_resumed_crawl_neither_fetches_robots_txt_nor_probes_again(tmp_path: Path) -> None:
    out, state, log = tmp_path / "corpus.jsonl", tmp_path / "state", tmp_path / "crawl.log"
    with CountingSite(articles=200, delay=0.03) as site:
        cmd = command(out, state, site)
        _kill_once_asked(site, cmd, log, state)
        served_before = site.requests
        text = run_to_end(cmd, log)
        assert stat(text, "corpuscrawl/state/resumed") == 1
        assert site.requests > served_before + 50  # the resumed run did most of the crawl
        assert site.hits("/robots.txt") == 1, "robots.txt fetched again"
        assert stat(text, "corpuscrawl/robotstxt/reused") == 1
        assert site.hits("/corpuscrawl-") == 1, "the error-page probe was sent again"
        assert stat(text, "corpuscrawl/boilerplate/error_probes") == 0
        # the kept copy is obeyed: the out-of-bounds articles were refused, never fetched
        assert stat(text, "robotstxt/forbidden") > 50
        assert site.hits("/article/1") == 0
        allowed = {u for u in site.article_urls() if not u.split("/")[-1].startswith("1")}
    exported = {line.split('"url": "', 1)[1].split('"', 1)[0]
                for line in out.read_text(encoding="utf-8").splitlines()}
    assert allowed <= exported


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["damaged", "stale", "oversized"])
def test_a_damaged_or_stale_kept_robots_txt_is_fetched_again(tmp_path: Path, damage: str) -> None:
    """A kept copy that cannot answer is fetched again, obeyed and replaced; nothing fails."""
    out, state, log = tmp_path / "corpus.jsonl", tmp_path / "state", tmp_path / "crawl.log"
    with CountingSite(articles=80, delay=0.03) as site:
        cmd = command(out, state, site)
        _kill_once_asked(site, cmd, log, state)
        db_path = _state_db(state)
        assert db_path is not None
        with sqlite3.connect(db_path) as db:
            db.execute({
                "damaged": "UPDATE robots_txt SET status = 'two hundred', body = 'text'",
                "stale": f"UPDATE robots_txt SET fetched_at = {time.time() - ROBOTS_MAX_AGE - 60}",
                "oversized": "UPDATE robots_txt SET body = zeroblob(600000)",
            }[damage])
        text = run_to_end(cmd, log)
        assert stat(text, "corpuscrawl/state/resumed") == 1
        assert site.hits("/robots.txt") == 2
        assert stat(text, "corpuscrawl/robotstxt/reused") == 0
        assert site.hits("/article/1") == 0
    with sqlite3.connect(db_path) as db:
        status, body, fetched_at = db.execute(
            "SELECT status, body, fetched_at FROM robots_txt").fetchone()
    assert (status, body) == (200, ROBOTS.encode())
    assert time.time() - fetched_at < 600


# --- the records ------------------------------------------------------------------------


def test_stored_robots_answers_only_while_young_whole_and_read() -> None:
    now = 1_000_000.0
    fine = StoredRobots(200, b"User-agent: *\nDisallow: /x\n", now - 3600)
    assert fine.usable(ROBOTS_MAX_AGE, now)
    assert StoredRobots(404, b"", now - 10).usable(ROBOTS_MAX_AGE, now)  # no rules, as read
    assert not StoredRobots(200, b"", now - ROBOTS_MAX_AGE - 1).usable(ROBOTS_MAX_AGE, now)
    assert not fine.usable(600, now)  # a shorter CORPUSCRAWL_ROBOTSTXT_MAX_AGE
    assert not StoredRobots(200, b"", now + 3600).usable(ROBOTS_MAX_AGE, now)  # from the future
    assert not StoredRobots(200, b"", float("nan")).usable(ROBOTS_MAX_AGE, now)
    for status in (503, 429, 100):  # unreachable answers are never reused
        assert not StoredRobots(status, b"", now).usable(ROBOTS_MAX_AGE, now)
    assert not StoredRobots(200, b"x" * 11, now).usable(ROBOTS_MAX_AGE, now, max_size=10)
    assert StoredRobots.unpack(fine.pack()) == StoredRobots(fine.status, fine.body,
                                                            round(fine.fetched_at, 3))
    for raw in (b"", b"200\nbody", b"two 1.0\nbody", b"200 1.0", "200 1.0\n", None):
        assert StoredRobots.unpack(raw) is None


def test_sqlite_records_last_the_generation_and_a_new_one_starts_without(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    store = StateStore(path)
    begin_run(store)
    records = SqliteHostRecords(store)
    records.keep_robots("http://a:8080", StoredRobots(200, b"User-agent: *\n", 5.0))
    assert records.claim_probe("a:8080") and not records.claim_probe("a:8080")
    records.probe_outcome("a:8080", "unusable")
    store.commit()
    store.db.close()  # killed: no finish recorded

    store = StateStore(path)
    assert begin_run(store).resumed
    records = SqliteHostRecords(store)
    assert records.robots("http://a:8080") == StoredRobots(200, b"User-agent: *\n", 5.0)
    assert records.robots("https://a:8080") is None  # another origin
    assert records.probe("a:8080") == "unusable" and not records.claim_probe("a:8080")
    store.write("UPDATE robots_txt SET body = 'text'")
    assert records.robots("http://a:8080") is None  # damaged: as if absent
    store.write("UPDATE runs SET finished_at = 1, reason = 'finished'")
    store.commit()
    store.close()

    store = StateStore(path)
    assert not begin_run(store).resumed  # a new generation asks again
    records = SqliteHostRecords(store)
    assert records.robots("http://a:8080") is None and records.probe("a:8080") is None
    store.close()


@pytest.mark.redis
def test_redis_records_are_shared_by_the_workers_of_a_generation(
        redis_url: str) -> None:  # noqa: F811
    import redis

    client = redis.Redis.from_url(redis_url)
    prefix = f"corpuscrawl:hosts{time.monotonic_ns()}:gen1:"
    first, second = RedisHostRecords(client, prefix), RedisHostRecords(client, prefix)
    body = b"User-agent: *\nDisallow: /private/\n\x00binary"
    first.keep_robots("https://a", StoredRobots(200, body, 7.5))
    assert second.robots("https://a") == StoredRobots(200, body, 7.5)
    assert second.robots("https://b") is None
    assert first.claim_probe("a") and not second.claim_probe("a")  # one worker probes
    second.probe_outcome("a", "failed")
    assert first.probe("a") == "failed"
    client.hset(prefix + "robots", "https://a", b"no header")
    assert first.robots("https://a") is None
    other = RedisHostRecords(client, f"corpuscrawl:hosts{time.monotonic_ns()}:gen2:")
    assert other.robots("https://a") is None and other.probe("a") is None
    broken = RedisHostRecords(redis.Redis(host="127.0.0.1", port=1, socket_timeout=0.2), prefix)
    assert broken.robots("https://a") is None and broken.claim_probe("a")  # no Redis: ask


def test_a_probe_that_failed_is_recorded_and_not_sent_again(tmp_path: Path) -> None:
    from scrapy import Request
    from scrapy.utils.test import get_crawler

    from corpuscrawl.crawlstate.lookup import attach_host_records
    from corpuscrawl.export.scrapy_glue.stage_pipeline import PROBE_META, ErrorPageSeeder

    crawler = get_crawler()
    store = StateStore(tmp_path / "state.sqlite3")
    records = SqliteHostRecords(store)
    attach_host_records(crawler, records)
    seeder = ErrorPageSeeder(crawler, state=None)  # type: ignore[arg-type]
    assert records.claim_probe("a:1")
    seeder.process_exception(Request("http://a:1/corpuscrawl-0", meta={PROBE_META: "a:1"}),
                             TimeoutError())
    assert records.probe("a:1") == "failed"
    seeder._probe("a:1", "http://a:1/page")  # recorded: no second probe
    assert crawler.stats.get_value("corpuscrawl/boilerplate/error_probes_known") == 1
    store.close()


def test_a_replayed_probe_whose_answer_is_recorded_is_dropped_before_it_is_sent(
        tmp_path: Path) -> None:
    """A probe answered just before a kill can still be in the frontier the resumed run
    replays: the recorded answer stops it at the downloader; an unanswered one goes out."""
    from scrapy import Request
    from scrapy.exceptions import IgnoreRequest
    from scrapy.utils.test import get_crawler

    from corpuscrawl.crawlstate.lookup import attach_host_records
    from corpuscrawl.export.scrapy_glue.stage_pipeline import PROBE_META, ErrorPageSeeder

    crawler = get_crawler()
    store = StateStore(tmp_path / "state.sqlite3")
    records = SqliteHostRecords(store)
    attach_host_records(crawler, records)
    seeder = ErrorPageSeeder(crawler, state=None)  # type: ignore[arg-type]
    assert records.claim_probe("a:1") and records.claim_probe("b:1")
    records.probe_outcome("a:1", "unusable")
    replayed = Request("http://a:1/corpuscrawl-0", meta={PROBE_META: "a:1"})
    with pytest.raises(IgnoreRequest) as dropped:
        seeder.process_request(replayed)
    seeder.process_exception(replayed, dropped.value)  # Scrapy passes the drop on to here
    assert records.probe("a:1") == "unusable"  # the recorded answer stays
    assert seeder.process_request(Request("http://b:1/corpuscrawl-1",
                                          meta={PROBE_META: "b:1"})) is None  # not answered
    assert seeder.process_request(Request("http://a:1/page")) is None  # not a probe
    assert crawler.stats.get_value("corpuscrawl/boilerplate/error_probes_known") == 1
    store.close()
