"""Cross-validated learned extractors vs base extractors vs peers on every gold document.

    CORPUSCRAWL_CACHE=/tmp/cc-cache .venv/bin/python benchmarks/crossval.py \
        [--folds 5] [--models auto,sequence] [--out benchmarks/results/crossval.md]

Why: the test split (``benchmarks/learned.py``) holds about 430 pages, and
summed F1 weighs pages by their words, so a handful of long pages (a blog
post whose gold keeps 13 000 words of reader comments) can decide whether a
learned extractor leads the best peer by 2 points.  Cross-validation scores
every one of the 2 219 gold documents with a model that never saw it.

How: :func:`corpuscrawl.evaluation.datasets.fold_of` cuts the same hash as the
train/test split into ``--folds`` parts; with 5 folds, fold 0 *is* the test
split and its model is trained on exactly the shipped models' training
documents.  Each fold's model is trained on the other folds with the whole
procedure of ``corpuscrawl train`` (including its own out-of-fold choice of the
decoding parameters), then extracts the fold's documents.  The fixed methods
(base extractors, peers) run once on every document.  Trained fold models are
cached under ``$CORPUSCRAWL_CACHE/crossval`` keyed by a hash of the package's
source, so a re-run after an unrelated interruption does not train again.

What it cannot show: the design choices and hyper-parameters of the learned
extractors were made on the train split (inner validation parts, out-of-fold
predictions of folds 1 … k-1), so those folds are not as untouched as fold 0 (the
per-fold table shows fold 0 separately).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import groupby
from pathlib import Path
from typing import Any

from corpuscrawl.evaluation.datasets import datasets_root, fold_of
from corpuscrawl.evaluation.lead import MARGIN_DEFAULT, pooled, sampling_section
from corpuscrawl.evaluation.lost import format_lost, lost_articles, lost_pages_section
from corpuscrawl.evaluation.methods import PEER_SUFFIX, extractor_method, run_dataset
from corpuscrawl.evaluation.metrics import Score, score, summarize
from corpuscrawl.evaluation.names import CLASSIC_EXTRACTORS, COMPARED, GOLD_DATASETS, PEERS
from corpuscrawl.evaluation.peers import available_peers
from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.learned.models import (
    LearnedModel,
    LegacyModelError,
    find_model_path,
    load_model,
    model_class,
    read_model_file,
)
from corpuscrawl.learn.convert import convert_state
from corpuscrawl.learn.model_files import save_model
from corpuscrawl.learn.training import build_extractor, fit_model
from corpuscrawl.learn.trainset import (
    BaseOutputs,
    Doc,
    cache_dir,
    documents,
    package_hash,
)

REPO = Path(__file__).resolve().parent.parent

#: Learned models cross-validated by default (the hybrids are the thesis' baselines, in
#: ``benchmarks/learned.py``; here they would triple the run time).
MODELS_DEFAULT = ("auto", "sequence")
#: ``--page-wide-share``: ``auto`` clearing page-wide class/id keyword bits.
PAGE_WIDE = "auto-page-wide"
FOLDS_DEFAULT = 5


def fold_model(name: str, fold: int, folds: int, train: Sequence[Doc],
               directory: Path) -> LearnedModel:
    """Model ``name`` trained on ``train`` (the documents outside ``fold``), cached as
    ``<name>-fold<k>of<n>-<documents>docs.skops`` under ``directory`` (a model file fitted
    on the same documents by the same code, e.g. the shipped model for fold 0 of 5, may be
    put there)."""
    cached = f"{name}-fold{fold}of{folds}-{len(train)}docs"
    try:
        return load_model(cached, model_class(name), directory)
    except LegacyModelError:  # a fold model cached by an earlier version: same estimators
        path = find_model_path(cached, directory)
        model = convert_state(read_model_file(path), path)
        save_model(cached, model, directory)
        return model
    except FileNotFoundError:
        pass
    t0 = time.monotonic()
    model = fit_model(name, train, None, show_progress=True).predictor()
    print(f"{name} fold {fold}: trained on {len(train)} documents in "
          f"{time.monotonic() - t0:.0f} s", file=sys.stderr)
    save_model(cached, model, directory)
    return model


def main(argv: list[str] | None = None) -> int:
    """Run the cross-validation and write the Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "crossval.md"))
    parser.add_argument("--folds", type=int, default=FOLDS_DEFAULT)
    parser.add_argument("--models", default=",".join(MODELS_DEFAULT))
    parser.add_argument("--datasets", default=",".join(GOLD_DATASETS))
    parser.add_argument("--peers", default=",".join(PEERS), help="peer tools, or none")
    parser.add_argument("--limit", type=int, default=0,
                        help="at most N documents per dataset (a quick check, not a result)")
    parser.add_argument("--dump", default="", help="also write per-document scores (JSONL)")
    parser.add_argument("--page-wide-share", type=float, default=None,
                        help="also score each auto fold model with the class/id keyword bits "
                             "this share of a page's blocks carry cleared (method "
                             f"{PAGE_WIDE!r}; option page_wide_share of auto)")
    args = parser.parse_args(argv)
    if args.folds < 2:
        parser.error("--folds must be at least 2")
    started = time.monotonic()
    root = datasets_root()
    ds_names = args.datasets.split(",")
    docs: list[Doc] = []
    for ds_name in ds_names:
        found = documents([root / ds_name], "all")
        docs += found[: args.limit] if args.limit else found
    if not docs:
        parser.error(f"no gold documents under {root} for {args.datasets}")
    folds = {d.key: fold_of(d.id, args.folds) for d in docs}
    models = [m for m in args.models.split(",") if m]
    base = BaseOutputs(CLASSIC_EXTRACTORS)
    peers, notes = available_peers([p for p in args.peers.split(",") if p and p != "none"])
    directory = cache_dir() / "crossval" / package_hash()
    variants = [PAGE_WIDE] if args.page_wide_share is not None and "auto" in models else []
    methods = [*models, *variants, *base.names, *(p.name + PEER_SUFFIX for p in peers)]
    scores: dict[str, dict[str, list[Score]]] = {m: {} for m in methods}
    per_fold: dict[str, dict[int, list[Score]]] = {m: {} for m in methods}
    doc_ids: list[str] = []
    dump = open(args.dump, "w", encoding="utf-8") if args.dump else None  # noqa: SIM115
    # Fold 0 last: its training documents are the train split, so a `corpuscrawl train` of
    # the same code running alongside gives its model (copied into the cache, see
    # fold_model) instead of a second identical fit.
    for fold in [*range(1, args.folds), 0]:
        held_out = [d for d in docs if folds[d.key] == fold]
        train = [d for d in docs if folds[d.key] != fold]
        extractors = {m: build_extractor(m, fold_model(m, fold, args.folds, train, directory))
                      for m in models}
        if variants:  # the same fold model, its page-wide keyword bits cleared
            extractors[PAGE_WIDE] = get_extractor(
                "auto", estimator=extractors["auto"].estimator,
                page_wide_share=args.page_wide_share)
        runs = {m: extractor_method(ex) for m, ex in extractors.items()}
        runs.update({p.name + PEER_SUFFIX: p.extract for p in peers})
        held_texts: dict[str, dict[str, str | None]] = {}
        for _, group in groupby(held_out, key=lambda d: d.dataset.name):
            group = list(group)
            run = run_dataset(group[0].dataset, [d.id for d in group], runs, progress=False)
            for doc in group:
                held_texts[doc.key] = {m: run.texts[m][doc.id] for m in runs}
        for doc in held_out:
            doc_ids.append(doc.key)
            texts = {m: text or "" for m, text in held_texts[doc.key].items()}
            for n in base.names:
                texts[n] = base.get(doc, n)
            row: dict[str, Any] = {"doc": doc.key, "fold": fold}
            for m in methods:
                s = score(texts[m], doc.gold, with_levenshtein=False)
                scores[m].setdefault(doc.dataset.name, []).append(s)
                per_fold[m].setdefault(fold, []).append(s)
                row[m] = [s.tp, s.fp, s.fn]
            if dump:
                dump.write(json.dumps(row) + "\n")
            doc.release()
        print(f"fold {fold}: {len(held_out)} documents scored", file=sys.stderr)
    if dump:
        dump.close()
    write_report(Path(args.out), args, ds_names, [*models, *variants], methods, scores,
                 per_fold, doc_ids,
                 notes, time.monotonic() - started)
    return 0


