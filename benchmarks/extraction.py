"""Benchmark every corpuscrawl extractor and the peer extractors on every dataset.

    .venv/bin/python benchmarks/extraction.py                      # full run
    .venv/bin/python benchmarks/extraction.py --datasets cleaneval --limit 50 --peers none
    .venv/bin/python benchmarks/extraction.py --split test --out /tmp/test-split.md

Same documents and same scorer (:mod:`corpuscrawl.evaluation`) for everyone:
summed word-LCS precision/recall/F1, per-document mean F1, and documents per
second, all measured in one process in one run.

Fairness of the timing: each page is decoded once (not timed); every method gets
the decoded HTML string and parses it itself (timed): a corpuscrawl extractor
through :meth:`~corpuscrawl.html.page.Page.from_html`, a peer its own way.  The run
loop, the timed call and the scoring are :mod:`corpuscrawl.evaluation`'s
(:func:`~corpuscrawl.evaluation.methods.run_dataset`,
:func:`~corpuscrawl.evaluation.scoring.evaluate_texts`).

Extractors are discovered from the registry at run time; those that cannot be
built without options (``template``, trained models not present) are skipped
and listed.  The results file keeps anything below its notes marker when it is
regenerated, so hand-written analysis survives re-runs.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import random
import shlex
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from corpuscrawl.evaluation.datasets import Dataset, datasets_root, list_datasets, split
from corpuscrawl.evaluation.lcs import lcs_length, levenshtein
from corpuscrawl.evaluation.lost import LostArticles, format_lost
from corpuscrawl.evaluation.methods import extractor_method, run_dataset
from corpuscrawl.evaluation.peers import available_peers
from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.runner import available_specs, build_extractors, method_name
from corpuscrawl.evaluation.scoring import MethodEvaluation, evaluate_texts, scored_ids
from corpuscrawl.evaluation.snippets import SnippetSummary
from corpuscrawl.evaluation.tables import lost_by_method, markdown_table

DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "extraction.md"
#: The issue's speed bar for the scorer: sequences of 20,000 words each.
LCS_BENCH_WORDS = 20_000
#: Vocabulary of the random texts for the scorer timing (a realistic share of repeated words).
LCS_BENCH_VOCAB = 3_000


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", help="datasets root (default: CORPUSCRAWL_DATASETS or ../shared/datasets)")
    p.add_argument("--datasets", help="comma-separated dataset names (default: all)")
    p.add_argument("--extractors", help="comma-separated corpuscrawl extractor names "
                                        "(default: every one buildable without options)")
    p.add_argument("--peers", help="comma-separated peers, or 'none' (default: all installed)")
    p.add_argument("--limit", type=int, help="at most N documents per dataset (first by id)")
    p.add_argument("--split", choices=("all", "train", "test"), default="all",
                   help="part of the shared train/test split (corpuscrawl.evaluation.datasets.split)")
    p.add_argument("--ascii", action="store_true", help="ASCII-only scoring (thesis setup)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"results file (default {DEFAULT_OUT})")
    return p.parse_args(argv)


def measure_scorer_speed(repeats: int = 3) -> tuple[float, float]:
    """Median seconds of lcs_length and levenshtein on two random 20k-word texts."""
    rnd = random.Random(7)
    vocab = [f"w{i}" for i in range(LCS_BENCH_VOCAB)]
    a = [rnd.choice(vocab) for _ in range(LCS_BENCH_WORDS)]
    b = [rnd.choice(vocab) for _ in range(LCS_BENCH_WORDS)]
    lcs_times, lev_times = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        lcs_length(a, b)
        lcs_times.append(time.perf_counter() - t)
        t = time.perf_counter()
        levenshtein(a, b)
        lev_times.append(time.perf_counter() - t)
    return statistics.median(lcs_times), statistics.median(lev_times)


def choose_ids(ds: Dataset, part: str, limit: int | None) -> list[str]:
    ids = scored_ids(ds)
    if part != "all":
        train, test = split(ids)
        ids = test if part == "test" else train
    return ids[:limit] if limit is not None else ids


def _command(argv: list[str] | None) -> str:
    """The command line that produced this run (as typed, or reconstructed for main(argv))."""
    if argv is None:
        return shlex.join(getattr(sys, "orig_argv", [sys.executable, *sys.argv]))
    return shlex.join(["python", "benchmarks/extraction.py", *argv])


def _f(x: float) -> str:
    return f"{x:.3f}"


Evaluations = dict[tuple[str, str], MethodEvaluation]


def summary_table(by_key: Evaluations, gold_names: list[str], snip_names: list[str],
                  methods: list[str], seconds: dict[tuple[str, str], float],
                  lost: dict[tuple[str, str], LostArticles], peer_names: set[str]) -> list[str]:
    """Every method's F1 per dataset, macro and mean F1, lost articles and docs/s, best
    macro F1 first."""
    names = [*gold_names, *snip_names]
    header = ["method", *gold_names, *(f"{n} (snippets)" for n in snip_names),
              "macro F1 (gold sets)", "mean F1 (gold docs)", "lost articles", "docs/s"]
    rows: list[list[str]] = []

    def macro(m: str) -> float:
        return statistics.fmean(by_key[n, m].summary.f1 for n in gold_names) if gold_names else 0.0

    for m in sorted(methods, key=lambda m: -macro(m)):
        docs = sum(by_key[n, m].summary.documents for n in names)
        secs = sum(seconds[n, m] for n in names)
        label = m + (" (peer)" if m in peer_names else "")
        cells = [_f(by_key[n, m].summary.f1) for n in names if n in gold_names]
        cells += [_f(by_key[n, m].summary.f1) for n in snip_names]
        gold_docs = [d.score for n in gold_names for d in by_key[n, m].docs]
        mean_f1 = statistics.fmean(x.f1 for x in gold_docs) if gold_docs else 0.0
        lost_m = [lost[n, m] for n in gold_names if (n, m) in lost]
        total = LostArticles(sum(x.pages for x in lost_m), sum(x.gold_words for x in lost_m),
                             sum(x.documents for x in lost_m))
        rows.append([label, *cells, _f(macro(m)), _f(mean_f1), format_lost(total),
                     f"{docs / secs if secs else 0:.1f}"])
    return markdown_table(header, rows, right_from=1)


def dataset_table(n: str, snippets: bool, by_key: Evaluations, methods: list[str],
                  seconds: dict[tuple[str, str], float], failures: dict[tuple[str, str], int],
                  lost: dict[tuple[str, str], LostArticles], peer_names: set[str]) -> list[str]:
    """One dataset's table: every method's precision, recall, F1, mean F1, lost articles
    (snippet shares on a snippet set), docs/s and failures, best F1 first."""
    cols = ["method", "docs", "precision", "recall", "F1", "mean F1"]
    cols += ["with found", "without absent"] if snippets else ["lost articles"]
    cols += ["docs/s", "failures"]
    rows = []
    for m in sorted(methods, key=lambda m: -by_key[n, m].summary.f1):
        s = by_key[n, m].summary
        label = m + (" (peer)" if m in peer_names else "")
        row = [label, str(s.documents), _f(s.precision), _f(s.recall), _f(s.f1), _f(s.mean_f1)]
        if isinstance(s, SnippetSummary):
            row += [_f(s.with_found_share), _f(s.without_absent_share)]
        else:
            row.append(format_lost(lost.get((n, m))))
        secs = seconds[n, m]
        row += [f"{s.documents / secs if secs else 0:.1f}", str(failures[n, m])]
        rows.append(row)
    return markdown_table(cols, rows, right_from=1)


def render_results(*, command: str, when: str, machine: str, versions: list[str],
                   scorer: tuple[float, float, int], split: str, ascii_only: bool,
                   limit: int | None, evaluations: list[MethodEvaluation],
                   seconds: dict[tuple[str, str], float], failures: dict[tuple[str, str], int],
                   methods: list[str], notes: list[str], elapsed: float,
                   peer_names: set[str]) -> str:
    """The run's Markdown report."""
    lcs_s, lev_s, n_words = scorer
    by_key = {(ev.dataset, ev.method): ev for ev in evaluations}
    names = sorted({ev.dataset for ev in evaluations})
    gold_names = [n for n in names if not isinstance(by_key[n, methods[0]].summary, SnippetSummary)]
    snip_names = [n for n in names if n not in gold_names]
    out = [
        "# Extraction benchmark",
        "",
        "Produced by (from the repository root):",
        "",
        f"    {command}",
        "",
        f"- run: {when}, {elapsed / 60:.1f} min wall time; machine: {machine}",
        f"- documents: split `{split}`" + (f", first {limit} per dataset" if limit else "")
        + f"; scoring: word-level LCS, {'ASCII-only' if ascii_only else 'Unicode'} words, "
        "P/R/F1 from TP/FP/FN summed over documents, mean F1 = per-document average; "
        "snippet data: P/R/F1 from snippet counts (found \"with\" = TP, missing = FN, "
        "found \"without\" = FP)",
        "- docs/s: one process, same run; corpuscrawl extractors include the lxml parse of "
        "the page, peers include their own parsing; decoding the file is not timed",
        "- peers (benchmark-only): " + (", ".join(versions) or "none"),
        "",
        "## Scorer speed",
        "",
        f"Exact word-level LCS of two random {n_words:,}-word texts: **{lcs_s:.3f} s**; "
        f"word-level Levenshtein distance: **{lev_s:.3f} s** (bit-parallel, "
        "corpuscrawl/evaluation/lcs.py; median of 3, same run).",
        "",
        "## F1 by dataset (summed counts)",
        "",
    ]
    lost = lost_by_method(evaluations)
    out += ["Lost articles = pages where the method scores F1 < 0.5 while another method "
            "of the same dataset's table reaches ≥ 0.8 (`corpuscrawl.evaluation.lost`), "
            "summed over the gold sets, with the gold words it missed on them.", ""]
    out += summary_table(by_key, gold_names, snip_names, methods, seconds, lost, peer_names)
    for n in names:
        out += ["", f"## {n}" + (" (snippets)" if n in snip_names else ""), ""]
        out += dataset_table(n, n in snip_names, by_key, methods, seconds, failures, lost,
                             peer_names)
    if notes:
        out += ["", "## Not run", ""] + [f"- {note}" for note in notes]
    return "\n".join(out) + "\n"


