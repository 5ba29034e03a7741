"""F1 and speed of the classic extractors next to BTE, in one process, one run.

Pages are read and parsed once (``Page.clean_tree`` warmed, as in the crawl
pipeline, where every extractor shares the parsed page); each extractor then
runs over the same pages, timed with ``time.perf_counter``; the rounds are
interleaved (round 1 of every extractor, then round 2 ...) so load on the
machine hits all of them alike, and the best round counts.  F1 is the
project's scorer (``corpuscrawl.evaluation.metrics``: word LCS, summed counts)
on the *test* part of the split (``corpuscrawl.evaluation.datasets.split``),
which was never used for tuning.

    python benchmarks/classic_speed.py --per-dataset 100 --rounds 3
"""

from __future__ import annotations

import argparse
import io
import random
import time
from contextlib import redirect_stderr, redirect_stdout

from corpuscrawl.evaluation.datasets import Dataset, datasets_root, split
from corpuscrawl.evaluation.metrics import score, summarize
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract import get_extractor
from corpuscrawl.html.page import Page

EXTRACTORS = ("bte", "boilerpipe-default", "boilerpipe-article", "readability", "newsfeed",
              "energy", "linkblocks")


def load(name: str, n: int, part: str, seed: int) -> list[tuple[str, Page, str]]:
    """Up to ``n`` pages with gold from one dataset's ``part`` ("train"/"test"), shuffled by seed."""
    ds = Dataset(datasets_root() / name)
    ids = [i for i in ds.ids() if ds.gold_path(i).is_file()]
    train, test = split(ids)
    chosen = list(test if part == "test" else train)
    random.Random(seed).shuffle(chosen)
    docs = []
    for doc in chosen[:n]:
        page = ds.load_page(doc)
        page.clean_tree  # noqa: B018 - warm the shared cleaned tree, as the pipeline does
        docs.append((name, page, ds.gold(doc) or ""))
    return docs


def peer_functions() -> dict[str, object]:
    """Reference implementations (benchmark-only peers), HTML text in, plain text out.

    They parse the HTML themselves, so only their F1 is comparable, not their speed.
    """
    from boilerpy3 import extractors as bp
    from readability import Document

    from corpuscrawl.html.dom import render_text
    from corpuscrawl.html.page import parse_html

    def readability_lxml(html: str) -> str:
        return render_text(parse_html(Document(html).summary(html_partial=True)))

    def boilerpy3(kind: type) -> object:
        extractor = kind(raise_on_failure=False)
        return lambda html: extractor.get_content(html) or ""

    return {"peer:readability-lxml": readability_lxml,
            "peer:boilerpy3-default": boilerpy3(bp.DefaultExtractor),
            "peer:boilerpy3-article": boilerpy3(bp.ArticleExtractor)}


def f1_cells(names: list[str], docs: list, outs: list[str]) -> list[str]:
    """One "F1 (P/R), mean" cell per dataset."""
    cells = []
    for ds in names:
        s = summarize(score(out, gold, with_levenshtein=False)
                      for (d, _, gold), out in zip(docs, outs, strict=True) if d == ds)
        cells.append(f"{s.f1:.3f} ({s.precision:.3f}/{s.recall:.3f}), mean {s.mean_f1:.3f}")
    return cells


def main(argv: list[str] | None = None) -> int:
    """Print a markdown table: extractor, F1 per dataset, docs/s and the ratio to BTE."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="cleaneval,dragnet")
    parser.add_argument("--per-dataset", type=int, default=100)
    parser.add_argument("--part", choices=("train", "test"), default="test")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--extractors", default=",".join(EXTRACTORS))
    parser.add_argument("--peers", action="store_true",
                        help="also score readability-lxml and boilerpy3 (F1 only)")
    args = parser.parse_args(argv)
    names = args.datasets.split(",")
    docs = [d for name in names for d in load(name, args.per_dataset, args.part, args.seed)]
    extractors = {n: get_extractor(n) for n in args.extractors.split(",")}
    best = dict.fromkeys(extractors, float("inf"))
    outputs: dict[str, list[str]] = {}
    for _ in range(args.rounds):
        for name, ex in extractors.items():
            start = time.perf_counter()
            outputs[name] = [ex.extract(page) for _, page, _ in docs]
            best[name] = min(best[name], time.perf_counter() - start)
    base = len(docs) / best["bte"] if "bte" in best else None
    print(f"{len(docs)} pages ({args.part} part: "
          + ", ".join(f"{sum(d[0] == n for d in docs)} {n}" for n in names)
          + f"), best of {args.rounds} rounds\n")
    header = ["extractor", *(f"F1 {n} (P/R)" for n in names), "docs/s", "BTE docs/s ÷ this"]
    rows = []
    for name in extractors:
        rate = len(docs) / best[name]
        ratio = f"{base / rate:.2f}×" if base else "-"
        rows.append([name, *f1_cells(names, docs, outputs[name]), f"{rate:.0f}", ratio])
    if args.peers:
        for name, func in peer_functions().items():
            outs = []
            for _, page, _ in docs:
                try:  # boilerpy3 prints parser warnings: keep them out of the table
                    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                        outs.append(func(page.html))  # type: ignore[operator]
                except Exception:  # a peer failing on a page counts as an empty answer
                    outs.append("")
            rows.append([name, *f1_cells(names, docs, outs), "-", "-"])
    print("\n".join(markdown_table(header, rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
