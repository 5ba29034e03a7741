"""Where the gold sets disagree on what main text is: the headline, and who keeps it.

    .venv/bin/python benchmarks/gold_conventions.py [--out benchmarks/results/gold_conventions.md]

The gold sets were annotated under different conventions, so no single extractor can
match all of them.  This measures one disagreement that is easy to pin down, the headline
(its first ``<h1>`` of at least ``MIN_WORDS`` words; a page without one is not counted):

* on the *train* split of each gold dataset, how often the gold text contains it and
  how many words it weighs against the gold's words: the precision an extractor loses
  by keeping headlines the gold leaves out, and the recall it loses by dropping those
  the gold keeps (model-free: no extractor runs here);
* on the *test* split, how often each method's output contains it (``auto`` and
  ``sequence`` never trained on these pages; the peers come from ``corpuscrawl.evaluation.peers``),
  and each method's summed F1 as extracted and with the headline as the gold has it: about
  what a headline decision matching the gold's would add to it.

Nothing here chose or tuned anything; it describes the data the benchmarks score on.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from corpuscrawl.evaluation.datasets import datasets_root
from corpuscrawl.evaluation.methods import build_methods, run_method
from corpuscrawl.evaluation.metrics import Score, score, summarize, tokenize
from corpuscrawl.evaluation.names import GOLD_DATASETS
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.learn.trainset import Doc, documents

REPO = Path(__file__).resolve().parent.parent

#: Methods whose outputs are checked for the headline on the test split.
METHODS = ("auto", "sequence", "readability", "boilerpipe-article", "trafilatura",
           "readability-lxml")
#: Shorter titles ("Home", "News") are not headlines worth counting.
MIN_WORDS = 3


def find(words: Sequence[str], part: Sequence[str]) -> int:
    """Where ``part`` first occurs in ``words`` as a contiguous word sequence, or -1."""
    n = len(part)
    if n:
        for i in range(len(words) - n + 1):
            if words[i] == part[0] and list(words[i:i + n]) == list(part):
                return i
    return -1


def contains(words: Sequence[str], part: Sequence[str]) -> bool:
    """True when ``part`` occurs in ``words`` as a contiguous word sequence."""
    return find(words, part) >= 0


def headline(doc: Doc) -> list[str]:
    """The page's headline as words: its first ``<h1>`` of at least ``MIN_WORDS`` words, or
    [] when it has none."""
    for h1 in doc.page.body.iter("h1"):
        words = tokenize(h1.text_content())
        if len(words) >= MIN_WORDS:
            return words
    return []


def gold_rows(root: Path, names: Sequence[str]) -> list[list[str]]:
    """Per dataset (train split): headline in gold, and its weight in gold words."""
    rows = []
    for name in names:
        pages = with_headline = kept = 0
        kept_words = left_words = gold_words = 0
        for doc in documents([root / name], "train"):
            gold = doc.gold_words
            pages += 1
            gold_words += len(gold)
            words = headline(doc)
            doc.release()
            if not words:
                continue
            with_headline += 1
            if contains(gold, words):
                kept += 1
                kept_words += len(words)
            else:
                left_words += len(words)
        share = f"{kept / with_headline:.0%}" if with_headline else "-"
        rows.append([name, str(pages), str(with_headline), f"{kept} ({share})",
                     f"{100 * left_words / max(gold_words, 1):.2f}",
                     f"{100 * kept_words / max(gold_words, 1):.2f}"])
    return rows


def without(words: list[str], part: Sequence[str]) -> list[str]:
    """``words`` with the first occurrence of the sequence ``part`` removed."""
    i = find(words, part)
    return words if i < 0 else words[:i] + words[i + len(part):]


def method_rows(root: Path, names: Sequence[str], methods: dict
                ) -> tuple[list[list[str]], list[list[str]]]:
    """Per method and dataset (test split): the share of headline pages whose output keeps
    the headline; and summed F1 over every test page as extracted and with the headline
    as the gold has it (a kept headline the gold leaves out removed from the output)."""
    kept: dict[str, Counter[str]] = {m: Counter() for m in methods}
    gold_kept: Counter[str] = Counter()
    pages: Counter[str] = Counter()
    as_is: dict[str, dict[str, list[Score]]] = {m: {} for m in methods}
    as_gold: dict[str, dict[str, list[Score]]] = {m: {} for m in methods}
    for name in names:
        docs = documents([root / name], "test")
        urls = docs[0].dataset.urls if docs else {}
        for doc in docs:
            words = headline(doc)
            left_out = bool(words) and not contains(doc.gold_words, words)
            if words:
                pages[name] += 1
                gold_kept[name] += not left_out
            html = doc.dataset.read_html(doc.id)
            for method, run in methods.items():
                text, _ = run_method(run, html, urls.get(doc.id, ""))
                out = tokenize(text)
                has = bool(words) and contains(out, words)
                kept[method][name] += has
                extracted = score(text, doc.gold, with_levenshtein=False)
                as_is[method].setdefault(name, []).append(extracted)
                if has and left_out:  # else the output already has it as the gold does
                    extracted = score(" ".join(without(out, words)), doc.gold,
                                      with_levenshtein=False)
                as_gold[method].setdefault(name, []).append(extracted)
            doc.release()
        print(f"{name}: {len(docs)} test documents done", file=sys.stderr)
    total = sum(pages.values())

    def cell(count: int, n: int) -> str:
        return f"{count / n:.0%}" if n else "-"

    rows = [["gold", *(cell(gold_kept[n], pages[n]) for n in names),
             cell(sum(gold_kept.values()), total)]]
    for method in methods:
        rows.append([method, *(cell(kept[method][n], pages[n]) for n in names),
                     cell(sum(kept[method].values()), total)])
    rows.append(["headline pages", *(str(pages[n]) for n in names), str(total)])

    def f1s(per: dict[str, list[Score]]) -> list[str]:
        pooled = [s for n in names for s in per.get(n, [])]
        return [*(f"{summarize(per.get(n, [])).f1:.4f}" for n in names),
                f"{summarize(pooled).f1:.4f}"]

    f1_rows = []
    for method in methods:
        f1_rows.append([method, *f1s(as_is[method])])
        f1_rows.append(["… headline as the gold has it", *f1s(as_gold[method])])
    return rows, f1_rows


def main(argv: list[str] | None = None) -> int:
    """Measure and write the Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out",
                        default=str(REPO / "benchmarks" / "results" / "gold_conventions.md"))
    parser.add_argument("--datasets", default=",".join(GOLD_DATASETS))
    args = parser.parse_args(argv)
    started = time.monotonic()
    root = datasets_root()
    names = args.datasets.split(",")
    methods, notes = build_methods(list(METHODS))
    gold = gold_rows(root, names)
    kept, f1_rows = method_rows(root, names, methods)
    lines = [
        "# Gold conventions: the headline",
        "",
        "Produced by (from the repository root):",
        "",
        "    .venv/bin/python benchmarks/gold_conventions.py",
        "",
        f"- run: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
        f"{(time.monotonic() - started) / 60:.1f} min wall; {platform.platform()}, "
        f"Python {platform.python_version()}",
        f"- headline: the page's first `<h1>` of at least {MIN_WORDS} words (pages without one "
        "are not counted); \"kept\" = its words occur as one sequence in the gold or output",
        *(f"- {note}" for note in notes),
        "",
        "## Does the gold keep the headline? (train split, no extractor involved)",
        "",
        "Words per 100 gold words: *left out* is what keeping every headline costs in false "
        "positives where the gold leaves it out; *kept* is what dropping every headline "
        "costs in false negatives where the gold keeps it.",
        "",
        *markdown_table(["dataset", "pages", "with a headline", "gold keeps it",
                    "left-out headline words per 100 gold words",
                    "kept headline words per 100 gold words"], gold),
        "",
        "## Which methods keep it? (test split, pages with a headline)",
        "",
        *markdown_table(["method", *names, "all"], kept),
        "",
        "## What the headline is worth (test split, summed F1 over every page)",
        "",
        "Each method as extracted, and the same output with the headline removed where the "
        "output keeps it and the gold leaves it out: about what a headline decision matching "
        "the gold's would add (the first occurrence is removed; where a second one is the "
        "headline the gold aligns with, a figure drops by a hair).",
        "",
        *markdown_table(["method", *names, "pooled"], f1_rows),
        "",
    ]
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
