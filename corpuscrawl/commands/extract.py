"""``corpuscrawl extract``: one page, a dataset's pages (one output dir per method), or WARC files.

    corpuscrawl extract page.html --format markdown           # see extract_page
    corpuscrawl extract https://example.org/ --format tei
    corpuscrawl extract - < page.html
    corpuscrawl extract -e bte -e justext ../shared/datasets/cleaneval -o /tmp/out
    corpuscrawl extract -e all DATASET_DIR
    corpuscrawl extract -e template:path=templates/example.com.txt DATASET_DIR
    corpuscrawl extract -e justext crawl/*.warc.gz -o corpus.jsonl   # see extract_warc

Writes ``<OUT>/<method>/<id>.txt`` (``OUT`` defaults to the dataset directory)
for every page in ``DATASET_DIR/html/`` (``.html`` or ``.html.gz``, any
encoding).  See :mod:`corpuscrawl.evaluation.runner` for failure handling.
Exit codes: 0 done (even if some pages failed: they are counted), 2 bad
arguments (unknown extractor, bad options, not a dataset directory).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Any

from corpuscrawl.commands.extract_page import PAGE_FORMATS, is_url
from corpuscrawl.evaluation.datasets import Dataset, DatasetError, split
from corpuscrawl.evaluation.runner import (
    ExtractorSpec,
    available_specs,
    parse_spec,
    run_extraction,
)
from corpuscrawl.extract.base import ExtractorError

ALL = "all"


def register(subparsers: Any) -> None:
    """Add the ``extract`` subcommand."""
    p = subparsers.add_parser(
        "extract", help="extract one page (HTML file, URL or - for standard input), a "
                        "dataset directory (html/ -> <method>/), or a corpus from WARC files",
        description="Given one page (an HTML file, an http(s) URL fetched through the crawl's "
                    "network guard, or - for standard input), print its main text or the "
                    "--format chosen.  Given DATASET_DIR, run registered extractors over "
                    "DATASET_DIR/html/* and write OUT/<method>/<id>.txt (OUT defaults to "
                    "DATASET_DIR); given WARC files, re-extract the crawl's corpus from them "
                    "into the feed OUT.",
    )
    p.add_argument("dataset", metavar="PAGE|URL|-|DATASET_DIR|FILE.warc.gz",
                   help="an HTML file (.html or .html.gz), an http(s) URL, - (standard "
                        "input), a directory with an html/ sub-directory, or a WARC file")
    p.add_argument("warcs", nargs="*", metavar="FILE.warc.gz", help="more WARC files")
    p.add_argument("-s", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                   help="WARC input: Scrapy/corpuscrawl setting over the project's; repeatable")
    p.add_argument("--comments", choices=("field", "text", "drop"),
                   help="WARC input: where reader comments go (CORPUSCRAWL_COMMENTS): the "
                        "documents' comments field (default), the end of the text, nowhere; "
                        "dataset input always writes the main text alone")
    p.add_argument("--history", metavar="PATH",
                   help="WARC input: boilerplate history to use (SQLite path or redis:// URL; "
                        "default: a fresh one in memory)")
    p.add_argument("-e", "--extractor", action="append", metavar="NAME",
                   help="registry name, optionally NAME:key=value,...; repeatable; "
                        "'all' = every extractor that needs no options (required for "
                        "datasets and WARC files; one page: default CORPUSCRAWL_EXTRACTOR)")
    p.add_argument("--format", choices=PAGE_FORMATS, default=None,
                   help="one page: what to print: txt (the main text, default), json (the "
                        "document with its metadata), markdown, tei (a TEI P5 document)")
    p.add_argument("--url", metavar="URL",
                   help="one page from a file or standard input: the URL it came from "
                        "(domain rules, metadata and links are read against it)")
    p.add_argument("-o", "--out", metavar="OUT",
                   help="one page: write to the file OUT instead of standard output; "
                        "dataset: write OUT/<method>/<id>.txt instead of into the dataset directory; "
                        "WARC input: the feed to write (.jsonl, .json, .csv, .xml, "
                        "OUT:vertical, DIR/index.tsv:txtdir)")
    p.add_argument("-j", "--jobs", type=int, default=None,
                   help="worker processes (default: number of CPUs)")
    p.add_argument("--split", choices=("all", "train", "test"), default="all",
                   help="only the documents of this part of the shared train/test split")
    p.add_argument("--limit", type=int, default=None, help="only the first N documents (by id)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def expand_specs(requested: list[str]) -> tuple[list[ExtractorSpec], list[str]]:
    """Turn -e arguments into specs; ``all`` expands to every extractor buildable without options.

    Returns (specs, notes about skipped extractors).  Raises ExtractorError
    (listing known names) for an unknown name.
    """
    specs: list[ExtractorSpec] = []
    notes: list[str] = []
    for text in requested:
        if text == ALL:
            usable, skipped = available_specs()
            specs.extend(spec for spec in usable if spec not in specs)
            notes.extend(skipped)
            continue
        spec = parse_spec(text)
        spec.build()  # fail now, with the registry's message, not inside a worker
        if spec not in specs:
            specs.append(spec)
    return specs, notes


def writable(path: Path) -> bool:
    """True when ``path`` may be written: permitted, and not marked read-only by its mode bits.

    The mode check matters when running as root, which ``os.access`` lets write anywhere:
    a directory without any write bit (like the shared datasets) is treated as read-only.
    """
    return os.access(path, os.W_OK) and bool(path.stat().st_mode & 0o222)


def run(args: argparse.Namespace) -> int:
    """Run the command; returns the exit code."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from corpuscrawl.commands import extract_page, extract_warc

    source = args.dataset
    if source == "-" or is_url(source) or extract_warc.is_page_file(source) or (
            not os.path.exists(source) and not args.warcs
            and not source.lower().endswith(extract_warc.WARC_SUFFIXES)):
        return extract_page.run(args)
    if args.format:
        print("corpuscrawl extract: error: --format is for one page (an HTML file, URL or -)",
              file=sys.stderr)
        return 2
    if not args.extractor:
        print("corpuscrawl extract: error: -e NAME is required for a dataset directory or "
              "WARC files", file=sys.stderr)
        return 2
    if args.warcs or extract_warc.is_warc_input(args.dataset):
        if args.comments:
            args.settings = [*args.settings, f"CORPUSCRAWL_COMMENTS={args.comments}"]
        return extract_warc.run(args, [args.dataset, *args.warcs])
    try:
        dataset = Dataset(args.dataset)
        specs, notes = expand_specs(args.extractor)
    except (DatasetError, ExtractorError) as exc:
        print(f"corpuscrawl extract: error: {exc}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"corpuscrawl extract: {note}", file=sys.stderr)
    if not specs:
        print("corpuscrawl extract: error: no extractor to run", file=sys.stderr)
        return 2
    if args.out is None and not writable(dataset.path):
        print(f"corpuscrawl extract: error: {dataset.path} is read-only; "
              "use -o DIR to write the method directories elsewhere", file=sys.stderr)
        return 2
    ids = dataset.ids()
    if args.split != "all":
        train, test = split(ids)
        ids = test if args.split == "test" else train
    if args.limit is not None:
        ids = ids[: args.limit]
    try:
        result = run_extraction(dataset, specs, out_dir=args.out, jobs=args.jobs, ids=ids,
                                progress=not args.no_progress)
    except ExtractorError as exc:
        print(f"corpuscrawl extract: error: {exc}", file=sys.stderr)
        return 2
    except PermissionError as exc:
        print(f"corpuscrawl extract: error: cannot write {exc.filename}: {exc.strerror}; "
              "use -o DIR to write the method directories elsewhere", file=sys.stderr)
        return 2
    base = args.out or str(dataset.path)
    print(f"{result.pages} pages, {result.unreadable} unreadable")
    for m in result.methods:
        print(f"  {base}/{m}: {result.written[m]} written, {result.failed[m]} failed")
    return 0
