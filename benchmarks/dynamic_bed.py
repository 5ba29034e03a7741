"""The dynamic-pattern test bed under load: harvest, leaks, rendering cost, stability.

    .venv/bin/python benchmarks/dynamic_bed.py --runs 10 --load 2 --modes never,always,auto

For each run (seed = ``--seed`` + run number: every delay of the bed changes) and mode,
one ``scrapy crawl corpus -a render=MODE -a depth=1`` crawls every pattern's entry page
(tests/dynamic_bed.py) with ``--load`` CPU-bound processes running beside it.  Per
pattern and mode it reports the share of must-harvest text found, must-not text leaked,
pages rendered vs pages that needed a browser, seconds per rendered page (from the
renderer's timing log) and whether the documents were identical in every run.
Prints Markdown; ``--json`` keeps the raw numbers.

    .venv/bin/python benchmarks/dynamic_bed.py --judge ../shared/datasets

judges every archived page of the benchmark datasets (static pages: none needs a
browser) as ``render=auto`` would from its plain HTML, and reports the share it
would render, by reason — the cost side of the evidence.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from corpuscrawl.evaluation.tables import markdown_table
from tests.crawl_helpers import run_crawl, stat
from tests.dynamic_bed import PATTERN_SPECS, TestBed, score

_RENDER_LOG = re.compile(r"rendered (\S+) in ([\d.]+) s")


def burn() -> None:
    """A CPU-bound process (the load beside the crawl)."""
    x = 0
    while True:
        x = (x * 31 + 7) % 1_000_003


def crawl(bed: TestBed, mode: str, out: Path, extra: list[str]) -> tuple[list[dict], str, float]:
    """One crawl of every pattern of the bed; (documents, log, wall seconds)."""
    seeds = ",".join(bed.url(name) for name in bed.patterns)
    start = time.monotonic()
    docs, log, code = run_crawl(out, f"seeds={seeds}", f"render={mode}", "depth=1",
                                "sitemaps=0", *extra, timeout=900,
                                settings={"LOG_LEVEL": "DEBUG"})
    if code != 0:
        raise RuntimeError(f"crawl failed ({code}): {log[-2000:]}")
    return docs, log, time.monotonic() - start


def signature(docs: list[dict]) -> list[tuple[str, str]]:
    """The documents of a crawl, comparable across runs (ports masked)."""
    masked = [(re.sub(r":\d+/", ":PORT/", d["url"]), d["text"]) for d in docs]
    return sorted(masked)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--load", type=int, default=2, help="CPU-bound processes beside")
    parser.add_argument("--modes", default="never,always,auto")
    parser.add_argument("--patterns", default="", help="comma-separated (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep every crawl's documents and log under DIR (to compare runs)")
    parser.add_argument("--judge", type=Path, default=None,
                        help="judge the archived pages under DIR/*/html/ instead")
    args = parser.parse_args(argv)
    if args.judge:
        print(judge_datasets(args.judge))
        return 0
    names = [n for n in args.patterns.split(",") if n] or list(PATTERN_SPECS)
    modes = args.modes.split(",")
    burners = [multiprocessing.Process(target=burn, daemon=True) for _ in range(args.load)]
    for b in burners:
        b.start()
    rows: dict[tuple[str, str], list] = defaultdict(list)
    totals: dict[str, list] = defaultdict(list)
    sigs: dict[tuple[str, int], list] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                tmp = str(args.keep)
            for run in range(args.runs):
                for mode in modes:
                    with TestBed(seed=args.seed + run, names=names) as bed:
                        out = Path(tmp) / f"{mode}-{run}.jsonl"
                        docs, log, wall = crawl(bed, mode, out, [])
                        scores = score(bed, docs)
                        if args.keep:
                            out.with_suffix(".log").write_text(log, encoding="utf-8")
                    seconds = {bed.pattern_of(u): float(s) for u, s in _RENDER_LOG.findall(log)}
                    for name, s in scores.items():
                        rows[(name, mode)].append((s, seconds.get(name)))
                    pages = stat(log, "corpuscrawl/pages")
                    totals[mode].append({
                        "wall": wall, "pages": pages,
                        "rendered": stat(log, "corpuscrawl/fetch/rendered"),
                        "plain": stat(log, "corpuscrawl/fetch/plain")})
                    for name in names:
                        mine = [d for d in docs if bed.pattern_of(d["url"]) == name]
                        sigs.setdefault((name, mode), []).append(signature(mine))
                    print(f"run {run} {mode}: {len(docs)} docs, {wall:.0f} s", file=sys.stderr)
    finally:
        for b in burners:
            b.terminate()
    print(report(names, modes, rows, totals, sigs, args))
    if args.json:
        args.json.write_text(json.dumps({f"{k[0]}|{k[1]}": [(s.harvested, s.leaked, s.rendered,
                                                             sec) for s, sec in v]
                                         for k, v in rows.items()}, indent=1))
    return 0


def judge_datasets(root: Path) -> str:
    """Share of archived (static) dataset pages render=auto would render, by reason."""
    from collections import Counter

    from corpuscrawl.browse.classifier import load_classifier
    from corpuscrawl.browse.decision import RenderDecider
    from corpuscrawl.html.page import Page, PageError

    classify = load_classifier().predict
    per_set: dict[str, Counter] = defaultdict(Counter)
    for path in sorted(root.glob("*/html/*.htm*")):
        name = path.parent.parent.name
        try:
            page = Page.from_file(path, url=f"http://{name}.example/{path.name}")
        except (PageError, OSError):
            continue
        decision = RenderDecider(classify).after_plain(page)
        per_set[name]["pages"] += 1
        per_set[name]["rendered"] += int(decision.render)
        for kind in decision.kinds:
            per_set[name][kind] += 1
    kinds = sorted({k for c in per_set.values() for k in c} - {"pages", "rendered"})
    rows: list[tuple[str, ...]] = []
    total: Counter[str] = Counter()
    for name, c in sorted(per_set.items()):
        total.update(c)
        rows.append((name, str(c["pages"]), f"{c['rendered'] / c['pages']:.1%}",
                     *(str(c[k]) for k in kinds)))
    rows.append(("all", str(total["pages"]), f"{total['rendered'] / max(1, total['pages']):.1%}",
                 *(str(total[k]) for k in kinds)))
    return "\n".join(markdown_table(["dataset", "pages", "judged to need a browser", *kinds],
                                     rows))


def report(names: list[str], modes: list[str], rows: dict, totals: dict, sigs: dict,
           args: argparse.Namespace) -> str:
    """The Markdown tables."""
    lines = [f"Runs: {args.runs} (seeds {args.seed}..{args.seed + args.runs - 1}), "
             f"{args.load} CPU-bound processes beside each crawl.", ""]
    by_pattern: list[tuple[str, ...]] = []
    for name in names:
        for mode in modes:
            runs = rows[(name, mode)]
            harvested = statistics.mean(s.harvested for s, _ in runs)
            leaked = sum(len(s.leaked) for s, _ in runs)
            rendered = sum(s.rendered for s, _ in runs)
            secs = [sec for _, sec in runs if sec is not None]
            same = len({json.dumps(x) for x in sigs[(name, mode)]}) == 1
            by_pattern.append((name, "yes" if runs[0][0].needs_browser else "no", mode,
                               f"{harvested:.3f}", str(leaked), f"{rendered}/{len(runs)}",
                               f"{statistics.mean(secs) if secs else 0:.2f}",
                               "yes" if same else "NO"))
    lines += markdown_table(["pattern", "needs browser", "mode", "harvested", "leaked",
                             "rendered", "s/rendered page", "same docs every run"], by_pattern)
    by_mode: list[tuple[str, ...]] = []
    for mode in modes:
        all_rows = [s for name in names for s, _ in rows[(name, mode)]]
        need = [s for s in all_rows if s.needs_browser]
        noneed = [s for s in all_rows if not s.needs_browser]
        wall = sum(t["wall"] for t in totals[mode])
        pages = sum(t["pages"] for t in totals[mode])
        by_mode.append((mode, f"{statistics.mean(s.harvested for s in all_rows):.3f}",
                        str(sum(len(s.leaked) for s in all_rows)),
                        f"{sum(s.rendered for s in need)}/{len(need)}",
                        f"{sum(s.rendered for s in noneed)}/{len(noneed)}",
                        f"{wall / max(1, pages):.2f}"))
    lines += ["", *markdown_table(["mode", "harvested (mean over patterns)", "leaks",
                                   "entry pages rendered that needed it",
                                   "rendered that needed no browser",
                                   "s/page (crawl wall / pages)"], by_mode)]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
