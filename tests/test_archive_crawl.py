"""WARC end to end: ``scrapy crawl corpus -s CORPUSCRAWL_WARC_DIR=…`` on a local site, then
``corpuscrawl extract`` on the files gives the crawl's documents back.

The site (tests/warc_site.py) answers with gzip content-coding, chunked
transfer-coding, a redirect, robots.txt with a sitemap, a binary file, an
ISO-8859-2 page and 404s.  The files must be read by warcio's own iterator
and pass ``warcio check`` and ``warcio index``.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from corpuscrawl import settings as project_settings
from corpuscrawl.archive.reader import read_records
from corpuscrawl.cli import main
from tests.crawl_helpers import REPO, TEST_CRAWL_OPTIONS, run_crawl, stat
from tests.support.crawl_forks import popen_command
from tests.warc_site import WarcSite

pytestmark = pytest.mark.slow

WARCIO = str(Path(sys.executable).parent / "warcio")
NAME_RE = re.compile(r"^corpuscrawl-\d{17}-\d{5}-[A-Za-z0-9._-]+-\d+\.warc\.gz$")
#: The only fields allowed to differ: when a page was fetched, and the recrawl's verdict
#: against the collection's page store (``change``), which an offline replay has no part in.
FETCH_TIME_FIELDS = {"fetched_at", "change"}
#: The replay extracts as the crawl did: with the crawl's default extractor.
EXTRACTOR = project_settings.CORPUSCRAWL_EXTRACTOR


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One crawl of the site with WARC on (small files, to rotate), shared by the tests."""
    tmp = tmp_path_factory.mktemp("warc-crawl")
    warc_dir = tmp / "warc"
    site = WarcSite(articles=30)
    with site.serve():
        seeds = f"{site.url}old-front.html"
        docs, log, code = run_crawl(tmp / "crawl.jsonl", f"seeds={seeds}", settings={
            "CORPUSCRAWL_WARC_DIR": str(warc_dir), "CORPUSCRAWL_WARC_MAX_SIZE": "40k"})
        url = site.url
    assert code == 0, log[-3000:]
    files = sorted(warc_dir.iterdir())
    return {"docs": docs, "log": log, "files": files, "tmp": tmp, "url": url}


def extract(files: list[Path], out: Path, *extra: str) -> int:
    """Run ``corpuscrawl extract -e EXTRACTOR FILES -o OUT`` in this process; its exit code."""
    return main(["extract", "-e", EXTRACTOR, *map(str, files), "-o", str(out), *extra])


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def by_url(docs: list[dict]) -> dict[str, dict]:
    return {d["url"]: {k: v for k, v in d.items() if k not in FETCH_TIME_FIELDS} for d in docs}


def test_files_rotate_open_in_warcio_and_pass_its_checks(crawled: dict) -> None:
    files = crawled["files"]
    assert len(files) >= 3, [f.name for f in files]            # rotation at 40 kB
    for path in files:
        assert NAME_RE.match(path.name), path.name              # no .open left: all finished
        assert path.stat().st_size <= 40_000 + 10_000           # a fetch's group goes whole
        with open(path, "rb") as fh:
            types = [record.rec_type for record in ArchiveIterator(fh)]
        assert types[0] == "warcinfo" and types.count("warcinfo") == 1
        assert types.count("response") >= 1
    check = subprocess.run([WARCIO, "check", "-v", *map(str, files)], capture_output=True,
                           text=True)
    assert check.returncode == 0, check.stdout[-2000:] + check.stderr[-2000:]
    assert "digest pass" in check.stdout and "digest fail" not in check.stdout
    index = subprocess.run([WARCIO, "index", "-f", "warc-type,warc-target-uri,http:status",
                            *map(str, files)], capture_output=True, text=True)
    assert index.returncode == 0, index.stderr
    rows = [json.loads(line) for line in index.stdout.splitlines()]
    assert sum(r["warc-type"] == "response" for r in rows) >= 35
    assert stat(crawled["log"], "corpuscrawl/warc/files") == len(files)


def test_records_keep_the_http_exchange_as_received(crawled: dict) -> None:
    records = [r for path in crawled["files"] for r in read_records(path)]
    info = records[0]
    assert info.type == "warcinfo" and b"software: corpuscrawl/" in info.body
    responses = {r.target: r for r in records if r.type == "response"}
    ids = {r.id: r for r in records}
    url = crawled["url"]
    for path in ("robots.txt", "sitemap.xml", "old-front.html", "download", "missing.html"):
        assert url + path in responses, path                  # every fetched response is kept
    assert responses[url + "old-front.html"].status == 301
    assert responses[url + "missing.html"].status == 404
    assert any("/corpuscrawl-" in u and r.status == 404 for u, r in responses.items())  # probe
    gzipped = responses[url + "article-3.html"]
    assert gzipped.http.get_header("Content-Encoding") == "gzip"
    assert gzipped.body[:2] == b"\x1f\x8b"                      # stored before decompression
    chunked = responses[url + "article-4.html"]
    assert chunked.http.get_header("Transfer-Encoding") is None  # de-chunked: self-consistent
    assert chunked.body.startswith(b"<!DOCTYPE html>") and b"\r\n2bc\r\n" not in chunked.body
    for record in responses.values():
        assert record.header("WARC-IP-Address") == "127.0.0.1"
        assert record.header("WARC-Payload-Digest").startswith("sha1:")
        assert record.header("WARC-Block-Digest").startswith("sha1:")
        assert record.header("WARC-Date").endswith("Z")
    requests = [r for r in records if r.type == "request"]
    metadata = [r for r in records if r.type == "metadata"]
    assert len(requests) == len(responses) == len(metadata)
    for record in requests + metadata:
        response = ids[record.header("WARC-Concurrent-To")]
        assert response.type == "response" and response.target == record.target
    request = next(r for r in requests if r.target == url + "article-3.html")
    assert request.http.protocol == "GET" and "gzip" in request.http.get_header("Accept-Encoding")
    fields = next(m for m in metadata if m.target == url + "article-3.html").fields()
    assert fields["callback"] == "parse" and fields["depth"] == "1"
    assert fields["via"] in (url + "index.html", url + "sitemap.xml")


