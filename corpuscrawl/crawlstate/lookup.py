"""The crawl's run state, found through the crawler.

The crawl-state opener (:mod:`corpuscrawl.crawlstate.scrapy_glue.state_addon`) opens one
:class:`~corpuscrawl.crawlstate.scrapy_glue.state_addon.RunState` per crawler and attaches it here; the
durable scheduler and duplicate filter (:mod:`corpuscrawl.crawlstate.scrapy_glue.frontier`), the
ledger pipeline (:mod:`corpuscrawl.crawlstate.scrapy_glue.ledger`), the exporters and the spider's
sources look it up by crawler.  The add-on builds on those components, so they find
its state here instead of importing it.
"""

from __future__ import annotations

import weakref
from typing import Any

from corpuscrawl.config.crawl_checks import CrawlSetupError

__all__ = ["StateConfigError", "attach_host_records", "attach_run_record", "attach_run_state",
           "crawl_state", "host_records", "run_info", "run_record", "run_state"]

_STATES: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_RECORDS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_HOSTS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


class StateConfigError(CrawlSetupError):
    """A CORPUSCRAWL_RESUME / CORPUSCRAWL_STATE_* setting has an invalid value."""


def attach_run_state(crawler: Any, state: Any) -> None:
    """Make ``state`` (a ``RunState``) the run state of ``crawler`` for as long as it lives."""
    _STATES[crawler] = state


def run_state(crawler: Any) -> Any | None:
    """The crawl's ``RunState``, or None when the crawl-state add-on is not active."""
    return _STATES.get(crawler) if crawler is not None else None


def run_info(crawler: Any) -> Any | None:
    """This run's ``RunInfo`` (generation, whether it resumes); None without crawl state."""
    state = run_state(crawler)
    return state.run if state is not None else None


def crawl_state(crawler: Any, component: str) -> Any:
    """The crawl's ``RunState`` for a component that cannot work without it."""
    state = run_state(crawler)
    if state is None:
        raise StateConfigError(
            f"{component}: the durable frontier needs the crawl state: enable corpuscrawl.Addon "
            "in ADDONS (it installs the crawl state and its CrawlStateOpener extension) and "
            "name a collection (-a collection=NAME or seeds)")
    return state


def attach_run_record(crawler: Any, record: Any) -> None:
    """Make ``record`` (generation, resumed, state_dir) the run record of a crawl kept
    elsewhere than in the crawl state (cluster mode: the generation agreed in Redis)."""
    _RECORDS[crawler] = record


def run_record(crawler: Any) -> Any | None:
    """The run record attached by :func:`attach_run_record`, else None."""
    return _RECORDS.get(crawler) if crawler is not None else None


def attach_host_records(crawler: Any, records: Any) -> None:
    """Make ``records`` (:class:`corpuscrawl.crawlstate.hosts.HostRecords`: the run
    generation's robots.txt copies and error-page probes) those of ``crawler``."""
    _HOSTS[crawler] = records


def host_records(crawler: Any) -> Any | None:
    """The generation's host records (SQLite or Redis), or None without a crawl state."""
    return _HOSTS.get(crawler) if crawler is not None else None
