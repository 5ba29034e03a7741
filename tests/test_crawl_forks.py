"""The fork server's ``Popen``-like handle behaves as ``subprocess.Popen`` of a fresh interpreter.

Tests that kill or signal a crawl hold this handle (tests/support/forked_process.py); each case
runs the same ``python -m`` command both ways and compares what a test sees.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import crawl_forks
from tests.support.crawl_forks import FRESH_VARIABLE, _get_server, popen_command
from tests.support.fork_reaping import proc_stat
from tests.support.forked_process import ForkedProcess

pytestmark = pytest.mark.skipif(os.environ.get(FRESH_VARIABLE) == "1" or not hasattr(os, "fork"),
                                reason="crawls run as fresh interpreters here")

SLEEPER = """
import os, subprocess, sys, time
print("started", os.getpid(), flush=True)
print("to stderr", file=sys.stderr, flush=True)
if sys.argv[1:] == ["orphan"]:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3)"])
    print("child", child.pid, flush=True)
time.sleep(60)
"""


def _start(tmp_path: Path, forked: bool, log: Path, *args: str):
    (tmp_path / "sleeper_module.py").write_text(SLEEPER, encoding="utf-8")
    cmd = [sys.executable, "-m", "sleeper_module", *args]
    env = dict(os.environ)
    with log.open("a") as fh:
        if forked:
            proc = popen_command(cmd, cwd=tmp_path, env=env, stdout=fh, stderr=subprocess.STDOUT)
            assert isinstance(proc, ForkedProcess)
            return proc
        return subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=fh, stderr=subprocess.STDOUT)


def _wait_for(log: Path, text: str) -> str:
    deadline = time.monotonic() + 120
    while text not in log.read_text(encoding="utf-8"):
        assert time.monotonic() < deadline, log.read_text(encoding="utf-8")
        time.sleep(0.02)
    return log.read_text(encoding="utf-8")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_signal_ends_a_fork_as_it_ends_a_fresh_interpreter(tmp_path, sig, ctrl_c_delivered):
    results = []
    for forked in (False, True):
        log = tmp_path / f"{forked}.log"
        proc = _start(tmp_path, forked, log)
        text = _wait_for(log, "to stderr")
        assert f"started {proc.pid}" in text  # the pid is the run's own process
        assert proc.poll() is None and proc.returncode is None
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=0.1)
        proc.send_signal(sig)
        results.append((proc.wait(timeout=60), proc.poll(), proc.returncode))
        proc.kill()  # after the end: nothing happens, as with Popen
    assert results[0] == results[1] == (-sig, -sig, -sig)


def test_a_fork_has_the_signal_dispositions_of_a_run_the_client_starts_now(
        tmp_path, monkeypatch, ctrl_c_delivered):
    """A server started while its client ignored SIGINT (the suite run as a shell's
    background job, or under nohup) inherited SIG_IGN; a fork must not: a run the client
    starts once it handles SIGINT again ends by SIGINT, as a fresh interpreter would."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        monkeypatch.setattr(crawl_forks, "_server", None)
        server = _get_server()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert server is not None
    try:
        server_status = Path(f"/proc/{server.proc.pid}/status").read_text(encoding="ascii")
        ignored = int(server_status.split("SigIgn:")[1].split()[0], 16)
        assert ignored & (1 << (signal.SIGINT - 1))  # the server itself ignores SIGINT
        log = tmp_path / "run.log"
        proc = _start(tmp_path, True, log)
        _wait_for(log, "to stderr")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == -signal.SIGINT
    finally:
        server.close()


def test_what_a_killed_fork_leaves_is_adopted_and_reaped_by_the_server(tmp_path):
    log = tmp_path / "orphan.log"
    proc = _start(tmp_path, True, log, "orphan")
    text = _wait_for(log, "child ")
    child = int(text.split("child ")[1].split()[0])
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=60) == -signal.SIGKILL
    server = _get_server()
    assert server is not None
    stat = proc_stat(child)  # the child sleeps on: not ended yet
    assert stat is not None
    assert stat[1] == server.proc.pid  # adopted by the server, not by the machine's init
    deadline = time.monotonic() + 60
    while Path(f"/proc/{child}").exists():  # a zombie would stay: nobody would reap it
        assert time.monotonic() < deadline, Path(f"/proc/{child}/status").read_text()
        time.sleep(0.05)
