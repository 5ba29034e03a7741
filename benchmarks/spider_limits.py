"""Documents a crawl of the demo site gives under ``max_pages=N`` and under Scrapy's
``CLOSESPIDER_ITEMCOUNT=N``: why the spider keeps its own page limit.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/spider_limits.py [--limits 2,3] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from corpuscrawl.demo.server import DemoServer


def crawl(seed: str, args: list[str], settings: dict[str, str]) -> int:
    """Documents written by one ``scrapy crawl corpus`` run (boilerplate removal off)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "c.jsonl"
        cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", "-O", f"{out}:jsonlines",
               "-a", f"seeds={seed}", "-s", "LOG_LEVEL=WARNING",
               "-s", "CORPUSCRAWL_BOILERPLATE_ENABLED=False", "-s", "AUTOTHROTTLE_ENABLED=False",
               "-s", f"CORPUSCRAWL_STATE_DIR={tmp}/state"]
        for a in args:
            cmd += ["-a", a]
        for k, v in settings.items():
            cmd += ["-s", f"{k}={v}"]
        subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=dict(os.environ),
                       check=False)
        text = out.read_text(encoding="utf-8") if out.exists() else ""
        return sum(1 for line in text.splitlines() if line and json.loads(line))


def main() -> None:
    """Print documents per run for each limit and each way of setting it."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limits", default="2,3")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    server = DemoServer().start()
    try:
        for n in map(int, args.limits.split(",")):
            for label, spider_args, settings in (
                    ("max_pages", [f"max_pages={n}"], {}),
                    ("CLOSESPIDER_ITEMCOUNT", [], {"CLOSESPIDER_ITEMCOUNT": str(n)})):
                runs = [crawl(server.url, spider_args, settings) for _ in range(args.runs)]
                print(f"limit {n}, {label}: documents per run {runs}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
