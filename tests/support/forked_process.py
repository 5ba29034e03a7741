"""A ``subprocess.Popen``-like handle on a run forked by the crawl fork server.

Tests that signal, kill or watch a crawl while it runs hold a ``Popen``; a forked run is
the fork server's child, not the test's, so this handle does what ``Popen`` does with
what the server tells it (:mod:`tests.support.fork_reaping`): ``pid`` is the crawl's own
process (``os.kill(proc.pid, ...)`` and :meth:`send_signal` reach the crawl itself);
:meth:`poll` and :meth:`wait` read the exit status the server publishes in a file
(``returncode`` as ``Popen`` gives it: the status, or minus the signal that ended it).
The standard streams are the test's own file descriptors, passed to the server over a
Unix socket, so a log file, ``/dev/null`` or a pseudo-terminal is the crawl's as it
would be a ``Popen`` child's.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from tests.support.fork_reaping import proc_stat

#: How often :meth:`ForkedProcess.wait` looks for the status (seconds).
POLL_INTERVAL = 0.01

Stream = int | IO[Any] | None


def stream_fd(stream: Stream, default: int, stdout_fd: int | None = None) -> int:
    """A new file descriptor for ``Popen``'s ``stdin``/``stdout``/``stderr`` argument
    (None: this process's ``default``; ``STDOUT``: ``stdout_fd``); the caller closes it."""
    if stream is None:
        return os.dup(default)
    if stream == subprocess.DEVNULL:
        return os.open(os.devnull, os.O_RDWR)
    if stream == subprocess.STDOUT:
        if stdout_fd is None:
            raise ValueError("STDOUT is only for stderr")
        return os.dup(stdout_fd)
    if isinstance(stream, int):
        if stream < 0:
            raise ValueError(f"unsupported stream {stream}")
        return os.dup(stream)
    if hasattr(stream, "flush"):
        stream.flush()
    return os.dup(stream.fileno())


class ForkedProcess:
    """What a test uses of ``subprocess.Popen`` for a run of the fork server."""

    def __init__(self, args: list[str], pid: int, status_dir: Path) -> None:
        self.args = args
        self.pid = pid
        self.returncode: int | None = None
        self.stdin = self.stdout = self.stderr = None
        self._status_dir = status_dir
        self._status = status_dir / "status"
        self._sent: list[int | str] = []  # signals sent, for a timeout's diagnosis

    def poll(self) -> int | None:
        """The returncode once the run has ended (and its status is published), else None."""
        if self.returncode is None:
            try:
                text = self._status.read_text(encoding="ascii")
            except FileNotFoundError:
                return None
            self.returncode = int(text)
            shutil.rmtree(self._status_dir, ignore_errors=True)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the end of the run; ``subprocess.TimeoutExpired`` after ``timeout``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                print(f"ForkedProcess.wait: {self._state()}", file=sys.stderr)  # shown by pytest
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
            time.sleep(POLL_INTERVAL)
        assert self.returncode is not None
        return self.returncode

    def _state(self) -> str:
        """What the run's pid is now (``/proc``), so that a status never published can be
        told from a run still running: a timeout's diagnosis."""
        stat = proc_stat(self.pid)
        if stat is None:
            return f"pid {self.pid}: gone, no status published in {self._status_dir}"
        try:
            status = Path(f"/proc/{self.pid}/status").read_text(encoding="ascii")
        except OSError:
            status = ""
        kept = ("NSpid", "TracerPid", "SigPnd", "ShdPnd", "SigBlk", "SigIgn")
        lines = [line for line in status.splitlines() if line.split(":")[0] in kept]
        return (f"pid {self.pid}: state {stat[0]}, parent {stat[1]}, "
                f"status dir exists: {self._status_dir.exists()}, signals sent: "
                f"{self._sent}, {'; '.join(lines)}")

    def send_signal(self, sig: int) -> None:
        """Send ``sig`` to the run, unless it has ended (as ``Popen.send_signal``)."""
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
                self._sent.append(int(sig))
            except ProcessLookupError:
                self._sent.append(f"{int(sig)}: no such process")

    def terminate(self) -> None:
        """SIGTERM, as ``Popen.terminate``."""
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL, as ``Popen.kill``."""
        self.send_signal(signal.SIGKILL)

    def __enter__(self) -> ForkedProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.wait()

    def __del__(self) -> None:
        if self.returncode is None:
            shutil.rmtree(self._status_dir, ignore_errors=True)
