"""Learned extractors vs base extractors vs peers on the test split of every gold dataset.

    .venv/bin/python benchmarks/learned.py [--out benchmarks/results/learned.md] [--limit N]

Every method runs on the *test* part of :func:`corpuscrawl.evaluation.datasets.split`
(the part no model trains or tunes on) of each gold-text dataset.  Methods run
interleaved, document by document, in one process, so machine load (shared
CPUs) affects them alike; docs/s of corpuscrawl extractors include parsing the
HTML into a Page, peers include their own parsing (decoding the file is not
timed).  Scores: word-level LCS, P/R/F1 from counts summed over documents and
the per-document mean F1.  Peers come from ``corpuscrawl.evaluation.peers``.

Out of domain: every page of the snippet datasets (``--snippets``, the trafilatura
evaluation pages, mostly German) is run too and scored by its with/without snippets
(:mod:`corpuscrawl.evaluation.snippets`).  No model trains on them (training reads
gold-text datasets only), so they show how the learned models carry over to sites and
languages the English gold sets do not have.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from corpuscrawl.evaluation.datasets import Dataset, datasets_root
from corpuscrawl.evaluation.lead import MARGIN_DEFAULT, pooled, sampling_section
from corpuscrawl.evaluation.lost import format_lost, lost_articles, lost_pages_section
from corpuscrawl.evaluation.methods import build_methods, run_dataset
from corpuscrawl.evaluation.metrics import Score, score, summarize
from corpuscrawl.evaluation.names import (
    CLASSIC_EXTRACTORS,
    COMPARED,
    GOLD_DATASETS,
    LEARNED_EXTRACTORS,
    PEERS,
    SNIPPET_DATASETS,
    SPEED_REFERENCE,
)
from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.snippets import (
    SnippetScore,
    score_snippets,
    summarize_snippets,
)
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.learned.auto import AutoModel
from corpuscrawl.extract.learned.models import load_model_file
from corpuscrawl.html.page import Page
from corpuscrawl.learn.trainset import documents

REPO = Path(__file__).resolve().parent.parent

DATASETS = GOLD_DATASETS
BASE = CLASSIC_EXTRACTORS
LEARNED = LEARNED_EXTRACTORS
#: The thesis' base extractors whose best page score is the oracle selector's.
ORACLE_BASE = ("bte", "readability", "boilerpipe-default", "boilerpipe-article")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write the Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "learned.md"))
    parser.add_argument("--limit", type=int, default=0, help="at most N test docs per dataset")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--auto-model", action="append", default=[], metavar="LABEL=FILE",
                        help="also run auto with this model file, as method LABEL (compare "
                             "model versions in one run); repeatable")
    parser.add_argument("--snippets", default=",".join(SNIPPET_DATASETS),
                        help="snippet datasets run whole as out-of-domain pages ('' for none)")
    parser.add_argument("--dump", default="",
                        help="also write per-document [tp, fp, fn] of every method (JSONL), "
                             "e.g. for benchmarks/lost_causes.py")
    args = parser.parse_args(argv)
    started = time.monotonic()
    root = datasets_root()
    names = [*LEARNED, *BASE, *PEERS]
    methods, notes = build_methods(names, PEERS)
    for spec in args.auto_model:
        label, _, path = spec.partition("=")
        if not label or not path:
            parser.error(f"--auto-model wants LABEL=FILE, got {spec!r}")
        # Built as the registry builds "auto", so its text is normalised the same way.
        extractor = get_extractor("auto", estimator=load_model_file(path, AutoModel))
        methods[label] = (lambda ex: lambda html, url: ex.extract(Page.from_html(html, url)))(
            extractor)
    scores: dict[str, dict[str, list[Score]]] = {m: {} for m in methods}
    seconds: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    choices: Counter[str] = Counter()
    selector = get_extractor("hybrid-a") if "hybrid-a" in methods else None
    oracle: dict[str, list[Score]] = {}
    n_docs = 0
    doc_ids: list[str] = []
    dump = open(args.dump, "w", encoding="utf-8") if args.dump else None  # noqa: SIM115
    for ds_name in args.datasets.split(","):
        docs = documents([root / ds_name], "test")
        if args.limit:
            docs = docs[: args.limit]
        if not docs:
            continue
        dataset = docs[0].dataset
        run = run_dataset(dataset, [doc.id for doc in docs], methods)
        seconds.update(run.seconds)
        failures.update(run.failures)
        urls = dataset.urls
        for doc in docs:
            n_docs += 1
            doc_ids.append(doc.key)
            base_scores = []
            row: dict[str, object] = {"doc": doc.key}
            for name in methods:
                s = score(run.texts[name][doc.id] or "", doc.gold, with_levenshtein=False)
                scores[name].setdefault(ds_name, []).append(s)
                row[name] = [s.tp, s.fp, s.fn]
                if name in ORACLE_BASE:
                    base_scores.append(s)
            if selector is not None:
                page = Page.from_html(dataset.read_html(doc.id), urls.get(doc.id, ""))
                choices[selector.choose(page)] += 1
            if base_scores:
                oracle.setdefault(ds_name, []).append(max(base_scores, key=lambda s: s.f1))
            if dump:
                dump.write(json.dumps(row) + "\n")
            doc.release()
        print(f"{ds_name}: {len(docs)} test documents done", file=sys.stderr)
    if dump:
        dump.close()
    snippets = run_snippets(root, [n for n in args.snippets.split(",") if n], methods,
                            args.limit, notes)
    write_report(Path(args.out), args, methods, scores, seconds, failures, choices, oracle,
                 n_docs, notes, time.monotonic() - started, doc_ids, snippets)
    return 0


def run_snippets(root: Path, names: list[str], methods: dict, limit: int, notes: list[str]
                 ) -> dict[str, tuple[dict[str, list[SnippetScore]], Counter[str], Counter[str]]]:
    """Every method on every page of the snippet datasets ``names``: per dataset, the
    per-method snippet scores, seconds and failures."""
    out = {}
    for ds_name in names:
        ds = Dataset(root / ds_name)
        if not ds.has_snippets:
            notes.append(f"{ds_name} has no snippets.jsonl, not run")
            continue
        snippets = ds.snippets
        ids = [i for i in ds.ids() if i in snippets]
        if limit:
            ids = ids[:limit]
        run = run_dataset(ds, ids, methods)
        scores = {m: [score_snippets(run.texts[m][doc_id] or "", snippets[doc_id])
                      for doc_id in ids] for m in methods}
        out[ds_name] = (scores, run.seconds, run.failures)
        print(f"{ds_name}: {len(ids)} snippet documents done", file=sys.stderr)
    return out


def snippet_section(ds_name: str, scores: dict[str, list[SnippetScore]],
                    seconds: Counter[str], failures: Counter[str]) -> list[str]:
    """The out-of-domain table of one snippet dataset, best F1 first."""
    summaries = {m: summarize_snippets(v) for m, v in scores.items()}
    order = sorted(summaries, key=lambda m: -summaries[m].f1)
    docs = max((s.documents for s in summaries.values()), default=0)
    rows = []
    for m in order:
        s = summaries[m]
        rows.append([m, str(s.documents), f"{s.precision:.4f}", f"{s.recall:.4f}",
                     f"**{s.f1:.4f}**", f"{s.mean_f1:.4f}", f"{s.with_found_share:.4f}",
                     f"{s.without_absent_share:.4f}",
                     f"{s.documents / seconds[m]:.1f}" if seconds[m] else "-", str(failures[m])])
    return [f"## Out of domain: {ds_name} snippet pages (all {docs}, never trained on)", "",
            "Scored by the dataset's snippets: a \"with\" snippet found is a true positive, "
            "missing a false negative; a \"without\" snippet found is a false positive "
            "(whitespace-normalised substring match, `corpuscrawl.evaluation.snippets`). The "
            "learned models never saw these pages; trafilatura's authors evaluate on them, so "
            "for that peer they are not out of domain.", ""] + markdown_table(
        ["method", "docs", "P", "R", "F1", "mean F1", "with found", "without absent", "docs/s",
         "failures"], rows) + [""]


def command_line(args: argparse.Namespace) -> str:
    """The command of this run, its options that differ from the defaults."""
    return ((f"CORPUSCRAWL_CACHE={os.environ['CORPUSCRAWL_CACHE']} "
             if os.environ.get("CORPUSCRAWL_CACHE") else "")
            + ".venv/bin/python benchmarks/learned.py"
            + (f" --limit {args.limit}" if args.limit else "")
            + "".join(f" --auto-model {shlex.quote(m)}" for m in args.auto_model)
            + (f" --snippets '{args.snippets}'" if args.snippets != ",".join(SNIPPET_DATASETS)
               else ""))


def summary_table(ds_names: list[str], order: list[str], scores: dict, seconds: dict,
                  lost: dict) -> list[str]:
    """Every method's summed F1 per dataset, pooled F1, lost articles and docs/s (with its
    ratio to the speed reference), methods in ``order``."""
    header = ["method", *ds_names, "pooled F1", "pooled mean F1", "lost articles", "docs/s",
              "docs/s ratio"]
    reference = seconds.get(SPEED_REFERENCE, 0.0)
    rows = []
    for m in order:
        cells = [m]
        for ds in ds_names:
            cells.append(f"{summarize(scores[m].get(ds, [])).f1:.4f}")
        p = summarize(pooled(scores[m]))
        cells += [f"**{p.f1:.4f}**", f"{p.mean_f1:.4f}", format_lost(lost.get(m)),
                  f"{len(pooled(scores[m])) / seconds[m]:.1f}" if seconds[m] else "-",
                  f"{reference / seconds[m]:.2f}" if seconds[m] and reference else "-"]
        rows.append(cells)
    return markdown_table(header, rows) + [""]


def dataset_tables(ds_names: list[str], order: list[str], methods: list[str], scores: dict,
                   failures: dict, lost: dict) -> list[str]:
    """One P/R/F1 table per dataset and one pooled, methods in ``order``."""
    lines: list[str] = []
    for ds in [*ds_names, "pooled"]:
        lines += [f"## {ds}", ""]
        ds_lost = lost if ds == "pooled" else lost_articles(
            {m: scores[m].get(ds, []) for m in methods})
        rows = []
        for m in order:
            s = summarize(pooled(scores[m]) if ds == "pooled" else scores[m].get(ds, []))
            rows.append([m, str(s.documents), f"{s.precision:.4f}", f"{s.recall:.4f}",
                         f"{s.f1:.4f}", f"{s.mean_precision:.4f}", f"{s.mean_recall:.4f}",
                         f"{s.mean_f1:.4f}", format_lost(ds_lost.get(m)), str(failures[m])])
        lines += markdown_table(["method", "docs", "P", "R", "F1", "mean P", "mean R", "mean F1",
                                 "lost articles", "failures"], rows) + [""]
    return lines


def write_report(out: Path, args, methods, scores, seconds, failures, choices, oracle,
                 n_docs, notes, wall, doc_ids=(), snippets=None) -> None:
    """Write the run's Markdown report to ``out``."""
    ds_names = args.datasets.split(",")
    order = sorted(methods, key=lambda m: -summarize(pooled(scores[m])).f1)
    lines = ["# Learned extractors vs base extractors vs peers (test split)", "",
             "Produced by (from the repository root):", "",
             "    " + command_line(args), "",
             f"- run: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M')} UTC, {wall / 60:.1f} min "
             f"wall; {platform.platform()}, Python {platform.python_version()}; "
             "machine shared with other jobs (2 CPUs), so docs/s are comparable only within "
             "this run",
             f"- documents: the test part of `corpuscrawl.evaluation.datasets.split` (by id, "
             f"20 %) of each dataset, {n_docs} in all; models trained on the train part only",
             "- scoring: word-level LCS; P/R/F1 from TP/FP/FN summed over documents; mean F1 "
             "= per-document average",
             "- docs/s: methods interleaved document by document in one process; ours include "
             "parsing the page, peers their own parsing; every method gets the page's URL "
             "(from the dataset's manifest, as `benchmarks/extraction.py` does)", ""]
    lines += notes and ["Notes: " + "; ".join(notes), ""] or []
    lost = lost_articles({m: pooled(scores[m]) for m in methods})
    lines += ["## Summed F1 by dataset", "",
              "lost articles = pages where the method scores F1 < 0.5 while another method "
              "of this table reaches ≥ 0.8 (`corpuscrawl.evaluation.lost`), with the gold "
              f"words it missed on them; docs/s ratio = docs/s over {SPEED_REFERENCE}'s in "
              "this run.", ""]
    lines += summary_table(ds_names, order, scores, seconds, lost)
    lines += dataset_tables(ds_names, order, methods, scores, failures, lost)
    if len(doc_ids) == n_docs:
        lines += lost_pages_section({m: pooled(scores[m]) for m in methods}, list(doc_ids),
                                    COMPARED)
    if choices:
        total = sum(choices.values())
        lines += ["## What hybrid-a chose on the test split", "",
                  ", ".join(f"{k} {v} ({v / total:.0%})" for k, v in choices.most_common()), ""]
    if oracle:
        o = summarize(pooled(oracle))
        lines += ["Oracle selector (best of the four thesis base extractors per document, "
                  f"chosen with the gold text): pooled F1 {o.f1:.4f}; "
                  + ", ".join(f"{ds} {summarize(v).f1:.4f}" for ds, v in oracle.items()), ""]
    if len(doc_ids) == n_docs:
        lines += sampling_section(scores, list(doc_ids), COMPARED, MARGIN_DEFAULT)
    for ds_name, (snip_scores, snip_seconds, snip_failures) in (snippets or {}).items():
        lines += snippet_section(ds_name, snip_scores, snip_seconds, snip_failures)
    write_run(out, lines)


if __name__ == "__main__":
    sys.exit(main())