def test_extract_from_warc_gives_the_crawls_documents(crawled: dict) -> None:
    out = crawled["tmp"] / "replayed.jsonl"
    assert extract(crawled["files"], out) == 0
    crawl, replayed = by_url(crawled["docs"]), by_url(read_jsonl(out))
    assert len(crawl) >= 30
    assert replayed.keys() == crawl.keys()
    for url, doc in crawl.items():
        assert replayed[url] == doc, url
    latin = next(d for u, d in crawl.items() if u.endswith("latin.html"))
    assert "žluťoučký" in latin["text"]                           # charset from the header
    assert all("Daily Example Media Group" not in d["text"] for d in crawl.values())


def test_extract_writes_other_feed_formats(crawled: dict, tmp_path: Path) -> None:
    assert extract(crawled["files"], tmp_path / "corpus.csv") == 0
    rows = (tmp_path / "corpus.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("url,") and len(rows) > 30
    assert extract(crawled["files"], tmp_path / "txt" / "index.tsv:txtdir") == 0
    assert len(list((tmp_path / "txt").rglob("*.txt"))) == len(crawled["docs"])


def test_truncated_file_is_reported_with_offset_and_earlier_records_are_kept(
        crawled: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = [shutil.copy(f, tmp_path / f.name) for f in crawled["files"]]
    victim = Path(files[1])
    records = list(read_records(victim))
    cut_record = records[len(records) // 2]
    with open(victim, "r+b") as fh:                             # torn in the middle of a record
        fh.truncate(cut_record.offset + cut_record.length // 2)
    corrupt = Path(files[0])
    data = bytearray(corrupt.read_bytes())
    second = list(read_records(crawled["files"][0]))[4]
    data[second.offset + 10: second.offset + 60] = b"\0" * 50   # garbage inside a record
    corrupt.write_bytes(bytes(data))
    out = tmp_path / "partial.jsonl"
    code = extract([Path(f) for f in files], out)
    err = capsys.readouterr().err
    assert code == 1
    assert f"{victim}: unreadable WARC data at byte {cut_record.offset}" in err
    assert f"{corrupt}: unreadable WARC data at byte {second.offset}" in err
    kept = set(by_url(read_jsonl(out)))
    before = {r.target for r in records[: records.index(cut_record)] if r.type == "response"}
    before_corrupt = {r.target for r in list(read_records(crawled["files"][0]))[:4]
                      if r.type == "response"}
    after = {r.target for f in crawled["files"][2:] for r in read_records(f)
             if r.type == "response"}
    crawl_urls = set(by_url(crawled["docs"]))
    assert (before | before_corrupt | after) & crawl_urls <= kept   # nothing whole is lost
    assert kept <= crawl_urls


def test_killed_crawl_leaves_whole_records_and_the_next_start_repairs_the_file(
        tmp_path: Path) -> None:
    warc_dir = tmp_path / "warc"
    site = WarcSite(articles=40, delay=0.2)
    with site.serve():
        cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", *TEST_CRAWL_OPTIONS,
               "-a", f"seeds={site.url}",
               "-s", f"CORPUSCRAWL_WARC_DIR={warc_dir}", "-s", "CONCURRENT_REQUESTS=2",
               "-s", f"CORPUSCRAWL_BOILERPLATE_HISTORY={tmp_path / 'h.sqlite3'}",
               "-O", str(tmp_path / "killed.jsonl")]
        proc = popen_command(cmd, cwd=REPO, env={**_env(), "PYTHONPATH": str(REPO)},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            opened = list(warc_dir.glob("*.warc.gz.open")) if warc_dir.exists() else []
            if opened and sum(1 for _ in read_records(opened[0])) >= 20:
                break
            time.sleep(0.2)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        [unfinished] = list(warc_dir.glob("*.warc.gz.open"))
        assert sum(1 for r in read_records(unfinished) if r.type == "response") >= 6
        docs, log, code = run_crawl(tmp_path / "again.jsonl", f"seeds={site.url}latin.html",
                                    "depth=0", settings={"CORPUSCRAWL_WARC_DIR": str(warc_dir)})
    assert code == 0, log[-3000:]
    assert "WARC file of an earlier, interrupted crawl closed" in log
    assert not list(warc_dir.glob("*.open"))
    files = sorted(warc_dir.glob("*.warc.gz"))
    assert len(files) == 2 and unfinished.with_suffix("") in files
    check = subprocess.run([WARCIO, "check", *map(str, files)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)
