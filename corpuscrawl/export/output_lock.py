"""One writer per output file: a crawl locks its local outputs for as long as it runs.

Two crawls writing one file interleave their records, and the second one's summary
replaces the first's — the easy mistake is two cluster workers on one host started with
the same ``-o``.  The corpus spider takes an exclusive, non-blocking ``flock`` on every
local feed file (and on ``CORPUSCRAWL_SUMMARY_FILE``) before the crawl starts and holds
it until the process ends; a second crawl on the same host asking for one of them is
refused with one line.  The lock is the kernel's: a killed crawl leaves none behind.
In cluster mode the names are the ones :func:`corpuscrawl.cluster.config.expand_worker`
gave each worker.

Locking opens each file, which creates the ones that did not exist and the directories
on their paths that did not exist either; a crawl that then fails to start calls
:func:`release_outputs`, which removes the files the lock created while they are still
empty and then the directories it created while they are empty, so a refused crawl leaves
no empty corpus and no empty directory behind (a directory that existed is never removed).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from corpuscrawl.config.crawl_checks import CrawlSetupError
from corpuscrawl.crawlstate.feed_paths import local_feed_path

__all__ = ["lock_outputs", "release_outputs"]

_SUMMARY_SETTING = "CORPUSCRAWL_SUMMARY_FILE"



@dataclass
class _Held:
    """One locked output: its open file, whether the lock created it, and the directories
    the lock created for it (deepest first)."""

    file: IO[bytes]
    created: bool
    directories: list[Path] = field(default_factory=list)


# The locked outputs of each crawler: closed (unlocked) with the process or the crawler.
_HELD: weakref.WeakKeyDictionary[Any, list[_Held]] = weakref.WeakKeyDictionary()


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
    held: list[_Held] = []
    for path in _locked_paths(settings):
        directories: list[Path] = []
        try:
            created = not path.exists()
            _make_directories(path.parent, directories)
            file = path.open("ab")
        except OSError:
            _remove_empty(directories)
            continue  # not writable: check_outputs says why
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            file.close()
            _remove_empty(directories)
            _release(held)
            raise CrawlSetupError(
                f"output {path} is being written by another crawl on this host; give each "
                "crawl its own output (cluster workers: -o 'name-%(worker)s.jsonl' "
                "with CORPUSCRAWL_CLUSTER_WORKER set per worker)") from None
        os.set_inheritable(file.fileno(), False)
        held.append(_Held(file, created, directories))
    if held:
        _HELD.setdefault(crawler, []).extend(held)


def release_outputs(crawler: Any) -> None:
    """Unlock the outputs :func:`lock_outputs` locked for ``crawler`` and remove the files and
    directories it created that are still empty: for a crawl that could not start."""
    _release(_HELD.pop(crawler, []))


def _make_directories(directory: Path, made: list[Path]) -> None:
    """Create ``directory`` and its missing ancestors, adding each one this call created
    (not one that existed or that another process made meanwhile) to ``made``, deepest
    first."""
    missing = []
    while not directory.is_dir() and directory != directory.parent:
        missing.append(directory)
        directory = directory.parent
    for path in reversed(missing):
        try:
            path.mkdir()
        except FileExistsError:
            continue
        made.insert(0, path)


def _remove_empty(directories: list[Path]) -> None:
    """Remove each of ``directories`` that is empty, deepest first (``rmdir`` removes none
    that holds anything)."""
    for path in sorted(directories, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):  # not empty (another output, another process)
            path.rmdir()


def _release(held: list[_Held]) -> None:
    for output in held:
        path = Path(output.file.name)
        try:
            if output.created and os.fstat(output.file.fileno()).st_size == 0:
                path.unlink(missing_ok=True)
        except OSError:
            pass  # left as it is: removing an empty file is a courtesy
        finally:
            output.file.close()
    # after every file: two outputs may share a directory the first one's lock created
    _remove_empty([d for output in held for d in output.directories])
