"""``corpuscrawl report``: an HTML report of a crawl, or of every method on datasets.

    corpuscrawl report corpus.jsonl -o report/           # a crawl: corpus + its summary
    corpuscrawl report corpus.jsonl.summary.json         # a crawl's summary alone
    corpuscrawl report ../shared/datasets/cleaneval --methods-dir /tmp/out -o /tmp/report

Given a feed file (JSON Lines or JSON) or a summary, writes ``OUT/index.html``: one page
with the crawl's plots (:mod:`corpuscrawl.report.crawl_report`).  Given dataset directories,

scores the method directories afresh (same scorer as ``evaluate``, without
rewriting ``evaluation.csv``) and writes ``OUT/index.html`` with P/R/F1 plots,
per-document F1 distributions and the worst documents with side-by-side diffs
(see :mod:`corpuscrawl.evaluation.html_report`).  Exit codes: 0 done, 2 bad
arguments or nothing to report, 3 matplotlib missing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from corpuscrawl.commands.evaluate import add_common_arguments, evaluate_all
from corpuscrawl.evaluation.datasets import DatasetError
from corpuscrawl.evaluation.html_report import WORST_DEFAULT


def register(subparsers: Any) -> None:
    """Add the ``report`` subcommand."""
    p = subparsers.add_parser(
        "report", help="HTML report of a crawl (CORPUS.jsonl) or of methods on datasets "
                       "(P/R/F1 plots, F1 distributions, worst-document diffs)",
        description="Given a crawl's feed (CORPUS.jsonl, .json) or summary, write one HTML page "
                    "with plots: documents per domain and language, text lengths, boilerplate "
                    "and duplicates per domain, errors by type, fetch rate over time.  Given "
                    "dataset directories, score method directories and write an HTML report "
                    "with plots and diffs.",
    )
    add_common_arguments(p)
    p.add_argument("-o", "--out", default="report", metavar="OUT_DIR",
                   help="directory for index.html and the images (default: ./report)")
    p.add_argument("--worst", type=int, default=WORST_DEFAULT,
                   help=f"worst documents shown per method (default {WORST_DEFAULT})")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the command; returns the exit code."""
    try:
        import matplotlib  # noqa: F401

        from corpuscrawl.evaluation.html_report import write_report
    except ImportError:
        print("corpuscrawl report: error: needs matplotlib (pip install 'corpuscrawl[report]')",
              file=sys.stderr)
        return 3
    if len(args.datasets) == 1 and not Path(args.datasets[0]).is_dir():
        return run_crawl_report(args.datasets[0], args.out)
    try:
        datasets, results = evaluate_all(args, write=False)
    except DatasetError as exc:
        print(f"corpuscrawl report: error: {exc}", file=sys.stderr)
        return 2
    if not results:
        print("corpuscrawl report: error: no method directories to report on", file=sys.stderr)
        return 2
    index = write_report(datasets, results, Path(args.out), methods_dir=args.methods_dir,
                         ascii_only=args.ascii, worst=args.worst)
    print(index)
    return 0


def run_crawl_report(path: str, out: str) -> int:
    """The report of a crawl's feed or summary; returns the exit code."""
    from corpuscrawl.report.crawl_report import ReportInputError, write_crawl_report

    try:
        index = write_crawl_report(path, out)
    except ReportInputError as exc:
        print(f"corpuscrawl report: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"corpuscrawl report: error: cannot write {out}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    print(index)
    return 0
