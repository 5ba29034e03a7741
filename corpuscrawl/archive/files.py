"""Rotating ``.warc.gz`` files that survive a killed process (no Scrapy here).

File names follow the crawlers' pattern (Heritrix, wget, Browsertrix):
``PREFIX-TIMESTAMP-SERIAL-HOST-PID.warc.gz`` — the UTC time the file was
opened to the millisecond, a serial counting the files of this process from
00000, the host name and the process id — so several processes, on one
machine or many, can write into one directory.  A file being written carries
the suffix ``.open`` (Heritrix's convention) and is renamed when it is full or
the crawl ends; every file starts with a ``warcinfo`` record.

Durability: every record is its own gzip member, and the records of one fetch
(each naming its file's ``warcinfo`` record in ``WARC-Warcinfo-ID``)
are serialised in memory first and handed to the operating system with one
``write`` and a flush, so a killed process leaves whole records and at most one
torn group at the end of its ``.open`` file.  A later process never appends to
an old file (a new file per process start); it repairs the ``.open`` files of
dead processes of its own host (:func:`recover_unfinished`): the torn tail is
cut at the end of the last whole record and the file gets its final name.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import re
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import BinaryIO

from warcio.recordloader import ArcWarcRecord
from warcio.warcwriter import WARCWriter

from corpuscrawl.archive.records import WARC_VERSION, warcinfo_record

__all__ = ["MAX_SIZE_DEFAULT", "OPEN_SUFFIX", "RotatingWarcWriter", "WrittenGroup",
           "parse_size", "recover_unfinished"]

logger = logging.getLogger("corpuscrawl.archive")

#: Rotate files at this size (bytes): the size Heritrix and Browsertrix use by default.
MAX_SIZE_DEFAULT = 1_000_000_000
#: Suffix of a file still being written.
OPEN_SUFFIX = ".open"
EXTENSION = ".warc.gz"
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.I)
_UNITS = {"": 1, "k": 1000, "m": 1000**2, "g": 1000**3, "t": 1000**4}
_SAFE_RE = re.compile(r"[^A-Za-z0-9._-]+")


def parse_size(value: object) -> int:
    """Bytes from ``1000000``, ``"100M"``, ``"1GB"``, ``"512k"`` (decimal units); ValueError else."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    match = _SIZE_RE.match(str(value))
    if not match:
        raise ValueError(f"{value!r} is not a size (examples: 1000000, 100M, 1G)")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def safe_name(text: str) -> str:
    """``text`` with every character outside ``[A-Za-z0-9._-]`` replaced by ``-``."""
    return _SAFE_RE.sub("-", text).strip("-") or "x"


@dataclass(frozen=True)
class WrittenGroup:
    """Where a group of records went: the file and each record's id."""

    path: Path
    offset: int
    length: int
    record_ids: tuple[str, ...]


