"""Run generations: is this run a resume of an interrupted crawl, or a new crawl of the collection?

A *generation* is one complete crawl of a collection.  A run either

* **resumes** the current generation — when the previous run did not end
  its generation: it was killed (no finish recorded) or stopped gracefully
  by a signal (Scrapy's close reason ``shutdown``, e.g. Ctrl-C or SIGTERM).
  The frontier, the seen-set, the export ledger and the hosts' robots.txt
  and error-page probes (:mod:`corpuscrawl.crawlstate.hosts`) are kept;
  in-flight requests go back to pending.  This holds even when the frontier is empty
  (a run killed before its first commit): its feed files must still be cut
  back to what the ledger knows, and the seeds are crawled again;
* or starts a **new generation** (generation + 1): the frontier, seen-set
  and export ledger are emptied, so the seeds are crawled again — the
  recrawl of a collection.  A run that ended for any other reason
  (``finished``, ``max_pages``, ``closespider_*``) completed its generation.

``CORPUSCRAWL_RESUME = "never"`` always starts a new generation.  Only one
process may run a collection at a time: :class:`RunLock` holds an exclusive
``flock`` on ``<state dir>/run.lock`` (released by the kernel when the
process dies, so a killed run never blocks the next one).

Components read the decision from :class:`RunInfo` (``crawlstate.lookup.run_info(crawler)``).
"""

from __future__ import annotations

import fcntl
import os
import time
from dataclasses import dataclass
from pathlib import Path

from corpuscrawl.crawlstate.store import StateStore

__all__ = ["RESUMABLE_REASONS", "RunInfo", "RunLock", "RunLockedError", "begin_run",
           "finish_run"]

#: Close reasons after which the next run resumes (besides a kill, which records none).
RESUMABLE_REASONS = frozenset({"shutdown"})
#: Resume policies (``CORPUSCRAWL_RESUME``).
RESUME_POLICIES = ("auto", "never")


@dataclass(frozen=True)
class RunInfo:
    """What a run is: its id, its generation and whether it resumes an interrupted run."""

    run_id: int
    generation: int
    resumed: bool
    collection: str = ""
    state_dir: str = ""
    #: Requests left in the frontier by the previous run (0 for a new generation).
    carried_requests: int = 0
    #: Documents the previous runs of this generation exported (0 for a new generation).
    exported_before: int = 0


class RunLockedError(RuntimeError):
    """Another process is crawling the same collection right now."""


class RunLock:
    """An exclusive lock on a state directory for the duration of one run."""

    def __init__(self, directory: str | Path) -> None:
        self.path = Path(directory) / "run.lock"
        self._fh = self.path.open("a+")
        try:
            fcntl.flock(self._fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._fh.seek(0)
            holder = self._fh.read().strip() or "another process"
            self._fh.close()
            raise RunLockedError(
                f"the crawl state {directory} is in use by {holder}: one collection is "
                "crawled by one process at a time (use another -a collection=NAME or "
                "CORPUSCRAWL_STATE_DIR)") from None
        self._fh.seek(0)
        self._fh.truncate()
        self._fh.write(f"pid {os.getpid()}\n")
        self._fh.flush()

    def release(self) -> None:
        """Release the lock (idempotent)."""
        if not self._fh.closed:
            fcntl.flock(self._fh, fcntl.LOCK_UN)
            self._fh.close()


def begin_run(store: StateStore, policy: str = "auto", collection: str = "",
              state_dir: str = "") -> RunInfo:
    """Decide resume or new generation, prepare the frontier for it and record the run's start."""
    if policy not in RESUME_POLICIES:
        raise ValueError(f"CORPUSCRAWL_RESUME must be one of {', '.join(RESUME_POLICIES)}, "
                         f"got {policy!r}")
    last = store.read("SELECT generation, finished_at, reason FROM runs "
                      "ORDER BY id DESC LIMIT 1").fetchone()
    left = store.read("SELECT COUNT(*) FROM requests").fetchone()[0]
    interrupted = last is not None and (last[1] is None or last[2] in RESUMABLE_REASONS)
    resumed = policy == "auto" and interrupted
    if resumed:
        generation = last[0]
        store.write("UPDATE requests SET state = 0 WHERE state = 1")
        exported = store.read("SELECT COUNT(*) FROM exported").fetchone()[0]
    else:
        generation = (last[0] + 1) if last is not None else 1
        for table in ("requests", "seen", "exported", "feeds", "focus_shapes", "focus_priors",
                      "focus_lines", "robots_txt", "error_probes"):
            store.write(f"DELETE FROM {table}")
        left = exported = 0
    cursor = store.write(
        "INSERT INTO runs (generation, resumed, started_at, pid) VALUES (?, ?, ?, ?)",
        (generation, int(resumed), time.time(), os.getpid()))
    store.commit()
    return RunInfo(run_id=int(cursor.lastrowid or 0), generation=generation, resumed=resumed,
                   collection=collection, state_dir=state_dir, carried_requests=left,
                   exported_before=exported)


def finish_run(store: StateStore, run: RunInfo, reason: str) -> None:
    """Record the end of ``run`` and why it ended (the next run's resume decision reads it)."""
    store.write("UPDATE runs SET finished_at = ?, reason = ? WHERE id = ?",
                (time.time(), reason, run.run_id))
    store.commit()
