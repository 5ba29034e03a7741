"""WARC/1.1 records of one fetch, built with warcio from plain values (no Scrapy here).

A fetch becomes three records, the way Heritrix and wget write them: the
``response`` (the HTTP status line, headers and body), the ``request`` (the
request line and headers as sent) and a ``metadata`` record of crawl facts
(``application/warc-fields``: depth, the callback that handled the response,
the referrer, the fetch time).  The request and metadata records carry
``WARC-Concurrent-To: <response id>``.  A page rendered in a browser adds a
``conversion`` record holding the rendered DOM (``WARC-Refers-To: <response
id>``) with its own metadata record (depth, the translations found).

Bodies are stored as the server sent them, content-coding included
(``Content-Encoding: gzip`` bodies stay gzipped), with the transfer-coding
removed: fetchers hand over de-chunked bodies, so a ``Transfer-Encoding``
header is kept as ``X-Crawler-Transfer-Encoding`` (Common Crawl's
convention) and the record stays self-consistent for any WARC reader.  When
the fetcher already removed the content-coding (a browser), the headers say
so the same way: ``X-Crawler-Content-Encoding`` and
``X-Crawler-Content-Length`` keep the originals, ``Content-Length`` is the
stored body's length.  warcio computes ``WARC-Payload-Digest`` and
``WARC-Block-Digest`` (SHA-1, base32).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from io import BytesIO
from urllib.parse import urlsplit

from warcio.recordbuilder import RecordBuilder
from warcio.recordloader import ArcWarcRecord
from warcio.statusandheaders import StatusAndHeaders

__all__ = ["WARC_VERSION", "Exchange", "conversion_records", "exchange_records",
           "consistent_headers", "warc_date", "warcinfo_record", "warc_fields"]

WARC_VERSION = "WARC/1.1"
#: Prefix kept on a header the stored record no longer satisfies (Common Crawl's convention).
MOVED_HEADER_PREFIX = "X-Crawler-"

_BUILDER = RecordBuilder(warc_version=WARC_VERSION)

Headers = Sequence[tuple[str, str]]


def warc_date(timestamp: float) -> str:
    """A WARC/1.1 date (UTC, microseconds) for a POSIX timestamp."""
    moment = dt.datetime.fromtimestamp(timestamp, dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def warc_fields(fields: Mapping[str, object]) -> bytes:
    """An ``application/warc-fields`` block: ``name: value`` lines, empty values left out."""
    lines = []
    for name, value in fields.items():
        if value is None or value == "":
            continue
        text = " ".join(str(value).split())  # one line per field
        lines.append(f"{name}: {text}\r\n")
    return "".join(lines).encode("utf-8")


@dataclass
class Exchange:
    """One HTTP request and its response, as the fetcher saw them.

    ``body`` is the response body without transfer-coding; ``decoded`` says
    the fetcher also removed its content-coding (a browser does).
    """

    url: str
    status: int
    response_headers: Headers
    body: bytes
    method: str = "GET"
    request_headers: Headers = ()
    request_body: bytes = b""
    protocol: str = "HTTP/1.1"
    ip_address: str = ""
    date: str = ""
    decoded: bool = False
    #: Crawl facts for the metadata record (``application/warc-fields``).
    metadata: Mapping[str, object] = field(default_factory=dict)


def consistent_headers(headers: Headers, body_length: int, decoded: bool) -> list[tuple[str, str]]:
    """Response headers that describe the stored body (see the module docstring)."""
    out: list[tuple[str, str]] = []
    for name, value in headers:
        lower = name.lower()
        if lower == "transfer-encoding" or (decoded and lower in ("content-encoding",
                                                                  "content-length")):
            out.append((MOVED_HEADER_PREFIX + name, value))
        else:
            out.append((name, value))
    if decoded:
        out.append(("Content-Length", str(body_length)))
    return out


def _request_target(url: str) -> str:
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def exchange_records(exchange: Exchange) -> list[ArcWarcRecord]:
    """The response, request and metadata records of one fetch, linked by the response's id."""
    date = exchange.date
    reason = _reason(exchange.status)
    response_headers = StatusAndHeaders(
        f"{exchange.status} {reason}".strip(),
        consistent_headers(exchange.response_headers, len(exchange.body), exchange.decoded),
        # an HTTP/1.x status line for every protocol, which every WARC reader parses (h2 too)
        protocol=exchange.protocol if exchange.protocol.upper().startswith("HTTP/1")
        else "HTTP/1.1")
    warc_headers: dict[str, str] = {"WARC-Date": date}
    if exchange.ip_address:
        warc_headers["WARC-IP-Address"] = exchange.ip_address
    response = _BUILDER.create_warc_record(
        exchange.url, "response", payload=BytesIO(exchange.body), length=len(exchange.body),
        warc_headers_dict=warc_headers, http_headers=response_headers)
    response_id = response.rec_headers.get_header("WARC-Record-ID")
    request_headers = list(exchange.request_headers)
    if not any(name.lower() == "host" for name, _ in request_headers):
        request_headers.insert(0, ("Host", urlsplit(exchange.url).netloc))
    request = _BUILDER.create_warc_record(
        exchange.url, "request", payload=BytesIO(exchange.request_body),
        length=len(exchange.request_body),
        warc_headers_dict={"WARC-Date": date, "WARC-Concurrent-To": response_id},
        http_headers=StatusAndHeaders(
            f"{exchange.method} {_request_target(exchange.url)} HTTP/1.1", request_headers,
            is_http_request=True))
    records = [response, request]
    if exchange.metadata:
        records.append(_metadata(exchange.url, date, exchange.metadata,
                                 {"WARC-Concurrent-To": response_id}))
    return records


def conversion_records(url: str, html: str, refers_to: str, date: str,
                       metadata: Mapping[str, object] | None = None) -> list[ArcWarcRecord]:
    """A ``conversion`` record of a rendered DOM (UTF-8 HTML) and its metadata record."""
    body = html.encode("utf-8")
    headers = {"WARC-Date": date}
    if refers_to:
        headers["WARC-Refers-To"] = refers_to
    conversion = _BUILDER.create_warc_record(
        url, "conversion", payload=BytesIO(body), length=len(body),
        warc_content_type="text/html; charset=utf-8", warc_headers_dict=headers)
    records = [conversion]
    if metadata:
        records.append(_metadata(url, date, metadata, {
            "WARC-Refers-To": conversion.rec_headers.get_header("WARC-Record-ID")}))
    return records


def warcinfo_record(filename: str, info: Mapping[str, object]) -> ArcWarcRecord:
    """The ``warcinfo`` record opening a file: software, crawl, format (WARC/1.1 §6.2)."""
    return _BUILDER.create_warcinfo_record(filename, {k: str(v) for k, v in info.items()
                                                      if v not in (None, "")})


def _metadata(url: str, date: str, fields: Mapping[str, object],
              links: Mapping[str, str]) -> ArcWarcRecord:
    body = warc_fields(fields)
    return _BUILDER.create_warc_record(
        url, "metadata", payload=BytesIO(body), length=len(body),
        warc_content_type="application/warc-fields",
        warc_headers_dict={"WARC-Date": date, **links})


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def header_pairs(raw: Iterable[tuple[bytes | str, Iterable[bytes | str]]]) -> list[tuple[str, str]]:
    """``(name, value)`` string pairs from multi-valued headers (Scrapy's ``Headers.items()``)."""
    def text(value: bytes | str) -> str:
        return value.decode("latin-1") if isinstance(value, bytes) else value

    return [(text(name), text(value)) for name, values in raw for value in values]
