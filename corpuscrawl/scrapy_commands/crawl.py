"""``scrapy crawl`` that also fails when nothing could be fetched.

Scrapy's own ``crawl`` exits 0 whenever the crawl started, even when every
seed failed.  This command (installed by ``COMMANDS_MODULE``, so also used by
Scrapyd's runner) exits with :data:`corpuscrawl.report.summary.EXIT_NOTHING_FETCHED`
when the crawl summary says not one page was fetched, so a cron job or a
systemd unit can alert.

A crawl that cannot start as asked (a bad argument, setting, output or template) ends
with the same one line and exit status as ``corpuscrawl crawl``
(:func:`corpuscrawl.config.crawl_checks.run_crawl`), not with asyncio's "Task exception
was never retrieved" traceback; a crawl stopped because an output could not be written
exits with :data:`corpuscrawl.crawlstate.scrapy_glue.output_failure.EXIT_OUTPUT_FAILED`.  Everything else is
Scrapy's command.
"""

from __future__ import annotations

import sys
from typing import Any

from scrapy.addons import AddonManager
from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.crawler import Crawler
from scrapy.exceptions import UsageError

from corpuscrawl.config.crawl_checks import (
    ERROR_PREFIX,
    EXIT_SETUP,
    CrawlSetupError,
    run_crawl,
    set_command_line_settings,
)
from corpuscrawl.crawlstate.scrapy_glue.output_failure import output_failure_exit
from corpuscrawl.export.scrapy_glue.output_checks import command_line_problem
from corpuscrawl.extensions import summary_of
from corpuscrawl.report.summary import EXIT_NOTHING_FETCHED

#: Exit status when cluster mode cannot reach its Redis at start.
EXIT_REDIS_UNREACHABLE = 4


def _setting_problem(values: list[str]) -> str | None:
    """Which ``-s NAME=VALUE`` Scrapy refused, and why (Scrapy's message names none)."""
    from scrapy.settings import Settings

    for value in values:
        name, sep, raw = value.partition("=")
        if not sep:
            continue
        try:
            set_command_line_settings(Settings(), {name: raw})
        except CrawlSetupError as exc:
            return str(exc)
    return None


class Command(ScrapyCrawlCommand):
    """Scrapy's ``crawl``; exit status 3 when nothing could be fetched."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._crawlers: list[Crawler] = []

    def _create_crawler(self, spidercls: Any) -> Crawler:
        crawler = super()._create_crawler(spidercls)
        self._crawlers.append(crawler)
        return crawler

    def process_options(self, args: list[str], opts: Any) -> None:
        """Scrapy's options; a bad ``-o``/``-O``/``-a`` is one line and exit status 2.

        The add-ons' pre-crawler settings come first (Scrapy applies them only when the
        crawler process is made, after the options): ``-o out:vertical`` names a format
        :class:`corpuscrawl.Addon` registers."""
        AddonManager.load_pre_crawler_settings(self.settings)
        try:
            super().process_options(args, opts)
        except UsageError as exc:
            if not str(exc):
                raise
            message = (command_line_problem([*(opts.output or []),
                                              *(opts.overwrite_output or [])])
                       or _setting_problem(getattr(opts, "set", None) or []))
            sys.stderr.write(f"{ERROR_PREFIX}{message or ' '.join(str(exc).split())}\n")
            sys.exit(EXIT_SETUP)

    def run(self, args: list[str], opts: Any) -> None:
        """Run the crawl as Scrapy does; then set the exit code from the crawl summary.

        In cluster mode an unreachable Redis ends the command at once with one line."""
        if self.settings.get("CORPUSCRAWL_REDIS_URL"):
            from corpuscrawl.cluster.config import unreachable

            problem = unreachable(str(self.settings.get("CORPUSCRAWL_REDIS_URL")))
            if problem:
                sys.stderr.write(f"corpuscrawl: error: {problem}\n")
                self.exitcode = EXIT_REDIS_UNREACHABLE
                return
        if len(args) != 1:
            super().run(args, opts)  # Scrapy's usage errors
            return
        assert self.crawler_process is not None
        not_started = run_crawl(self.crawler_process, self._create_crawler(args[0]),
                                **opts.spargs)
        if not_started is not None:
            self.exitcode = not_started
            return
        if self.crawler_process.bootstrap_failed:
            self.exitcode = 1
            return
        for crawler in self._crawlers:
            failed = output_failure_exit(crawler)
            if failed:
                self.exitcode = failed
                return
        for crawler in self._crawlers:
            summary = summary_of(crawler)
            if summary is not None and summary["nothing_fetched"]:
                self.exitcode = EXIT_NOTHING_FETCHED
