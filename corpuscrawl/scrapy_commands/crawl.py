"""``scrapy crawl`` that also fails when nothing could be fetched.

Scrapy's own ``crawl`` exits 0 whenever the crawl started, even when every
seed failed.  This command (installed by ``COMMANDS_MODULE``, so also used by
Scrapyd's runner) exits with :data:`corpuscrawl.summary.EXIT_NOTHING_FETCHED`
when the crawl summary says not one page was fetched, so a cron job or a
systemd unit can alert.  Everything else is Scrapy's command.
"""

from __future__ import annotations

import sys
from typing import Any

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.crawler import Crawler

from corpuscrawl.extensions import summary_of
from corpuscrawl.summary import EXIT_NOTHING_FETCHED

#: Exit status when cluster mode cannot reach its Redis at start.
EXIT_REDIS_UNREACHABLE = 4


class Command(ScrapyCrawlCommand):
    """Scrapy's ``crawl``; exit status 3 when nothing could be fetched."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._crawlers: list[Crawler] = []

    def _create_crawler(self, spidercls: Any) -> Crawler:
        crawler = super()._create_crawler(spidercls)
        self._crawlers.append(crawler)
        return crawler

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
        super().run(args, opts)
        if self.exitcode:
            return
        for crawler in self._crawlers:
            summary = summary_of(crawler)
            if summary is not None and summary["nothing_fetched"]:
                self.exitcode = EXIT_NOTHING_FETCHED
