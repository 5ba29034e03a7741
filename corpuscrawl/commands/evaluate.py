"""``corpuscrawl evaluate``: score every method directory of one or more datasets.

    corpuscrawl evaluate ../shared/datasets/cleaneval
    corpuscrawl evaluate ../shared/datasets/cleaneval --methods-dir /tmp/out --ascii
    corpuscrawl evaluate DATASET_DIR --report /tmp/report
    corpuscrawl evaluate ../shared/datasets/dragnet ../shared/datasets/cleaneval --compare auto,bte

Writes ``evaluation.csv`` into each method directory (format in
:mod:`corpuscrawl.evaluation.scoring`) and prints a comparison table.
``--compare A,B`` adds A's summed-F1 lead over B per gold dataset and over all
of them, with a stratified bootstrap interval and the documents that move the
lead most (:mod:`corpuscrawl.evaluation.sampling`): on a few hundred pages one
long page can decide a ranking.

``--methods-dir DIR`` scores method directories that live outside the dataset
(the shared datasets are read-only; ``extract -o DIR`` writes there): for a
dataset named N they are looked for in ``DIR/N/`` when that is a directory of
method directories, else in ``DIR`` itself (so ``extract -o DIR`` output is found
even when a method shares the dataset's name, as ``readability`` does).  Exit codes: 0 done, 2 bad arguments or nothing to score.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from corpuscrawl.evaluation.datasets import Dataset, DatasetError, is_method_dir
from corpuscrawl.evaluation.metrics import Score
from corpuscrawl.evaluation.sampling import bootstrap_difference, influential_pages
from corpuscrawl.evaluation.scoring import MethodEvaluation, evaluate_dataset
from corpuscrawl.evaluation.tables import format_table


def register(subparsers: Any) -> None:
    """Add the ``evaluate`` subcommand."""
    p = subparsers.add_parser(
        "evaluate", help="score method directories against gold text (writes evaluation.csv)",
        description="Score every method directory of each DATASET_DIR against its clean/ gold "
                    "text (or snippets.jsonl) and write evaluation.csv into each.",
    )
    add_common_arguments(p)
    p.add_argument("--report", metavar="OUT_DIR",
                   help="also write the HTML/PNG report into OUT_DIR (see `corpuscrawl report`)")
    p.add_argument("--compare", metavar="A,B",
                   help="print method A's summed-F1 lead over method B with a bootstrap "
                        "interval and the documents that move it most (gold datasets)")
    p.set_defaults(func=run)


def add_common_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments shared with ``corpuscrawl report``."""
    p.add_argument("datasets", nargs="+", metavar="DATASET_DIR",
                   help="dataset directory (html/ plus clean/ or snippets.jsonl); report: "
                        "or one crawl feed (CORPUS.jsonl) or summary")
    p.add_argument("--ascii", action="store_true",
                   help="drop characters above 127 before splitting into words (the thesis' setup)")
    p.add_argument("--methods-dir", metavar="DIR",
                   help="look for method directories in DIR/<dataset name>/ or DIR "
                        "instead of inside the dataset")
    p.add_argument("--extracted-only", action="store_true",
                   help="score only documents a method has an output for (partial runs); "
                        "by default a missing output counts as an empty extraction")


def methods_root(dataset: Dataset, methods_dir: str | None) -> Path | None:
    """Where the method directories of ``dataset`` are (None = inside the dataset)."""
    if not methods_dir:
        return None
    base = Path(methods_dir)
    per_dataset = base / dataset.name
    if per_dataset.is_dir() and not is_method_dir(per_dataset):
        return per_dataset
    return base


