"""``auto``'s speed beside trafilatura ``fast=True`` on the same pages, interleaved.

    CORPUSCRAWL_CACHE=/tmp/cc-cache .venv/bin/python benchmarks/auto_speed.py \
        [--per-dataset 40] [--datasets NAME ...] [--auto-model LABEL=FILE ...] [--profile]
        [--only METHOD [--passes N]]

Each page is decoded once (not timed), then every method parses and extracts it
in turn, page by page, so machine load (a shared 2-core machine) hits them
alike.  Reported: CPU time per page (``time.process_time``, what the method
itself costs, less sensitive to other jobs than wall time) and docs/s from wall
time, and each method's ratio to trafilatura fast.  ``--profile`` adds
``auto``'s time per stage (parse, page type, blocks, features, forest, decoding).
Pages: the first ``--per-dataset`` test-split pages of each gold dataset (``--datasets``:
of these datasets instead, e.g. ``wcxb``, whose split parts are both of its dev folder).
``--only METHOD`` runs that one method alone ``--passes`` times over the pages, after the
same loading and warm-up, and prints its own CPU time: a whole process to time from
outside (``/usr/bin/time``) beside the same command for another method, start-up included
alike.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections import Counter

from corpuscrawl.evaluation.datasets import datasets_root
from corpuscrawl.evaluation.names import GOLD_DATASETS
from corpuscrawl.evaluation.peers import available_peers
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.learned.auto import AutoExtractor, AutoModel
from corpuscrawl.extract.learned.models import load_model_file
from corpuscrawl.html.page import Page
from corpuscrawl.learn.trainset import documents

REFERENCE = "trafilatura-fast"


def stage_times(extractor: AutoExtractor, pages: list[tuple[str, str]]) -> Counter[str]:
    """CPU seconds of ``auto``'s stages over ``pages``."""
    from corpuscrawl.extract.learned import block_features as bf
    from corpuscrawl.extract.learned import sequence as sq
    from corpuscrawl.extract.learned.auto import decoded_labels, page_probabilities
    from corpuscrawl.extract.learned.title_features import headline_features
    from corpuscrawl.extract.meta.title import extract_title
    from corpuscrawl.extract.page_typing.page_type import page_type
    from corpuscrawl.extract.segment.cdom import page_blocks

    model = extractor.estimator
    potentials = model.compiled_potentials
    out: Counter[str] = Counter()

    def timed(name, fn, *args, **kwargs):
        t0 = time.process_time()
        result = fn(*args, **kwargs)
        out[name] += time.process_time() - t0
        return result

    for html, url in pages:
        page = timed("parse", Page.from_html, html, url)
        kind = timed("page type (every page; auto alone asks on some)", page_type, page)
        blocks = timed("blocks (collapsed DOM)", page_blocks, page)
        stop = timed("stoplist", sq.page_stopwords, blocks)
        unary = timed("block features", bf.unary_features, blocks, stop, model.relative_masks)
        if model.title_features:
            title = timed("headline features", extract_title, page)
            unary = unary.hstack(timed("headline features", headline_features, blocks, title))
        pairs = sq.NO_PAIRS
        if model.lambda_ != 0:
            edges = timed("edge features", bf.edge_features, blocks)
            pairs = timed("edge features", bf.pair_features, unary, edges, model.pair_columns_)
        if not blocks:
            continue
        inputs = sq.PageInputs(blocks, unary, pairs)
        unary_p, pair_p = timed("forest + pairwise model", page_probabilities, potentials,
                                inputs, model.lambda_)
        timed("decoding and cuts", decoded_labels, blocks, unary_p, pair_p, model.lambda_,
              model.bias_, page_type=kind)
    return out


def run_alone(methods: dict, name: str, pages: list[tuple[str, str]], passes: int) -> int:
    """Run the method ``name`` alone ``passes`` times over ``pages``; print its CPU time."""
    if name not in methods:
        print(f"unknown method {name!r}; methods: {', '.join(methods)}", file=sys.stderr)
        return 2
    run = methods[name]
    start = time.process_time()
    for _ in range(passes):
        for html, url in pages:
            run(html, url)
    spent = time.process_time() - start
    print(f"{name}: {passes} x {len(pages)} pages, "
          f"{1000 * spent / max(passes * len(pages), 1):.2f} ms CPU per page")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Time the methods and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-dataset", type=int, default=40)
    parser.add_argument("--auto-model", action="append", default=[], metavar="LABEL=FILE")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--datasets", nargs="+", default=list(GOLD_DATASETS), metavar="NAME")
    parser.add_argument("--only", metavar="METHOD")
    parser.add_argument("--passes", type=int, default=1)
    args = parser.parse_args(argv)
    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
    root = datasets_root()
    pages = []
    for ds in args.datasets:
        for doc in documents([root / ds], "test")[: args.per_dataset]:
            pages.append((doc.dataset.read_html(doc.id), doc.dataset.urls.get(doc.id, "")))
    methods = {}
    extractors = {"auto": get_extractor("auto")}
    for spec in args.auto_model:
        label, _, path = spec.partition("=")
        extractors[label] = AutoExtractor(estimator=load_model_file(path, AutoModel))
    for label, ex in extractors.items():
        methods[label] = (lambda e: lambda h, u: e.extract(Page.from_html(h, u)))(ex)
    peers, notes = available_peers(["trafilatura", REFERENCE])
    for peer in peers:
        methods[peer.name] = peer.extract
    if REFERENCE not in methods:
        print(f"{REFERENCE} not installed: {notes}", file=sys.stderr)
        return 2
    for html, url in pages[:3]:  # warm-up: models, stoplists, lazy imports
        for run in methods.values():
            run(html, url)
    if args.only:
        return run_alone(methods, args.only, pages, args.passes)
    cpu: Counter[str] = Counter()
    wall: Counter[str] = Counter()
    for html, url in pages:
        for name, run in methods.items():
            c, w = time.process_time(), time.perf_counter()
            run(html, url)
            cpu[name] += time.process_time() - c
            wall[name] += time.perf_counter() - w
    n = len(pages)
    print(f"{n} pages (first {args.per_dataset} test pages of {', '.join(args.datasets)}), "
          "interleaved")
    print("\n".join(markdown_table(
        ["method", "CPU ms/page", "docs/s (wall)", f"CPU ratio to {REFERENCE}",
         f"docs/s ratio to {REFERENCE}"],
        [(name, f"{1000 * cpu[name] / n:.2f}", f"{n / wall[name]:.1f}",
          f"{cpu[REFERENCE] / cpu[name]:.2f}", f"{wall[REFERENCE] / wall[name]:.2f}")
         for name in methods])))
    if args.profile:
        stages = stage_times(extractors["auto"], pages)
        total = sum(stages.values())
        print()
        print("\n".join(markdown_table(
            ["auto stage", "CPU ms/page", "share"],
            [(name, f"{1000 * seconds / n:.2f}", f"{seconds / total:.0%}")
             for name, seconds in stages.most_common()])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
