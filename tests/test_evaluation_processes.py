"""The benchmarks' process helpers: a measured command and a site served by a child."""

from __future__ import annotations

import sys
import urllib.request
from pathlib import Path

import pytest

from tests.support.processes import ProcessFailed, crawl_stat, run_measured, serve_child

REPO = Path(__file__).resolve().parent.parent


def test_a_measured_run_reports_its_times_memory_and_stderr():
    code = "import sys; data = bytearray(40 * 2**20); sys.stderr.write('done' * 20000)"
    run = run_measured([sys.executable, "-c", code], REPO)
    assert run.stderr == "done" * 20000  # larger than a pipe's buffer: read while it runs
    assert run.peak_rss_mb >= 40
    assert run.elapsed > 0 and run.cpu > 0


def test_a_failed_run_names_what_failed_with_its_stderr():
    with pytest.raises(ProcessFailed, match=r"(?s)replay failed: .*-c.*boom"):
        run_measured([sys.executable, "-c", "raise SystemExit('boom')"], REPO, "replay")


def test_a_served_child_gives_its_url_and_serves_the_code_under_test():
    code = ("import http.server, corpuscrawl\n"
            "class H(http.server.BaseHTTPRequestHandler):\n"
            "    def do_GET(self):\n"
            "        body = corpuscrawl.__file__.encode()\n"
            "        self.send_response(200); self.send_header('Content-Length', str(len(body)))\n"
            "        self.end_headers(); self.wfile.write(body)\n"
            "    def log_message(self, *args): pass\n"
            "s = http.server.HTTPServer(('127.0.0.1', 0), H)\n"
            "print(f'http://127.0.0.1:{s.server_port}/', flush=True)\n"
            "s.serve_forever()\n")
    proc, url = serve_child(code, REPO)
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            assert Path(answer.read().decode()).is_relative_to(REPO)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_crawl_stats_are_read_from_the_dump():
    log = ("2026-11-25 06:00:00 [scrapy.statscollectors] INFO: Dumping Scrapy stats:\n"
           "{'corpuscrawl/warc/cpu_seconds': 0.253,\n 'downloader/response_count': 2085,\n"
           " 'corpuscrawl/tiny': 1.5e-05,\n 'elapsed_time_seconds': 16.6,\n"
           " 'finish_reason': 'finished'}\n")
    assert crawl_stat(log, "downloader/response_count") == 2085
    assert crawl_stat(log, "corpuscrawl/warc/cpu_seconds") == 0.253
    assert crawl_stat(log, "corpuscrawl/tiny") == 1.5e-05
    assert crawl_stat(log, "downloader/response") == 0  # a prefix of a key is not the key
    assert crawl_stat(log, "finish_reason") == 0  # not a number
