"""Where a feed writes: the local file of a feed URI, for the readers that continue,
lock, measure or sit beside a crawl's output files (the export ledger, the output checks
and lock, the cluster's feed sizes, the dropped-item log).

Plain code, no Scrapy: the export, report and cluster rooms' pure modules read it without
reaching Scrapy through the ledger's pipeline.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = ["local_feed_path"]


def local_feed_path(uri: str) -> Path | None:
    """The absolute path of a local feed URI (plain path or ``file://``), else None."""
    if "%(" in uri:  # one file per run or batch: nothing to continue
        return None
    parts = urlsplit(uri)
    if parts.scheme == "file":
        return Path(unquote(parts.path)).resolve()
    if parts.scheme and len(parts.scheme) > 1:  # s3://, ftp://, stdout:, ... (C:\ is a path)
        return None
    if uri in ("-", ""):
        return None
    return Path(uri).resolve()
