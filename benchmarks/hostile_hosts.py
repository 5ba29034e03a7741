"""One real crawl per hostile host (robots.txt, charsets, short bodies) with the code of a checkout.

Prints a Markdown table: what each crawl fetched and exported::

    PYTHONPATH=$PWD python benchmarks/hostile_hosts.py [--code DIR] [--cases a,b]

``--code``: the checkout whose corpuscrawl runs the crawls (default: this one), so the
same servers (``tests.support.hostile_hosts``, from this checkout) measure an
older version too.  The table goes to standard output; the figures of this branch and
of main are in ``benchmarks/results/hostile.md`` ("Hostile hosts").
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpuscrawl.evaluation.tables import markdown_table
from tests.support.hostile_hosts import CHARSET_PAGES, ROBOTS_CASES, HostileHost
from tests.support.processes import crawl_stat

REPO = Path(__file__).resolve().parent.parent
HEADER = ["robots.txt", "exit", "s", "/private/ fetched", "documents", "charset docs with U+FFFD "
          "or mojibake", "cut-short pages exported", "tracebacks", "robotstxt counters"]
MOJIBAKE = ("\ufffd", "Ã", "Ð", "Ñ", "â€", "Â")


def crawl(code: Path, case: str) -> list[str]:
    """One crawl of a fresh hostile host serving robots.txt as ``case``; its table row."""
    with tempfile.TemporaryDirectory(prefix="hostile-host-") as tmp, HostileHost(case) as host:
        out = Path(tmp) / "out.jsonl"
        cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", "-O", f"{out}:jsonlines",
               "-a", f"seeds={host.url}", "-a", "sitemaps=0", "-s", "LOG_LEVEL=INFO",
               "-s", "DOWNLOAD_TIMEOUT=3", "-s", "RETRY_TIMES=1",
               "-s", "AUTOTHROTTLE_ENABLED=False", "-s", f"CORPUSCRAWL_STATE_DIR={tmp}/state",
               "-s", f"CORPUSCRAWL_BOILERPLATE_HISTORY={tmp}/history.sqlite3"]
        start = time.monotonic()
        proc = subprocess.run(cmd, cwd=code, capture_output=True, text=True, timeout=600,
                              env=dict(os.environ, PYTHONPATH=str(code)))
        elapsed = time.monotonic() - start
        log = proc.stderr + proc.stdout
        docs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()
                if line] if out.exists() else []
        requested = list(host.requested)
    charset = [d for d in docs if "/charset/" in d["url"]]
    counters = ", ".join(f"{key.rsplit('/', 1)[-1]} {int(crawl_stat(log, key))}"
                         for key in ("corpuscrawl/robotstxt/oversized",
                                     "corpuscrawl/robotstxt/unreachable", "robotstxt/forbidden")
                         if crawl_stat(log, key))
    return [case, str(proc.returncode), f"{elapsed:.0f}",
            str(sum(p.startswith("/private/") for p in requested)), str(len(docs)),
            f"{sum(any(m in d['text'] for m in MOJIBAKE) for d in charset)} of {len(charset)}",
            ", ".join(repr(d["text"][:20]) for d in docs if "/short/" in d["url"]) or "none",
            str(log.count("Traceback")),
            counters or "-"]


def main() -> None:
    """Run the cases and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, default=REPO)
    parser.add_argument("--cases", default=",".join(ROBOTS_CASES))
    args = parser.parse_args()
    rows = [crawl(args.code.resolve(), case) for case in args.cases.split(",")]
    print(f"{len(CHARSET_PAGES)} lying-charset pages and 2 cut-short pages per host; "
          f"code: {args.code}")
    print("\n".join(markdown_table(HEADER, rows)))


if __name__ == "__main__":
    main()
