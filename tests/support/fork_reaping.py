"""The fork server's children: exit statuses, reaping, and what a killed crawl leaves behind.

The server (:mod:`tests.support.crawl_forks`) forks every run, so the runs are its
children, not the pytest worker's.  The worker learns a run's exit status from the
server: on the server's stdout for a run it waits for, in a status file for a run it
started and watches (:class:`tests.support.forked_process.ForkedProcess`).  The status is
published *before* the child is reaped (``waitid(..., WNOWAIT)``), so while the status is
unknown the pid is still that run's (alive or a zombie) and the test may signal it as it
would a ``subprocess.Popen`` child: the pid cannot have been reused.

The server is also a child subreaper (``PR_SET_CHILD_SUBREAPER``): what a run leaves when
it is killed (its extraction pool's worker processes, multiprocessing's resource tracker,
a browser driver) is reparented to the server instead of ``init`` (which, in a container,
may never reap it: a zombie).  The server reaps them as they end by themselves (the
extraction workers watch their parent; the resource tracker exits once they are gone), so
what a killed crawl does after the kill is unchanged.  When the server ends, it kills what
is still left (the resource tracker after a grace period, to let it clean up) and reaps it,
so no zombie or stray process outlives the pytest worker.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
#: Orphans left to end by themselves: they exit once the processes that used them are gone.
SELF_ENDING = (b"multiprocessing.resource_tracker", b"multiprocessing.forkserver")


def become_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux); True if it is."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def exit_code(info: os.waitid_result) -> int:
    """``subprocess``'s returncode for a ``waitid`` result: the status, or minus the signal."""
    if info.si_code == os.CLD_EXITED:
        return info.si_status
    return -info.si_status


def publish(path: str, code: int) -> None:
    """Write ``code`` to ``path`` in one step (a reader sees no file or the whole status)."""
    tmp = f"{path}.tmp"
    with contextlib.suppress(OSError):  # the handle is gone with its directory: no reader
        Path(tmp).write_text(str(code), encoding="ascii")
        os.replace(tmp, path)


def next_ended() -> tuple[int, int] | None:
    """A child that has ended, as (pid, returncode), left unreaped (:func:`reap` it once its
    status is published); None when no child has ended."""
    try:
        info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return None
    if info is None or info.si_pid == 0:
        return None
    return info.si_pid, exit_code(info)


def reap(pid: int) -> None:
    """Release an ended child reported by :func:`next_ended`."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def proc_stat(pid: int) -> tuple[str, int] | None:
    """A process's state letter (``S``, ``R``, ``Z``, ...) and parent pid, from
    ``/proc/<pid>/stat``; None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rindex(b")") + 2:].split()  # the command name may hold spaces
    return fields[0].decode(), int(fields[1])


def orphans(known: set[int]) -> list[int]:
    """This process's children that it did not fork itself: adopted from an ended run."""
    me = os.getpid()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) in known:
            continue
        stat = proc_stat(int(entry.name))
        if stat is not None and stat[1] == me:
            found.append(int(entry.name))
    return found


def end_orphans(known: set[int]) -> None:
    """SIGKILL adopted orphans, except those that end by themselves once the rest are gone."""
    for pid in orphans(known):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if any(name in cmdline for name in SELF_ENDING):
            continue
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def end_all(known: set[int], grace: float = 5.0) -> None:
    """At the server's end: kill every child and adopted orphan left and reap them; the
    self-ending ones get ``grace`` seconds to end once the others are gone."""
    for pid in known:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + grace
    while True:
        end_orphans(set())
        ended = next_ended()
        if ended is not None:
            reap(ended[0])
            continue
        left = orphans(set())
        if not left:
            return
        if time.monotonic() > deadline:
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)
