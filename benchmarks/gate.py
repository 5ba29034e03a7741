"""Evaluation gate: the shipped extractors on a fixed, digest-pinned sample of the gold sets.

    .venv/bin/python benchmarks/gate.py            # check against benchmarks/baselines.json
    .venv/bin/python benchmarks/gate.py --pin      # measure and rewrite the baselines deliberately

The sample is, for every gold-text dataset under the datasets root, the test part of
its shared split (:meth:`Dataset.split`: by id for the article sets, by site for
wcxb), ordered by a hash of the id and cut at ``--per-dataset`` pages.  Each page is
parsed once and every extractor runs on it; scoring is
:mod:`corpuscrawl.evaluation.metrics` (summed word-LCS F1) and lost pages are
:mod:`corpuscrawl.evaluation.lost` among the extractors of the gate.

The check fails (exit 1) when a pooled F1 drops by more than the pinned F1 tolerance,
when a dataset's lost pages grow by more than the pinned lost-page tolerance, when a
pinned extractor or dataset is missing, or when an input digest (the sampled pages and
their gold) or a model file's digest differs from the pinned one: figures measured on
other inputs or other models say nothing about these.  After a deliberate change
(a retrained model, a new extractor) re-pin with ``--pin`` and commit the file with the
figures in the commit message.  Speed (ms per page) is reported, never gated.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import sys
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from corpuscrawl.evaluation.datasets import Dataset, list_datasets
from corpuscrawl.evaluation.lost import lost_flags
from corpuscrawl.evaluation.metrics import Score, score, summarize
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract import get_extractor
from corpuscrawl.resources.shipped import models_dir

HERE = Path(__file__).resolve().parent
BASELINES = HERE / "baselines.json"
RESULTS = HERE / "results" / "gate.md"
#: ``auto`` (the default) and the classic extractors the package ships.
EXTRACTORS = ("auto", "boilerpipe-article", "boilerpipe-default", "bte", "energy", "justext",
              "linkblocks", "newsfeed", "readability")
PER_DATASET = 60
#: Extraction is deterministic; the margins absorb lxml/numpy version noise, not regressions.
F1_TOLERANCE = 0.005
LOST_TOLERANCE = 1
MODEL_SUFFIXES = (".skops", ".json")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sample_ids(ds: Dataset, per_dataset: int) -> list[str]:
    """The gate's pages of one dataset: test part of its split, by id hash, first ``per_dataset``."""
    with_gold = [i for i in ds.ids() if ds.gold_path(i).is_file()]
    test = ds.split(with_gold)[1]
    return sorted(test, key=lambda i: _sha256(i.encode()))[:per_dataset]


def input_digest(ds: Dataset, ids: Sequence[str]) -> str:
    """One digest of the sampled pages' ids, HTML bytes and gold bytes."""
    h = hashlib.sha256()
    for i in ids:
        h.update(i.encode() + b"\0" + _sha256(ds.html_files[i].read_bytes()).encode()
                 + _sha256(ds.gold_path(i).read_bytes()).encode())
    return h.hexdigest()


def model_digests() -> dict[str, str]:
    """File name -> SHA-256 of every shipped model file (``.skops``, ``.json``)."""
    directory = models_dir()
    return {p.name: _sha256(p.read_bytes()) for p in sorted(directory.iterdir())
            if p.is_file() and p.suffix in MODEL_SUFFIXES}


# ---- worker side --------------------------------------------------------------------

_extractors: dict[str, Any] = {}


def _init(names: Sequence[str]) -> None:
    _extractors.clear()
    _extractors.update((n, get_extractor(n)) for n in names)


def _score_page(task: tuple[str, str]) -> tuple[str, str, dict[str, tuple[int, int, int]],
                                                 dict[str, float]]:
    path, doc = task
    ds = Dataset(Path(path))
    page, gold = ds.load_page(doc), ds.gold(doc) or ""
    scores: dict[str, tuple[int, int, int]] = {}
    seconds: dict[str, float] = {}
    for name, ex in _extractors.items():
        start = time.process_time()
        text = ex.extract(page) or ""
        seconds[name] = time.process_time() - start
        s = score(text, gold, with_levenshtein=False)
        scores[name] = (s.tp, s.fp, s.fn)
    return ds.name, doc, scores, seconds


# ---- measuring ----------------------------------------------------------------------

