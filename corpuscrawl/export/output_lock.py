"""One writer per output file: a crawl locks its local outputs for as long as it runs.

Two crawls writing one file interleave their records, and the second one's summary
replaces the first's — the easy mistake is two cluster workers on one host started with
the same ``-o``.  The corpus spider takes an exclusive, non-blocking ``flock`` on every
local feed file (and on ``CORPUSCRAWL_SUMMARY_FILE``) before the crawl starts and holds
it until the process ends; a second crawl on the same host asking for one of them is
refused with one line.  The lock is the kernel's: a killed crawl leaves none behind.
In cluster mode the names are the ones :func:`corpuscrawl.cluster.config.expand_worker`
gave each worker.

Locking opens each file, which creates the ones that did not exist; a crawl that then
fails to start calls :func:`release_outputs`, which removes the files the lock created
while they are still empty, so a refused crawl leaves no empty corpus behind.
"""

from __future__ import annotations

import fcntl
import os
import weakref
from pathlib import Path
from typing import IO, Any

from corpuscrawl.config.crawl_checks import CrawlSetupError
from corpuscrawl.crawlstate.feed_paths import local_feed_path

__all__ = ["lock_outputs", "release_outputs"]

_SUMMARY_SETTING = "CORPUSCRAWL_SUMMARY_FILE"

# The open, locked files of each crawler, each with whether the lock created it: closed
# (unlocked) with the process or the crawler.
_HELD: weakref.WeakKeyDictionary[Any, list[tuple[IO[bytes], bool]]] = weakref.WeakKeyDictionary()


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
    held: list[tuple[IO[bytes], bool]] = []
    for path in _locked_paths(settings):
        try:
            created = not path.exists()
            path.parent.mkdir(parents=True, exist_ok=True)
            file = path.open("ab")
        except OSError:
            continue  # not writable: check_outputs says why
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            file.close()
            _release(held)
            raise CrawlSetupError(
                f"output {path} is being written by another crawl on this host; give each "
                "crawl its own output (cluster workers: -o 'name-%(worker)s.jsonl' "
                "with CORPUSCRAWL_CLUSTER_WORKER set per worker)") from None
        os.set_inheritable(file.fileno(), False)
        held.append((file, created))
    if held:
        _HELD.setdefault(crawler, []).extend(held)


def release_outputs(crawler: Any) -> None:
    """Unlock the outputs :func:`lock_outputs` locked for ``crawler`` and remove the files it
    created that are still empty: for a crawl that could not start."""
    _release(_HELD.pop(crawler, []))


def _release(held: list[tuple[IO[bytes], bool]]) -> None:
    for file, created in held:
        path = Path(file.name)
        try:
            if created and os.fstat(file.fileno()).st_size == 0:
                path.unlink(missing_ok=True)
        except OSError:
            pass  # left as it is: removing an empty file is a courtesy
        finally:
            file.close()
