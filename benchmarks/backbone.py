"""Crawl throughput and memory of the default crawl vs bare Scrapy, side by side.

Serves the demo site with N generated articles on 127.0.0.1 (its own process), then runs,
interleaved round by round, (a) bare Scrapy (:class:`BareSpider` below, run with
``scrapy runspider`` on this file outside the project: fetch every same-site page, yield
its body length, Scrapy's default settings) and (b) ``scrapy crawl corpus``
with the project's defaults (``auto``, durable frontier, page store, export stage,
politeness, extraction workers), both with the project's concurrency and politeness
(``CONCURRENT_REQUESTS=16``, 2 per domain, AutoThrottle on).  Reports pages/s over the
whole process (start-up included) and their ratio per round, peak RSS of the crawl
process and of its process tree (workers included), and the crawl process's RSS at
1k/5k/10k/20k... documents with its growth per 1,000 documents.

    python benchmarks/backbone.py --pages 5000 --rounds 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import scrapy

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # tests/support: the served site and the crawl's stats
#: The crawl's concurrency and politeness, given to both crawls (the project's defaults).
COMMON = ["-s", "LOG_LEVEL=INFO", "-s", "CONCURRENT_REQUESTS=16",
          "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=2", "-s", "AUTOTHROTTLE_ENABLED=True"]
#: Documents at which the crawl process's RSS is reported.
MARKS = (1_000, 5_000, 10_000, 20_000, 50_000, 100_000)


class BareSpider(scrapy.Spider):
    """The baseline: follow same-host links, yield each page's URL and body length (nothing
    extracted), so the difference is corpuscrawl's own cost."""

    name = "bare"

    def __init__(self, seeds: str = "", **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.start_urls = [s for s in seeds.split(",") if s]
        self.host = urlsplit(self.start_urls[0]).netloc

    async def start(self):  # noqa: ANN201 - Scrapy's async generator of requests
        """The seeds."""
        for url in self.start_urls:
            yield scrapy.Request(url)

    def parse(self, response):  # noqa: ANN001, ANN201 - Scrapy's callback
        """The page's length; its same-host links followed."""
        yield {"url": response.url, "length": len(response.body)}
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href).split("#", 1)[0]
            if urlsplit(url).netloc == self.host and not url.endswith(".pdf"):
                yield scrapy.Request(url)


@dataclass
class Measured:
    """One crawl: wall seconds, pages fetched, RSS samples."""

    wall: float = 0.0
    cpu: float = 0.0
    pages: int = 0
    documents: int = 0
    peak_main_mb: float = 0.0
    peak_tree_mb: float = 0.0
    #: (documents written so far, RSS MB of the crawl process, RSS MB of the process
    #: and its workers) every sample.
    samples: list[tuple[int, float, float]] = field(default_factory=list)
    log: str = ""


def rss_mb(pid: int) -> float:
    """Resident set size of a process in MB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def descendants(pid: int) -> list[int]:
    """The process ids under ``pid``."""
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as fh:
                    kids = [int(k) for k in fh.read().split()]
                out.extend(kids)
                todo.extend(kids)
        except OSError:
            continue
    return out


def run(cmd: list[str], cwd: Path, feed: Path, env: dict[str, str]) -> Measured:
    """Run a crawl, sampling its RSS (and its workers') and the lines of its feed."""
    measured = Measured()
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    done = threading.Event()

    def sample() -> None:
        lines, offset = 0, 0
        while not done.wait(0.25):
            if feed.exists():
                with feed.open("rb") as fh:
                    fh.seek(offset)
                    chunk = fh.read()
                offset += len(chunk)
                lines += chunk.count(b"\n")
            main = rss_mb(proc.pid)
            tree = main + sum(rss_mb(kid) for kid in descendants(proc.pid))
            measured.peak_main_mb = max(measured.peak_main_mb, main)
            measured.peak_tree_mb = max(measured.peak_tree_mb, tree)
            if main:
                measured.samples.append((lines, main, tree))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    assert proc.stderr is not None
    log = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    measured.wall = time.perf_counter() - started
    done.set()
    sampler.join()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"crawl failed: {' '.join(cmd)}\n{log[-3000:]}")
    measured.cpu = usage.ru_utime + usage.ru_stime
    from tests.support.processes import crawl_stat

    measured.pages = int(crawl_stat(log, "response_received_count"))
    measured.documents = int(crawl_stat(log, "item_scraped_count"))
    measured.log = log
    # (wait4's ru_maxrss would be the largest of the process and its workers: sampled instead)
    return measured


