"""The export ledger's item pipeline: a document exported before is not exported again.

The ledger itself (what was written in this generation, the feeds' committed sizes, the
repair at start) is plain code, :mod:`corpuscrawl.crawlstate.export_ledger`; the
crawl-state opener builds it on the run's state database.
"""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import DropItem, NotConfigured

from corpuscrawl.crawlstate.export_ledger import ExportLedger
from corpuscrawl.crawlstate.lookup import run_state

__all__ = ["ExportLedgerPipeline"]


class ExportLedgerPipeline:
    """Item pipeline: drops a document already written in this generation (before the export stage)."""

    def __init__(self, ledger: ExportLedger, stats: Any) -> None:
        self.ledger = ledger
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Any) -> ExportLedgerPipeline:
        """Build on the crawl's state; NotConfigured when the crawl-state add-on is off."""
        state = run_state(crawler)
        if state is None:
            raise NotConfigured("no crawl state (corpuscrawl.Addon installs it)")
        return cls(state.ledger, crawler.stats)

    def process_item(self, item: Any) -> Any:
        """Pass a document not yet exported; drop one that was."""
        if not self.ledger.take(item):
            self.stats.inc_value("corpuscrawl/resume/already_exported")
            raise DropItem(f"{item.url} (unit {item.unit_index}) was exported before",
                           log_level="DEBUG")
        return item
