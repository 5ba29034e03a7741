"""Where a crawl's export state is found: one :class:`~corpuscrawl.export.scrapy_glue.stage_pipeline.ExportState`
(a :class:`HeldExports`) per crawler.

The export stage's pipeline and feed exporters (:mod:`corpuscrawl.export.scrapy_glue.stage_pipeline`,
:mod:`corpuscrawl.export.scrapy_glue.exporters`) create and share it; the resume, recrawl and
cluster components (:mod:`corpuscrawl.crawlstate`, :mod:`corpuscrawl.cluster`)
only look it up, to learn which documents the export stage still holds.  This
lookup lives below the export room so that those components need not import it,
which itself builds on them (collection directories, the ledger).
"""

from __future__ import annotations

import weakref
from typing import Any, Protocol


class HeldExports(Protocol):
    """What the crawl state and cluster components read of the export state."""

    #: True once the export stage's pipeline drives the state (it runs in this crawl).
    driven: bool

    def released_with(self, item: Any) -> list[Any] | None:
        """The outcomes the export stage attached to ``item`` (None when it never saw it)."""
        ...


_STATES: weakref.WeakKeyDictionary[Any, HeldExports] = weakref.WeakKeyDictionary()


def registered_state(crawler: Any) -> HeldExports | None:
    """The export state registered for ``crawler``, driven or not; None when there is none."""
    return _STATES.get(crawler) if crawler is not None else None


def register_state(crawler: Any, state: HeldExports) -> None:
    """Make ``state`` the export state of ``crawler`` (it lives as long as the crawler)."""
    _STATES[crawler] = state


def existing_state(crawler: Any) -> HeldExports | None:
    """The crawl's export state when the driving pipeline runs, else None."""
    state = registered_state(crawler)
    return state if state is not None and state.driven else None


__all__ = ["HeldExports", "existing_state", "register_state", "registered_state"]
