"""A feed that fails mid-crawl (a full disk) stops the crawl in one line; what it did not
write is fetched and exported by the next run, so the corpus loses nothing."""

from __future__ import annotations

import pytest

from tests.command_runs import COMMANDS, crawl, documents
from tests.full_disk import LIMIT_ENV
from tests.resume_site import ResumeSite

pytestmark = pytest.mark.slow

FULL_DISK = ('{"file": "tests.full_disk.FullDiskStorage", '
             '"": "tests.full_disk.FullDiskStorage"}')


@pytest.mark.parametrize("command", COMMANDS)
def test_a_full_disk_stops_the_crawl_and_the_next_run_exports_every_article(tmp_path,
                                                                            command):
    out = tmp_path / "corpus.jsonl"
    with ResumeSite(articles=40, delay=0.0) as site:
        run = crawl(command, tmp_path, "-a", f"seeds={site.url}", "-o", str(out),
                    settings={"FEED_STORAGES": FULL_DISK}, env={LIMIT_ENV: "20000"})
        assert run.code == 5, run.stderr[-3000:]
        assert run.last_line.startswith(f"corpuscrawl crawl: error: cannot write output {out}: "
                                        "No space left on device"), run.last_line
        assert "Traceback" not in run.stderr
        assert "'finish_reason': 'output_failed'" in run.stderr
        written = documents(out)
        assert 0 < len(written) < 40
        # the disk has room again: the same command resumes and completes the corpus
        run = crawl(command, tmp_path, "-a", f"seeds={site.url}", "-o", str(out))
        assert run.code == 0, run.stderr[-3000:]
        urls = [d["url"] for d in documents(out)]
        assert len(urls) == len(set(urls))  # none twice
        assert {u for u in urls if "/article/" in u} == site.article_urls()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_feed_upload_failing_at_the_end_is_a_non_zero_exit(tmp_path, command):
    import socket

    from tests.small_site import SmallSite

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with SmallSite() as site:
        run = crawl(command, tmp_path, "-a", f"seeds={site.url}",
                    "-O", f"ftp://user:pass@127.0.0.1:{port}/corpus.jsonl")
    assert run.code == 5, run.stderr[-3000:]
    assert run.last_line.startswith("corpuscrawl crawl: error: storing 1 feed(s) failed")
