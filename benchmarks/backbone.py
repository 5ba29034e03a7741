"""Crawl throughput of the full corpuscrawl pipeline vs bare Scrapy, and peak memory.

Serves the demo site with N generated articles on 127.0.0.1 (in its own
process), then alternately runs (a) ``scrapy crawl corpus`` with the full
pipeline and feed export and (b) a bare Scrapy spider that fetches the same
pages and does nothing else.  Reports pages/s of each, their ratio (target
>= 0.7) and the peak RSS of each crawl process (target < 500 MB).

    python benchmarks/backbone.py --pages 2000 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpuscrawl.evaluation.processes import run_measured, serve_child
from corpuscrawl.evaluation.tables import ANALYSIS_MARKER, markdown_table, write_keeping_notes

REPO = Path(__file__).resolve().parent.parent


def serve(pages: int) -> tuple[subprocess.Popen, str]:
    """Start the demo server with ``pages`` generated articles; return (process, base URL)."""
    code = ("import sys; from corpuscrawl.demo.server import DemoServer; "
            f"s = DemoServer(synthetic_pages={pages}); print(s.url, flush=True); "
            "s.httpd.serve_forever()")
    proc, url = serve_child(code, REPO)
    return proc, url + "s/0.html"


def run(cmd: list[str]) -> tuple[float, int]:
    """Run a crawl; return (wall seconds, peak RSS in MB of that process)."""
    measured = run_measured(cmd, REPO, "crawl")
    return measured.elapsed, measured.peak_rss_mb


def count_lines(path: Path) -> int:
    """Number of JSON lines in a feed file."""
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def main() -> None:
    """Run the benchmark and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks/results/backbone.md")
    args = parser.parse_args()
    server, seed = serve(args.pages)
    # the local server is ours: the polite per-host pacing would measure the pacing, not the code
    common = ["-s", "LOG_LEVEL=WARNING", "-s", "CONCURRENT_REQUESTS=16",
              "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=16"]
    full_rates, bare_rates, full_rss, bare_rss, docs = [], [], [], [], 0
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(args.rounds):
                out = Path(tmp) / "corpus.jsonl"
                # each crawl its own crawl state: a second run of one collection is a recrawl
                t, rss = run([sys.executable, "-m", "scrapy", "crawl", "corpus", "-a",
                              f"seeds={seed}", "-a", "sitemaps=0", "-O", f"{out}:jsonlines",
                              "-s", f"CORPUSCRAWL_BOILERPLATE_HISTORY={tmp}/history{i}.sqlite",
                              "-s", f"CORPUSCRAWL_STATE_DIR={tmp}/state-full-{i}", *common])
                docs = count_lines(out)
                full_rates.append(args.pages / t)
                full_rss.append(rss)
                t, rss = run([sys.executable, "-m", "scrapy", "runspider",
                              str(REPO / "benchmarks/bare_spider.py"), "-a", f"seeds={seed}",
                              "-a", "collection=bare",
                              "-s", f"CORPUSCRAWL_STATE_DIR={tmp}/state-bare-{i}", *common])
                bare_rates.append(args.pages / t)
                bare_rss.append(rss)
    finally:
        server.terminate()
    full, bare = statistics.median(full_rates), statistics.median(bare_rates)
    command = f"python benchmarks/backbone.py --pages {args.pages} --rounds {args.rounds}"
    lines = [
        "# Backbone crawl throughput", "",
        f"Command: `{command}` (2 cores, shared machine; "
        f"{time.strftime('%Y-%m-%d')}).", "",
        f"Generated local site of {args.pages} article pages served on 127.0.0.1 by the demo "
        "server (a separate process on the same 2 cores). Each round runs both crawls one "
        "after the other; the figures are medians over rounds. Pages/s counts the "
        f"{args.pages} article pages over the whole process wall time (start-up included).", "",
        *markdown_table(
            ["crawl", "pages/s (median)", "per round", "peak RSS MB (max)"],
            [["corpuscrawl full pipeline (extraction, language, title, boilerplate, dedup, "
              "JSONL export)", f"{full:.1f}", ", ".join(f"{r:.1f}" for r in full_rates),
              max(full_rss)],
             ["bare Scrapy, same pages, no pipeline", f"{bare:.1f}",
              ", ".join(f"{r:.1f}" for r in bare_rates), max(bare_rss)]], right_from=1),
        "", f"**Ratio full / bare: {full / bare:.2f}** (target >= 0.7). "
        f"Peak RSS of the full crawl: {max(full_rss)} MB (target < 500 MB). "
        f"Documents written: {docs}.", "",
    ]
    write_keeping_notes(args.out, lines, ANALYSIS_MARKER)
    print("\n".join(lines))
    print(json.dumps({"full": full_rates, "bare": bare_rates}))


if __name__ == "__main__":
    main()
