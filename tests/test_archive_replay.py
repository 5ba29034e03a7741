"""``corpuscrawl extract`` on WARC files without a crawl: other crawlers' files, bad arguments,
and the WARC components switched off while ``CORPUSCRAWL_WARC_DIR`` is empty."""

from __future__ import annotations

import gzip
import json
from io import BytesIO
from pathlib import Path

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from corpuscrawl.archive.scrapy_glue.middlewares import WarcConversionMiddleware, WarcMiddleware
from corpuscrawl.cli import main

ARTICLE = ("<html><head><title>River report</title></head><body><nav><a href='/'>Home</a>"
           "</nav><article><h1>River report</h1>"
           + "".join(f"<p>The river council measured the water level for the {i}th time this "
                     "year and reported that the harbour bridge stays open for the ferry.</p>"
                     for i in range(6))
           + "</article></body></html>")


def _chunked(data: bytes) -> bytes:
    out = b""
    for start in range(0, len(data), 100):
        piece = data[start:start + 100]
        out += f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    return out + b"0\r\n\r\n"


def foreign_warc(path: Path) -> None:
    """A WARC as other crawlers write it: raw chunked gzip bodies, no corpuscrawl metadata."""
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        pages = [("http://example.org/river", 200, ARTICLE.encode()),
                 ("http://example.org/gone", 404, b"<html><body>Not here</body></html>"),
                 ("http://example.org/logo.png", 200, b"\x89PNG....")]
        for url, status, body in pages:
            content_type = "image/png" if url.endswith(".png") else "text/html; charset=utf-8"
            payload = _chunked(gzip.compress(body))
            headers = StatusAndHeaders(f"{status} X", [
                ("Content-Type", content_type), ("Content-Encoding", "gzip"),
                ("Transfer-Encoding", "chunked")], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(
                url, "response", payload=BytesIO(payload), length=len(payload),
                http_headers=headers))


def test_other_crawlers_warc_is_extracted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    foreign_warc(tmp_path / "other.warc.gz")
    out = tmp_path / "out.jsonl"
    assert main(["extract", "-e", "bte", str(tmp_path / "other.warc.gz"), "-o", str(out)]) == 0
    docs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [d["url"] for d in docs] == ["http://example.org/river"]
    assert docs[0]["title"] == "River report" and docs[0]["extractor"] == "bte"
    assert "harbour bridge" in docs[0]["text"] and "Home" not in docs[0]["text"]
    assert "1 documents written" in capsys.readouterr().out


def test_template_extractor_from_the_command_line(tmp_path: Path) -> None:
    foreign_warc(tmp_path / "other.warc.gz")
    template = tmp_path / "site.txt"
    template.write_text("h1\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    # a two-word text is under CORPUSCRAWL_MIN_WORDS, as in a crawl: not written by default
    assert main(["extract", "-e", f"template:path={template}", str(tmp_path / "other.warc.gz"),
                 "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == ""
    assert main(["extract", "-e", f"template:path={template}", str(tmp_path / "other.warc.gz"),
                 "-s", "CORPUSCRAWL_MIN_WORDS=0", "-o", str(out)]) == 0
    [doc] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert doc["text"] == "River report" and doc["extractor"].startswith("template")


@pytest.mark.parametrize(("args", "message"), [
    (["-e", "bte", "-e", "justext", "{warc}", "-o", "{out}"], "one extractor"),
    (["-e", "bte", "{warc}"], "needs -o OUT"),
    (["-e", "bte", "{warc}", "{missing}", "-o", "{out}"], "no such WARC file"),
    (["-e", "nosuch", "{warc}", "-o", "{out}"], "nosuch"),
    (["-e", "bte", "{warc}", "-o", "{out}.unknownformat"], "cannot tell the format"),
    (["-e", "bte", "{warc}", "-o", "{out}", "-s", "CORPUSCRAWL_DEDUP_THRESHOLD=7"],
     "CORPUSCRAWL_DEDUP_THRESHOLD"),
])
def test_bad_arguments_exit_2_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             args: list[str], message: str) -> None:
    foreign_warc(tmp_path / "a.warc.gz")
    names = {"warc": str(tmp_path / "a.warc.gz"), "out": str(tmp_path / "o.jsonl"),
             "missing": str(tmp_path / "missing.warc.gz")}
    assert main(["extract", *(a.format(**names) for a in args)]) == 2
    assert message in capsys.readouterr().err


def test_warc_components_are_off_without_a_directory() -> None:
    for component in (WarcMiddleware, WarcConversionMiddleware):
        with pytest.raises(NotConfigured, match="CORPUSCRAWL_WARC_DIR"):
            component.from_crawler(get_crawler(settings_dict={"CORPUSCRAWL_WARC_DIR": ""}))


def test_unusable_warc_directory_fails_at_start_naming_the_setting(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    crawler = get_crawler(settings_dict={"CORPUSCRAWL_WARC_DIR": str(blocker / "warc")})
    with pytest.raises(ValueError, match="CORPUSCRAWL_WARC_DIR"):
        WarcMiddleware.from_crawler(crawler)


def _middleware(tmp_path: Path) -> tuple[WarcMiddleware, Path]:
    warc_dir = tmp_path / "warc"
    crawler = get_crawler(settings_dict={"CORPUSCRAWL_WARC_DIR": str(warc_dir)})
    return WarcMiddleware.from_crawler(crawler), warc_dir


def test_browser_fetch_without_captured_navigation_keeps_the_dom_and_says_so(
        tmp_path: Path) -> None:
    import asyncio

    from scrapy import Request
    from scrapy.http import HtmlResponse

    from corpuscrawl.archive.reader import read_records

    middleware, warc_dir = _middleware(tmp_path)
    request = Request("http://127.0.0.1:9/page", meta={"playwright": True})
    middleware.process_request(request)
    assert callable(request.meta["playwright_page_event_handlers"]["response"])
    response = HtmlResponse("http://127.0.0.1:9/page", body=b"<html><p>dom</p></html>",
                            headers={"Content-Length": "10", "Content-Type": "text/html"},
                            flags=["playwright"], request=request)
    assert asyncio.run(middleware.process_response(request, response)) is response
    assert "playwright_page_event_handlers" not in request.meta   # no closure left in meta
    cached = HtmlResponse("http://127.0.0.1:9/old", body=b"<p>old</p>", flags=["cached"])
    middleware.process_response(Request(cached.url), cached)      # archived by an earlier crawl
    middleware.archive.close()
    records = [r for f in warc_dir.iterdir() for r in read_records(f)]
    [page] = [r for r in records if r.type == "response"]
    assert page.target == "http://127.0.0.1:9/page" and page.body == b"<html><p>dom</p></html>"
    assert page.http.get_header("X-Crawler-Content-Length") == "10"
    assert page.http.get_header("Content-Length") == str(len(page.body))
    fields = next(r for r in records if r.type == "metadata").fields()
    assert fields["payload"] == "dom-at-load" and fields["fetcher"] == "browser"
