"""Run ``scrapy crawl corpus`` or ``corpuscrawl crawl`` as a user would, in a subprocess.

Each run gets its own crawl state and boilerplate history under ``work`` (a test's tmp
directory), so runs of one test share them (a rerun resumes or recrawls) and tests do not.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.crawl_helpers import TEST_CRAWL_SETTINGS
from tests.support.crawl_forks import run_module

REPO = Path(__file__).resolve().parent.parent
COMMANDS = ("scrapy", "corpuscrawl")


@dataclass
class Run:
    """What a crawl command did: exit status, standard error, the documents of ``out``."""

    code: int
    stderr: str

    @property
    def last_line(self) -> str:
        """The last line on standard error (where the one-line errors go)."""
        lines = self.stderr.strip().splitlines()
        return lines[-1] if lines else ""


def crawl(command: str, work: Path, *args: str, settings: dict[str, str] | None = None,
          env: dict[str, str] | None = None, timeout: int = 180) -> Run:
    """Run ``command`` (``scrapy``: ``scrapy crawl corpus``; ``corpuscrawl``: ``corpuscrawl
    crawl``) with ``args`` (``-a``, ``-o``, ``-O`` ... as given) in ``work``."""
    base = ([sys.executable, "-m", "scrapy", "crawl", "corpus"] if command == "scrapy"
            else [sys.executable, "-m", "corpuscrawl.cli", "crawl"])
    options = {"LOG_LEVEL": "INFO", "AUTOTHROTTLE_ENABLED": "False",
               "CORPUSCRAWL_STATE_DIR": str(work / "state"),
               "CORPUSCRAWL_BOILERPLATE_HISTORY": str(work / "history.sqlite3"),
               **TEST_CRAWL_SETTINGS, **(settings or {})}
    cmd = [*base, *args]
    for name, value in options.items():
        cmd += ["-s", f"{name}={value}"]
    environment = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    cwd = REPO if command == "scrapy" else work
    proc = run_module(cmd[2], cmd[3:], cwd=cwd, env=environment, timeout=timeout)
    return Run(proc.returncode, proc.stderr)


def documents(path: Path) -> list[dict]:
    """The JSON Lines documents of ``path`` ([] when it does not exist)."""
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
