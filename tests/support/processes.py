"""Benchmark processes: a test site served by a child process, a command run as a whole
process with its wall time, CPU time and peak memory, and the stats a crawl's log dumps.

Crawl benchmarks time ``scrapy crawl`` as users run it, in a fresh process each time;
the resource figures come from the kernel (``os.wait4``) for exactly that process.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProcessRun:
    """One finished command: wall seconds, CPU seconds (user + system), peak RSS in MB and
    its standard error."""

    elapsed: float
    cpu: float
    peak_rss_mb: int
    stderr: str


class ProcessFailed(RuntimeError):
    """A measured command exited with a non-zero code; the message holds its stderr's tail."""


def code_env(code_dir: Path) -> dict[str, str]:
    """The environment for a child that imports the code under test from ``code_dir``."""
    return dict(os.environ, PYTHONPATH=str(code_dir))


def run_measured(cmd: Sequence[str], cwd: Path, what: str = "command") -> ProcessRun:
    """Run ``cmd`` in ``cwd`` with the code under ``cwd`` on ``PYTHONPATH``, its stdout
    discarded; raise :class:`ProcessFailed` naming ``what`` when it fails."""
    started = time.perf_counter()
    proc = subprocess.Popen(list(cmd), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env=code_env(cwd))
    assert proc.stderr is not None
    err = proc.stderr.read()  # read before waiting: a full pipe would block the child
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise ProcessFailed(f"{what} failed: {shlex.join(cmd)}\n{err[-2000:]}")
    return ProcessRun(elapsed=elapsed, cpu=usage.ru_utime + usage.ru_stime,
                      peak_rss_mb=usage.ru_maxrss // 1024, stderr=err)


def serve_child(code: str, cwd: Path) -> tuple[subprocess.Popen, str]:
    """Start ``python -c code`` (which prints its base URL on its first line, then serves)
    with the code under ``cwd`` on ``PYTHONPATH``; return (process, URL).  The caller
    terminates the process."""
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            cwd=cwd, env=code_env(cwd))
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


#: One number as Scrapy's stats dump writes it (``'key': 12``, ``'key': 0.25``, ``1e-05``).
_NUMBER = r"(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"


def crawl_stat(log: str, key: str) -> float:
    """The value of stats ``key`` in the stats dump at the end of a crawl's log (0 if absent)."""
    found = re.search(rf"'{re.escape(key)}': {_NUMBER}", log)
    return float(found.group(1)) if found else 0.0
