"""The list of dropped documents: one record per URL and reason, across resumes."""

from __future__ import annotations

import json
from pathlib import Path

from scrapy.settings import Settings

from corpuscrawl.report.scrapy_glue.dropped import DroppedLog, _targets, dropped_path_for


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_each_drop_is_written_once_with_its_reason_and_fields(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl.dropped.jsonl"
    log = DroppedLog([(path, True)], generation=1)
    assert log.record("http://a.test/amp", "duplicate", "near-duplicate of http://a.test/x",
                      duplicate_of="http://a.test/x")
    assert not log.record("http://a.test/amp", "duplicate", "again")  # once per reason
    assert log.record("http://a.test/amp", "too_short", "3 words")
    log.close()
    first, second = records(path)
    assert first["url"] == "http://a.test/amp" and first["reason"] == "duplicate"
    assert first["duplicate_of"] == "http://a.test/x" and first["generation"] == 1
    assert second["reason"] == "too_short" and log.counts == {"duplicate": 1, "too_short": 1}


def test_a_resumed_run_appends_without_repeating_and_cuts_a_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "c.dropped.jsonl"
    log = DroppedLog([(path, True)], generation=2)
    log.record("http://a.test/1", "empty", "no text")
    log.close()
    with path.open("a", encoding="utf-8") as fh:  # killed while writing a record
        fh.write('{"url": "http://a.test/2", "rea')
    resumed = DroppedLog([(path, False)], generation=2)  # the feed is appended to
    assert not resumed.record("http://a.test/1", "empty", "no text")  # written before the kill
    assert resumed.record("http://a.test/2", "boilerplate", "all 3 paragraphs")
    resumed.close()
    assert [r["url"] for r in records(path)] == ["http://a.test/1", "http://a.test/2"]
    # the next generation appending to the same file (-o) records its own drops again
    later = DroppedLog([(path, False)], generation=3)
    assert later.record("http://a.test/1", "empty", "no text")
    later.close()
    assert [r["generation"] for r in records(path)] == [2, 2, 3]
    # a new generation overwriting its feed (-O) starts the file afresh
    DroppedLog([(path, True)], generation=4).close()
    assert path.read_text() == ""


def test_beside_every_local_feed_and_in_the_extra_file(tmp_path: Path) -> None:
    settings = Settings({"FEEDS": {str(tmp_path / "a.jsonl"): {"format": "jsonlines",
                                                                "overwrite": True},
                                   "s3://bucket/b.jsonl": {"format": "jsonlines"},
                                   str(tmp_path / "c-%(time)s.jsonl"): {"format": "jsonlines"}},
                         "CORPUSCRAWL_DROPPED_FILE": str(tmp_path / "all.jsonl")})
    assert _targets(settings) == [(dropped_path_for(tmp_path / "a.jsonl"), True),
                                  ((tmp_path / "all.jsonl").resolve(), False)]
    assert dropped_path_for("out/x.jsonl") == Path("out/x.jsonl.dropped.jsonl")


def test_an_unwritable_place_is_logged_not_raised(tmp_path: Path, caplog) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    log = DroppedLog([(blocker / "sub" / "x.dropped.jsonl", True)])
    assert log.record("http://a.test/1", "empty") and log.paths == []
    assert "cannot write the dropped documents" in caplog.text
