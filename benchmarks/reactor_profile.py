"""What the crawl process spends per page, stage by stage (a profile of the reactor side).

Serves the demo site with N generated articles on 127.0.0.1 and runs ``scrapy crawl
corpus`` with its defaults under cProfile; reports, per fetched page, the CPU time of the
whole crawl process and the cumulative time of each stage's entry points (profiler
overhead included, so read the shares, not the absolute figures).  With extraction
workers (the default on more than one core) extraction is not in the crawl process; run
with ``--workers 0`` to see it there.

    python benchmarks/reactor_profile.py --pages 1500

It prints the table (``--out FILE`` also writes it); the current one is quoted in
``benchmarks/results/backbone.md``, the throughput benchmark's results.
"""

from __future__ import annotations

import argparse
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.tables import markdown_table
from tests.support.processes import crawl_stat, serve_child

REPO = Path(__file__).resolve().parent.parent

#: Stage -> entry points (file path suffix, function name); none calls another's.
STAGES: dict[str, tuple[tuple[str, str], ...]] = {
    "extraction in the crawl process (parse, extract, metadata, language)":
        (("corpuscrawl/pagetext/extraction.py", "run"), ("corpuscrawl/html/page.py", "from_html"),
         ("corpuscrawl/browse/static.py", "without_overlays")),
    "hand-off to a worker (job built, pickled, result unpickled)":
        (("corpuscrawl/spiders/workers.py", "extract"),),
    "links: page links listed, focus scores, URL checks, requests built":
        (("corpuscrawl/spiders/following.py", "listed_links"),
         ("corpuscrawl/spiders/discovery.py", "page_links")),
    "link-trap checks": (("corpuscrawl/spiders/traps.py", "check"),),
    "scheduler: enqueue (duplicate filter, frontier)":
        (("corpuscrawl/crawlstate/scrapy_glue/frontier.py", "enqueue_request"),),
    "scheduler: next request": (("corpuscrawl/crawlstate/scrapy_glue/frontier.py", "next_request"),),
    "pipeline: CrawledPage -> Document": (("corpuscrawl/export/scrapy_glue/pipelines.py", "process_item"),),
    "pipeline: recrawl change check (page store)":
        (("corpuscrawl/crawlstate/scrapy_glue/recrawl.py", "process_item"),),
    "pipeline: export stage (boilerplate history, near-duplicates)":
        (("corpuscrawl/export/scrapy_glue/stage_pipeline.py", "process_item"),),
    "feed export (cleaned documents written)": (("corpuscrawl/export/scrapy_glue/exporters.py", "export_item"),),
    "crawl state commits (feeds fsynced, SQLite)":
        (("corpuscrawl/crawlstate/store.py", "commit"),),
    "conditional requests, found-on, error-page probes":
        (("corpuscrawl/crawlstate/scrapy_glue/conditional.py", "process_request"),
         ("corpuscrawl/crawlstate/scrapy_glue/conditional.py", "process_response"),
         ("corpuscrawl/crawlstate/scrapy_glue/conditional.py", "_tag"),
         ("corpuscrawl/export/scrapy_glue/stage_pipeline.py", "process_response")),
    "network guard": (("corpuscrawl/net/scrapy_glue/guard.py", "process_request"),),
    "politeness (AutoThrottle, retries)":
        (("corpuscrawl/net/scrapy_glue/politeness.py", "_response_downloaded"),
         ("corpuscrawl/net/scrapy_glue/politeness.py", "process_response")),
    "crawl summary counts": (("corpuscrawl/extensions.py", "response_received"),
                             ("corpuscrawl/extensions.py", "item_scraped")),
}


#: The crawl under cProfile with the process's CPU clock (not wall time: the machine is
#: shared, and a wall clock would charge other processes' time to whatever was running).
PROFILED = """
import cProfile, sys, time
from scrapy.cmdline import execute
profile = cProfile.Profile(time.process_time)
try:
    profile.runcall(execute, {argv!r})
except SystemExit:
    pass
finally:
    profile.dump_stats({out!r})
"""


