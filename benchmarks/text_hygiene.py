"""What a change to text rendering or normalisation does to extraction quality, per extractor.

    # outputs and scores of one code version (the test split of every gold-text dataset)
    PYTHONPATH=OLD_TREE .venv/bin/python benchmarks/text_hygiene.py run --out /tmp/before.json
    PYTHONPATH=$PWD     .venv/bin/python benchmarks/text_hygiene.py run --out /tmp/after.json
    # the side-by-side table
    .venv/bin/python benchmarks/text_hygiene.py compare /tmp/before.json /tmp/after.json \\
        --out benchmarks/results/text_hygiene.md

``run`` scores every registered extractor that builds without options on the
test part of :func:`corpuscrawl.evaluation.datasets.split` with the project's
scorer (word-LCS, TP/FP/FN per page) and keeps per-page counts, so ``compare``
can give pooled F1 (summed counts over all pages of all datasets), per-page
mean F1, per-dataset F1 and the pages that moved most.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from corpuscrawl.evaluation.datasets import list_datasets, split
from corpuscrawl.evaluation.metrics import Score, score
from corpuscrawl.evaluation.runner import (
    available_specs,
    build_extractors,
    method_name,
    run_on_page,
)
from corpuscrawl.evaluation.tables import markdown_table


def run(args: argparse.Namespace) -> None:
    """Score every buildable extractor on the test split; write per-page counts as JSON."""
    specs, notes = available_specs(args.extractors.split(",") if args.extractors else None)
    for note in notes:
        print(note, file=sys.stderr)
    extractors = build_extractors(specs)
    names = [method_name(e) for e in extractors]
    wanted = set(args.datasets.split(",")) if args.datasets else None
    pages: dict[str, dict[str, list[int]]] = {n: {} for n in names}
    start = time.time()
    for ds in list_datasets(args.root):
        if not ds.has_gold or (wanted and ds.name not in wanted):
            continue
        _, test = split(ds.ids())
        for doc in test:
            gold = ds.gold(doc)
            if gold is None:
                continue
            outputs = run_on_page(extractors, ds.load_page(doc), doc)
            for name, text in outputs.items():
                s = score(text or "", gold, with_levenshtein=False)
                pages[name][f"{ds.name}/{doc}"] = [s.tp, s.fp, s.fn]
        print(f"{ds.name}: {len(test)} pages, {time.time() - start:.0f} s", file=sys.stderr)
    Path(args.out).write_text(json.dumps({"extractors": names, "pages": pages}), encoding="utf-8")


def _f1(counts: list[list[int]]) -> float:
    tp = sum(c[0] for c in counts)
    fp = sum(c[1] for c in counts)
    fn = sum(c[2] for c in counts)
    return Score(tp, fp, fn).f1


def _mean_f1(counts: list[list[int]]) -> float:
    return sum(Score(*c).f1 for c in counts) / len(counts) if counts else 0.0


def compare(args: argparse.Namespace) -> None:
    """Side-by-side table of two ``run`` files (pooled, mean and per-dataset F1; moved pages)."""
    before = json.loads(Path(args.before).read_text(encoding="utf-8"))
    after = json.loads(Path(args.after).read_text(encoding="utf-8"))
    names = [n for n in after["extractors"] if n in before["pages"]]
    datasets = sorted({key.split("/")[0] for n in names for key in after["pages"][n]})
    rows: list[tuple[str, ...]] = []
    moved: list[tuple[float, str, str, float, float]] = []
    for n in names:
        b, a = before["pages"][n], after["pages"][n]
        keys = sorted(set(a) & set(b))
        pooled_b, pooled_a = _f1([b[k] for k in keys]), _f1([a[k] for k in keys])
        mean_b, mean_a = _mean_f1([b[k] for k in keys]), _mean_f1([a[k] for k in keys])
        per_ds = []
        for d in datasets:
            dk = [k for k in keys if k.startswith(d + "/")]
            per_ds.append(f"{_f1([a[k] for k in dk]) - _f1([b[k] for k in dk]):+.4f}")
        up = down = 0
        for k in keys:
            fb, fa = Score(*b[k]).f1, Score(*a[k]).f1
            if abs(fa - fb) > 1e-9:
                up += fa > fb
                down += fa < fb
                moved.append((fa - fb, n, k, fb, fa))
        rows.append((n, str(len(keys)), f"{pooled_b:.4f}", f"{pooled_a:.4f}",
                     f"{pooled_a - pooled_b:+.4f}", f"{mean_b:.4f}", f"{mean_a:.4f}",
                     f"{mean_a - mean_b:+.4f}", *per_ds, f"{up}/{down}"))
    lines = markdown_table(["method", "pages", "pooled F1 before", "after", "Δ", "mean F1 before",
                            "after", "Δ", *(f"{d} Δ" for d in datasets),
                            "pages changed (up/down)"], rows, right_from=1)
    moved.sort()
    head = ["method", "page", "F1 before", "after", "Δ"]
    worst = markdown_table(head, [(n, k, f"{fb:.3f}", f"{fa:.3f}", f"{d:+.3f}")
                                  for d, n, k, fb, fa in moved[:args.top]], right_from=2)
    best = markdown_table(head, [(n, k, f"{fb:.3f}", f"{fa:.3f}", f"{d:+.3f}")
                                 for d, n, k, fb, fa in moved[::-1][:args.top]], right_from=2)
    text = "\n".join([*lines, "", f"Largest drops (at most {args.top}):", "", *worst, "",
                      f"Largest gains (at most {args.top}):", "", *best, ""])
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    print(text)


def main(argv: list[str] | None = None) -> None:
    """Command line: ``run`` or ``compare``."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="score every extractor on the test split")
    r.add_argument("--out", required=True)
    r.add_argument("--root", help="datasets root (default: CORPUSCRAWL_DATASETS or ../shared/datasets)")
    r.add_argument("--datasets", help="comma-separated dataset names (default: all gold-text sets)")
    r.add_argument("--extractors", help="comma-separated extractor names (default: all buildable)")
    c = sub.add_parser("compare", help="compare two run files")
    c.add_argument("before")
    c.add_argument("after")
    c.add_argument("--out")
    c.add_argument("--top", type=int, default=12)
    args = p.parse_args(argv)
    (run if args.cmd == "run" else compare)(args)


if __name__ == "__main__":
    main()
