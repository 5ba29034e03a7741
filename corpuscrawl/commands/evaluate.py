"""``corpuscrawl evaluate``: score every method directory of one or more datasets.

    corpuscrawl evaluate ../shared/datasets/cleaneval
    corpuscrawl evaluate ../shared/datasets/cleaneval --methods-dir /tmp/out --ascii
    corpuscrawl evaluate DATASET_DIR --report /tmp/report

Writes ``evaluation.csv`` into each method directory (SPEC §2; format in
:mod:`corpuscrawl.evaluation.scoring`) and prints a comparison table.

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
    p.set_defaults(func=run)


def add_common_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments shared with ``corpuscrawl report``."""
    p.add_argument("datasets", nargs="+", metavar="DATASET_DIR",
                   help="dataset directory (html/ plus clean/ or snippets.jsonl)")
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


def run(args: argparse.Namespace) -> int:
    """Run the command; returns the exit code."""
    try:
        datasets, results = evaluate_all(args, write=True)
    except DatasetError as exc:
        print(f"corpuscrawl evaluate: error: {exc}", file=sys.stderr)
        return 2
    print(format_table(results))
    if not results:
        return 2
    if args.report:
        from corpuscrawl.evaluation.report import write_report

        index = write_report(datasets, results, Path(args.report),
                             methods_dir=args.methods_dir, ascii_only=args.ascii)
        print(f"report: {index}")
    return 0
