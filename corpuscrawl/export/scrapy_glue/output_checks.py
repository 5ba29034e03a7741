"""Checking the crawl's outputs (``FEEDS``, ``-o``/``-O``) before anything is fetched.

Scrapy opens a feed only when the first item arrives and, when it cannot, logs a
traceback and goes on crawling: every page was fetched, counted as exported in the
crawl state, and lost.  :func:`check_outputs` opens each output as Scrapy will,
before the crawl starts, and raises a one-line
:class:`~corpuscrawl.config.crawl_checks.CrawlSetupError` naming the output and why:

* an unknown format (``-O out.parquet``) or an unsupported URI scheme
  (``-O ftps://...``), a storage whose library is missing (``s3://`` without boto3),
  batches without ``%(batch_id)d`` / ``%(batch_time)s`` in the URI;
* a local file that cannot be written: a directory given as the file, a path under a
  file (``/etc/passwd/out.jsonl``), a directory that cannot be created (``/proc/x``),
  no permission, a read-only file system.  A missing directory that can be created is
  fine: Scrapy creates it, as it always has.

The probe is real: the file is opened for appending (and the missing directories
created, as Scrapy would) and anything it created is removed again, so an existing
corpus is never touched.

:func:`existing_corpus` finds an output file that already holds documents (a demo crawl
must not be written into a user's corpus).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path, PureWindowsPath
from typing import Any
from urllib.parse import urlparse

from corpuscrawl.config.crawl_checks import CrawlSetupError, did_you_mean
from corpuscrawl.crawlstate.feed_paths import local_feed_path

__all__ = ["check_outputs", "command_line_problem", "existing_corpus", "local_output_paths"]

_BATCH_RE = re.compile(r"%\(batch_time\)s|%\(batch_id\)")


def _registered(settings: Any, name: str) -> dict[str, Any]:
    return {k: v for k, v in settings.getwithbase(name).items() if v is not None}


def _format_of(uri: str, options: dict[str, Any]) -> str:
    return str(options.get("format") or Path(uri).suffix.removeprefix("."))


def check_outputs(settings: Any, crawler: Any = None) -> None:
    """Raise :class:`CrawlSetupError` for the first output in ``FEEDS`` that cannot be written."""
    feeds = settings.getdict("FEEDS")
    formats = _registered(settings, "FEED_EXPORTERS")
    storages = _registered(settings, "FEED_STORAGES")
    batch_default = settings.getint("FEED_EXPORT_BATCH_ITEM_COUNT")
    for uri, options in feeds.items():
        uri, options = str(uri), dict(options or {})
        fmt = _format_of(uri, options)
        if fmt not in formats:
            what = f"unknown format {fmt!r}" if fmt else "no format"
            raise CrawlSetupError(
                f"output {uri}: {what}{did_you_mean(fmt, formats) if fmt else ''} (known: "
                f"{', '.join(sorted(formats))}); give it as the file's extension or after a "
                "colon, e.g. -O corpus.jsonl or -O out.data:jsonl")
        if (options.get("batch_item_count", batch_default) or 0) and not _BATCH_RE.search(uri):
            raise CrawlSetupError(f"output {uri}: batches need %(batch_id)d or %(batch_time)s "
                                  "in the file name")
        scheme = urlparse(uri).scheme
        if PureWindowsPath(uri).drive or scheme in ("", "file"):
            _check_local(uri, options)
            continue
        if scheme not in storages:
            raise CrawlSetupError(
                f"output {uri}: unsupported URI scheme {scheme!r}{did_you_mean(scheme, storages)}"
                f" (supported: {', '.join(sorted(storages))}, or a local path)")
        if crawler is not None:
            _check_storage(crawler, uri, options, storages[scheme])


def _check_storage(crawler: Any, uri: str, options: dict[str, Any], path: Any) -> None:
    """Build the storage as Scrapy will (e.g. s3:// needs boto3)."""
    from scrapy.exceptions import NotConfigured
    from scrapy.utils.misc import build_from_crawler, load_object

    try:
        build_from_crawler(load_object(path), crawler, uri, feed_options=options)
    except NotConfigured as exc:
        raise CrawlSetupError(f"output {uri}: this storage cannot be used: {exc}") from None
    except (ValueError, TypeError) as exc:
        raise CrawlSetupError(f"output {uri}: {exc}") from None


def _check_local(uri: str, options: dict[str, Any]) -> None:
    path = local_feed_path(uri)
    if path is None:  # one file per run or batch: its directory must be writable
        head = uri.split("%(", 1)[0]
        head = urlparse(head).path if head.startswith("file:") else head
        probe_dir = Path(head if head.endswith(("/", os.sep)) else os.path.dirname(head) or ".")
        _probe_directory(uri, probe_dir.resolve())
    else:
        _probe_file(uri, path)
    directory = (options.get("item_export_kwargs") or {}).get("directory")
    if directory:
        _probe_directory(uri, Path(str(directory)).resolve())


def _failure(uri: str, exc: OSError, path: Path) -> CrawlSetupError:
    where = exc.filename if isinstance(exc.filename, str) else str(path)
    return CrawlSetupError(f"cannot write output {uri}: {exc.strerror or exc} ({where})")


def _make_dirs(uri: str, directory: Path) -> list[Path]:
    """Create the missing directories of ``directory`` (as Scrapy will); the created ones."""
    missing = []
    for parent in (directory, *directory.parents):
        if parent.exists() or parent.is_symlink():
            if not parent.is_dir():
                raise CrawlSetupError(f"cannot write output {uri}: {parent} is a file, not a "
                                      "directory")
            break
        missing.append(parent)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _remove_dirs(missing)
        raise _failure(uri, exc, directory) from None
    return missing


def _remove_dirs(created: list[Path]) -> None:
    for directory in created:  # deepest first
        try:
            directory.rmdir()
        except OSError:
            return


def _probe_file(uri: str, path: Path) -> None:
    if path.is_dir():
        raise CrawlSetupError(f"cannot write output {uri}: {path} is a directory; name a file "
                              "in it, e.g. -O " + str(path / "corpus.jsonl"))
    created_dirs = _make_dirs(uri, path.parent)
    existed = path.exists()
    try:
        with path.open("ab"):
            pass
    except OSError as exc:
        _remove_dirs(created_dirs)
        raise _failure(uri, exc, path) from None
    if not existed:
        path.unlink(missing_ok=True)
        _remove_dirs(created_dirs)


def _probe_directory(uri: str, directory: Path) -> None:
    if directory.exists() and not directory.is_dir():
        raise CrawlSetupError(f"cannot write output {uri}: {directory} is not a directory")
    created_dirs = _make_dirs(uri, directory)
    probe = directory / f".corpuscrawl-write-test-{os.getpid()}"
    try:
        with probe.open("ab"):
            pass
        probe.unlink()
    except OSError as exc:
        raise _failure(uri, exc, directory) from None
    finally:
        _remove_dirs(created_dirs)


def command_line_problem(outputs: list[str]) -> str | None:
    """What is wrong with ``-o``/``-O`` values that Scrapy refused, when it is more than the
    format: a directory given as the file."""
    for value in outputs:
        path = Path(value)
        if path.is_dir():
            return (f"cannot write output {value}: {path} is a directory; name a file in it, "
                    f"e.g. -O {path / 'corpus.jsonl'}")
    return None


def local_output_paths(settings: Any) -> list[Path]:
    """The local files of ``FEEDS`` (one file per run or batch excluded)."""
    paths = []
    for uri in settings.getdict("FEEDS"):
        path = local_feed_path(str(uri))
        if path is not None:
            paths.append(path)
    return paths


def existing_corpus(settings: Any) -> Path | None:
    """The first local output file that already holds a corpus, if any: data that is not
    an earlier demo crawl's (JSON Lines whose first document is on 127.0.0.1), so the
    README's first command can be run again."""
    for path in local_output_paths(settings):
        try:
            if path.is_file() and path.stat().st_size > 0 and not _demo_output(path):
                return path
        except OSError:
            continue
    return None


def _demo_output(path: Path) -> bool:
    with path.open("rb") as fh:
        first = fh.readline(1 << 20)
    try:
        url = str(json.loads(first).get("url") or "")
    except (ValueError, AttributeError):
        return False
    return urlparse(url).hostname in ("127.0.0.1", "localhost", "::1")