def rss_at(samples: list[tuple[int, float, float]], documents: int,
           tree: bool = False) -> float | None:
    """RSS of the crawl process (``tree``: with its workers) when ``documents`` had been
    written (None if never)."""
    return next((s[2] if tree else s[1] for s in samples if s[0] >= documents), None)


def growth_per_1000(samples: list[tuple[int, float, float]], tree: bool = False) -> float | None:
    """RSS growth per 1,000 documents from the 1,000th document to the last one."""
    start = rss_at(samples, 1_000, tree)
    if start is None or not samples:
        return None
    last = max(samples)
    if last[0] <= 2_000:
        return None
    return ((last[2] if tree else last[1]) - start) / (last[0] - 1_000) * 1_000


def rss_lines(last: Measured) -> list[str]:
    """The table of RSS by documents written (crawl process, and with its workers)."""
    from corpuscrawl.evaluation.tables import markdown_table

    marks = [m for m in MARKS if rss_at(last.samples, m) is not None]
    rows = [[f"{m:,}", f"{rss_at(last.samples, m):.0f}", f"{rss_at(last.samples, m, True):.0f}"]
            for m in marks]
    if last.samples:
        final = max(last.samples)
        rows.append([f"{final[0]:,} (last sample)", f"{final[1]:.0f}", f"{final[2]:.0f}"])
    growth = [growth_per_1000(last.samples, tree) for tree in (False, True)]
    if None not in growth:
        rows.append(["growth per 1,000 documents after the 1,000th",
                     f"{growth[0]:.2f}", f"{growth[1]:.2f}"])
    return markdown_table(["documents written", "RSS MB, crawl process",
                           "RSS MB, with workers"], rows, right_from=1)


