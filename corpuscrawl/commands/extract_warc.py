"""``corpuscrawl extract -e NAME FILE.warc.gz… -o OUT``: a corpus re-extracted from WARC files.

    corpuscrawl extract -e justext crawl-warcs/*.warc.gz -o corpus.jsonl
    corpuscrawl extract -e template:path=templates/example.com.txt a.warc.gz -o out.csv
    corpuscrawl extract -e bte a.warc.gz -o corpus/index.tsv:txtdir -s CORPUSCRAWL_LANGUAGES=de

The crawl's project settings apply (domain rules, templates, boilerplate and
near-duplicate settings, feed formats) with ``-s NAME=VALUE`` on top; ``-e``
is the default extractor, as the spider argument ``extractor`` is in a crawl
(domain rules still win).  See :mod:`corpuscrawl.archive.scrapy_glue.replay`.  Exit
codes: 0 done, 1 some file had unreadable data (reported with its byte
offset; everything before it was extracted), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import zlib
from pathlib import Path
from typing import Any

from corpuscrawl.extract.base import ExtractorError

#: File name endings read as WARC input (``.open``: a file a crawl is writing or was killed in).
WARC_SUFFIXES = (".warc", ".warc.gz", ".warc.open", ".warc.gz.open")


#: Bytes read from a file to tell a WARC file from an HTML page.
SNIFF_BYTES = 4096


def is_warc_input(path: str) -> bool:
    """True for a WARC file name, or any regular file that is not an HTML page."""
    return path.lower().endswith(WARC_SUFFIXES) or (os.path.isfile(path)
                                                    and not is_page_file(path))


def _head(path: str) -> bytes:
    """The first bytes of ``path``, decompressed when it is gzip ("" when unreadable)."""
    try:
        with open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
        if head[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as g:
                head = g.read(SNIFF_BYTES)
    except (OSError, EOFError, zlib.error):
        return b""
    return head


def is_page_file(path: str) -> bool:
    """True for a regular file that holds one page rather than WARC records: a WARC file
    (plain or gzip) has a WARC name ending or starts with a ``WARC/`` version line."""
    if not os.path.isfile(path) or path.lower().endswith(WARC_SUFFIXES):
        return False
    return not _head(path).lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"WARC/")


def settings_from(pairs: list[str]) -> Any:
    """The project settings with ``NAME=VALUE`` overrides and what :class:`corpuscrawl.Addon`
    sets (ValueError on a malformed pair)."""
    os.environ.setdefault("SCRAPY_SETTINGS_MODULE", "corpuscrawl.settings")
    from scrapy.utils.project import get_project_settings

    settings = get_project_settings()
    # Failed extractions need no copy of their HTML: the WARC file keeps it.
    settings.set("CORPUSCRAWL_FAILED_DIR", "", priority="project")
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"setting {pair!r} must look like NAME=VALUE")
        settings.set(name, value, priority="cmdline")
    # The settings a crawl runs with (feed formats, UTF-8 feeds, ...): the add-on only sets
    # settings, so it can be applied without a crawler.
    from corpuscrawl.addon import Addon

    Addon().update_settings(settings)
    return settings


def extractor_setting(spec: str, settings: Any) -> str:
    """The extractor name of ``NAME[:key=value,...]``; its options go into the settings."""
    from corpuscrawl.extract.spec import parse_spec

    parsed = parse_spec(spec)
    if parsed.options:
        options = dict(settings.getdict("CORPUSCRAWL_EXTRACTOR_OPTIONS"))
        options[parsed.name] = {**options.get(parsed.name, {}), **dict(parsed.options)}
        settings.set("CORPUSCRAWL_EXTRACTOR_OPTIONS", options, priority="cmdline")
    return parsed.name


def run(args: argparse.Namespace, inputs: list[str]) -> int:
    """Run the WARC re-extraction; returns the exit code."""
    from corpuscrawl.archive.scrapy_glue.replay import Replay, feed_format
    from corpuscrawl.pagetext.extraction import ConfigError

    def fail(message: str) -> int:
        print(f"corpuscrawl extract: error: {message}", file=sys.stderr)
        return 2

    if len(args.extractor) != 1 or args.extractor[0] == "all":
        return fail("WARC input takes one extractor (-e NAME once)")
    if not args.out:
        return fail("WARC input needs -o OUT (a feed file: .jsonl, .json, .csv, .xml, "
                    "OUT:vertical, DIR/index.tsv:txtdir)")
    paths = [Path(p) for p in inputs]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        return fail(f"no such WARC file: {', '.join(missing)}")
    try:
        settings = settings_from(args.settings or [])
        extractor = extractor_setting(args.extractor[0], settings)
        exporters = {**settings.getdict("FEED_EXPORTERS_BASE"),
                     **settings.getdict("FEED_EXPORTERS")}
        out_path, fmt = feed_format(args.out, exporters)
        if fmt == "tei":  # the lines' roles are found at extraction when a tei feed is configured
            settings.set("FEEDS", {out_path: {"format": fmt}}, priority="cmdline")
        replay = Replay(settings, extractor, history=args.history or ":memory:")
    except (ValueError, ConfigError, ExtractorError) as exc:
        return fail(str(exc))
    Path(out_path).parent.mkdir(parents=True, exist_ok=True)

    def report(exc: Exception) -> None:
        print(f"corpuscrawl extract: error: {exc} (the records before it were extracted)",
              file=sys.stderr)

    with open(out_path, "wb") as out:
        summary = replay.run(paths, out, fmt, on_error=report)
    counts = summary.counts
    print(f"{len(paths)} WARC files, {counts['records']} records, {counts['responses']} "
          f"responses, {counts['conversions']} rendered pages, {counts['pages']} HTML pages "
          f"extracted: {summary.written} documents written to {out_path}")
    skipped = {k: v for k, v in sorted(counts.items()) if k.startswith(("skipped_", "export/",
                                                                         "empty", "extraction"))}
    if skipped:
        print("  " + ", ".join(f"{k}={v}" for k, v in skipped.items()))
    return 1 if summary.errors else 0
