"""WARC records, rotating files, repair of a killed writer's file, and reading torn files."""

from __future__ import annotations

import gzip
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from scrapy.settings import Settings
from warcio.archiveiterator import ArchiveIterator

from corpuscrawl.archive.files import (
    RotatingWarcWriter,
    parse_size,
    recover_unfinished,
    safe_name,
)
from corpuscrawl.archive.reader import WarcReadError, read_records, whole_records_end
from corpuscrawl.archive.records import (
    Exchange,
    consistent_headers,
    conversion_records,
    exchange_records,
    warc_date,
)
from corpuscrawl.archive.scrapy_glue.middlewares import WarcConfig, WarcConfigError

WARCIO = str(Path(sys.executable).parent / "warcio")


def exchange(number: int, size: int = 2000) -> Exchange:
    body = (f"<html><body><p>page {number}</p>" + "x" * size + "</body></html>").encode()
    return Exchange(url=f"http://127.0.0.1:8000/p{number}?q=1", status=200,
                    response_headers=[("Content-Type", "text/html"),
                                      ("Content-Encoding", "gzip")],
                    body=gzip.compress(body), request_headers=[("User-Agent", "t")],
                    ip_address="127.0.0.1", date=warc_date(1.7e9 + number),
                    metadata={"depth": 1, "callback": "parse"})


def write_files(directory: Path, groups: int, max_size: int = 10**9) -> RotatingWarcWriter:
    writer = RotatingWarcWriter(directory, "test", max_size, {"software": "tests"})
    for i in range(groups):
        writer.write(exchange_records(exchange(i)))
    writer.close()
    return writer


def test_parse_size_accepts_bytes_and_decimal_units() -> None:
    assert parse_size(1234) == 1234
    assert parse_size("100M") == 100_000_000
    assert parse_size("1G") == parse_size("1gb") == 1_000_000_000
    assert parse_size("512k") == 512_000
    with pytest.raises(ValueError, match="not a size"):
        parse_size("lots")


def test_config_errors_name_the_setting() -> None:
    with pytest.raises(WarcConfigError, match="CORPUSCRAWL_WARC_MAX_SIZE"):
        WarcConfig.from_settings(Settings({"CORPUSCRAWL_WARC_MAX_SIZE": "big"}))
    with pytest.raises(WarcConfigError, match="CORPUSCRAWL_WARC_MAX_SIZE"):
        WarcConfig.from_settings(Settings({"CORPUSCRAWL_WARC_MAX_SIZE": 0}))
    with pytest.raises(WarcConfigError, match="CORPUSCRAWL_WARC_PREFIX"):
        WarcConfig.from_settings(Settings({"CORPUSCRAWL_WARC_PREFIX": "my crawl/x"}))
    config = WarcConfig.from_settings(Settings({"CORPUSCRAWL_WARC_DIR": "w",
                                                "CORPUSCRAWL_WARC_MAX_SIZE": "5M"}))
    assert (config.directory, config.max_size) == ("w", 5_000_000)


def test_exchange_records_are_linked_and_digested() -> None:
    response, request, metadata = exchange_records(exchange(1))
    response_id = response.rec_headers.get_header("WARC-Record-ID")
    assert request.rec_headers.get_header("WARC-Concurrent-To") == response_id
    assert metadata.rec_headers.get_header("WARC-Concurrent-To") == response_id
    assert response.rec_headers.get_header("WARC-IP-Address") == "127.0.0.1"
    assert response.rec_headers.get_header("WARC-Payload-Digest").startswith("sha1:")
    assert response.rec_headers.protocol == "WARC/1.1"
    [conversion, meta] = conversion_records("http://a/", "<p>é</p>", response_id, warc_date(0),
                                            {"depth": 2})
    assert conversion.rec_headers.get_header("WARC-Refers-To") == response_id
    assert conversion.content_type == "text/html; charset=utf-8"
    assert meta.rec_headers.get_header("WARC-Refers-To") == \
        conversion.rec_headers.get_header("WARC-Record-ID")


def test_headers_describe_the_stored_body() -> None:
    raw = [("Content-Encoding", "gzip"), ("Content-Length", "120"),
           ("Transfer-Encoding", "chunked"), ("Content-Type", "text/html")]
    assert consistent_headers(raw, 500, decoded=False) == [
        ("Content-Encoding", "gzip"), ("Content-Length", "120"),
        ("X-Crawler-Transfer-Encoding", "chunked"), ("Content-Type", "text/html")]
    assert consistent_headers(raw, 500, decoded=True) == [
        ("X-Crawler-Content-Encoding", "gzip"), ("X-Crawler-Content-Length", "120"),
        ("X-Crawler-Transfer-Encoding", "chunked"), ("Content-Type", "text/html"),
        ("Content-Length", "500")]


