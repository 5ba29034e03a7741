"""Run ``python -m MODULE ARGS`` for a test as a fork of a warm interpreter.

A test crawl is a ``python -m scrapy crawl corpus`` process.  Most of its CPU time is spent
importing Scrapy, Twisted, lxml, NumPy, SciPy, scikit-learn and skops before the first
request (about 2 s of the 5 s a small crawl takes); on a 2-core CI machine that import is
most of what the suite waits for.  A *fork server* per pytest worker imports those
third-party packages once; every run is a ``fork()`` of it that sets the command's working
directory, environment, ``sys.argv`` and standard streams, then runs the module as
``python -m`` does (``runpy``), and exits with the module's exit status.  The run is still
its own process with its own pid: the reactor, signals, exit codes and files are the
crawl's own.  The server also preloads corpuscrawl from the tree it runs from (the tree
under test) and builds the default extraction once; :mod:`tests.support.fork_warmth` says
what a fork keeps of that and when it imports its own instead.

Only runs that a test waits for (``subprocess.run`` style) go through here; tests that
signal, kill or watch a crawl while it runs start it with ``subprocess.Popen`` as before.
``TESTS_FRESH_CRAWL_PROCESSES=1`` in the environment makes every run a fresh
interpreter again (for comparison, or if a test is suspected to depend on a cold start).
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from tests.support import fork_warmth

REPO = Path(__file__).resolve().parents[2]
#: Set to ``1`` to run every test command in a fresh interpreter instead.
FRESH_VARIABLE = "TESTS_FRESH_CRAWL_PROCESSES"
#: Third-party modules a crawl imports that take time to import.  Importing them must not
#: install a Twisted reactor (checked at start: the run installs the one its settings name).
PRELOAD = ("numpy", "scipy.sparse", "scipy.stats", "sklearn", "sklearn.ensemble",
           "sklearn.metrics", "sklearn.tree", "skops.io", "lxml.etree", "lxml.html",
           "twisted.internet.defer", "twisted.web.http", "parsel", "w3lib.url",
           "scrapy", "scrapy.cmdline", "scrapy.crawler", "scrapy.http", "scrapy.spiders",
           "scrapy.exporters", "scrapy.extensions.feedexport", "scrapy.linkextractors",
           "playwright.async_api", "requests", "tldextract", "protego", "sqlite3", "filelock")


# --- the fork server (runs as ``python -m tests.support.crawl_forks``) -------------------

def _preload() -> None:
    """Import ``PRELOAD`` (a module that is not installed is left out), then what a corpus
    crawl loads of corpuscrawl (:mod:`tests.support.fork_warmth`)."""
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
    try:
        fork_warmth.warm()
    except RuntimeError as exc:
        raise SystemExit(f"crawl_forks: {exc}; not serving") from exc
    except Exception as exc:  # noqa: BLE001 - forks then import corpuscrawl themselves
        print(f"crawl_forks: corpuscrawl not preloaded: {exc!r}", file=sys.stderr)
        fork_warmth.forget()
    if "twisted.internet.reactor" in sys.modules:
        raise SystemExit("crawl_forks: preloading installed a reactor; not serving")
    gc.collect()
    gc.freeze()  # the forks share the preloaded objects' pages instead of copying them


def _exit_status(exc: SystemExit) -> int:
    """The exit status the interpreter gives for ``sys.exit(code)``."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _run_in_child(request: dict) -> None:
    """In the forked process: become ``python -m module args`` and never return."""
    status = 1
    try:
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        null = os.open(request.get("stdin") or os.devnull, os.O_RDONLY)
        out = os.open(request["stdout"], os.O_WRONLY | os.O_TRUNC)
        err = os.open(request["stderr"], os.O_WRONLY | os.O_TRUNC)
        for fd, target in ((null, 0), (out, 1), (err, 2)):
            os.dup2(fd, target)
            os.close(fd)
        sys.stdin = open(0, closefd=False, encoding="utf-8")  # noqa: SIM115
        sys.stdout = open(1, "w", closefd=False, encoding="utf-8")  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False, encoding="utf-8",  # noqa: SIM115
                          errors="backslashreplace", buffering=1)
        sys.argv = [request["module"], *request["args"]]
        # as for ``python -m``: the working directory first, then PYTHONPATH, then the rest
        python_path = [p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
        rest = [p for p in sys.path[1:] if p not in python_path]
        sys.path[:] = [os.getcwd(), *python_path, *rest]
        tempfile.tempdir = None  # found again from this run's TMPDIR, as in a new process
        fork_warmth.keep_or_forget()
        sys.modules.pop(request["module"], None)  # ``-m`` runs it as __main__, not a copy
        import runpy
        try:
            runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
            status = 0
        except SystemExit as exc:
            status = _exit_status(exc)
        except KeyboardInterrupt:
            status = 128 + signal.SIGINT
        except BaseException:  # noqa: BLE001 - reported as the interpreter would
            sys.excepthook(*sys.exc_info())
            status = 1
        threading._shutdown()  # type: ignore[attr-defined]  # as at interpreter exit
        atexit._run_exitfuncs()
        gc.unfreeze()
        gc.collect()  # unclosed resources and unretrieved futures report now, as at exit
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # nothing left to report it to
                stream.flush()
        os._exit(status)


def serve() -> None:
    """Answer JSON requests on stdin, one at a time: fork, report the pid, then the status."""
    _preload()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _run_in_child(request)
        print(json.dumps({"pid": pid}), flush=True)
        _, wait_status = os.waitpid(pid, 0)
        print(json.dumps({"code": os.waitstatus_to_exitcode(wait_status)}), flush=True)


# --- the client (in the pytest worker) -----------------------------------------------------

class _Server:
    """This process's fork server, started on first use."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.crawl_forks"], cwd=REPO,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env=dict(os.environ, PYTHONPATH=str(REPO)))
        self._pending = b""  # bytes read from the server after the last whole line
        atexit.register(self.close)
        if self._reply(timeout=300).get("ready") is not True:
            raise RuntimeError("the fork server did not start")

    def _reply(self, timeout: float | None) -> dict:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()  # read unbuffered: select() sees what is not read yet
        while b"\n" not in self._pending:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                raise TimeoutError
            data = os.read(fd, 65536)
            if not data:
                raise RuntimeError("the fork server ended")
            self._pending += data
        line, self._pending = self._pending.split(b"\n", 1)
        return json.loads(line)

    def run(self, request: dict, timeout: float | None) -> int:
        """Run ``request``; its exit status (negative: the signal that ended it)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        pid = self._reply(timeout=60)["pid"]
        try:
            return int(self._reply(timeout=timeout)["code"])
        except TimeoutError:
            os.kill(pid, signal.SIGKILL)
            self._reply(timeout=60)
            raise

    def close(self) -> None:
        """End the server (its stdin closes, its loop ends)."""
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


_server: _Server | None = None
_server_pid: int | None = None


def _get_server() -> _Server | None:
    """The fork server of this process (None when it cannot serve: a fresh run then)."""
    global _server, _server_pid
    if os.environ.get(FRESH_VARIABLE) == "1" or not hasattr(os, "fork"):
        return None
    if _server is None or _server_pid != os.getpid() or _server.proc.poll() is not None:
        try:
            _server, _server_pid = _Server(), os.getpid()
        except (OSError, RuntimeError, TimeoutError, ValueError):
            _server = None
            return None
    return _server


def run_module(module: str, args: list[str], *, cwd: Path, env: dict[str, str],
               timeout: float | None = None, input: str | bytes | None = None,
               text: bool = True) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run([python, "-m", module, *args], capture_output=True, text=text,
    input=input, ...)``, forked from the warm interpreter when there is one."""
    cmd = [sys.executable, "-m", module, *args]
    server = _get_server()
    if server is None:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=text, input=input,
                              timeout=timeout, env=env)
    with tempfile.TemporaryDirectory(prefix="crawl-fork-") as tmp:
        out, err = Path(tmp) / "stdout", Path(tmp) / "stderr"
        out.touch()
        err.touch()
        request = {"module": module, "args": list(args), "cwd": str(cwd), "env": dict(env),
                   "stdout": str(out), "stderr": str(err)}
        if input is not None:
            stdin = Path(tmp) / "stdin"
            stdin.write_bytes(input.encode("utf-8") if isinstance(input, str) else input)
            request["stdin"] = str(stdin)

        def read(path: Path) -> str | bytes:
            return path.read_text(encoding="utf-8", errors="replace") if text else path.read_bytes()

        try:
            code = server.run(request, timeout)
        except TimeoutError:
            raise subprocess.TimeoutExpired(cmd, timeout or 0, output=read(out),
                                            stderr=read(err)) from None
        return subprocess.CompletedProcess(cmd, code, read(out), read(err))


def run_command(cmd: list[str], *, cwd: Path, env: dict[str, str],
                timeout: float | None = None, input: str | bytes | None = None,
                text: bool = True) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run(cmd, capture_output=True, text=text, input=input, ...)``; a
    ``[sys.executable, "-m", module, ...]`` command is forked from the warm interpreter
    (:func:`run_module`)."""
    if len(cmd) >= 3 and cmd[0] == sys.executable and cmd[1] == "-m":
        return run_module(cmd[2], cmd[3:], cwd=cwd, env=env, timeout=timeout, input=input,
                          text=text)
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=text, input=input,
                          timeout=timeout, env=env)


if __name__ == "__main__":
    serve()
