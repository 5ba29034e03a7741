"""``corpuscrawl crawl``: run the ``corpus`` spider from any directory.

Equivalent to ``scrapy crawl corpus`` inside the project, for users who
installed the package and have no ``scrapy.cfg`` at hand.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

#: Where the documents go when neither -o nor -O is given (appended, as with -o).
OUTPUT_DEFAULT = "corpus.jsonl"


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``crawl`` subcommand."""
    p = sub.add_parser("crawl", help="crawl seeds (or the bundled demo site) into a corpus",
                       description="Run the corpus spider. Without --seeds/--seeds-file the "
                                   "bundled demo site is served on 127.0.0.1 and crawled.")
    p.add_argument("--seeds", default=None, help="comma-separated seed URLs (pages, sitemaps, feeds)")
    p.add_argument("--seeds-file", default=None, help="file with one seed URL per line")
    out = p.add_mutually_exclusive_group()
    out.add_argument("-o", "--output", action="append", default=[], metavar="URI",
                     help="append the documents to URI (as Scrapy's -o); the format follows the "
                          "extension (.jsonl, .json, .csv, .xml) or is given as URI:FORMAT, "
                          "e.g. out/index.tsv:txtdir or out.vert:vertical; repeatable "
                          f"(default: -o {OUTPUT_DEFAULT})")
    out.add_argument("-O", "--overwrite-output", action="append", default=[], metavar="URI",
                     help="write the documents to URI, replacing what it held (as Scrapy's -O)")
    p.add_argument("-a", dest="spider_args", action="append", default=[], metavar="NAME=VALUE",
                   help="spider argument (depth, domains, any_domain, languages, keywords, "
                        "extractor, max_pages, ...); repeatable")
    p.add_argument("-s", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                   help="Scrapy/corpuscrawl setting; repeatable")
    p.set_defaults(func=run)


def _pairs(values: list[str], what: str) -> dict[str, str]:
    out = {}
    for value in values:
        name, sep, val = value.partition("=")
        if not sep or not name:
            raise SystemExit(f"corpuscrawl crawl: {what} {value!r} must look like NAME=VALUE")
        out[name] = val
    return out


def run(args: argparse.Namespace) -> int:
    """Run the crawl in this process; the exit code.

    0 the crawl finished (or stopped at ``max_pages``), 1 it stopped otherwise,
    2 bad arguments, settings, outputs or templates (one line, before anything is fetched),
    3 nothing could be fetched (every seed failed), 5 an output failed mid-crawl (the
    pages not written are fetched again by the next run).
    """
    os.environ.setdefault("SCRAPY_SETTINGS_MODULE", "corpuscrawl.settings")
    from scrapy.addons import AddonManager
    from scrapy.crawler import CrawlerProcess
    from scrapy.exceptions import UsageError
    from scrapy.utils.conf import feed_process_params_from_cli
    from scrapy.utils.project import get_project_settings

    from corpuscrawl.config.crawl_checks import (
        ERROR_PREFIX,
        EXIT_SETUP,
        CrawlSetupError,
        report_start_failure,
        run_crawl,
        set_command_line_settings,
    )
    from corpuscrawl.crawlstate.scrapy_glue.output_failure import output_failure_exit
    from corpuscrawl.export.scrapy_glue.output_checks import command_line_problem
    from corpuscrawl.extensions import summary_of
    from corpuscrawl.report.summary import EXIT_NOTHING_FETCHED

    settings = get_project_settings()
    try:
        set_command_line_settings(settings, _pairs(args.settings, "setting"))
    except CrawlSetupError as exc:
        return report_start_failure(exc)
    AddonManager.load_pre_crawler_settings(settings)  # the add-on's feed formats, for -o
    try:
        feeds = feed_process_params_from_cli(
            settings, args.output or ([] if args.overwrite_output else [OUTPUT_DEFAULT]),
            overwrite_output=args.overwrite_output or None)
    except UsageError as exc:
        message = command_line_problem([*args.output, *args.overwrite_output])
        print(f"{ERROR_PREFIX}{message or ' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_SETUP
    settings.set("FEEDS", feeds, priority="cmdline")
    spider_args = _pairs(args.spider_args, "spider argument")
    for name, value in (("seeds", args.seeds), ("seeds_file", args.seeds_file)):
        if value is not None:
            spider_args[name] = value
    process = CrawlerProcess(settings)
    crawler = process.create_crawler("corpus")
    not_started = run_crawl(process, crawler, **spider_args)
    if not_started is not None:  # a bad argument, setting, output or template
        return not_started
    failed = output_failure_exit(crawler)
    if failed:
        return failed
    reason = finish_reason(crawler)
    summary = summary_of(crawler)
    if summary is not None and summary["nothing_fetched"]:
        errors = ", ".join(f"{name} x{n}" for name, n in summary["errors"]["by_type"].items())
        print(f"corpuscrawl crawl: error: nothing could be fetched: all {summary['seeds']} "
              f"seed(s) failed ({errors or 'no response'}); summary in "
              f"{', '.join(summary.get('summary_files', [])) or 'the log'}", file=sys.stderr)
        return EXIT_NOTHING_FETCHED
    print(f"corpuscrawl crawl: {reason or 'stopped'}; wrote {', '.join(map(str, feeds))}",
          file=sys.stderr)
    return 0 if reason in ("finished", "max_pages", "closespider_pagecount") else 1


def finish_reason(crawler: Any) -> str | None:
    """The crawl's ``finish_reason`` stat, or None when it never got that far."""
    try:
        stats = crawler.stats
    except RuntimeError:  # Scrapy >= 2.13: stats exist only once the crawl started
        return None
    return stats.get_value("finish_reason") if stats else None
