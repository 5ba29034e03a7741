"""One writer per output: a second crawl (a second cluster worker on the same host) asking
for an output another crawl is writing is refused; ``%(worker)s`` gives each worker its own."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from scrapy.settings import Settings

from corpuscrawl.cluster.config import expand_worker
from corpuscrawl.config.crawl_checks import CrawlSetupError
from corpuscrawl.export.output_lock import lock_outputs, release_outputs
from tests.command_runs import REPO, crawl
from tests.crawl_helpers import TEST_CRAWL_OPTIONS
from tests.redis_server import redis_url  # noqa: F401 (fixture)
from tests.resume_site import ResumeSite
from tests.support.crawl_forks import popen_command
from tests.test_cluster import check_once, command, start, wait


class Crawler:
    """Stands for a crawler: what the locks are kept with."""


def settings_with(feeds: dict, **values: str) -> Settings:
    settings = Settings()
    settings.set("FEEDS", feeds, priority="cmdline")
    settings.setdict(values, priority="cmdline")
    return settings


def test_a_second_crawl_writing_the_same_file_is_refused_until_the_first_ends(tmp_path):
    out = tmp_path / "out.jsonl"
    first = Crawler()
    lock_outputs(settings_with({str(out): {}}), first)
    with pytest.raises(CrawlSetupError, match="is being written by another crawl on this host"):
        lock_outputs(settings_with({str(tmp_path / "other.jsonl"): {}, str(out): {}}),
                     Crawler())
    # another process is refused as well
    probe = ("import fcntl,sys; f=open(sys.argv[1],'ab'); "
             "fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)")
    assert subprocess.run([sys.executable, "-c", probe, str(out)]).returncode != 0
    del first  # the crawl ended: its locks go with it
    lock_outputs(settings_with({str(out): {}}), Crawler())


def test_worker_placeholder_is_the_cluster_worker_name_and_needs_cluster_mode(tmp_path):
    feeds = {str(tmp_path / "news-%(worker)s.jsonl"): {"format": "jsonl"}}
    settings = settings_with(feeds, CORPUSCRAWL_REDIS_URL="redis://127.0.0.1:1/0",
                             CORPUSCRAWL_CLUSTER_WORKER="box-2",
                             CORPUSCRAWL_SUMMARY_FILE=str(tmp_path / "%(worker)s.json"))
    expand_worker(settings)
    assert list(settings.getdict("FEEDS")) == [str(tmp_path / "news-box-2.jsonl")]
    assert settings.get("CORPUSCRAWL_SUMMARY_FILE") == str(tmp_path / "box-2.json")
    with pytest.raises(CrawlSetupError, match="needs cluster mode"):
        expand_worker(settings_with(feeds))


def test_released_outputs_lose_only_the_empty_files_the_lock_created(tmp_path):
    new, written, kept = (tmp_path / n for n in ("new.jsonl", "written.jsonl", "kept.jsonl"))
    kept.write_text('{"url": "u"}\n')
    crawler = Crawler()
    lock_outputs(settings_with({str(p): {} for p in (new, written, kept)}), crawler)
    assert new.exists() and written.exists()
    written.write_text('{"url": "v"}\n')
    release_outputs(crawler)
    assert not new.exists()
    assert written.read_text() == '{"url": "v"}\n' and kept.read_text() == '{"url": "u"}\n'
    lock_outputs(settings_with({str(kept): {}}), Crawler())  # released: free to lock again


def test_released_outputs_lose_only_the_empty_directories_the_lock_created(tmp_path):
    """``-O new/deeper/x.jsonl``: both directories go with the empty file; an existing
    directory stays even when empty, and one that now holds something else stays."""
    existing = tmp_path / "existing"
    existing.mkdir()
    shared = tmp_path / "new" / "deeper"
    outputs = [shared / "a.jsonl", shared / "b.jsonl", existing / "c.jsonl",
               tmp_path / "other" / "d.jsonl"]
    crawler = Crawler()
    lock_outputs(settings_with({str(p): {} for p in outputs}), crawler)
    assert all(p.exists() for p in outputs)
    (tmp_path / "other" / "notes.txt").write_text("someone else's\n")
    release_outputs(crawler)
    assert not (tmp_path / "new").exists()
    assert existing.is_dir() and not any(existing.iterdir())
    assert sorted(p.name for p in (tmp_path / "other").iterdir()) == ["notes.txt"]


def test_a_written_output_keeps_the_directory_the_lock_created(tmp_path):
    out = tmp_path / "made" / "out.jsonl"
    crawler = Crawler()
    lock_outputs(settings_with({str(out): {}}), crawler)
    out.write_text('{"url": "v"}\n')
    release_outputs(crawler)
    assert out.read_text() == '{"url": "v"}\n'


def test_a_refused_lock_removes_the_directories_it_had_created(tmp_path):
    """The second crawl is refused on a held file after it made a directory for another
    output: that directory goes, the first crawl's file and directory stay."""
    held = tmp_path / "held" / "out.jsonl"
    first = Crawler()
    lock_outputs(settings_with({str(held): {}}), first)
    fresh = tmp_path / "fresh" / "dir" / "x.jsonl"
    with pytest.raises(CrawlSetupError, match="being written by another crawl"):
        lock_outputs(settings_with({str(fresh): {}, str(held): {}}), Crawler())
    assert not (tmp_path / "fresh").exists()
    assert held.exists()
    release_outputs(first)
    assert not (tmp_path / "held").exists()


