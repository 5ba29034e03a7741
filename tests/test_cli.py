"""The ``corpuscrawl`` command itself: ``--version``, Ctrl-C at any moment, ``label`` end to end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest

from corpuscrawl.browse.browser import chromium_path
from corpuscrawl.cli import main
from tests.command_runs import REPO
from tests.support.crawl_forks import run_command


def test_version_is_the_package_metadata(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"corpuscrawl {version('corpuscrawl')}"


def test_ctrl_c_during_the_start_up_imports_is_one_line(ctrl_c_delivered):
    """Ctrl-C while the subcommands load ends with one line and status 130.  A signal that
    lands after the command has finished (the help is printed, the interpreter is shutting
    down) is Python's own: the process ends by SIGINT, which a shell also reports as 130, with
    nothing on stderr.  Either way there is no traceback and nothing but that one line."""
    proc = subprocess.Popen([sys.executable, "-m", "corpuscrawl.cli", "label", "--help"],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))
    time.sleep(1.0)  # the subcommands' imports take seconds
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    if proc.returncode == 0:
        pytest.skip("the imports finished before the signal (a fast machine)")
    assert proc.returncode in (130, -signal.SIGINT), err
    assert "Traceback" not in err
    if "usage:" in out:  # the command had finished: the signal hit the interpreter's exit
        assert err.strip() in ("", "corpuscrawl: interrupted")
    else:
        assert err.strip() == "corpuscrawl: interrupted"


PAGE = ("<!DOCTYPE html><html><head><title>Label me</title></head><body>"
        "<nav><a href='/a'>Home</a> <a href='/b'>News</a></nav>"
        "<main><p>Some text of the page.</p><button>Load more</button></main>"
        "<footer><a href='/c'>Contact</a></footer></body></html>")


@pytest.mark.slow
@pytest.mark.skipif(not Path(chromium_path()).exists(),
                    reason=f"Chromium not installed at {chromium_path()}")
def test_label_keeps_every_answer_when_its_input_ends(tmp_path):
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            body = PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            """Quiet."""

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    out = tmp_path / "set.jsonl"
    try:
        proc = run_command(
            [sys.executable, "-m", "corpuscrawl.cli", "label",
             f"http://127.0.0.1:{server.server_address[1]}/", "-o", str(out)],
            input="\nr\n", cwd=REPO, timeout=240, env=dict(os.environ, PYTHONPATH=str(REPO)))
    finally:
        server.shutdown()
        server.server_close()
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2 and rows[1]["label"] == "Revealer"
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == f"appended 2 element(s) to {out}"