def command_line(args: argparse.Namespace) -> str:
    """The command of this run, its options that differ from the defaults."""
    return ((f"CORPUSCRAWL_CACHE={os.environ['CORPUSCRAWL_CACHE']} "
             if os.environ.get("CORPUSCRAWL_CACHE") else "")
            + ".venv/bin/python benchmarks/crossval.py"
            + (f" --folds {args.folds}" if args.folds != FOLDS_DEFAULT else "")
            + (f" --models {args.models}" if args.models != ",".join(MODELS_DEFAULT) else "")
            + (f" --limit {args.limit}" if args.limit else "")
            + (f" --page-wide-share {args.page_wide_share}"
               if args.page_wide_share is not None else ""))


def who_is_first(models: list[str], methods: list[str], peer_names: list[str],
                 ds_names: list[str], scores: dict) -> list[str]:
    """Per learned model: its pooled lead over the best peer and the datasets it is not
    first on."""
    lines: list[str] = []
    lines += ["## Who is first", ""]
    for m in models:
        behind = []
        for ds in ds_names:
            best = max(methods, key=lambda x, ds=ds: summarize(scores[x].get(ds, [])).f1)
            if best != m:
                gap = summarize(scores[best][ds]).f1 - summarize(scores[m][ds]).f1
                behind.append(f"{ds} ({best} ahead by {gap * 100:.2f} points)")
        lead = summarize(pooled(scores[m])).f1 - max(summarize(pooled(scores[p])).f1
                                                      for p in peer_names) if peer_names else 0
        lines.append(f"- `{m}`: pooled lead over the best peer {lead * 100:+.2f} points; "
                     + ("first on every dataset" if not behind
                        else "not first on " + "; ".join(behind)))
    return lines


