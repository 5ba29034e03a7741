"""``auto`` trained with snippet pages as partial labels vs the shipped ``auto`` and the peers.

    CORPUSCRAWL_CACHE=/tmp/cc-cache .venv/bin/python benchmarks/snippet_training.py \
        [--weight 1] [--model-dir DIR] [--out benchmarks/results/snippet_training.md]

``corpuscrawl train auto --snippets DIR`` adds the blocks that a snippet dataset's
"with"/"without" snippets cover (train part of the project's split) to ``auto``'s
training.  This benchmark trains that model on the shipped gold datasets plus the
trafilatura snippet pages (or loads it from ``--model-dir``) and runs it beside the
shipped ``auto`` (gold pages only) and the two strongest peers on

* the test part of the trafilatura snippet pages (never trained on by either model),
  scored by their snippets, and
* the test split of every gold dataset, scored by word LCS as ``benchmarks/learned.py``.

The trained model is kept under ``$CORPUSCRAWL_CACHE/snippet-auto/<package hash>-w<weight>``
so a rerun of unchanged code only extracts.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from learned import DATASETS, fmt_table, pooled, timed, write_keeping_analysis  # noqa: E402
from peers import available_peers  # noqa: E402

from corpuscrawl.evaluation.datasets import datasets_root  # noqa: E402
from corpuscrawl.evaluation.metrics import Score, score, summarize  # noqa: E402
from corpuscrawl.evaluation.snippets import SnippetScore, score_snippets, summarize_snippets  # noqa: E402
from corpuscrawl.extract.auto import SNIPPET_WEIGHT_DEFAULT, AutoExtractor  # noqa: E402
from corpuscrawl.extract.training import train  # noqa: E402
from corpuscrawl.extract.trainset import (  # noqa: E402
    cache_dir,
    documents,
    package_hash,
    snippet_documents,
)
from corpuscrawl.page import Page  # noqa: E402

SNIPPETS = "trafilatura"
PEERS = ("trafilatura", "readability-lxml")
ADAPTED = "auto + snippets"


def model_dir(weight: float, gold: list[str], snippets: str) -> Path:
    """Where the snippet-trained model of this code, data and weight is kept."""
    data = "+".join([*gold, snippets])
    return cache_dir() / "snippet-auto" / f"{package_hash()}-{data}-w{weight:g}"


def ensure_model(gold: list[Path], snippets: Path, weight: float, directory: Path) -> float:
    """Train ``auto`` with the snippet pages into ``directory`` unless it holds a model;
    returns the seconds spent training (0 when reused)."""
    if (directory / "auto.skops").is_file():
        return 0.0
    started = time.monotonic()
    print(f"training {ADAPTED} (weight {weight:g}) into {directory}", file=sys.stderr)
    train("auto", gold, models_dir=directory, evaluate=False, show_progress=True,
          snippet_dirs=[snippets], snippet_weight=weight)
    return time.monotonic() - started


def _runner(extractor: AutoExtractor):
    """``extractor`` as a benchmark method: (html, url) -> text, parsing included."""
    return lambda html, url: extractor.extract(Page.from_html(html, url))


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and write the Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weight", type=float, default=SNIPPET_WEIGHT_DEFAULT,
                        help="snippet row weight of the trained model")
    parser.add_argument("--model-dir", help="use the auto model in DIR instead of training")
    parser.add_argument("--limit", type=int, default=0, help="at most N pages per dataset")
    parser.add_argument("--datasets", default=",".join(DATASETS),
                        help="gold datasets (training and test split)")
    parser.add_argument("--snippets", default=SNIPPETS, help="the snippet dataset")
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results"
                                             / "snippet_training.md"))
    args = parser.parse_args(argv)
    started = time.monotonic()
    root = datasets_root()
    gold_names = [d for d in args.datasets.split(",") if d]
    directory = (Path(args.model_dir) if args.model_dir
                 else model_dir(args.weight, gold_names, args.snippets))
    train_seconds = 0.0 if args.model_dir else ensure_model(
        [root / d for d in gold_names], root / args.snippets, args.weight, directory)
    adapted = AutoExtractor(models_dir=directory)
    shipped = AutoExtractor()
    methods = {"auto": shipped, ADAPTED: adapted}
    runs = {m: _runner(ex) for m, ex in methods.items()}
    peers, notes = available_peers(list(PEERS))
    runs.update({f"{p.name} (peer)": p.extract for p in peers})
    seconds: Counter[str] = Counter()
    failures: Counter[str] = Counter()

    snippet_scores: dict[str, list[SnippetScore]] = {m: [] for m in runs}
    empty: Counter[str] = Counter()
    snippet_docs = snippet_documents([root / args.snippets], "test")
    if args.limit:
        snippet_docs = snippet_docs[: args.limit]
    for doc in snippet_docs:
        html, url = doc.dataset.read_html(doc.id), doc.dataset.urls.get(doc.id, "")
        for name, run in runs.items():
            text = timed(name, run, html, url, seconds, failures)
            empty[name] += not text.strip()
            snippet_scores[name].append(score_snippets(text, doc.snippets))
    print(f"{args.snippets}: {len(snippet_docs)} snippet test pages done", file=sys.stderr)

    gold_scores: dict[str, dict[str, list[Score]]] = {m: {} for m in runs}
    for ds_name in gold_names:
        docs = documents([root / ds_name], "test")
        if args.limit:
            docs = docs[: args.limit]
        for doc in docs:
            html, url = doc.dataset.read_html(doc.id), doc.dataset.urls.get(doc.id, "")
            for name, run in runs.items():
                text = timed(name, run, html, url, seconds, failures)
                gold_scores[name].setdefault(ds_name, []).append(
                    score(text, doc.gold, with_levenshtein=False))
            doc.release()
        print(f"{ds_name}: {len(docs)} test documents done", file=sys.stderr)

    write_keeping_analysis(Path(args.out), report(
        args, gold_names, adapted, directory, train_seconds, notes, snippet_scores, empty, gold_scores,
        failures, time.monotonic() - started))
    return 0


def report(args, gold_names: list[str], adapted: AutoExtractor, directory: Path, train_seconds: float,
           notes: list[str], snippet_scores, empty, gold_scores, failures, wall: float
           ) -> list[str]:
    """The Markdown lines of the generated part of the report."""
    params = adapted.state.get("params", {})
    counts = adapted.state.get("label_counts", {})
    command = ((f"CORPUSCRAWL_CACHE={os.environ['CORPUSCRAWL_CACHE']} "
                if os.environ.get("CORPUSCRAWL_CACHE") else "")
               + ".venv/bin/python benchmarks/snippet_training.py"
               + (f" --weight {args.weight:g}" if args.weight != SNIPPET_WEIGHT_DEFAULT else "")
               + (f" --model-dir {args.model_dir}" if args.model_dir else "")
               + (f" --limit {args.limit}" if args.limit else "")
               + (f" --datasets {args.datasets}" if args.datasets != ",".join(DATASETS) else "")
               + (f" --snippets {args.snippets}" if args.snippets != SNIPPETS else ""))
    lines = ["# `auto` trained with snippet pages (`train auto --snippets`)", "",
             "Produced by (from the repository root):", "", "    " + command, "",
             f"- run: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M')} UTC, {wall / 60:.1f} min "
             f"wall ({train_seconds / 60:.1f} min of it training); {platform.platform()}, "
             f"Python {platform.python_version()}",
             f"- `{ADAPTED}`: `auto` trained on the train split of {', '.join(gold_names)} plus "
             f"the train part of the {args.snippets} snippet pages ({params.get('snippet_pages')} "
             f"pages, blocks labelled by their snippets: {counts.get('snippet_content')} "
             f"content, {counts.get('snippet_boilerplate')} boilerplate; row weight "
             f"{params.get('snippet_weight')}); λ {adapted.state.get('lambda')}, bias "
             f"{adapted.state.get('bias')} (chosen on the gold pages' out-of-fold decoding, "
             f"F1 {params.get('out_of_fold_f1')}); model in `{directory}`",
             "- `auto`: the shipped model (`models/auto.skops`, gold pages only)", ""]
    lines += notes and ["Notes: " + "; ".join(notes), ""] or []
    summaries = {m: summarize_snippets(v) for m, v in snippet_scores.items()}
    order = sorted(summaries, key=lambda m: -summaries[m].f1)
    lines += [f"## {args.snippets} snippet pages: the test part (never trained on)", "",
              "Scored by the pages' snippets (`corpuscrawl.evaluation.snippets`): a \"with\" "
              "snippet found is a true positive, missing a false negative; a \"without\" "
              "snippet found a false positive. trafilatura's authors evaluate on these pages.",
              ""]
    lines += fmt_table(["method", "pages", "P", "R", "F1", "mean F1", "empty outputs",
                        "failures"],
                       [[m, str(summaries[m].documents), f"{summaries[m].precision:.4f}",
                         f"{summaries[m].recall:.4f}", f"**{summaries[m].f1:.4f}**",
                         f"{summaries[m].mean_f1:.4f}", str(empty[m]), str(failures[m])]
                        for m in order]) + [""]
    order = sorted(gold_scores, key=lambda m: -summarize(pooled(gold_scores[m])).f1)
    lines += ["## Gold datasets: the test split (word LCS, summed F1)", ""]
    rows = []
    for m in order:
        p = summarize(pooled(gold_scores[m]))
        rows.append([m, *(f"{summarize(gold_scores[m].get(ds, [])).f1:.4f}" for ds in gold_names),
                     f"**{p.f1:.4f}**", f"{p.mean_f1:.4f}"])
    lines += fmt_table(["method", *gold_names, "pooled F1", "pooled mean F1"], rows) + [""]
    return lines


if __name__ == "__main__":
    sys.exit(main())
