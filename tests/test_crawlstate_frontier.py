"""The durable frontier's parts on their own: request codec, queue, runs, completion, ledger."""

from __future__ import annotations

import gc
import json

import pytest
import scrapy
from scrapy.utils.test import get_crawler

from corpuscrawl.crawlstate.completion import CompletionTracker
from corpuscrawl.crawlstate.export_ledger import FeedRepairError, repair_feeds
from corpuscrawl.crawlstate.feed_paths import local_feed_path
from corpuscrawl.crawlstate.frontier import Frontier
from corpuscrawl.crawlstate.runs import RunLock, RunLockedError, begin_run, finish_run
from corpuscrawl.crawlstate.scrapy_glue.requests_json import (
    RequestCodecError,
    decode_request,
    encode_request,
    request_dict,
)
from corpuscrawl.crawlstate.scrapy_glue.state_addon import StateConfig, StateConfigError
from corpuscrawl.crawlstate.store import StateStore, StateStoreError
from corpuscrawl.focus import Focus


class _Spider(scrapy.Spider):
    name = "t"

    def parse_item(self, response):  # pragma: no cover - only referenced
        pass

    def _failed(self, failure):  # pragma: no cover - only referenced
        pass


@pytest.fixture
def store(tmp_path):
    s = StateStore(tmp_path / "state.sqlite3")
    yield s
    s.close()


def test_a_request_survives_the_json_round_trip_with_callbacks_bytes_and_meta():
    spider = _Spider()
    request = scrapy.Request("http://127.0.0.1:8000/a?b=1", callback=spider.parse_item,
                             errback=spider._failed, method="POST", body=b"\x00\xffdata",
                             headers={"X-Token": "abc"}, priority=-7, dont_filter=True,
                             meta={"depth": 3, "nested": {"k": [1, "two", b"3"]},
                                   "playwright_page": object()},
                             cb_kwargs={"n": 1})
    text, dropped = encode_request(request, spider)
    assert dropped == ["playwright_page"]  # a live object means nothing after a restart
    json.loads(text)  # plain JSON, no pickle
    back = decode_request(text, spider)
    assert (back.url, back.method, back.body, back.priority, back.dont_filter) == (
        request.url, "POST", b"\x00\xffdata", -7, True)
    assert back.callback == spider.parse_item and back.errback == spider._failed
    assert back.headers[b"X-Token"] == b"abc"
    assert back.meta == {"depth": 3, "nested": {"k": [1, "two", b"3"]}}
    assert back.cb_kwargs == {"n": 1}



def test_a_requests_dict_is_scrapys_own_with_callbacks_named_without_a_search():
    spider = _Spider()
    requests = [
        scrapy.Request("http://127.0.0.1:8000/a", callback=spider.parse_item, errback=spider._failed,
                       meta={"depth": 1}, priority=3, cb_kwargs={"n": 1}),
        scrapy.Request("http://127.0.0.1:8000/b"),
        scrapy.Request("http://127.0.0.1:8000/c", callback=spider.parse),
        scrapy.FormRequest("http://127.0.0.1:8000/d", formdata={"q": "x"},
                           callback=spider.parse_item),
    ]
    for request in requests:
        assert request_dict(request, spider) == request.to_dict(spider=spider)
        assert list(request_dict(request, spider)) == list(request.to_dict(spider=spider))
    class _Other(scrapy.Spider):
        name = "o"

        def parse_item(self, response):  # pragma: no cover - only referenced
            pass

    with pytest.raises(RequestCodecError, match="/e"):  # a method of another spider class
        encode_request(scrapy.Request("http://127.0.0.1:8000/e", callback=_Other().parse_item),
                       spider)
    with pytest.raises(RequestCodecError, match="/f"):
        encode_request(scrapy.Request("http://127.0.0.1:8000/f", callback=lambda r: None), spider)

