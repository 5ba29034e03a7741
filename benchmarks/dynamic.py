"""Benchmarks of rendering and page interaction.

    .venv/bin/python benchmarks/dynamic.py latency --pages 10
        time per rendered page with 10 revealers and 5 scrolls (library, one page at a time)
    .venv/bin/python benchmarks/dynamic.py crawl --pages 500 --concurrency 4
        rendered pages per minute in ``scrapy crawl corpus -a render=always`` with N concurrent
        browser pages, and RSS (Python + Chromium processes) sampled over the crawl

Pages are served from tests/data/dynamic/ on 127.0.0.1.  Prints a Markdown block to paste
into benchmarks/results/dynamic.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from corpuscrawl.browse.localsite import LocalSite
from corpuscrawl.evaluation.tables import markdown_table

REPO = Path(__file__).resolve().parent.parent

SITE = REPO / "tests" / "data" / "dynamic"


def latency(pages: int) -> None:
    """Render the 10-revealer page ``pages`` times with max_reveals=10, max_scrolls=5."""
    from playwright.async_api import async_playwright

    from corpuscrawl.browse.browser import launch_chromium
    from corpuscrawl.browse.classifier import load_classifier
    from corpuscrawl.browse.interaction import InteractionOptions, interact

    model = load_classifier()

    async def main() -> list[tuple[float, float, int, int]]:
        rows = []
        with LocalSite(SITE) as site:
            async with async_playwright() as pw:
                browser = await launch_chromium(pw)
                for i in range(pages):
                    start = time.perf_counter()
                    page = await browser.new_page()
                    await page.goto(site.url(f"bench/page.html?n={i}"), wait_until="load")
                    loaded = time.perf_counter()
                    result = await interact(page, model.predict,
                                            InteractionOptions(max_reveals=10, max_scrolls=5))
                    await page.close()
                    rows.append((time.perf_counter() - start, loaded - start,
                                 result.reveals, result.scrolls))
                await browser.close()
        return rows

    rows = asyncio.run(main())
    totals = [r[0] for r in rows]
    print("\n".join(markdown_table(
        ["pages", "reveals/page", "scrolls/page", "mean s/page", "median", "max",
         "of which navigation (mean)"],
        [(str(len(rows)), f"{statistics.mean(r[2] for r in rows):.1f}",
          f"{statistics.mean(r[3] for r in rows):.1f}", f"{statistics.mean(totals):.2f}",
          f"{statistics.median(totals):.2f}", f"{max(totals):.2f}",
          f"{statistics.mean(r[1] for r in rows):.2f}")])))


def _tree_memory(root: int) -> tuple[int, int]:
    """(RSS, PSS) in bytes of a process and all its descendants, from /proc.

    Summed RSS counts memory shared between Chromium's processes once per process; PSS
    splits shared pages among their users, so its sum is the tree's real footprint.
    """
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except OSError:
            continue
    rss = pss = 0
    stack = [root]
    while stack:
        pid = stack.pop()
        try:
            with open(f"/proc/{pid}/smaps_rollup") as fh:
                for line in fh:
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1]) * 1024
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1]) * 1024
        except OSError:
            pass
        stack.extend(children.get(pid, []))
    return rss, pss


def crawl(pages: int, concurrency: int, path: str) -> None:
    """Crawl ``pages`` distinct URLs of one fixture page rendered; sample RSS every second."""
    with LocalSite(SITE) as site, tempfile.TemporaryDirectory() as tmp:
        seeds = Path(tmp) / "seeds.txt"
        seeds.write_text("\n".join(site.url(f"{path}?n={i}") for i in range(pages)))
        cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", "-O",
               f"{tmp}/out.jsonl:jsonlines", "-a", f"seeds_file={seeds}", "-a", "render=always",
               "-a", "depth=0", "-a", "sitemaps=0", "-a", "feeds=0",
               "-s", f"CORPUSCRAWL_RENDER_MAX_PAGES={concurrency}",
               "-s", f"CONCURRENT_REQUESTS={concurrency}", "-s", "LOG_LEVEL=INFO",
               "-s", "CORPUSCRAWL_BOILERPLATE_ERROR_PAGES=False",
               "-s", f"CORPUSCRAWL_BOILERPLATE_HISTORY={tmp}/history.sqlite3"]
        samples: list[tuple[float, int, int, int]] = []  # (time, pages served, rss, pss)
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        log: list[str] = []
        reader = threading.Thread(target=lambda: log.extend(proc.stdout), daemon=True)
        reader.start()
        while proc.poll() is None:
            samples.append((time.perf_counter() - start, site.hits.get("/" + path, 0),
                            *_tree_memory(proc.pid)))
            time.sleep(1.0)
        reader.join()
        wall = time.perf_counter() - start
    text = "".join(log)
    rendered = _stat(text, "corpuscrawl/fetch/rendered")
    first = next((s for s in samples if s[1] >= min(50, pages // 10)), samples[0])
    last_busy = [s for s in samples if s[1] >= pages - concurrency] or samples[-1:]
    busy_start = next((s[0] for s in samples if s[1] >= 1), 0.0)
    busy_end = last_busy[0][0] if last_busy else wall
    per_min = 60 * (pages - 1) / max(busy_end - busy_start, 1e-6)
    end = last_busy[0]
    mb = 2**20
    print(f"exit code {proc.returncode}; rendered (stats) {rendered}; wall {wall:.0f} s")
    print("\n".join(markdown_table(
        ["pages", "concurrent pages", "rendered pages/min", "memory", f"after {first[1]} pages",
         f"after {end[1]} pages", "growth", "peak"],
        [(str(pages), str(concurrency), f"{per_min:.0f}", name, f"{first[col] / mb:.0f} MB",
          f"{end[col] / mb:.0f} MB", f"{(end[col] - first[col]) / mb:+.0f} MB",
          f"{max(s[col] for s in samples) / mb:.0f} MB")
         for name, col in (("PSS", 3), ("RSS (summed)", 2))])))
    if proc.returncode:
        print(text[-3000:])


def _stat(log: str, key: str) -> int:
    for line in log.splitlines():
        line = line.strip().rstrip(",")
        if line.startswith(f"'{key}':"):
            return int(line.split(":", 1)[1].strip().rstrip("}").strip())
    return 0


def main() -> int:
    """Command line of the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("latency")
    p.add_argument("--pages", type=int, default=10)
    p = sub.add_parser("crawl")
    p.add_argument("--pages", type=int, default=500)
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--path", default="news/article.html",
                   help="fixture page crawled under distinct ?n= URLs")
    args = parser.parse_args()
    if args.what == "latency":
        latency(args.pages)
    else:
        crawl(args.pages, args.concurrency, args.path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
