"""A feed storage whose disk fills up: Scrapy's file storage, with writes failing (ENOSPC)
once the file holds ``CORPUSCRAWL_TEST_DISK_BYTES`` bytes (an environment variable).

Used by tests/test_output_failures.py to fail a feed mid-crawl, the way a full disk does:
``-s FEED_STORAGES={"file": "tests.full_disk.FullDiskStorage", "": ...}``.
"""

from __future__ import annotations

import errno
import os
from typing import IO, Any

from scrapy.extensions.feedexport import FileFeedStorage

#: Environment variable: bytes the file may hold before writes fail.
LIMIT_ENV = "CORPUSCRAWL_TEST_DISK_BYTES"


class FillingFile:
    """A binary file whose ``write`` fails with ENOSPC beyond ``limit`` bytes."""

    def __init__(self, file: IO[bytes], limit: int) -> None:
        self._file = file
        self._limit = limit
        self.name = file.name

    def write(self, data: bytes) -> int:
        """Write, or fail as a full disk does."""
        if self._file.tell() + len(data) > self._limit:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self._file.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


class FullDiskStorage(FileFeedStorage):
    """Scrapy's local file storage on a disk that fills up (see the module docstring)."""

    def open(self, spider: Any) -> Any:
        """The file, wrapped so that writes fail beyond the limit."""
        return FillingFile(super().open(spider), int(os.environ[LIMIT_ENV]))