def measure(root: str | None, names: Sequence[str], per_dataset: int, jobs: int) -> dict[str, Any]:
    """Figures and input digests of the gate's sample (the shape of ``baselines.json``)."""
    datasets = [d for d in list_datasets(root) if (d.path / "clean").is_dir()]
    samples = {d.name: sample_ids(d, per_dataset) for d in datasets}
    tasks = [(str(d.path), i) for d in datasets for i in samples[d.name]]
    with multiprocessing.get_context("spawn").Pool(jobs, _init, (list(names),)) as pool:
        results = pool.map(_score_page, tasks, chunksize=4)
    per: dict[str, dict[str, dict[str, Score]]] = defaultdict(lambda: defaultdict(dict))
    cpu: dict[str, float] = defaultdict(float)
    for ds_name, doc, scores, seconds in results:
        for name, (tp, fp, fn) in scores.items():
            per[ds_name][name][doc] = Score(tp, fp, fn)
            cpu[name] += seconds[name]
    figures: dict[str, dict[str, dict[str, float | int]]] = defaultdict(dict)
    for d in datasets:
        ids = samples[d.name]
        by_method = {n: [per[d.name][n][i] for i in ids] for n in names}
        flags = lost_flags(by_method)
        for n in names:
            figures[n][d.name] = {"f1": round(summarize(by_method[n]).f1, 4), "lost": sum(flags[n])}
    return {
        "datasets": {d.name: {"pages": len(samples[d.name]), "digest": input_digest(d, samples[d.name])}
                     for d in datasets},
        "models": model_digests(),
        "figures": dict(figures),
        "ms_per_page": {n: round(1000 * cpu[n] / max(len(tasks), 1), 2) for n in names},
    }


def compare(pinned: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """Every reason the current figures fail the pinned baselines (empty when they pass)."""
    tol = pinned["tolerance"]
    problems = [f"input digest of {name} changed ({spec['pages']} pages pinned): re-pin deliberately"
                for name, spec in pinned["datasets"].items()
                if current["datasets"].get(name) != spec]
    problems += [f"model file {name} changed or missing: re-pin after checking its figures"
                 for name, digest in pinned["models"].items() if current["models"].get(name) != digest]
    problems += [f"model file {name} is new: re-pin" for name in current["models"]
                 if name not in pinned["models"]]
    for method, per_ds in pinned["figures"].items():
        for ds_name, fig in per_ds.items():
            now = current["figures"].get(method, {}).get(ds_name)
            if now is None:
                problems.append(f"{method} on {ds_name}: not measured")
                continue
            if now["f1"] < fig["f1"] - tol["f1"]:
                problems.append(f"{method} on {ds_name}: F1 {now['f1']:.4f} < pinned {fig['f1']:.4f} "
                                f"- {tol['f1']}")
            if now["lost"] > fig["lost"] + tol["lost"]:
                problems.append(f"{method} on {ds_name}: {now['lost']} lost pages > pinned "
                                f"{fig['lost']} + {tol['lost']}")
    return problems


def report(current: Mapping[str, Any], command: str, seconds: float) -> str:
    """The results file: current figures, sample and the command that measured them."""
    names = list(current["figures"])
    ds_names = list(current["datasets"])
    rows = [(n, *(f"{current['figures'][n][d]['f1']:.3f} / {current['figures'][n][d]['lost']}"
                  for d in ds_names), f"{current['ms_per_page'][n]:.1f}") for n in names]
    pages = ", ".join(f"{d} {spec['pages']}" for d, spec in current["datasets"].items())
    lines = ["# Evaluation gate: pooled F1 / lost pages of the shipped extractors", "",
             "Produced by (from the repository root):", "", f"    {command}", "",
             f"Sample: the test part of each gold set's shared split, first pages by id hash ({pages}); "
             "pinned with input and model digests in benchmarks/baselines.json. "
             f"Cell: summed word-LCS F1 / lost pages (F1 < 0.5 where another extractor of the gate "
             f"reaches 0.8). ms/page: CPU time of the extractor alone (parse excluded). "
             f"Wall time of the run: {seconds:.0f} s.", ""]
    lines += markdown_table(["extractor", *ds_names, "ms/page"], rows, right_from=1)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Measure; with ``--pin`` rewrite the baselines and the results file, else compare."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pin", action="store_true", help="rewrite benchmarks/baselines.json")
    p.add_argument("--baselines", type=Path, default=BASELINES)
    p.add_argument("--root", help="datasets root (default: CORPUSCRAWL_DATASETS or ../shared/datasets)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--per-dataset", type=int, default=None,
                   help=f"pages per dataset when pinning (default {PER_DATASET}; a check uses the pinned)")
    args = p.parse_args(argv)
    pinned = None if args.pin else json.loads(args.baselines.read_text(encoding="utf-8"))
    names = list(pinned["figures"]) if pinned else list(EXTRACTORS)
    per_dataset = args.per_dataset or (pinned["per_dataset"] if pinned else PER_DATASET)
    start = time.monotonic()
    current = measure(args.root, names, per_dataset, args.jobs)
    seconds = time.monotonic() - start
    if args.pin:
        pinned = {"per_dataset": per_dataset, "tolerance": {"f1": F1_TOLERANCE, "lost": LOST_TOLERANCE},
                  **{k: current[k] for k in ("datasets", "models", "figures")}}
        args.baselines.write_text(json.dumps(pinned, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        command = ".venv/bin/python benchmarks/gate.py --pin" + (
            f" --per-dataset {per_dataset}" if per_dataset != PER_DATASET else "")
        RESULTS.write_text(report(current, command, seconds), encoding="utf-8")
        print(f"pinned {args.baselines} in {seconds:.0f} s")
        return 0
    problems = compare(pinned, current)
    print(report(current, ".venv/bin/python benchmarks/gate.py", seconds))
    for line in problems:
        print("FAIL:", line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
