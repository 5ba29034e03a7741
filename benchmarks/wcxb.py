"""Whole-web extraction: every method on WCXB by page type, out of fold, grouped by site.

    CORPUSCRAWL_CACHE=/tmp/cc-cache nice -n 5 .venv/bin/python benchmarks/wcxb.py
    .venv/bin/python benchmarks/wcxb.py --part test --auto-model retrained=/tmp/m/auto.skops

WCXB's dev folder (``<datasets>/wcxb``: 1,358 pages of seven page types, each page's
``page_type`` and ``domain`` in ``manifest.jsonl``).  ``--part`` picks the pages: ``all``,
or the ``train`` / ``test`` part of the dataset's split *by site*
(:meth:`~corpuscrawl.evaluation.datasets.Dataset.split`: all of a domain's pages on one
side), which is the part a model trained with wcxb never saw.  The shipped ``auto`` never
trained on any wcxb page, so for it every page is held out.

Per page type and pooled: summed word-LCS F1 (:mod:`corpuscrawl.evaluation.metrics`),
mean per-page F1, and lost pages (F1 < 0.5 on a page where another method of the run
reaches ≥ 0.8, :mod:`corpuscrawl.evaluation.lost`); for each corpuscrawl method, its
lost pages by cause (nothing extracted; part of the content: precision ≥ 0.5, recall
< 0.5; too much: recall ≥ 0.5, precision < 0.5; the wrong part: both < 0.5); and the
docs/s of every method on the same pages in the same process, with the ratio of the
default extractor's to ``trafilatura`` ``fast=True``'s.

Outputs are cached (``$CORPUSCRAWL_CACHE/wcxb-bench/<method>/<version>.json``, text and
seconds per page): a method is re-run only when its code, model file or library version
changed, and a cached method keeps the seconds measured when it ran (a run with nothing
cached measures everyone side by side; the report says which times came from the cache).
The cache is written every :data:`SAVE_EVERY` pages, so a stopped run resumes where it was.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import shlex
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from tqdm import tqdm

from corpuscrawl.evaluation.datasets import Dataset, datasets_root
from corpuscrawl.evaluation.lost import lost_flags
from corpuscrawl.evaluation.methods import PEER_SUFFIX, build_methods, extractor_method, timed
from corpuscrawl.evaluation.metrics import Score, score, summarize
from corpuscrawl.evaluation.peers import FACTORIES
from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.learned.auto import AutoModel
from corpuscrawl.extract.learned.models import load_model_file
from corpuscrawl.learn.trainset import cache_dir, package_hash

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "benchmarks" / "results" / "wcxb.md"
#: Methods of the default run, corpuscrawl's first, then the peers.
METHODS = ("auto", "sequence", "readability", "boilerpipe-article", "justext",
           "trafilatura", "trafilatura-fast", "readability-lxml", "justext-raw",
           "boilerpy3-article", "resiliparse", "goose3")
#: The default extractor and the speed reference.
DEFAULT_METHOD = "auto"
SPEED_REFERENCE = "trafilatura-fast" + PEER_SUFFIX
#: Order of the page types in the tables.
#: Pages between two writes of the output cache.
SAVE_EVERY = 50
PAGE_TYPES = ("article", "documentation", "service", "forum", "product", "collection",
              "listing")


def method_version(name: str, model_file: Path | None) -> str:
    """The cache version of a method: its library's version for a peer, the package's
    source hash (and the model file's) for a corpuscrawl extractor."""
    if name in FACTORIES:
        from importlib.metadata import PackageNotFoundError, version
        dist = {"trafilatura-fast": "trafilatura", "justext-raw": "justext",
                "boilerpy3-article": "boilerpy3"}.get(name, name)
        try:
            return f"{dist}-{version(dist)}"
        except PackageNotFoundError:
            return "missing"
    digest = hashlib.sha1(package_hash().encode())
    if model_file is not None:
        digest.update(model_file.read_bytes())
    else:
        for path in sorted((REPO / "models").glob("*.skops")):
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def cache_path(name: str, version: str) -> Path:
    """Where a method's outputs of one version are cached."""
    return cache_dir() / "wcxb-bench" / name.replace(" ", "_") / f"{version}.json"


def cached_store(name: str, version: str) -> dict:
    """A method version's cached ``{id: [text, seconds]}`` (empty when none)."""
    path = cache_path(name, version)
    return json.loads(path.read_text()) if path.is_file() else {}


def run_methods(ds: Dataset, ids: Sequence[str], methods: Mapping[str, tuple],
                use_cache: bool) -> tuple[dict[str, dict[str, str]], dict[str, float],
                                          set[str]]:
    """Texts and total seconds of every method on ``ids``: from the cache where it has them,
    else run (timed) side by side in this process and cached."""
    texts: dict[str, dict[str, str]] = {}
    seconds: dict[str, float] = {}
    cached: set[str] = set()
    to_run: dict[str, tuple] = {}
    for name, (run, version) in methods.items():
        path = cache_path(name, version)
        store = json.loads(path.read_text()) if use_cache and path.is_file() else {}
        if all(i in store for i in ids):
            texts[name] = {i: store[i][0] for i in ids}
            seconds[name] = sum(store[i][1] for i in ids)
            cached.add(name)
        else:
            to_run[name] = (run, path, store)
    if to_run:
        secs: Counter[str] = Counter()
        fails: Counter[str] = Counter()
        pending = [i for i in ids if any(i not in store for _r, _p, store in to_run.values())]
        for n, doc in enumerate(tqdm(pending, desc="wcxb", unit="page", mininterval=5), 1):
            html = ds.read_html(doc)
            url = ds.urls.get(doc, "")
            for name, (run, _path, store) in to_run.items():
                if doc in store:
                    continue
                before = secs[name]
                text = timed(name, run, html, url, secs, fails)
                store[doc] = [text, secs[name] - before]
            if n % SAVE_EVERY == 0 or n == len(pending):
                for _run, path, store in to_run.values():  # a stopped run keeps its pages
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(json.dumps(store))
        for name, (_run, _path, store) in to_run.items():
            texts[name] = {i: store[i][0] for i in ids}
            seconds[name] = sum(store[i][1] for i in ids)
    return texts, seconds, cached


def loss_cause(s: Score, text: str) -> str:
    """Why a lost page was lost: nothing, part, too much or the wrong part."""
    if not text.strip():
        return "empty"
    if s.precision >= 0.5 and s.recall < 0.5:
        return "part"
    if s.recall >= 0.5 and s.precision < 0.5:
        return "too much"
    return "wrong part"


Scores = Mapping[str, Sequence[Score]]


def type_tables(names: Sequence[str], scores: Scores, lost: Mapping[str, Sequence[bool]],
                types: Sequence[str], present: Sequence[str]) -> list[str]:
    """Pooled F1, mean F1 and lost pages of every method, by page type and over all pages."""
    counts = Counter(types)
    lines: list[str] = []
    for title, key in (("Summed (pooled) F1", "f1"), ("Mean per-page F1", "mean_f1"),
                       ("Lost pages", "lost")):
        header = ["method", *present, "all"]
        rows = []
        for m in names:
            cells = [m]
            for t in [*present, None]:
                idx = [k for k, tt in enumerate(types) if t is None or tt == t]
                if key == "lost":
                    cells.append(str(sum(lost[m][k] for k in idx)))
                else:
                    s = summarize(scores[m][k] for k in idx)
                    cells.append(f"{getattr(s, key):.3f}")
            rows.append(cells)
        rows.append(["pages", *(str(counts[t]) for t in present), str(len(types))])
        lines += [f"## {title}", "", *markdown_table(header, rows), ""]
    return lines


def cause_table(names: Sequence[str], scores: Scores, lost: Mapping[str, Sequence[bool]],
                texts: Mapping[str, Mapping[str, str]], ids: Sequence[str]) -> list[str]:
    """Why each corpuscrawl method lost its lost pages (empty, part, too much, wrong part)."""
    lines: list[str] = []
    lines += ["## Why the corpuscrawl methods lose their lost pages", "",
              "empty: nothing extracted; part: precision ≥ 0.5, recall < 0.5; too much: "
              "recall ≥ 0.5, precision < 0.5; wrong part: both < 0.5.", ""]
    causes = ("empty", "part", "too much", "wrong part")
    rows = []
    for m in names:
        if m.endswith(PEER_SUFFIX):
            continue
        c = Counter(loss_cause(scores[m][k], texts[m][ids[k]])
                    for k in range(len(ids)) if lost[m][k])
        rows.append([m, *(str(c[x]) for x in causes), str(sum(c.values()))])
    lines += markdown_table(["method", *causes, "all"], rows) + [""]
    return lines


def speed_section(names: Sequence[str], seconds: Mapping[str, float], cached: set[str],
                  pages: int) -> list[str]:
    """Docs/s of every method and its ratio to the speed reference."""
    lines: list[str] = []
    ref = seconds.get(SPEED_REFERENCE)
    rows = []
    for m in names:
        dps = pages / seconds[m] if seconds[m] else float("inf")
        ratio = f"{ref / seconds[m]:.2f}" if ref and seconds[m] else "-"
        rows.append([m, f"{dps:.1f}", ratio, "cache" if m in cached else "this run"])
    lines += ["## Speed", "",
              f"Docs/s over the same pages (each method parses the decoded HTML itself); "
              f"× = docs/s relative to `{SPEED_REFERENCE}`.  Times from the cache were "
              "measured in the run that filled it.", "",
              *markdown_table(["method", "docs/s", "×", "measured"], rows), ""]
    return lines


def trailing_pages(ds: Dataset, ids: Sequence[str], names: Sequence[str], scores: Scores,
                   types: Sequence[str]) -> list[str]:
    """The pages where the default method trails the best peer by more than 0.1 F1."""
    lines: list[str] = []
    lines += [f"## Pages where `{DEFAULT_METHOD}` trails the best peer by > 0.1 F1", ""]
    peers = [m for m in names if m.endswith(PEER_SUFFIX)]
    rows = []
    for k, i in enumerate(ids):
        a = scores[DEFAULT_METHOD][k]
        best = max(peers, key=lambda p: scores[p][k].f1) if peers else None
        if best and scores[best][k].f1 - a.f1 > 0.1:
            rows.append([i, types[k], ds.group(i), f"{a.precision:.2f}",
                         f"{a.recall:.2f}", f"{a.f1:.2f}", best, f"{scores[best][k].f1:.2f}"])
    lines += markdown_table(["id", "type", "site", "P", "R", "F1", "best peer", "its F1"],
                            rows) + [""]
    return lines


def report(ds: Dataset, ids: Sequence[str], texts: Mapping[str, Mapping[str, str]],
           seconds: Mapping[str, float], cached: set[str], args: argparse.Namespace,
           wall: float) -> list[str]:
    """The Markdown report of one run."""
    names = list(texts)
    golds = {i: ds.gold(i) or "" for i in ids}
    scores = {m: [score(texts[m][i], golds[i], with_levenshtein=False) for i in ids]
              for m in names}
    lost = lost_flags(scores)
    types = [ds.page_type(i) or "other" for i in ids]
    present = [t for t in PAGE_TYPES if t in types] + sorted(set(types) - set(PAGE_TYPES))
    cmd = "CORPUSCRAWL_CACHE=... .venv/bin/python benchmarks/wcxb.py " + " ".join(
        shlex.quote(a) for a in sys.argv[1:])
    lines = ["# WCXB: main text on the whole web, by page type", "",
             "Produced by (from the repository root):", "", f"    {cmd}", "",
             f"- run: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {wall / 60:.1f} min wall; "
             f"{platform.platform()}, Python {platform.python_version()}; machine shared "
             "with other jobs (2 CPUs)",
             f"- pages: {len(ids)} of wcxb (part `{args.part}` of the split by site; "
             f"{len(set(ds.group(i) for i in ids))} sites)",
             "- lost page: F1 < 0.5 where another method of this table reaches ≥ 0.8", ""]
    lines += type_tables(names, scores, lost, types, present)
    lines += cause_table(names, scores, lost, texts, ids)
    lines += speed_section(names, seconds, cached, len(ids))
    if args.pages:
        lines += trailing_pages(ds, ids, names, scores, types)
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", help="datasets root (default: CORPUSCRAWL_DATASETS or ../shared/datasets)")
    p.add_argument("--methods", default=",".join(METHODS),
                   help="comma-separated corpuscrawl extractors and peers")
    p.add_argument("--auto-model", action="append", default=[], metavar="LABEL=FILE",
                   help="also run `auto` with this model file, reported as LABEL")
    p.add_argument("--stored", action="append", default=[], metavar="LABEL=FILE",
                   help="also report the outputs a cache file of an earlier run holds (e.g. "
                        "a method before a change) as LABEL")
    p.add_argument("--only-stored", action="store_true",
                   help="score only the pages every method has in the cache (a run still "
                        "filling it, or stopped)")
    p.add_argument("--part", choices=("all", "train", "test"), default="all")
    p.add_argument("--limit", type=int, default=0, help="first N pages only")
    p.add_argument("--pages", action="store_true", help="list the pages auto trails on")
    p.add_argument("--no-cache", action="store_true")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = p.parse_args(argv)
    started = time.monotonic()
    ds = Dataset(datasets_root(args.root) / "wcxb")
    ids = [i for i in ds.ids() if ds.gold_path(i).is_file()]
    if args.part != "all":
        train, test = ds.split(ids)
        ids = train if args.part == "train" else test
    if args.limit:
        ids = ids[:args.limit]
    wanted = [m for m in args.methods.split(",") if m]
    built, notes = build_methods(wanted, peers=tuple(FACTORIES))
    methods = {}
    for name, run in built.items():
        plain = name.removesuffix(PEER_SUFFIX)
        methods[name] = (run, method_version(plain, None))
    for spec in args.auto_model:
        label, _, path = spec.partition("=")
        if not label or not path:
            p.error(f"--auto-model wants LABEL=FILE, got {spec!r}")
        # Built as the registry builds "auto", so its text is normalised the same way.
        extractor = get_extractor("auto", estimator=load_model_file(path, AutoModel))
        methods[label] = (extractor_method(extractor), method_version(label, Path(path)))
    for note in notes:
        print(note, file=sys.stderr)
    stored = {}
    for spec in args.stored:
        label, _, path = spec.partition("=")
        if not label or not path:
            p.error(f"--stored wants LABEL=FILE, got {spec!r}")
        stored[label] = json.loads(Path(path).read_text())
    if args.only_stored:
        ids = [i for i in ids if all(i in s for s in stored.values())
               and all(i in cached_store(name, version) for name, (_r, version)
                       in methods.items())]
    texts, seconds, cached = run_methods(ds, ids, methods, not args.no_cache)
    for label, store in stored.items():
        texts[label] = {i: store[i][0] for i in ids}
        seconds[label] = sum(store[i][1] for i in ids)
        cached.add(label)
    lines = report(ds, ids, texts, seconds, cached, args, time.monotonic() - started)
    if notes:
        lines += ["Not run: " + "; ".join(notes), ""]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_run(args.out, lines)
    print("\n".join(lines[:60]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
