"""What writing WARC costs a crawl: the same local site crawled with and without it.

Serves tests/warc_site.py with N articles on 127.0.0.1 (its own process), then
runs ``scrapy crawl corpus`` alternately without and with
``CORPUSCRAWL_WARC_DIR`` (``--rounds`` pairs, side by side), each crawl in a
fresh process; after each crawl with WARC, ``corpuscrawl extract`` re-extracts
the corpus from its files.  Per crawl it records the crawl's own ``elapsed_time_seconds``,
the process's CPU time (user + system: less disturbed by other jobs on a shared
machine than wall time), the documents written, and with WARC the CPU time the
crawl spent inside the WARC code (``corpuscrawl/warc/cpu_seconds``: record
building, digests, compression, writing) and the bytes written.

    python benchmarks/warc.py --articles 300 --rounds 5
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.tables import markdown_table

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # tests/support: the measured process and the served site
from tests.support.processes import crawl_stat, run_measured, serve_child  # noqa: E402


def serve(articles: int) -> tuple[subprocess.Popen, str]:
    """Start tests/warc_site.py with ``articles`` articles; return (process, root URL)."""
    code = ("import time; from tests.warc_site import WarcSite\n"
            f"site = WarcSite(articles={articles})\n"
            "with site.serve():\n    print(site.url, flush=True)\n    time.sleep(10**6)\n")
    return serve_child(code, REPO)


def crawl(url: str, work: Path, warc: bool, label: str) -> dict[str, float]:
    """One crawl in a fresh process; its timings and counts."""
    out = work / f"{label}.jsonl"
    cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", "-a", f"seeds={url}",
           "-O", f"{out}:jsonlines", "-s", "LOG_LEVEL=INFO",
           "-s", f"CORPUSCRAWL_BOILERPLATE_HISTORY={work / (label + '.sqlite3')}",
           # each crawl its own crawl state: a second run of one collection is a recrawl
           "-s", f"CORPUSCRAWL_STATE_DIR={work / (label + '-state')}"]
    if warc:
        cmd += ["-s", f"CORPUSCRAWL_WARC_DIR={work / label}"]
    measured = run_measured(cmd, REPO, "crawl")
    log = measured.stderr
    return {"elapsed": crawl_stat(log, "elapsed_time_seconds"),
            "cpu": measured.cpu,
            "documents": sum(1 for line in out.read_text(encoding="utf-8").splitlines() if line),
            "responses": crawl_stat(log, "downloader/response_count"),
            "warc_seconds": crawl_stat(log, "corpuscrawl/warc/cpu_seconds"),
            "warc_bytes": crawl_stat(log, "corpuscrawl/warc/bytes"),
            "warc_records": crawl_stat(log, "corpuscrawl/warc/records")}


def replay(work: Path, label: str) -> dict[str, float]:
    """``corpuscrawl extract -e bte`` over the WARC files of crawl ``label``: wall and CPU seconds."""
    files = sorted(str(p) for p in (work / label).glob("*.warc.gz"))
    out = work / f"{label}-replayed.jsonl"
    cmd = [sys.executable, "-m", "corpuscrawl.cli", "extract", "-e", "bte", *files, "-o", str(out)]
    measured = run_measured(cmd, REPO, "replay")
    return {"elapsed": measured.elapsed, "cpu": measured.cpu,
            "documents": sum(1 for line in out.read_text(encoding="utf-8").splitlines() if line)}


def main() -> None:
    """Run the benchmark and write a Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks/results/warc.md")
    args = parser.parse_args()
    command = shlex.join(["python", "benchmarks/warc.py", *sys.argv[1:]])
    server, url = serve(args.articles)
    runs: dict[bool, list[dict[str, float]]] = {False: [], True: []}
    load = os.getloadavg()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(args.rounds):
                order = (False, True) if i % 2 == 0 else (True, False)  # alternate who goes first
                for warc in order:
                    label = f"{'warc' if warc else 'plain'}-{i}"
                    result = crawl(url, Path(tmp), warc, label)
                    if warc:
                        result.update({f"replay_{k}": v
                                       for k, v in replay(Path(tmp), label).items()})
                    runs[warc].append(result)
                    print(label, {k: round(v, 3) for k, v in result.items()}, flush=True)
    finally:
        server.terminate()
        server.wait()
    lines = render(runs, args, command, load, os.getloadavg())
    write_run(args.out, lines)
    print("\n".join(lines))