def test_frontier_hands_out_highest_priority_first_and_fifo_among_equals(store):
    frontier = Frontier(store)
    for priority, url in [(0, "a"), (5, "b"), (0, "c"), (5, "d"), (-1, "e")]:
        frontier.push(priority, url, url)
    order = [frontier.pop()[1] for _ in range(5)]
    assert order == ["b", "d", "a", "c", "e"]
    assert frontier.pop() is None and frontier.in_flight() == 5


def test_frontier_serves_the_least_busy_download_slot_first(store):
    frontier = Frontier(store)
    for i in range(3):
        frontier.push(10, f"http://a/{i}", f"a{i}", slot="a")
    frontier.push(0, "http://b/0", "b0", slot="b")
    frontier.push(0, "http://c/0", "c0", slot="c")
    busy = {"a": 2, "b": 0, "c": 0}
    # a holds the best priorities but is busy: b and c (round-robin) go first
    assert [frontier.pop(busy.get)[1] for _ in range(2)] == ["b0", "c0"]
    assert frontier.pop(busy.get)[1] == "a0"  # only a is left
    assert frontier.pending == 2
    assert frontier.pop()[1] == "a1"  # without downloader activity: by priority


def test_frontier_requeue_and_done(store):
    frontier = Frontier(store)
    row = frontier.push(0, "http://x/", "x")
    assert frontier.pop() == (row, "x")
    frontier.requeue(row, 3, "http://x/redirected", "y")
    assert frontier.pending == 1 and frontier.pop() == (row, "y")
    frontier.done(row)
    store.commit()
    assert Frontier(store).pending == 0 and frontier.in_flight() == 0


def test_what_the_focus_learns_re_ranks_pending_requests_of_that_shape(store):
    frontier = Frontier(store)
    frontier.push(50, "http://x/tag/a/", "tag", shape="x/tag/W/", prior=0.5)
    frontier.push(30, "http://x/2024/01/02/story/", "story", shape="x/D/D/D/S/", prior=0.3)
    frontier.push(40, "http://x/seed", "seed")  # no shape: never re-ranked
    # tag pages turned out poor, stories rich: stories now go first
    assert frontier.rerank("x/tag/W/", lambda prior: round((prior + 0.1 * 4) / 5 * 100)) == 1
    assert frontier.rerank("x/D/D/D/S/", lambda prior: round((prior + 0.8 * 4) / 5 * 100)) == 1
    assert frontier.rerank("x/D/D/D/S/", lambda prior: round((prior + 0.8 * 4) / 5 * 100)) == 0
    assert [frontier.pop()[1] for _ in range(3)] == ["story", "seed", "tag"]


def test_learned_shapes_are_kept_for_a_resumed_run_and_cleared_by_a_new_generation(store):
    Frontier(store).save_learned("x/D/D/D/S/", 3, 2.4)
    store.commit()
    assert Frontier(store).learned() == {"x/D/D/D/S/": (3, 2.4)}
    finish_run(store, begin_run(store), "finished")
    begin_run(store)  # a new generation
    assert Frontier(store).learned() == {}


def test_the_spread_of_learned_shapes_and_the_priors_misses_are_kept_too(store):
    frontier = Frontier(store)
    frontier.save_learned("x/calendar/D/D", 4, 1.02, 0.5002)
    frontier.save_learned("x/tag/W", 2, 1.0)  # no squares known
    frontier.save_misses(6, 0.31)
    store.commit()
    resumed = Frontier(store)
    assert resumed.learned_squares() == {"x/calendar/D/D": pytest.approx(0.5002)}
    assert resumed.learned_misses() == (6, pytest.approx(0.31))
    finish_run(store, begin_run(store), "finished")
    begin_run(store)  # a new generation
    assert Frontier(store).learned_squares() == {} and Frontier(store).learned_misses() is None


