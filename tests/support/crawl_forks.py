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

Runs that a test waits for go through :func:`run_command` (``subprocess.run`` style);
runs that a test signals, kills or watches while they run go through
:func:`popen_command`, a ``Popen``-like handle on the fork (:mod:`tests.support.forked_process`;
how the server reports exit statuses and cleans up after killed runs:
:mod:`tests.support.fork_reaping`).
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
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from tests.support import fork_reaping, fork_warmth
from tests.support.forked_process import ForkedProcess, Stream, stream_fd

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


#: Signals whose disposition a new process inherits when it is ignored (``exec`` keeps
#: ``SIG_IGN`` and resets a handler): a shell's background job ignores SIGINT and SIGQUIT,
#: ``nohup`` ignores SIGHUP.  The fork server's own were fixed when it started.
INHERITED_SIGNALS = (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM)


def ignored_signals() -> list[int]:
    """The signals of ``INHERITED_SIGNALS`` this process ignores now: what a fresh
    interpreter it started would ignore."""
    return [int(sig) for sig in INHERITED_SIGNALS if signal.getsignal(sig) == signal.SIG_IGN]


def _as_started_by_client(ignored: list[int]) -> None:
    """Give the fork the dispositions a fresh interpreter started by the client would
    have: ignored where the client ignores, else the default (SIGINT: Python's
    ``KeyboardInterrupt``, installed by the interpreter when SIGINT is not ignored)."""
    for sig in INHERITED_SIGNALS:
        if int(sig) in ignored:
            signal.signal(sig, signal.SIG_IGN)
        elif sig == signal.SIGINT:
            signal.signal(sig, signal.default_int_handler)
        else:
            signal.signal(sig, signal.SIG_DFL)


def _run_in_child(request: dict, fds: list[int] | None = None) -> None:
    """In the forked process: become ``python -m module args`` and never return.  Its
    standard streams are ``fds`` (stdin, stdout, stderr) or the request's files."""
    status = 1
    interrupted = False
    try:
        if _socket_fd is not None:
            os.close(_socket_fd)
        _as_started_by_client(request.get("ignored", []))
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        if fds is None:
            fds = [os.open(request.get("stdin") or os.devnull, os.O_RDONLY),
                   os.open(request["stdout"], os.O_WRONLY | os.O_TRUNC),
                   os.open(request["stderr"], os.O_WRONLY | os.O_TRUNC)]
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in set(fds) - {0, 1, 2}:
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
            interrupted = True  # as the interpreter: the process ends by SIGINT
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
        if interrupted:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        os._exit(status)


_socket_fd: int | None = None  # the server's end of the socket for started runs


def _fork(request: dict, fds: list[int] | None) -> int:
    pid = os.fork()
    if pid == 0:
        _run_in_child(request, fds)
    for fd in fds or ():
        os.close(fd)
    print(json.dumps({"pid": pid}), flush=True)
    return pid


def serve(socket_fd: int | None = None) -> None:
    """Answer requests: JSON lines on stdin for runs the client waits for (reply: the pid,
    later the exit status), JSON messages with the run's standard streams on the Unix socket
    ``socket_fd`` for runs it starts (reply: the pid; the status goes to the request's
    ``status`` file).  Children are reaped as they end (:mod:`tests.support.fork_reaping`);
    the loop ends when stdin closes."""
    global _socket_fd
    _socket_fd = socket_fd
    _preload()
    fork_reaping.become_subreaper()
    print(json.dumps({"ready": True}), flush=True)
    sock = socket.socket(fileno=socket_fd) if socket_fd is not None else None
    waited: set[int] = set()  # their status goes to stdout
    started: dict[int, str] = {}  # pid -> status file
    pending = b""
    sources = [0] + ([socket_fd] if socket_fd is not None else [])
    while True:
        ready, _, _ = select.select(sources, [], [], 0.02 if waited or started else 0.5)
        if 0 in ready:
            data = os.read(0, 65536)
            if not data:
                break
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                waited.add(_fork(json.loads(line), None))
        if sock is not None and socket_fd in ready:
            message, fds, _, _ = socket.recv_fds(sock, 1 << 20, 3)
            if not message:
                break
            request = json.loads(message)
            started[_fork(request, fds)] = request["status"]
        while (ended := fork_reaping.next_ended()) is not None:
            pid, code = ended
            if pid in waited:
                waited.discard(pid)
                print(json.dumps({"code": code}), flush=True)
            elif pid in started:
                fork_reaping.publish(started.pop(pid), code)
            fork_reaping.reap(pid)
    fork_reaping.end_all(waited | set(started))


# --- the client (in the pytest worker) -----------------------------------------------------

class _Server:
    """This process's fork server, started on first use."""

    def __init__(self) -> None:
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.support.crawl_forks", "--socket",
                 str(theirs.fileno())], cwd=REPO, pass_fds=[theirs.fileno()],
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

    def start(self, request: dict, fds: list[int]) -> int:
        """Start ``request`` with ``fds`` as its standard streams; its pid."""
        socket.send_fds(self.sock, [json.dumps(request).encode("utf-8")], fds)
        return int(self._reply(timeout=60)["pid"])

    def close(self) -> None:
        """End the server (its stdin closes, its loop ends)."""
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.sock.close()


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
                   "ignored": ignored_signals(),
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


def popen_command(cmd: list[str], *, cwd: Path, env: dict[str, str], stdin: Stream = None,
                  stdout: Stream = None, stderr: Stream = None
                  ) -> subprocess.Popen | ForkedProcess:
    """``subprocess.Popen(cmd, cwd=cwd, env=env, stdin=..., stdout=..., stderr=...)``; a
    ``[sys.executable, "-m", module, ...]`` command is forked from the warm interpreter and
    returned as a :class:`~tests.support.forked_process.ForkedProcess` (``pid``, ``poll``,
    ``wait``, ``send_signal``, ``terminate``, ``kill``, ``returncode``).  Streams are what
    ``Popen`` takes except ``PIPE`` (which starts a fresh interpreter)."""
    server = _get_server()
    forkable = len(cmd) >= 3 and cmd[0] == sys.executable and cmd[1] == "-m"
    if server is None or not forkable or subprocess.PIPE in (stdin, stdout, stderr):
        return subprocess.Popen(cmd, cwd=cwd, env=env, stdin=stdin, stdout=stdout,
                                stderr=stderr)
    fds = [stream_fd(stdin, 0)]
    try:
        fds.append(stream_fd(stdout, 1))
        fds.append(stream_fd(stderr, 2, stdout_fd=fds[1]))
        status_dir = Path(tempfile.mkdtemp(prefix="crawl-fork-"))
        request = {"module": cmd[2], "args": list(cmd[3:]), "cwd": str(cwd), "env": dict(env),
                   "ignored": ignored_signals(),
                   "status": str(status_dir / "status")}
        pid = server.start(request, fds)
    finally:
        for fd in fds:
            os.close(fd)
    return ForkedProcess(list(cmd), pid, status_dir)


if __name__ == "__main__":
    serve(int(sys.argv[2]) if sys.argv[1:2] == ["--socket"] else None)