def evaluate_all(args: argparse.Namespace, write: bool) -> tuple[list[Dataset],
                                                                   list[MethodEvaluation]]:
    """Score every dataset given on the command line (raises DatasetError on a bad one)."""
    datasets = [Dataset(Path(d)) for d in args.datasets]
    results: list[MethodEvaluation] = []
    for ds in datasets:
        root = methods_root(ds, args.methods_dir)
        if not ds.has_gold and not ds.has_snippets:
            raise DatasetError(f"{ds.path}: no clean/ and no snippets.jsonl: nothing to score against")
        found = evaluate_dataset(ds, root, ascii_only=args.ascii, write=write,
                                 extracted_only=args.extracted_only)
        if not found:
            where = root or ds.path
            print(f"corpuscrawl: no method directories (with *.txt) in {where}", file=sys.stderr)
        results.extend(found)
    return datasets, results


def compare_lines(results: list[MethodEvaluation], a: str, b: str) -> list[str]:
    """A's summed-F1 lead over B per gold dataset and pooled (ValueError when A or B is
    missing from a gold dataset)."""
    pairs: dict[str, tuple[list[Score], list[Score], list[str]]] = {}
    gold = [ev for ev in results if ev.kind == "gold"]
    for ds in dict.fromkeys(ev.dataset for ev in gold):
        scored = {ev.method: ev for ev in gold if ev.dataset == ds}
        for name in (a, b):
            if name not in scored:
                raise ValueError(f"--compare: no method {name!r} for dataset {ds} "
                                 f"(have: {', '.join(sorted(scored)) or 'none'})")
        of_b = {d.doc: d.score for d in scored[b].docs}
        both = [d for d in scored[a].docs if d.doc in of_b]
        pairs[ds] = ([d.score for d in both], [of_b[d.doc] for d in both],  # type: ignore[misc]
                     [d.doc for d in both])
    if not pairs:
        raise ValueError("--compare: no gold dataset to compare on (snippet data is not compared)")
    lines = [f"{a} vs {b}: lead in summed F1 points, 95 % interval of a stratified bootstrap "
             "over documents, share of resamples where it leads, documents moving it most"]
    groups = list(pairs.items())
    if len(pairs) > 1:
        groups.append(("all", (
            [s for sa, _, _ in pairs.values() for s in sa],
            [s for _, sb, _ in pairs.values() for s in sb],
            [f"{ds}/{doc}" for ds, (_, _, ids) in pairs.items() for doc in ids])))
    for name, (sa, sb, ids) in groups:
        strata = [i.split("/", 1)[0] for i in ids] if name == "all" else [name] * len(ids)
        d = bootstrap_difference(sa, sb, strata)
        moving = influential_pages(sa, sb, ids)
        lines.append(f"  {name}: {d.observed * 100:+.2f} ({d.low * 100:+.2f} to "
                     f"{d.high * 100:+.2f}; ahead in {d.share_at_least(0.0):.0%}; "
                     f"{len(ids)} docs) {moving}")
    return lines


def run(args: argparse.Namespace) -> int:
    """Run the command; returns the exit code."""
    compared: list[str] = []
    if args.compare:
        compared = [m.strip() for m in args.compare.split(",")]
        if len(compared) != 2 or not all(compared) or compared[0] == compared[1]:
            print("corpuscrawl evaluate: error: --compare takes two different method names, "
                  f"A,B (got {args.compare!r})", file=sys.stderr)
            return 2
    try:
        datasets, results = evaluate_all(args, write=True)
    except DatasetError as exc:
        print(f"corpuscrawl evaluate: error: {exc}", file=sys.stderr)
        return 2
    print(format_table(results))
    if not results:
        return 2
    if compared:
        try:
            print("\n" + "\n".join(compare_lines(results, *compared)))
        except ValueError as exc:
            print(f"corpuscrawl evaluate: error: {exc}", file=sys.stderr)
            return 2
    if args.report:
        from corpuscrawl.evaluation.html_report import write_report

        index = write_report(datasets, results, Path(args.report),
                             methods_dir=args.methods_dir, ascii_only=args.ascii)
        print(f"report: {index}")
    return 0