def test_a_full_download_slot_gets_nothing_until_it_has_room(store):
    frontier = Frontier(store)
    frontier.push(10, "http://a/0", "a0", slot="a")
    frontier.push(0, "http://b/0", "b0", slot="b")
    full = {"a": True, "b": False}
    assert frontier.pop(lambda s: 0, full.get)[1] == "b0"
    assert frontier.pop(lambda s: 0, full.get) is None  # a is full: the request waits, ranked
    assert frontier.pending == 1
    assert frontier.pop(lambda s: 0, lambda s: False)[1] == "a0"


def test_a_state_database_from_before_the_focus_columns_gets_them(tmp_path):
    import sqlite3

    path = tmp_path / "state.sqlite3"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE requests (id INTEGER PRIMARY KEY, state INTEGER NOT NULL, "
                     "priority INTEGER NOT NULL, url TEXT NOT NULL, slot TEXT NOT NULL DEFAULT '', "
                     "data TEXT NOT NULL); INSERT INTO requests (state, priority, url, data) "
                     "VALUES (0, 5, 'http://x/', 'x');"
                     "CREATE TABLE focus_shapes (shape TEXT PRIMARY KEY, pages INTEGER NOT NULL,"
                     " total REAL NOT NULL) WITHOUT ROWID;"
                     "INSERT INTO focus_shapes VALUES ('x/tag/W', 3, 1.5);")
    db.close()
    store = StateStore(path)
    frontier = Frontier(store)
    assert frontier.pending == 1 and frontier.pop()[1] == "x"  # the waiting request kept
    frontier.push(1, "http://y/", "y", shape="y/", prior=0.1)
    assert frontier.learned() == {"x/tag/W": (3, 1.5)} and frontier.learned_squares() == {}
    frontier.save_learned("x/tag/W", 4, 2.0, 1.0)  # the squares column was added
    assert frontier.learned_squares() == {"x/tag/W": 1.0}
    store.close()


def test_runs_resume_only_what_was_interrupted(store):
    first = begin_run(store)
    assert (first.generation, first.resumed) == (1, False)
    frontier = Frontier(store)
    frontier.push(0, "http://a/", "a")
    frontier.push(0, "http://b/", "b")
    frontier.pop()  # in flight when the process dies: no finish recorded
    store.write("INSERT INTO exported VALUES ('http://c/', 0, ?)", (first.run_id,))
    store.commit()

    second = begin_run(store)  # killed: resume the same generation
    assert (second.generation, second.resumed, second.carried_requests,
            second.exported_before) == (1, True, 2, 1)
    assert Frontier(store).pending == 2  # the in-flight request is pending again

    finish_run(store, second, "shutdown")  # Ctrl-C with work left: resume again
    assert begin_run(store).resumed

    run = begin_run(store, policy="never")  # asked for a new crawl
    assert (run.generation, run.resumed) == (2, False)
    assert store.read("SELECT COUNT(*) FROM requests").fetchone()[0] == 0
    assert store.read("SELECT COUNT(*) FROM exported").fetchone()[0] == 0

    Frontier(store).push(0, "http://d/", "d")
    finish_run(store, run, "finished")  # a completed generation is not resumed
    following = begin_run(store)
    assert (following.generation, following.resumed) == (3, False)
    # killed before its first commit: nothing in the frontier, still a resume (its feed
    # writes must be cut back), and the seeds are crawled again
    assert (begin_run(store).generation, store.read("SELECT resumed FROM runs ORDER BY id "
                                                    "DESC LIMIT 1").fetchone()) == (3, (1,))
    with pytest.raises(ValueError, match="CORPUSCRAWL_RESUME"):
        begin_run(store, policy="sometimes")


def test_one_collection_is_crawled_by_one_process_at_a_time(tmp_path):
    lock = RunLock(tmp_path)
    with pytest.raises(RunLockedError, match="in use by pid"):
        RunLock(tmp_path)
    lock.release()
    RunLock(tmp_path).release()


def test_a_state_database_of_another_schema_is_refused(tmp_path):
    path = tmp_path / "state.sqlite3"
    StateStore(path).close()
    import sqlite3

    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(StateStoreError, match="schema 99"):
        StateStore(path)


