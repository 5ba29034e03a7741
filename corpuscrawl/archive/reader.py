"""Records back out of WARC files, ours or another crawler's (warcio; no Scrapy here).

:func:`read_records` yields every record of a ``.warc.gz`` / ``.warc`` file
with its body read whole (HTTP transfer-coding removed, content-coding kept).
Anything unreadable — a torn last record of a killed crawl, a truncated copy,
bytes that are not WARC — raises :class:`WarcReadError` naming the file and
the byte offset of the record where reading stopped; the records before it
have already been yielded, so a caller loses nothing that was whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import ChunkedDataReader
from warcio.statusandheaders import StatusAndHeaders

__all__ = ["ArchivedRecord", "WarcReadError", "read_records", "whole_records_end"]


class WarcReadError(Exception):
    """A WARC file cannot be read past ``offset``; the message names the file and the offset."""

    def __init__(self, path: str | Path, offset: int, reason: str):
        super().__init__(f"{path}: unreadable WARC data at byte {offset}: {reason}")
        self.path = Path(path)
        self.offset = offset
        self.reason = reason


@dataclass
class ArchivedRecord:
    """One WARC record: its WARC headers, HTTP headers (if any) and body, and where it was."""

    path: Path
    offset: int
    length: int
    type: str
    id: str
    target: str
    date: str
    warc_headers: StatusAndHeaders
    http: StatusAndHeaders | None
    body: bytes

    def header(self, name: str, default: str = "") -> str:
        """A WARC header's value."""
        return self.warc_headers.get_header(name, default) or default

    @property
    def status(self) -> int:
        """The HTTP status of a response record (0 when it has none)."""
        if self.http is None:
            return 0
        try:
            return int(self.http.get_statuscode())
        except (TypeError, ValueError):
            return 0

    def fields(self) -> dict[str, str]:
        """The ``name: value`` lines of an ``application/warc-fields`` body (metadata records)."""
        out: dict[str, str] = {}
        for line in self.body.decode("utf-8", "replace").splitlines():
            name, sep, value = line.partition(":")
            if sep and name.strip():
                out.setdefault(name.strip(), value.strip())
        return out


def read_records(path: str | Path) -> Iterator[ArchivedRecord]:
    """Every record of a WARC file, in order; WarcReadError where the file stops being readable."""
    path = Path(path)
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed in finally (generator)
    except OSError as exc:
        raise WarcReadError(path, 0, exc.strerror or str(exc)) from exc
    offset = end = 0
    try:
        iterator = ArchiveIterator(fh)
        reader = iterator.reader  # kept: the iterator drops it at the end
        records = iter(iterator)
        while True:
            offset = iterator.offset
            try:
                record = next(records)
            except StopIteration:
                offset = end
                _check_rest(fh, end)
                return
            if record.format != "warc":  # warcio reads any text line as an ARC header
                raise WarcReadError("", 0, "not a WARC record (WARC/1.0 or WARC/1.1 expected)")
            body = _read_body(record)
            iterator.read_to_end()
            _check_member_end(reader, "the record's gzip member is cut short")
            start, length = iterator.member_info or (offset, 0)
            end = start + length
            headers = record.rec_headers
            yield ArchivedRecord(
                path=path, offset=start, length=length, type=record.rec_type or "",
                id=headers.get_header("WARC-Record-ID") or "",
                target=headers.get_header("WARC-Target-URI") or "",
                date=headers.get_header("WARC-Date") or "",
                warc_headers=headers, http=record.http_headers, body=body)
    except WarcReadError as exc:
        raise WarcReadError(path, exc.offset or offset, exc.reason) from None
    except Exception as exc:  # warcio fails on torn data in many ways (even AttributeError)
        raise WarcReadError(path, offset, _reason(exc)) from exc
    finally:
        fh.close()


def whole_records_end(path: str | Path) -> tuple[int, str]:
    """The byte offset after the last whole record, and why reading stopped ("" at a clean end)."""
    end = 0
    try:
        for record in read_records(path):
            end = record.offset + record.length
    except WarcReadError as exc:
        return end, exc.reason
    return end, ""


def _check_rest(fh: BinaryIO, end: int) -> None:
    """Raise when bytes other than blank lines follow the last whole record (a torn record)."""
    fh.seek(end)
    rest = fh.read(64 * 1024)
    if rest.strip(b"\r\n"):
        raise WarcReadError("", end, "the file ends inside a record (torn or truncated)")


def _check_member_end(reader: object, reason: str) -> None:
    """Raise when the current gzip member did not reach its end (a torn record)."""
    decompressor = getattr(reader, "decompressor", None)
    if decompressor is not None and not getattr(decompressor, "eof", True):
        raise WarcReadError("", 0, reason)


def _read_body(record: object) -> bytes:
    stream = record.raw_stream  # type: ignore[attr-defined]
    data = stream.read()
    missing = getattr(stream, "limit", 0)
    if missing:
        raise WarcReadError("", 0, f"record cut short: {missing} of its "
                            f"{record.length} bytes missing")  # type: ignore[attr-defined]
    http = record.http_headers  # type: ignore[attr-defined]
    if http is not None and "chunked" in (http.get_header("Transfer-Encoding") or "").lower():
        from io import BytesIO

        data = ChunkedDataReader(BytesIO(data), decomp_type=None).read()
    return data


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
