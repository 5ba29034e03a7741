"""Resume after SIGKILL, and what the durable frontier costs: a local site, side by side in one run.

1. *Kill and restart*: a crawl of an N-article site served on 127.0.0.1 is
   killed with SIGKILL after ~K exported documents and started again with the
   same command, (a) with corpuscrawl's crawl state (the default) and (b) with
   Scrapy's own scheduler, duplicate filter and ``JOBDIR`` (output appended
   with ``-o``).  Reported: articles in the output, documents written twice.
2. *Random kills* (``--random-kills N``): the same command killed N times at
   random moments (1-4 s after its start), then run to the end; per seed:
   articles exported, documents written twice, whether the file ends with a
   whole record.
3. *Overhead*: complete crawls of the same site (no delay), alternating the
   durable frontier and Scrapy's memory scheduler, ``--runs`` times each:
   elapsed seconds and pages/s from Scrapy's stats.

    python benchmarks/resume.py --articles 400 --kill-after 120 --runs 3 \
        --out benchmarks/results/resume.md
    python benchmarks/resume.py --articles 300 --random-kills 12 --seeds 1,2,3 --only random
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.tables import markdown_table
from tests.crawl_helpers import run_interrupted
from tests.resume_site import ResumeSite
from tests.support.processes import crawl_stat

REPO = Path(__file__).resolve().parent.parent
#: Columns of the random-kills table.
RANDOM_HEADER = ["seed", "kills", "articles exported", "written twice", "whole last record"]

SCRAPY_OWN = ["-s", "SCHEDULER=scrapy.core.scheduler.Scheduler",
              "-s", "DUPEFILTER_CLASS=scrapy.dupefilters.RFPDupeFilter"]


def crawl_cmd(seed: str, feed: list[str], *extra: str) -> list[str]:
    """The crawl command (INFO log for the stats dump; no politeness for the local server)."""
    return [sys.executable, "-m", "scrapy", "crawl", "corpus", *feed, "-a", f"seeds={seed}",
            "-s", "LOG_LEVEL=INFO", "-s", "AUTOTHROTTLE_ENABLED=False",
            "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8", *extra]


def run(cmd: list[str], kill_when=None) -> str:
    """Run a crawl (killed with SIGKILL once ``kill_when()`` holds); return its log."""
    return run_interrupted(cmd, kill_when, cwd=REPO)


def count(out: Path, articles: set[str]) -> tuple[int, int]:
    """(articles present, documents written more than once) in a JSON Lines file."""
    docs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line]
    urls = collections.Counter(d["url"] for d in docs)
    return len(articles & urls.keys()), sum(n - 1 for n in urls.values() if n > 1)


def lines(out: Path) -> int:
    return out.read_bytes().count(b"\n") if out.exists() else 0


def kill_and_restart(site: ResumeSite, kill_after: int, work: Path) -> list[tuple[str, int, int]]:
    """Rows (variant, articles exported over both runs, duplicates)."""
    rows = []
    variants = {
        "corpuscrawl crawl state (`-O`)": lambda out, d: crawl_cmd(
            site.url, ["-O", str(out)], "-s", f"CORPUSCRAWL_STATE_DIR={d}"),
        "Scrapy scheduler + JOBDIR (`-o`)": lambda out, d: crawl_cmd(
            site.url, ["-o", str(out)], *SCRAPY_OWN, "-s", f"JOBDIR={d}",
            "-s", "CORPUSCRAWL_RESUME=never"),
    }
    for name, make in variants.items():
        out, state = work / f"{len(rows)}.jsonl", work / f"state{len(rows)}"
        cmd = make(out, state)
        run(cmd, lambda out=out: lines(out) >= kill_after)
        killed_at = lines(out)
        run(cmd)
        present, doubled = count(out, site.article_urls())
        rows.append((name, killed_at, present, doubled))
    return rows


def random_kills(site: ResumeSite, kills: int, seed: int, work: Path) -> tuple[int, int, int, bool]:
    """(kills done, articles exported, written twice, ends with a whole record)."""
    import random

    rng = random.Random(seed)
    out, state = work / f"r{seed}.jsonl", work / f"rstate{seed}"
    cmd = crawl_cmd(site.url, ["-O", str(out)], "-s", f"CORPUSCRAWL_STATE_DIR={state}")
    done, finished = 0, False
    for _ in range(kills):
        deadline = time.monotonic() + rng.uniform(1.0, 4.0)
        log = run(cmd, lambda deadline=deadline: time.monotonic() >= deadline)
        finished = "Spider closed (finished)" in log  # it ended before the kill
        if finished:  # (running it again would start the next generation, a recrawl)
            break
        done += 1
    if not finished:
        run(cmd)
    present, doubled = count(out, site.article_urls())
    return done, present, doubled, out.read_bytes().endswith(b"\n")


def overhead(site: ResumeSite, runs: int, work: Path) -> dict[str, list[tuple[float, float]]]:
    """Per variant: (elapsed seconds, pages/s) of each complete crawl."""
    out: dict[str, list[tuple[float, float]]] = {"durable frontier": [], "Scrapy memory queue": []}
    for i in range(runs):
        for name in out:
            extra = [] if name == "durable frontier" else SCRAPY_OWN
            log = run(crawl_cmd(site.url, ["-O", str(work / f"o{i}.jsonl")], *extra,
                                "-s", f"CORPUSCRAWL_STATE_DIR={work / f's{i}{len(name)}'}"))
            elapsed = crawl_stat(log, "elapsed_time_seconds")
            pages = crawl_stat(log, "response_received_count")
            out[name].append((elapsed, pages / elapsed if elapsed else 0.0))
    return out


def random_kill_table(args: argparse.Namespace) -> list[str]:
    """The random-kills table: per seed, the command killed ``--random-kills`` times, then
    run to the end."""
    with tempfile.TemporaryDirectory() as tmp, ResumeSite(args.articles, args.delay) as site:
        rows = []
        for seed in (int(x) for x in args.seeds.split(",")):
            done, present, doubled, whole = random_kills(site, args.random_kills, seed,
                                                         Path(tmp))
            rows.append([seed, done, f"{present} of {args.articles}", doubled,
                         "yes" if whole else "no"])
            print(f"seed {seed}: {rows[-1][1:]}", file=sys.stderr, flush=True)
    return markdown_table(RANDOM_HEADER, rows, right_from=0)


def report(args: argparse.Namespace, killed: list[tuple[str, int, int]],
           costs: dict[str, list[tuple[float, float]]]) -> list[str]:
    """The Markdown report of the kill-and-restart test and the overhead runs."""
    command = (f"python benchmarks/resume.py --articles {args.articles} --kill-after "
               f"{args.kill_after} --delay {args.delay} --runs {args.runs}")
    return [
        "# Resume after SIGKILL", "",
        f"Command: `{command}` ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        "2 shared cores).", "",
        f"Site: {args.articles} articles on 127.0.0.1 (tests/resume_site.py), "
        f"{args.delay * 1000:.0f} ms per answer for the kill test, none for the overhead.",
        "",
        f"## SIGKILL after ~{args.kill_after} exported documents, then the same command again",
        "",
        *markdown_table(["variant", "lines when killed", "articles exported over both runs",
                         "written twice"],
                        [[n, k, f"{p} of {args.articles}", d] for n, k, p, d in killed],
                        right_from=1),
        "", f"## Complete crawl, no kill ({args.runs} runs each, alternating)", "",
        *markdown_table(["variant", "elapsed s (median)", "pages/s (median)"],
                        [[name, f"{statistics.median(v[0] for v in values):.2f}",
                          f"{statistics.median(v[1] for v in values):.1f}"]
                         for name, values in costs.items()], right_from=1),
        ""]


def main() -> None:
    """Run the kill-and-restart test and the overhead runs (or only the random kills)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=400)
    parser.add_argument("--kill-after", type=int, default=120)
    parser.add_argument("--delay", type=float, default=0.02)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--random-kills", type=int, default=0)
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--only", choices=("all", "random"), default="all")
    parser.add_argument("--out", type=Path,
                        help="also write the results to this Markdown file (an existing "
                             "file gets them as a dated section, the rest kept)")
    args = parser.parse_args()
    if args.only == "random":
        print("\n".join(random_kill_table(args)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        with ResumeSite(args.articles, args.delay) as site:
            killed = kill_and_restart(site, args.kill_after, work)
        with ResumeSite(args.articles, 0.0) as site:
            costs = overhead(site, args.runs, work)
    lines_out = report(args, killed, costs)
    print("\n".join(lines_out))
    if args.out:
        write_run(args.out, lines_out)


if __name__ == "__main__":
    main()