def test_a_request_is_done_only_when_gone_and_its_held_documents_released():
    done: list[int] = []
    tracker = CompletionTracker(done.append)
    request = scrapy.Request("http://a/1")
    tracker.handed_out(1, request)
    tracker.reached_spider(1)
    tracker.held(("http://a/1", 0), 1)
    del request
    gc.collect()
    tracker.settle()
    assert done == []  # its document still waits in the export stage
    tracker.released(("http://a/1", 0))
    assert done == [1]


def test_a_document_released_before_its_hold_was_reported_does_not_block_its_request():
    done: list[int] = []
    tracker = CompletionTracker(done.append)
    request = scrapy.Request("http://a/2")
    tracker.handed_out(2, request)
    tracker.released(("http://a/2", 0))  # written with another item first
    tracker.held(("http://a/2", 0), 2)  # then its own item reports it as held
    del request
    gc.collect()
    tracker.settle()
    assert done == [2]


def test_on_resume_feeds_append_and_csv_writes_no_second_header(tmp_path):
    from corpuscrawl.crawlstate.scrapy_glue.state_addon import local_feeds

    (tmp_path / "a.csv").write_text("url,text\nx,y\n", encoding="utf-8")
    from scrapy.settings import Settings

    settings = Settings({"FEEDS": {
        str(tmp_path / "a.jsonl"): {"format": "jsonlines", "overwrite": True},
        str(tmp_path / "a.csv"): {"format": "csv", "overwrite": True},
        "s3://bucket/x.jsonl": {"format": "jsonlines"}}})
    feeds = local_feeds(settings, resumed=True)
    assert [(p.name, fmt, overwrite) for p, fmt, overwrite in feeds] == [
        ("a.jsonl", "jsonlines", True), ("a.csv", "csv", True)]
    options = settings.getdict("FEEDS")
    assert options[str(tmp_path / "a.jsonl")]["overwrite"] is False
    assert options[str(tmp_path / "a.csv")]["item_export_kwargs"] == {
        "include_headers_line": False}


def test_a_redirect_continues_its_row_but_a_child_does_not():
    done: list[int] = []
    tracker = CompletionTracker(done.append)
    original = scrapy.Request("http://a/old")
    tracker.handed_out(7, original)
    assert tracker.continues(7)  # enqueued before the response reached the spider
    del original
    gc.collect()
    tracker.settle()
    assert done == []  # the redirect target is still to be fetched
    again = scrapy.Request("http://a/new")
    tracker.handed_out(7, again)
    tracker.reached_spider(7)
    assert not tracker.continues(7)  # from the callback: a child with copied meta
    del again
    gc.collect()
    tracker.settle()
    assert done == [7]


def test_feeds_are_cut_back_to_the_committed_size_on_resume(store, tmp_path):
    feed = tmp_path / "corpus.jsonl"
    feed.write_bytes(b'{"url": "a"}\n{"url": "b"}\n')
    repair_feeds(store, [(feed, "jsonl", True)], resumed=False)
    row = store.read("SELECT size FROM feeds").fetchone()
    assert row == (0,)  # -O: the file will be overwritten
    store.write("UPDATE feeds SET size = 13")
    feed.write_bytes(b'{"url": "a"}\n{"url": "b"}\n{"url": "c", "te')  # torn last record
    repair_feeds(store, [(feed, "jsonl", True)], resumed=True)
    assert feed.read_bytes() == b'{"url": "a"}\n'


def test_a_resume_refuses_a_feed_that_cannot_be_appended_to(store, tmp_path):
    feed = tmp_path / "corpus.json"
    feed.write_text('[{"url": "a"}', encoding="utf-8")
    with pytest.raises(FeedRepairError, match="Use jsonl"):
        repair_feeds(store, [(feed, "json", True)], resumed=True)


