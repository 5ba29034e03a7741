"""``corpuscrawl crawl``: run the ``corpus`` spider from any directory.

Equivalent to ``scrapy crawl corpus`` inside the project, for users who
installed the package and have no ``scrapy.cfg`` at hand.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``crawl`` subcommand."""
    p = sub.add_parser("crawl", help="crawl seeds (or the bundled demo site) into a corpus",
                       description="Run the corpus spider. Without --seeds/--seeds-file the "
                                   "bundled demo site is served on 127.0.0.1 and crawled.")
    p.add_argument("--seeds", default="", help="comma-separated seed URLs (pages, sitemaps, feeds)")
    p.add_argument("--seeds-file", default="", help="file with one seed URL per line")
    p.add_argument("-o", "--output", default="corpus.jsonl",
                   help="feed URI; the format follows the extension (.jsonl, .xml, .csv) "
                        "or is given as URI:FORMAT, e.g. out:txtdir (default: corpus.jsonl)")
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
    2 bad arguments or settings, 3 nothing could be fetched (every seed failed).
    """
    os.environ.setdefault("SCRAPY_SETTINGS_MODULE", "corpuscrawl.settings")
    from scrapy.crawler import CrawlerProcess
    from scrapy.utils.project import get_project_settings

    from corpuscrawl.extensions import summary_of
    from corpuscrawl.summary import EXIT_NOTHING_FETCHED

    settings = get_project_settings()
    for name, value in _pairs(args.settings, "setting").items():
        settings.set(name, value, priority="cmdline")
    uri, _, fmt = args.output.rpartition(":") if args.output.endswith(
        (":txtdir", ":vertical", ":jsonlines", ":jsonl", ":json", ":csv", ":xml")) else (args.output, "", "")
    feed_options = {"format": fmt or ("jsonlines" if uri.endswith((".jsonl", ".jl")) else
                                      uri.rsplit(".", 1)[-1]), "overwrite": True}
    settings.set("FEEDS", {uri: feed_options}, priority="cmdline")
    spider_args = _pairs(args.spider_args, "spider argument")
    spider_args.update({"seeds": args.seeds, "seeds_file": args.seeds_file})
    process = CrawlerProcess(settings)
    crawler = process.create_crawler("corpus")
    failures: list[Any] = []
    process.crawl(crawler, **spider_args).addErrback(failures.append)
    process.start()
    if failures:  # the crawl never started: a bad argument or setting
        print(f"corpuscrawl crawl: error: {failures[0].getErrorMessage()}", file=sys.stderr)
        return 2
    reason = finish_reason(crawler)
    summary = summary_of(crawler)
    if summary is not None and summary["nothing_fetched"]:
        errors = ", ".join(f"{name} x{n}" for name, n in summary["errors"]["by_type"].items())
        print(f"corpuscrawl crawl: error: nothing could be fetched: all {summary['seeds']} "
              f"seed(s) failed ({errors or 'no response'}); summary in "
              f"{', '.join(summary.get('summary_files', [])) or 'the log'}", file=sys.stderr)
        return EXIT_NOTHING_FETCHED
    print(f"corpuscrawl crawl: {reason or 'stopped'}; wrote {uri}", file=sys.stderr)
    return 0 if reason in ("finished", "max_pages", "closespider_pagecount") else 1


def finish_reason(crawler: Any) -> str | None:
    """The crawl's ``finish_reason`` stat, or None when it never got that far."""
    try:
        stats = crawler.stats
    except RuntimeError:  # Scrapy >= 2.13: stats exist only once the crawl started
        return None
    return stats.get_value("finish_reason") if stats else None