def summary_bullets(runs: dict[bool, list[dict[str, float]]],
                    med: Callable[[bool, str], float]) -> list[str]:
    """The report's findings: WARC's share of the crawl's CPU, its cost per response, the
    difference of the medians, its size, and the re-extraction from the WARC files."""
    plain_e, warc_e = med(False, "elapsed"), med(True, "elapsed")
    plain_c, warc_c = med(False, "cpu"), med(True, "cpu")
    inside = [r["warc_seconds"] / r["cpu"] for r in runs[True]]
    inside_wall = [r["warc_seconds"] / r["elapsed"] for r in runs[True]]
    responses = med(True, "responses")
    return [
        f"* **Share of the crawl's CPU time spent writing WARC** (measured inside the crawl: "
        "CPU seconds of the WARC code, `corpuscrawl/warc/cpu_seconds`, over the crawl "
        "process's CPU seconds, which include ~1 s of start-up): median "
        f"**{statistics.median(inside) * 100:.1f} %** (runs: "
        + ", ".join(f"{x * 100:.1f}" for x in inside) + " %); over the crawl's wall time "
        f"(`elapsed_time_seconds`): median {statistics.median(inside_wall) * 100:.1f} %.",
        f"* WARC CPU time per response: "
        f"{med(True, 'warc_seconds') / max(responses, 1) * 1000:.2f} ms.",
        f"* Difference of the medians, with vs without: crawl time "
        f"{(warc_e - plain_e) / plain_e * 100:+.1f} %, CPU time "
        f"{(warc_c - plain_c) / plain_c * 100:+.1f} % (these carry the shared machine's "
        "noise; the in-crawl CPU figure above does not).",
        f"* WARC size: {med(True, 'warc_bytes') / max(responses, 1) / 1000:.1f} kB per "
        "response (response + request + metadata records, each gzipped).",
        f"* Re-extracting the corpus from the WARC files (`corpuscrawl extract -e bte FILES "
        f"-o OUT`, the crawl's extractor): {med(True, 'replay_elapsed'):.2f} s wall, "
        f"{med(True, 'replay_cpu'):.2f} s CPU (medians), "
        f"{med(True, 'replay_documents'):.0f} documents (the crawl wrote "
        f"{med(True, 'documents'):.0f}).",
    ]


def render(runs: dict[bool, list[dict[str, float]]], args: argparse.Namespace, command: str,
           load_before: tuple[float, ...], load_after: tuple[float, ...]) -> list[str]:
    """The lines of the Markdown report."""
    def med(warc: bool, key: str) -> float:
        return statistics.median(r[key] for r in runs[warc])

    plain_e, warc_e = med(False, "elapsed"), med(True, "elapsed")
    plain_c, warc_c = med(False, "cpu"), med(True, "cpu")
    responses = med(True, "responses")
    lines = [
        "# WARC writing overhead",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on the shared 2-core "
        f"machine (load average {load_before[0]:.1f} before, {load_after[0]:.1f} after: other "
        "engineers' jobs ran, so wall times are noisy; the pairs ran side by side, alternating "
        "which went first).",
        "",
        "Command:",
        "",
        f"    {command}",
        "",
        f"Site: tests/warc_site.py with {args.articles} articles on 127.0.0.1 (a third sent "
        "gzip-encoded, a third chunked; robots.txt, sitemap, redirect, 404s), crawled whole "
        f"by `scrapy crawl corpus` ({int(responses)} responses per crawl), {args.rounds} "
        "crawls without and with `CORPUSCRAWL_WARC_DIR`, each in a fresh process.",
        "",
        *markdown_table(
            ["crawl", "crawl seconds (median)", "CPU seconds (median)", "documents",
             "WARC records", "WARC MB", "CPU seconds inside WARC code (median)"],
            [["without WARC", f"{plain_e:.2f}", f"{plain_c:.2f}",
              f"{med(False, 'documents'):.0f}", "", "", ""],
             ["with WARC", f"{warc_e:.2f}", f"{warc_c:.2f}", f"{med(True, 'documents'):.0f}",
              f"{med(True, 'warc_records'):.0f}", f"{med(True, 'warc_bytes') / 1e6:.2f}",
              f"{med(True, 'warc_seconds'):.3f}"]]),
        "",
        *summary_bullets(runs, med),
        "",
        "Per crawl (seconds, in run order):",
        "",
        *markdown_table(
            ["round", "without: crawl / CPU", "with: crawl / CPU / CPU inside WARC"],
            [[i, f"{plain['elapsed']:.2f} / {plain['cpu']:.2f}",
              f"{warc['elapsed']:.2f} / {warc['cpu']:.2f} / {warc['warc_seconds']:.3f}"]
             for i, (plain, warc) in enumerate(zip(runs[False], runs[True], strict=True))]),
        "",
    ]
    return lines


if __name__ == "__main__":
    main()