def test_local_feed_paths(tmp_path):
    assert local_feed_path(str(tmp_path / "a.jsonl")) == tmp_path / "a.jsonl"
    assert local_feed_path(f"file://{tmp_path}/b.jsonl") == tmp_path / "b.jsonl"
    for uri in ("s3://bucket/x.jsonl", "stdout:", "-", "out-%(time)s.jsonl"):
        assert local_feed_path(uri) is None


def test_state_settings_are_validated_naming_the_key():
    with pytest.raises(StateConfigError, match="CORPUSCRAWL_RESUME"):
        StateConfig.from_settings(get_crawler(settings_dict={"CORPUSCRAWL_RESUME": "x"}).settings)
    with pytest.raises(StateConfigError, match="CORPUSCRAWL_STATE_COMMIT_INTERVAL"):
        StateConfig.from_settings(get_crawler(
            settings_dict={"CORPUSCRAWL_STATE_COMMIT_INTERVAL": "0"}).settings)


def test_a_document_exported_before_a_restart_still_catches_its_copies():
    from corpuscrawl.export.dedup import NearDuplicateIndex
    from corpuscrawl.export.stage import DUPLICATE, EXPORTED, ExportStage
    from corpuscrawl.items import Document

    text = "\n".join(f"Paragraph {i} of a long article about rivers, bridges and the harbour "
                     f"council that met on day {i} to discuss the budget." for i in range(12))
    stage = ExportStage(None, NearDuplicateIndex())
    stage.remember(Document(url="http://a/original", text=text))
    (outcome,) = stage.submit(Document(url="http://a/copy", text=text))
    assert outcome.status == DUPLICATE
    (fresh,) = ExportStage(None, NearDuplicateIndex()).submit(
        Document(url="http://a/copy", text=text))
    assert fresh.status == EXPORTED


def test_the_text_lines_seen_and_their_first_pages_are_kept_for_a_resumed_run(store):
    focus = Focus()
    focus.novelty.memory = Frontier(store)
    article = "A long first paragraph of the story.\nAnd a second one, as long as the first."
    assert focus.novelty.observe(article, "http://x/?p=1") == 1.0
    store.commit()
    resumed = Focus()
    resumed.novelty.memory = Frontier(store)
    assert resumed.novelty.observe(article + "\nBack to the article", "http://x/?p=1&print=1") \
        < 0.3, "the print view of a fetched article is a copy of it"
    assert resumed.novelty.observe(article, "http://x/?p=1") == 1.0, "a page fetched again"
    finish_run(store, begin_run(store), "finished")
    begin_run(store)  # a new generation
    assert store.read("SELECT COUNT(*) FROM focus_lines").fetchone()[0] == 0


def test_the_duplicate_filter_tells_seen_requests_from_memory_and_from_its_table(
        store, monkeypatch):
    """A fingerprint met lately is answered from memory; one pushed out of it still from
    the ``seen`` table, as is one stored by an earlier run."""
    from types import SimpleNamespace

    from corpuscrawl.crawlstate.lookup import attach_run_state
    from corpuscrawl.crawlstate.scrapy_glue import frontier as frontier_glue

    monkeypatch.setattr(frontier_glue, "RECENT_FINGERPRINTS", 2)
    crawler = get_crawler()
    attach_run_state(crawler, SimpleNamespace(store=store))
    earlier = frontier_glue.DurableDupeFilter(crawler)
    assert not earlier.request_seen(scrapy.Request("http://127.0.0.1/old"))
    dupes = frontier_glue.DurableDupeFilter(crawler)  # a new run: nothing in memory
    urls = ["a", "b", "a", "c", "d", "b", "old", "a", "d"]
    seen = [dupes.request_seen(scrapy.Request(f"http://127.0.0.1/{u}")) for u in urls]
    assert seen == [False, False, True, False, False, True, True, True, True]
    assert len(dupes._recent) == 2
    count = store.read("SELECT COUNT(*) FROM seen").fetchone()[0]
    assert count == 5