def fold_table(folds: int, shown: list[str], methods: list[str], per_fold: dict) -> list[str]:
    """The pooled summed F1 of each fold for the models and peers shown."""
    lines: list[str] = []
    lines += ["", "## Pooled summed F1 by fold", ""]
    rows = []
    for fold in range(folds):
        label = f"{fold} (test split)" if fold == 0 and folds == FOLDS_DEFAULT else str(fold)
        rows.append([label, str(len(per_fold[methods[0]].get(fold, []))),
                     *(f"{summarize(per_fold[m].get(fold, [])).f1:.4f}" for m in shown)])
    lines += markdown_table(["fold", "docs", *shown], rows) + [""]
    return lines


def dataset_tables(ds_names: list[str], order: list[str], methods: list[str],
                   scores: dict) -> list[str]:
    """One P/R/F1 table per dataset, methods in ``order``."""
    lines: list[str] = []
    lines += ["## By dataset, P/R/F1", ""]
    for ds in ds_names:
        lines += [f"### {ds}", ""]
        ds_lost = lost_articles({m: scores[m].get(ds, []) for m in methods})
        rows = []
        for m in order:
            s = summarize(scores[m].get(ds, []))
            rows.append([m, str(s.documents), f"{s.precision:.4f}", f"{s.recall:.4f}",
                         f"{s.f1:.4f}", f"{s.mean_f1:.4f}", format_lost(ds_lost.get(m))])
        lines += markdown_table(["method", "docs", "P", "R", "F1", "mean F1", "lost articles"],
                                rows) + [""]
    return lines


def write_report(out: Path, args, ds_names: list[str], models: list[str], methods: list[str],
                 scores, per_fold, doc_ids: list[str], notes: list[str], wall: float) -> None:
    """Write the run's Markdown report to ``out``."""
    order = sorted(methods, key=lambda m: -summarize(pooled(scores[m])).f1)
    peer_names = [m for m in methods if m.endswith("(peer)")]
    sizes = {ds: len(scores[methods[0]].get(ds, [])) for ds in ds_names}
    command = command_line(args)
    lines = [f"# Learned extractors vs base extractors vs peers ({args.folds}-fold "
             "cross-validation)", "",
             "Produced by (from the repository root):", "", "    " + command, "",
             f"- run: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M')} UTC, {wall / 60:.1f} min "
             f"wall; {platform.platform()}, Python {platform.python_version()}",
             f"- documents: every gold document, {len(doc_ids)} in all ("
             + ", ".join(f"{ds} {n}" for ds, n in sizes.items()) + "); each scored by the "
             f"model of its fold, trained on the other {args.folds - 1} folds with the whole "
             "`corpuscrawl train` procedure (`corpuscrawl.evaluation.datasets.fold_of`; fold 0 "
             "is the train/test split's test part)",
             "- scoring: word-level LCS; P/R/F1 from TP/FP/FN summed over documents; mean F1 "
             "= per-document average",
             "- caveat: the learned extractors' design and hyper-parameters were chosen on the "
             "train split (inner validation parts, out-of-fold predictions), which is folds 1 … "
             f"{args.folds - 1}; fold 0 is the only fold no choice looked at", ""]
    lines += notes and ["Notes: " + "; ".join(notes), ""] or []
    lost = lost_articles({m: pooled(scores[m]) for m in methods})
    lines += ["## Summed F1 by dataset", "",
              "lost articles = pages where the method scores F1 < 0.5 while another method of "
              "this table reaches ≥ 0.8 (`corpuscrawl.evaluation.lost`), with the gold words it "
              "missed on them (out of fold for the learned methods).", ""]
    rows = []
    for m in order:
        p = summarize(pooled(scores[m]))
        rows.append([m, *(f"{summarize(scores[m].get(ds, [])).f1:.4f}" for ds in ds_names),
                     f"**{p.f1:.4f}**", f"{p.mean_f1:.4f}", format_lost(lost.get(m)),
                     f"{lost[m].per_200:.2f}"])
    lines += markdown_table(["method", *ds_names, "pooled F1", "pooled mean F1",
                             "lost articles", "lost per 200 pages"], rows) + [""]
    lines += who_is_first(models, methods, peer_names, ds_names, scores)
    lines += fold_table(args.folds, [*models, *peer_names], methods, per_fold)
    # the pooled scores run dataset by dataset; the ids in scoring order run fold by fold
    by_dataset = [k for ds in ds_names for k in doc_ids if k.split("/", 1)[0] == ds]
    lines += sampling_section(scores, by_dataset, COMPARED, MARGIN_DEFAULT,
                              f"all {len(doc_ids)} documents")
    lines += lost_pages_section({m: pooled(scores[m]) for m in methods}, by_dataset, models)
    lines += dataset_tables(ds_names, order, methods, scores)
    write_run(out, lines)


if __name__ == "__main__":
    sys.exit(main())
