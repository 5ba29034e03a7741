"""Hostile responses named and counted (corpuscrawl.html.scrapy_glue)."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest
from scrapy import Request
from scrapy.exceptions import (
    DownloadCancelledError,
    DownloadTimeoutError,
    IgnoreRequest,
    ResponseDataLossError,
)
from scrapy.http import Response
from twisted.internet.error import TimeoutError as TwistedTimeoutError

from corpuscrawl.html.scrapy_glue import (
    RedirectLoopMiddleware,
    body_kind,
    count_failure,
    failure_kind,
    page_from_response,
)


class Stats(Counter):
    def inc_value(self, key, count=1):
        self[key] += count


def resp(body: bytes, content_type: str | None, url: str = "http://a.com/x", status: int = 200,
         **headers: str) -> Response:
    if content_type is not None:
        headers["Content-Type"] = content_type
    return Response(url=url, body=body, status=status, headers=headers)


def test_failures_are_named():
    assert failure_kind(DownloadTimeoutError("took longer")) == "timeout"
    assert failure_kind(DownloadCancelledError(
        "Expected to receive 5 bytes which is larger than download max size (1)")) == "too_large"
    assert failure_kind(DownloadCancelledError()) == "too_large"  # received over the cap
    assert failure_kind(ResponseDataLossError()) == "data_loss"
    assert failure_kind(IgnoreRequest("max redirections reached")) == "redirect_chain"
    assert failure_kind(IgnoreRequest(
        "Ignored response because its body exceeded DOWNLOAD_MAXSIZE (1 B) during decompression."
    )) == "decompression_bomb"
    assert failure_kind(TwistedTimeoutError()) == "timeout"  # older Scrapy
    assert failure_kind(ConnectionRefusedError()) == ""
    stats = Stats()
    failure = SimpleNamespace(value=DownloadTimeoutError("slow"), request=Request("http://a.com/"))
    assert count_failure(stats, failure) == "timeout" and stats["corpuscrawl/hostile/timeout"] == 1


def test_body_kind_trusts_declared_types_and_sniffs_unknown_ones():
    assert body_kind(resp(b"\x00\x01", "text/html; charset=utf-8")) == ("html", False)
    assert body_kind(resp(b"<urlset/>", "application/xml")) == ("xml", False)
    assert body_kind(resp(b"  <!DOCTYPE html><p>x", "application/octet-stream")) == ("html", True)
    assert body_kind(resp(b"<html><p>x", None)) == ("html", True)
    assert body_kind(resp(b"\x89PNG\r\n", "application/octet-stream")) == ("other", False)
    assert body_kind(resp(b"<html>", "image/png")) == ("other", False)


def test_page_from_response_decides_the_charset_from_the_bytes():
    body = '<meta charset="utf-16"><p>café</p>'.encode("latin-1")
    page = page_from_response(resp(body, "text/html"))
    assert "café" in page.html and "charset_label_ignored" in page.notes
    page = page_from_response(resp("<p>café</p>".encode("cp1252"), "text/html; charset=windows-1252"))
    assert "café" in page.html


def test_a_redirect_back_into_the_chain_is_dropped_and_counted():
    stats = Stats()
    mw = RedirectLoopMiddleware(stats)
    request = Request("http://a.com/b", meta={"redirect_urls": ["http://a.com/a"]})
    onward = resp(b"", None, "http://a.com/b", 302, Location="/c")
    assert mw.process_response(request, onward) is onward
    with pytest.raises(IgnoreRequest, match="redirect loop"):
        mw.process_response(request, resp(b"", None, "http://a.com/b", 302, Location="/a#x"))
    with pytest.raises(IgnoreRequest):
        mw.process_response(Request("http://a.com/s"), resp(b"", None, "http://a.com/s", 301,
                                                            Location="http://a.com/s"))
    assert stats["corpuscrawl/hostile/redirect_loop"] == 2


def test_a_redirect_to_a_url_w3lib_refuses_is_left_to_the_redirect_middleware():
    stats = Stats()
    onward = resp(b"", None, "http://a.com/b", 302, Location="http://exa mple.com/x")
    assert RedirectLoopMiddleware(stats).process_response(Request("http://a.com/b"), onward) is onward
    assert stats["corpuscrawl/hostile/redirect_loop"] == 0