def test_rotation_gives_several_valid_files_each_opened_by_warcinfo(tmp_path: Path) -> None:
    writer = write_files(tmp_path, groups=12, max_size=6000)
    files = sorted(tmp_path.iterdir())
    assert files == sorted(writer.files) and len(files) >= 3
    host = safe_name(socket.gethostname())
    for i, path in enumerate(sorted(writer.files, key=lambda p: p.name.split("-")[2])):
        assert path.name.endswith(f"-{i:05d}-{host}-{os.getpid()}.warc.gz")
        with open(path, "rb") as fh:
            records = [(r.rec_type, r.rec_headers.get_header("WARC-Record-ID"),
                        r.rec_headers.get_header("WARC-Warcinfo-ID"))
                       for r in ArchiveIterator(fh)]
        types = [t for t, _, _ in records]
        assert types[0] == "warcinfo" and len(types) % 3 == 1   # whole groups only
        assert {info for _, _, info in records[1:]} == {records[0][1]}
        assert path.stat().st_size <= 6000
    check = subprocess.run([WARCIO, "check", *map(str, files)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    responses = [r for f in files for r in read_records(f) if r.type == "response"]
    assert [r.target for r in responses] == [f"http://127.0.0.1:8000/p{i}?q=1" for i in range(12)]


def test_file_is_open_while_written_and_renamed_when_closed(tmp_path: Path) -> None:
    writer = RotatingWarcWriter(tmp_path, "test")
    writer.write(exchange_records(exchange(1)))
    assert writer.current is not None and writer.current.name.endswith(".warc.gz.open")
    assert sum(1 for _ in read_records(writer.current)) == 4   # flushed: readable while open
    writer.close()
    assert [p.name for p in tmp_path.iterdir()] == [writer.files[0].name]


def test_every_cut_of_a_file_is_reported_at_the_last_whole_record(tmp_path: Path) -> None:
    [path] = write_files(tmp_path / "w", groups=2).files
    data = path.read_bytes()
    ends = [0] + [r.offset + r.length for r in read_records(path)]
    for cut in range(1, len(data), 7):
        torn = tmp_path / "torn.warc.gz"
        torn.write_bytes(data[:cut])
        whole = max(e for e in ends if e <= cut)
        seen = []
        if cut in ends:
            seen = list(read_records(torn))
        else:
            with pytest.raises(WarcReadError) as info:
                for record in read_records(torn):
                    seen.append(record)
            assert info.value.offset == whole
            assert str(info.value).startswith(f"{torn}: unreadable WARC data at byte {whole}")
        assert len(seen) == ends.index(whole)
        assert whole_records_end(torn)[0] == whole


def test_not_a_warc_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.warc.gz"
    path.write_bytes(b"this is not a WARC file\n")
    with pytest.raises(WarcReadError, match=r"notes\.warc\.gz: unreadable WARC data at byte 0"):
        list(read_records(path))


def test_uncompressed_warc_files_are_read(tmp_path: Path) -> None:
    [path] = write_files(tmp_path / "w", groups=3).files
    plain = tmp_path / "plain.warc"
    with open(path, "rb") as fh, open(plain, "wb") as out:
        out.write(gzip.GzipFile(fileobj=fh).read())
    assert [r.type for r in read_records(plain)][:4] == ["warcinfo", "response", "request",
                                                          "metadata"]


def test_unfinished_file_of_a_dead_process_is_cut_and_renamed(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    host = safe_name(socket.gethostname())
    [source] = write_files(tmp_path / "src", groups=3).files
    last_response = [r for r in read_records(source) if r.type == "response"][-1]
    data = source.read_bytes()[: last_response.offset + 50]   # killed inside the last fetch
    torn = tmp_path / f"test-20260101000000000-00000-{host}-{dead}.warc.gz.open"
    torn.write_bytes(data)
    live = tmp_path / f"test-20260101000000000-00000-{host}-{os.getpid()}.warc.gz.open"
    live.write_bytes(data)
    other = tmp_path / f"test-20260101000000000-00000-elsewhere-{dead}.warc.gz.open"
    other.write_bytes(data)
    repaired = recover_unfinished(tmp_path, "test")
    final = torn.with_name(torn.name.removesuffix(".open"))
    assert repaired == [final] and final.exists() and not torn.exists()
    assert live.exists() and other.exists()                     # not ours to touch
    assert whole_records_end(final) == (final.stat().st_size, "")
    assert [r.type for r in read_records(final)].count("response") == 2