def stage_times(profile: Path) -> dict[str, float]:
    """Cumulative seconds of each stage's entry points in a cProfile dump."""
    stats = pstats.Stats(str(profile)).stats  # type: ignore[attr-defined]
    out = dict.fromkeys(STAGES, 0.0)
    for (filename, _, name), (_, _, _, cumulative, _) in stats.items():
        path = filename.replace(os.sep, "/")
        for stage, points in STAGES.items():
            if any(path.endswith(suffix) and name == func for suffix, func in points):
                out[stage] += cumulative
    return out


def profile_crawl(url: str, workers: str, keep: Path | None
                  ) -> tuple[int, float, float, dict[str, float]]:
    """One ``scrapy crawl corpus`` of the site at ``url`` under cProfile: responses, wall
    seconds, the process's profiled CPU seconds and each stage's cumulative seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        profile = Path(tmp) / "crawl.prof"
        argv = ["scrapy", "crawl", "corpus", "-a", f"seeds={url}s/0.html",
                "-O", f"{tmp}/out.jsonl:jsonlines", "-s", "LOG_LEVEL=INFO",
                "-s", f"CORPUSCRAWL_WORKERS={workers}",
                "-s", f"CORPUSCRAWL_STATE_DIR={tmp}/state",
                "-s", f"CORPUSCRAWL_FAILED_DIR={tmp}/failed"]
        cmd = [sys.executable, "-c", PROFILED.format(out=str(profile), argv=argv)]
        started = time.perf_counter()
        proc = subprocess.run(cmd, cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)),
                              capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr[-3000:])
        pages = int(crawl_stat(proc.stderr, "response_received_count"))
        total = pstats.Stats(str(profile)).total_tt  # type: ignore[attr-defined]
        stages = stage_times(profile)
        if keep:
            keep.write_bytes(profile.read_bytes())
    return pages, wall, total, stages


def report(args: argparse.Namespace, pages: int, wall: float, total: float,
           stages: dict[str, float]) -> list[str]:
    """The Markdown report: the command, the crawl, and each stage's ms per page and share."""
    rows = [[stage, f"{seconds / pages * 1000:.2f}", f"{seconds / total:.0%}"]
            for stage, seconds in sorted(stages.items(), key=lambda kv: -kv[1])]
    rest = total - sum(stages.values())
    rows.append(["everything else (Scrapy: downloads, engine, middlewares, signals; start-up "
                 "and shut-down; the profiler)", f"{rest / pages * 1000:.2f}", f"{rest / total:.0%}"])
    command = (f"python benchmarks/reactor_profile.py --pages {args.pages} "
               f"--workers {args.workers}")
    return ["# The crawl process per page, stage by stage", "",
            f"Command: `PYTHONPATH=$PWD {command}`; {time.strftime('%Y-%m-%d %H:%M')} UTC, "
            f"2 cores shared with other developers' jobs (load average "
            f"{os.getloadavg()[0]:.1f}).", "",
            f"`scrapy crawl corpus` with its defaults (`CORPUSCRAWL_WORKERS={args.workers}`) on "
            f"the demo site with {args.pages} generated articles, under cProfile: {pages} "
            f"responses in {wall:.0f} s; the crawl process's profiled CPU time "
            f"{total / pages * 1000:.2f} ms per response (its own CPU clock, so other "
            "processes on the machine are not counted; the profiler's overhead is).  "
            "Cumulative CPU time of each stage's entry points per response: read the shares.",
            "",
            *markdown_table(["stage", "ms per page", "share"], rows, right_from=1), ""]


def main() -> None:
    """Profile one crawl and print the table (``--out``: write it there too)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1500)
    parser.add_argument("--workers", default="auto")
    parser.add_argument("--out", type=Path, help="also write the table to this file")
    parser.add_argument("--keep", type=Path, help="also keep the cProfile dump here")
    args = parser.parse_args()
    code = ("from corpuscrawl.demo.server import DemoServer; "
            f"s = DemoServer(synthetic_pages={args.pages}); print(s.url, flush=True); "
            "s.httpd.serve_forever()")
    server, url = serve_child(code, REPO)
    try:
        pages, wall, total, stages = profile_crawl(url, args.workers, args.keep)
    finally:
        server.terminate()
    lines = report(args, pages, wall, total, stages)
    if args.out:
        write_run(args.out, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
