"""One writer per output file: a crawl locks its local outputs for as long as it runs.

Two crawls writing one file interleave their records, and the second one's summary
replaces the first's — the easy mistake is two cluster workers on one host started with
the same ``-o``.  The corpus spider takes an exclusive, non-blocking ``flock`` on every
local feed file (and on ``CORPUSCRAWL_SUMMARY_FILE``) before the crawl starts and holds
it until the process ends; a second crawl on the same host asking for one of them is
refused with one line.  The lock is the kernel's: a killed crawl leaves none behind.

In cluster mode ``%(worker)s`` in an output's name (or in ``CORPUSCRAWL_SUMMARY_FILE``) is
the worker's name (``CORPUSCRAWL_CLUSTER_WORKER``), so one command line gives every
worker its own file: ``-o 'news-%(worker)s.jsonl'``.
"""

from __future__ import annotations

import fcntl
import os
import weakref
from pathlib import Path
from typing import IO, Any

from corpuscrawl.crawl_checks import CrawlSetupError
from corpuscrawl.crawlstate.ledger import local_feed_path

__all__ = ["WORKER_PLACEHOLDER", "expand_worker", "lock_outputs"]

#: Placeholder of the cluster worker's name in output names.
WORKER_PLACEHOLDER = "%(worker)s"
_SUMMARY_SETTING = "CORPUSCRAWL_SUMMARY_FILE"

# The open, locked files of each crawler: closed (unlocked) with the process or the crawler.
_HELD: weakref.WeakKeyDictionary[Any, list[IO[bytes]]] = weakref.WeakKeyDictionary()


def expand_worker(settings: Any) -> None:
    """Replace ``%(worker)s`` in the FEEDS URIs and ``CORPUSCRAWL_SUMMARY_FILE`` by the
    cluster worker's name; outside cluster mode it is an error (there is no worker)."""
    feeds = settings.getdict("FEEDS")
    summary = str(settings.get(_SUMMARY_SETTING) or "")
    if not any(WORKER_PLACEHOLDER in str(uri) for uri in feeds) and \
            WORKER_PLACEHOLDER not in summary:
        return
    if not settings.get("CORPUSCRAWL_REDIS_URL"):
        raise CrawlSetupError(f"{WORKER_PLACEHOLDER} in an output name is the cluster worker's "
                              "name: it needs cluster mode (CORPUSCRAWL_REDIS_URL)")
    from corpuscrawl.cluster.config import worker_name

    worker = worker_name(settings)
    if any(WORKER_PLACEHOLDER in str(uri) for uri in feeds):
        expanded = {str(uri).replace(WORKER_PLACEHOLDER, worker): options
                    for uri, options in feeds.items()}
        settings.set("FEEDS", expanded, priority=settings.getpriority("FEEDS"))
    if WORKER_PLACEHOLDER in summary:
        settings.set(_SUMMARY_SETTING, summary.replace(WORKER_PLACEHOLDER, worker),
                     priority=settings.getpriority(_SUMMARY_SETTING))


def _locked_paths(settings: Any) -> list[Path]:
    paths = [p for p in (local_feed_path(str(uri)) for uri in settings.getdict("FEEDS"))
             if p is not None]
    summary = str(settings.get(_SUMMARY_SETTING) or "")
    if summary and "%(" not in summary:
        paths.append(Path(summary).resolve())
    return list(dict.fromkeys(paths))


def lock_outputs(settings: Any, crawler: Any) -> None:
    """Lock every local output of the crawl (see the module docstring); a
    :class:`CrawlSetupError` when another crawl holds one."""
    held: list[IO[bytes]] = []
    for path in _locked_paths(settings):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            file = path.open("ab")
        except OSError:
            continue  # not writable: check_outputs says why
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            file.close()
            for other in held:
                other.close()
            raise CrawlSetupError(
                f"output {path} is being written by another crawl on this host; give each "
                f"crawl its own output (cluster workers: -o 'name-{WORKER_PLACEHOLDER}.jsonl' "
                "with CORPUSCRAWL_CLUSTER_WORKER set per worker)") from None
        os.set_inheritable(file.fileno(), False)
        held.append(file)
    if held:
        _HELD.setdefault(crawler, []).extend(held)
