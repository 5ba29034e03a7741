"""Where a crawl's export state is found: one :class:`~corpuscrawl.export.scrapy_glue.ExportState`
per crawler.

The export stage's pipeline and feed exporters (:mod:`corpuscrawl.export.scrapy_glue`,
:mod:`corpuscrawl.export.exporters`) create and share it; the resume, recrawl and
cluster components (:mod:`corpuscrawl.crawlstate`, :mod:`corpuscrawl.cluster`)
only look it up, to learn which documents the export stage still holds.  This
lookup lives apart from the glue so that those components need not import the
glue, which itself builds on them (collection directories, the cluster's shared
index).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from corpuscrawl.export.scrapy_glue import ExportState

_STATES: weakref.WeakKeyDictionary[Any, ExportState] = weakref.WeakKeyDictionary()


def registered_state(crawler: Any) -> ExportState | None:
    """The export state registered for ``crawler``, driven or not; None when there is none."""
    return _STATES.get(crawler) if crawler is not None else None


def register_state(crawler: Any, state: ExportState) -> None:
    """Make ``state`` the export state of ``crawler`` (it lives as long as the crawler)."""
    _STATES[crawler] = state


def existing_state(crawler: Any) -> ExportState | None:
    """The crawl's export state when the driving pipeline runs, else None."""
    state = registered_state(crawler)
    return state if state is not None and state.driven else None


__all__ = ["existing_state", "register_state", "registered_state"]