@pytest.mark.parametrize("mistake", [("-s", "CORPUSCRAWL_HEADLINE_IN_TEXT=ture"),
                                     ("-a", "follow=ture"), ("-a", "extractor=nosuch")])
def test_a_crawl_that_cannot_start_leaves_no_new_output_and_keeps_an_old_one(tmp_path, mistake):
    new, old = tmp_path / "out" / "new.jsonl", tmp_path / "old.jsonl"
    old.write_text('{"url": "http://127.0.0.1:9/a"}\n')
    for out in (new, old):
        run = crawl("scrapy", tmp_path, "-a", "seeds=http://127.0.0.1:9/", "-O", str(out),
                    *mistake)
        assert run.code == 2, run.stderr[-2000:]
        assert "corpuscrawl crawl: error:" in run.last_line
    assert not new.exists() and not new.parent.exists()
    assert old.read_text() == '{"url": "http://127.0.0.1:9/a"}\n'


@pytest.mark.slow
def test_two_crawls_on_one_output_the_second_is_refused(tmp_path):
    out = tmp_path / "out.jsonl"
    with ResumeSite(articles=30, delay=0.2) as site:
        log = tmp_path / "first.log"
        first = popen_command(
            [sys.executable, "-m", "scrapy", "crawl", "corpus", *TEST_CRAWL_OPTIONS,
             "-a", f"seeds={site.url}",
             "-o", str(out), "-s", f"CORPUSCRAWL_STATE_DIR={tmp_path / 'a'}",
             "-s", "AUTOTHROTTLE_ENABLED=False"],
            cwd=REPO, stdout=log.open("w"), stderr=subprocess.STDOUT,
            env={**__import__("os").environ, "PYTHONPATH": str(REPO)})
        try:
            deadline = time.monotonic() + 60
            while "Spider opened" not in log.read_text() and time.monotonic() < deadline:
                time.sleep(0.2)
            run = crawl("scrapy", tmp_path, "-a", f"seeds={site.url}", "-a", "collection=x",
                        "-o", str(out))
        finally:
            first.wait(timeout=180)
    assert run.code == 2 and "is being written by another crawl" in run.last_line
    assert "Traceback" not in run.stderr
    assert first.returncode == 0
    urls = [json.loads(line)["url"] for line in out.read_text().splitlines()]
    assert len(urls) == len(set(urls))


@pytest.mark.slow
def test_cluster_workers_on_one_host_write_their_own_files_and_summaries(tmp_path,
                                                                         redis_url):  # noqa: F811
    pattern = str(tmp_path / "news-%(worker)s.jsonl")
    with ResumeSite(articles=40, delay=0.02) as site:
        procs = [start(command(redis_url, "onehost", f"box-{n}", pattern, site.url),  # type: ignore[arg-type]
                       tmp_path / f"w{n}.log") for n in (1, 2)]
        wait(procs)
        outputs = [tmp_path / f"news-box-{n}.jsonl" for n in (1, 2)]
        assert all(p.returncode == 0 for p in procs), [
            (tmp_path / f"w{n}.log").read_text()[-2000:] for n in (1, 2)]
        check_once(outputs, site.article_urls())
    for out in outputs:
        summary = json.loads(out.with_name(out.name + ".summary.json").read_text())
        assert summary["documents"]["exported"] >= 0