def chosen_datasets(root: str | None, wanted: str | None) -> list[Dataset] | None:
    """The datasets with gold text or snippets under ``root``, only those named in
    ``wanted`` (comma-separated) when given; None (after saying why) when one is unknown."""
    datasets = [d for d in list_datasets(datasets_root(root)) if d.has_gold or d.has_snippets]
    if wanted:
        names = wanted.split(",")
        unknown = sorted(set(names) - {d.name for d in datasets})
        if unknown:
            print(f"unknown datasets {unknown}; known: {[d.name for d in datasets]}", file=sys.stderr)
            return None
        datasets = [d for d in datasets if d.name in names]
    return datasets


def main(argv: list[str] | None = None) -> int:
    """Run every method on every chosen dataset and write the report to ``--out``."""
    args = parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    datasets = chosen_datasets(args.root, args.datasets)
    if datasets is None:
        return 2
    specs, notes = available_specs(args.extractors.split(",") if args.extractors else None)
    extractors = build_extractors(specs)
    peer_names = None if args.peers is None else ([] if args.peers == "none" else args.peers.split(","))
    peers, peer_notes = available_peers(peer_names)
    notes += peer_notes
    lcs_s, lev_s = measure_scorer_speed()
    print(f"scorer: LCS {lcs_s:.3f} s, Levenshtein {lev_s:.3f} s on {LCS_BENCH_WORDS} x "
          f"{LCS_BENCH_WORDS} words")

    evaluations: list[MethodEvaluation] = []
    seconds: dict[tuple[str, str], float] = {}
    failures: dict[tuple[str, str], int] = {}
    runs = {method_name(ex): extractor_method(ex) for ex in extractors}
    runs.update({p.name: p.extract for p in peers})
    methods = list(runs)
    started = time.time()
    for ds in datasets:
        ids = choose_ids(ds, args.split, args.limit)
        run = run_dataset(ds, ids, runs)
        for m in methods:
            evaluations.append(evaluate_texts(ds, m, run.texts[m], ids=ids, ascii_only=args.ascii))
            seconds[ds.name, m] = run.seconds[m]
            failures[ds.name, m] = run.failures[m]
    elapsed = time.time() - started

    text = render_results(
        command=_command(argv),
        when=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        machine=f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        versions=[f"{p.name} {p.version}" for p in peers],
        scorer=(lcs_s, lev_s, LCS_BENCH_WORDS),
        split=args.split, ascii_only=args.ascii, limit=args.limit,
        evaluations=evaluations, seconds=seconds, failures=failures, methods=methods,
        notes=notes, elapsed=elapsed, peer_names={p.name for p in peers},
    )
    write_run(args.out, text.rstrip("\n").split("\n"))
    for ev in evaluations:
        s = ev.summary
        extra = (f" with={s.with_found_share:.3f} without-absent={s.without_absent_share:.3f}"
                 if isinstance(s, SnippetSummary) else "")
        print(f"{ev.dataset:16} {ev.method:20} P={s.precision:.3f} R={s.recall:.3f} "
              f"F1={s.f1:.3f} meanF1={s.mean_f1:.3f}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
