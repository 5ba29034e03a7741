"""Two (or more) ``auto`` model files on the held-out pages: the article sets' test split and
wcxb's test part (split by site), with the stratified bootstrap of each against the first.

    CORPUSCRAWL_CACHE=/tmp/cc nice -n 5 .venv/bin/python benchmarks/auto_models.py \\
        shipped=models/auto.skops retrained=/tmp/m/auto.skops --out /tmp/auto_models.md

Whether a retrained model may replace the shipped one is decided on pages neither trained
on: per dataset (the article sets) and per page type (wcxb), summed (pooled) word-LCS F1,
mean per-page F1, pages at F1 < 0.5, and, for every model after the first, the pooled F1
difference to the first with its 95 % interval (documents resampled within each dataset /
page type, :func:`corpuscrawl.evaluation.sampling.bootstrap_difference`) and the pages that
move the difference most.  Every model sees the page's URL, as in a crawl.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from tqdm import tqdm

from corpuscrawl.evaluation.datasets import datasets_root
from corpuscrawl.evaluation.metrics import Score, score, summarize
from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.sampling import bootstrap_difference, influential_pages
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.learned.auto import AutoModel
from corpuscrawl.extract.learned.models import load_model_file
from corpuscrawl.learn.training import SHIPPED_DATASETS
from corpuscrawl.learn.trainset import Doc, cache_dir, documents, package_hash

#: The whole-web dataset, scored per page type.
WHOLE_WEB = "wcxb"


def stratum(doc: Doc) -> str:
    """A page's stratum: ``wcxb:<page type>`` on the whole-web set, else its dataset."""
    if doc.dataset.name == WHOLE_WEB:
        return f"{WHOLE_WEB}:{doc.dataset.page_type(doc.id) or 'other'}"
    return doc.dataset.name


def outputs(path: Path, docs: Sequence[Doc], label: str) -> list[Score]:
    """Scores of ``auto`` loaded from ``path`` on ``docs`` (a failure is an empty answer),
    cached under ``$CORPUSCRAWL_CACHE/auto-models/`` by the model file's and the package's
    hash (a rerun with another model scores only that one)."""
    key = hashlib.sha256(path.read_bytes()).hexdigest()[:16] + "-" + package_hash()
    cached = cache_dir() / "auto-models" / f"{key}.json"
    known = json.loads(cached.read_text(encoding="utf-8")) if cached.is_file() else {}
    extractor = get_extractor("auto", estimator=load_model_file(path, AutoModel))
    out = []
    for doc in tqdm(docs, desc=label, unit="doc", mininterval=5):
        if doc.key not in known:
            try:
                text = extractor.extract(doc.page)
            except Exception:  # scored as an empty answer, as a crawl keeps going
                text = ""
            s = score(text, doc.gold, with_levenshtein=False)
            known[doc.key] = [s.tp, s.fp, s.fn]
            doc.release()
        out.append(Score(*known[doc.key]))
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(known), encoding="utf-8")
    return out


def rows(labels: Sequence[str], scores: dict[str, list[Score]], strata: Sequence[str],
         groups: Sequence[str]) -> list[list[str]]:
    """One row per (group, model): pages, pooled F1, mean F1, pages below 0.5 F1."""
    table = []
    for group in groups:
        index = [i for i, s in enumerate(strata)
                 if group == "all" or s == group or s.startswith(f"{group}:")
                 or (group == "article sets" and not s.startswith(f"{WHOLE_WEB}:"))]
        for label in labels:
            chosen = [scores[label][i] for i in index]
            s = summarize(chosen)
            table.append([group, label, str(len(chosen)), f"{s.f1:.4f}", f"{s.mean_f1:.4f}",
                          str(sum(c.f1 < 0.5 for c in chosen))])
    return table


def difference_sections(labels: list[str], scores: dict[str, list[Score]], strata: list[str],
                        keys: list[str]) -> list[str]:
    """For every model after the first, its pooled F1 difference to the first on the article
    sets and on wcxb, with the 95 % stratified-bootstrap interval and the pages that move it."""
    lines: list[str] = []
    base = labels[0]
    for label in labels[1:]:
        lines += [f"## `{label}` − `{base}`: pooled F1 difference, 95 % stratified bootstrap",
                  "", "| pages | difference | interval | most influential pages |",
                  "|---|---|---|---|"]
        for group in ("article sets", WHOLE_WEB):
            index = [i for i, s in enumerate(strata)
                     if s.startswith(f"{WHOLE_WEB}:") == (group == WHOLE_WEB)]
            if not index:
                continue
            a = [scores[label][i] for i in index]
            b = [scores[base][i] for i in index]
            st = [strata[i] for i in index]
            interval = bootstrap_difference(a, b, st)
            ids = [keys[i] for i in index]
            lines.append(f"| {group} | {interval.observed * 100:+.2f} | "
                         f"{interval.low * 100:+.2f} to {interval.high * 100:+.2f} | "
                         f"{influential_pages(a, b, ids)} |")
        lines.append("")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Score the models, print and write the report; returns the exit code."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("models", nargs="+", metavar="LABEL=FILE")
    p.add_argument("--root", type=Path, help="datasets root (default: the project's)")
    p.add_argument("--datasets", default=",".join((*SHIPPED_DATASETS, WHOLE_WEB)),
                   help="gold datasets under the root (default: the article sets and wcxb)")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    models = dict(m.split("=", 1) for m in args.models)
    root = args.root or datasets_root()
    names = [d.strip() for d in args.datasets.split(",") if d.strip()]
    docs = documents([root / d for d in names], "test")
    strata = [stratum(d) for d in docs]
    scores = {label: outputs(Path(path), docs, label) for label, path in models.items()}
    labels = list(models)
    groups = [*(d for d in names if d != WHOLE_WEB), "article sets",
              *sorted({s for s in strata if ":" in s}), *([WHOLE_WEB] if WHOLE_WEB in names else [])]
    lines = [
        "# `auto` model files on held-out pages", "",
        "    .venv/bin/python benchmarks/auto_models.py " + shlex.join(argv or sys.argv[1:]),
        "",
        f"- run: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {len(docs)} pages: the test part of "
        "each dataset's split (article sets by id, wcxb by site)",
        "- models: " + ", ".join(f"{k} = `{v}`" for k, v in models.items()), "",
        *markdown_table(["pages", "model", "n", "pooled F1", "mean F1", "F1 < 0.5"],
                       rows(labels, scores, strata, groups)), ""]
    lines += difference_sections(labels, scores, strata, [d.key for d in docs])
    report = "\n".join(lines)
    print(report)
    if args.out:
        write_run(args.out, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