class RotatingWarcWriter:
    """Writes groups of records into rotating WARC files (see the module docstring).

    ``info`` is the body of the ``warcinfo`` record opening every file
    (``software``, ``isPartOf``, ``operator``, ... as WARC/1.1 §6.2 suggests).
    A group larger than ``max_size`` still goes whole into one file.
    """

    def __init__(self, directory: str | Path, prefix: str = "corpuscrawl",
                 max_size: int = MAX_SIZE_DEFAULT, info: Mapping[str, object] | None = None):
        if max_size <= 0:
            raise ValueError("max_size must be > 0")
        self.directory = Path(directory)
        self.prefix = safe_name(prefix)
        self.max_size = max_size
        self.info = dict(info or {})
        self.host = safe_name(socket.gethostname())
        self.pid = os.getpid()
        self.serial = 0
        self.files: list[Path] = []
        self._fh: BinaryIO | None = None
        self._path: Path | None = None
        self._size = 0
        self._records_in_file = 0
        self._warcinfo_id = ""

    @property
    def current(self) -> Path | None:
        """The file being written (with its ``.open`` suffix), if any."""
        return self._path

    def write(self, records: Sequence[ArcWarcRecord]) -> WrittenGroup:
        """Write ``records`` whole into the current file, rotating first when it would overflow."""
        if self._fh is None:
            self._open_file()
        data = self._serialize(records)
        if self._records_in_file and self._size + len(data) > self.max_size:
            self._finish_file()
            self._open_file()
            data = self._serialize(records, again=True)
        assert self._fh is not None and self._path is not None
        offset = self._size
        self._fh.write(data)
        self._fh.flush()
        self._size += len(data)
        self._records_in_file += len(records)
        return WrittenGroup(self._path, offset, len(data),
                            tuple(r.rec_headers.get_header("WARC-Record-ID") for r in records))

    def _serialize(self, records: Sequence[ArcWarcRecord], again: bool = False) -> bytes:
        """The records as bytes, each naming the warcinfo record of the file they go into."""
        for record in records:
            if again:  # the first serialisation read the payload: read it from the start
                record.raw_stream.seek(0)
            record.rec_headers.replace_header("WARC-Warcinfo-ID", self._warcinfo_id)
        return serialize(records)

    def close(self) -> None:
        """Finish the current file (rename it to its final name); idempotent."""
        if self._fh is not None:
            self._finish_file()

    def _open_file(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d%H%M%S%f")[:17]
        name = f"{self.prefix}-{stamp}-{self.serial:05d}-{self.host}-{self.pid}{EXTENSION}"
        self.serial += 1
        path = self.directory / (name + OPEN_SUFFIX)
        fh = open(path, "xb")  # noqa: SIM115 - kept open across writes, closed in _finish_file
        warcinfo = warcinfo_record(name, {**self.info, "format": _FORMAT})
        self._warcinfo_id = warcinfo.rec_headers.get_header("WARC-Record-ID")
        info = serialize([warcinfo])
        fh.write(info)
        fh.flush()
        self._fh, self._path, self._size, self._records_in_file = fh, path, len(info), 0

    def _finish_file(self) -> None:
        assert self._fh is not None and self._path is not None
        self._fh.close()
        final = self._path.with_name(self._path.name[: -len(OPEN_SUFFIX)])
        os.replace(self._path, final)
        self.files.append(final)
        logger.info("WARC file done: %s (%d bytes)", final, self._size)
        self._fh, self._path, self._size, self._records_in_file = None, None, 0, 0


_FORMAT = f"WARC File Format {WARC_VERSION.split('/')[1]}"


def serialize(records: Sequence[ArcWarcRecord]) -> bytes:
    """The records as bytes: one gzip member each, as WARC/1.1 Annex D recommends."""
    buffer = BytesIO()
    writer = WARCWriter(buffer, gzip=True, warc_version=WARC_VERSION)
    for record in records:
        writer.write_record(record)
    return buffer.getvalue()


_PID_RE = re.compile(r"-(?P<pid>\d+)" + re.escape(EXTENSION + OPEN_SUFFIX) + "$")


def recover_unfinished(directory: str | Path, prefix: str) -> list[Path]:
    """Repair the ``.open`` files left by dead processes of this host; returns the repaired files.

    A file whose process still runs, or that another host writes, is left
    alone.  The file is cut after its last whole record (see
    :func:`corpuscrawl.archive.reader.whole_records_end`) and renamed.
    """
    from corpuscrawl.archive.reader import whole_records_end

    host = safe_name(socket.gethostname())
    repaired: list[Path] = []
    for path in sorted(Path(directory).glob(f"{safe_name(prefix)}-*{EXTENSION}{OPEN_SUFFIX}")):
        match = _PID_RE.search(path.name)
        if (not match or not path.name[: match.start()].endswith(f"-{host}")
                or _alive(int(match.group("pid")))):
            continue
        end, error = whole_records_end(path)
        if error:
            logger.warning("unfinished WARC file %s: %s; cut after the last whole record "
                           "(byte %d)", path, error, end)
            with open(path, "r+b") as fh:
                fh.truncate(end)
        final = path.with_name(path.name[: -len(OPEN_SUFFIX)])
        os.replace(path, final)
        repaired.append(final)
    return repaired


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