def parse_args() -> argparse.Namespace:
    """The benchmark's options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-bare", action="store_true",
                        help="run the default crawl only (RSS by documents over a large site)")
    parser.add_argument("--setting", action="append", default=[], metavar="NAME=VALUE",
                        help="a Scrapy setting for the default crawl only (repeatable), to "
                             "measure what one setting costs")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks/results/backbone.md",
                        help="results file: an existing one gets the run as a dated section")
    return parser.parse_args()


def run_rounds(args: argparse.Namespace, seed: str) -> tuple[list[Measured], list[Measured]]:
    """The rounds, each bare Scrapy (unless ``--no-bare``) then the default crawl, in
    fresh processes against the site at ``seed``: (default crawls, bare crawls)."""
    extra = [arg for setting in args.setting for arg in ("-s", setting)]
    full: list[Measured] = []
    bare: list[Measured] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONPATH=str(REPO))
        for i in range(args.rounds):
            if not args.no_bare:
                out = Path(tmp) / f"bare{i}.jsonl"
                # outside the project: Scrapy's own settings, not corpuscrawl's
                bare.append(run([sys.executable, "-m", "scrapy", "runspider",
                                 str(Path(__file__).resolve()), "-a",
                                 f"seeds={seed}", "-O", f"{out}:jsonlines", *COMMON],
                                Path(tmp), out, env))
                print("bare", bare[-1].pages, bare[-1].wall, flush=True)
            out = Path(tmp) / f"corpus{i}.jsonl"
            full.append(run([sys.executable, "-m", "scrapy", "crawl", "corpus", "-a",
                             f"seeds={seed}", "-O", f"{out}:jsonlines",
                             "-s", f"CORPUSCRAWL_STATE_DIR={tmp}/state-{i}",
                             "-s", f"CORPUSCRAWL_FAILED_DIR={tmp}/failed-{i}", *COMMON,
                             *extra],
                            REPO, out, env))
            print("corpus", full[-1].pages, full[-1].wall, flush=True)
            if os.environ.get("BACKBONE_LOGS"):
                Path(os.environ["BACKBONE_LOGS"]).write_text(full[-1].log)
            out.unlink(missing_ok=True)
    return full, bare


def comparison_lines(full: list[Measured], bare: list[Measured]) -> list[str]:
    """Pages/s and CPU per page round by round, their ratio, and peak RSS of both crawls."""
    from corpuscrawl.evaluation.tables import markdown_table

    rate = lambda m: m.pages / m.wall  # noqa: E731
    ratios = [rate(f) / rate(b) for f, b in zip(full, bare, strict=True)]
    rows = [[str(i + 1), f"{rate(b):.1f}", f"{rate(f):.1f}", f"{ratios[i]:.2f}",
             f"{b.cpu / b.pages * 1000:.1f}", f"{f.cpu / f.pages * 1000:.1f}"]
            for i, (f, b) in enumerate(zip(full, bare, strict=True))]
    return [
        *markdown_table(["round", "bare Scrapy pages/s", "default crawl pages/s", "ratio",
                         "bare CPU ms/page", "default crawl CPU ms/page"], rows,
                        right_from=1),
        "", f"**Ratio default crawl / bare Scrapy: {statistics.median(ratios):.2f}** "
        f"(median of rounds; target >= 0.8). Documents written by the last default "
        f"crawl: {full[-1].documents}.", "",
        *markdown_table(["crawl", "peak RSS MB, crawl process", "peak RSS MB, with workers"],
                        [["bare Scrapy", f"{max(b.peak_main_mb for b in bare):.0f}",
                          f"{max(b.peak_tree_mb for b in bare):.0f}"],
                         ["default crawl", f"{max(f.peak_main_mb for f in full):.0f}",
                          f"{max(f.peak_tree_mb for f in full):.0f}"]], right_from=1), "",
    ]


def report(args: argparse.Namespace, full: list[Measured], bare: list[Measured],
           loads: tuple[float, float]) -> list[str]:
    """The run's Markdown report: its command, the comparison and RSS by documents."""
    last = full[-1]
    command = (f"python benchmarks/backbone.py --pages {args.pages} --rounds {args.rounds}"
               + (" --no-bare" if args.no_bare else ""))
    lines = [
        "# Crawl throughput and memory: the default crawl vs bare Scrapy", "",
        f"Command: `PYTHONPATH=$PWD nice -n 5 {command}`; {time.strftime('%Y-%m-%d %H:%M')} "
        f"UTC, 2 cores shared with other developers' jobs (load average {loads[0]:.1f} "
        f"before, {loads[1]:.1f} after): absolute figures are noisy, compare the ratios "
        "of a round.", "",
        f"The demo site with {args.pages} generated articles served on 127.0.0.1 by its own "
        "process on the same cores. Each round runs bare Scrapy (`BareSpider` in this file), "
        "then the default crawl (`scrapy crawl corpus -a seeds=...`, everything at the "
        "project's defaults). Both with `CONCURRENT_REQUESTS=16`, 2 per domain, AutoThrottle "
        "on. Pages/s = responses over the whole process's wall time (start-up included); CPU "
        "ms per page = the process's user+system time as `wait4` reports it (its reaped "
        "workers included) per response.",
        "",
    ]
    if bare:
        lines += comparison_lines(full, bare)
    else:
        lines += [f"Default crawl only: {last.pages / last.wall:.1f} pages/s, "
                  f"{last.documents} documents, peak RSS {last.peak_main_mb:.0f} MB (crawl "
                  f"process), {last.peak_tree_mb:.0f} MB with workers.", ""]
    return lines + ["RSS by documents written (last default crawl):", "", *rss_lines(last), ""]


def main() -> None:
    """Run the benchmark and add its report to ``--out`` (benchmarks/results/backbone.md)."""
    # here, not at the top: bare Scrapy runs this file and must not load corpuscrawl
    from corpuscrawl.evaluation.results_file import write_run
    from tests.support.processes import serve_child

    args = parse_args()
    code = ("from corpuscrawl.demo.server import DemoServer; "
            f"s = DemoServer(synthetic_pages={args.pages}); print(s.url, flush=True); "
            "s.httpd.serve_forever()")
    server, url = serve_child(code, REPO)
    load_before = os.getloadavg()[0]
    try:
        full, bare = run_rounds(args, url + "s/0.html")
    finally:
        server.terminate()
    lines = report(args, full, bare, (load_before, os.getloadavg()[0]))
    write_run(args.out, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
