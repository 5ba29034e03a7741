"""What ``auto`` gives as reader comments on the gold datasets: how often it finds them, and
whether they ever take article text.

    CORPUSCRAWL_DATASETS=../shared/datasets .venv/bin/python benchmarks/comments.py \
        [--split all] [--show 5]

The gold texts are articles only, so they say where comments must *not* come from: every
page's blocks are aligned with its gold words once (the alignment that labels training
blocks, :func:`corpuscrawl.learn.alignment.sequence_coverage`), and the gold words matched
inside blocks given as comments are counted ("gold words in comments": must be about 0).
Dragnet's manifest marks the 396 pages whose annotators cut a comment section off the gold
(``gold_had_comments``): the share of them with non-empty comments is how often ``auto``
finds a comment section that is there.  How much of the comments is prose is the share
of their words in blocks of at least 10 words (a sidebar or a form that leaks in is made of
short lines).  Prints a markdown table per dataset and the pages with the most gold words
in comments (``--show``); ``--max-levels`` tries another comment-region depth
(:data:`~corpuscrawl.extract.segment.sections.COMMENT_REGION_MAX_LEVELS_DEFAULT`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from corpuscrawl.evaluation.datasets import datasets_root
from corpuscrawl.evaluation.metrics import tokenize
from corpuscrawl.evaluation.names import GOLD_DATASETS
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.segment import sections
from corpuscrawl.learn.alignment import sequence_coverage
from corpuscrawl.learn.trainset import documents

#: A block of at least this many words is prose (see the module docstring).
PROSE_MIN_WORDS = 10


def had_comments(dataset_dir: Path) -> dict[str, bool]:
    """Page id -> the manifest's ``gold_had_comments`` (pages of datasets without it: absent)."""
    out: dict[str, bool] = {}
    path = dataset_dir / "manifest.jsonl"
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "gold_had_comments" in row:
                out[str(row["id"])] = bool(row["gold_had_comments"])
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="all", choices=("train", "test", "all"))
    parser.add_argument("--show", type=int, default=5, help="pages listed with gold words in comments")
    parser.add_argument("--max-levels", type=int, default=None)
    args = parser.parse_args(argv)
    if args.max_levels is not None:
        sections.COMMENT_REGION_MAX_LEVELS_DEFAULT = args.max_levels
    root = datasets_root()
    model = get_extractor("auto").estimator
    rows, stolen_pages = [], []
    started = time.perf_counter()
    for ds in GOLD_DATASETS:
        marks = had_comments(root / ds)
        n = found = comment_words = prose = gold_in = with_gold = marked = marked_found = 0
        unmarked_found = 0
        for doc in documents([root / ds], args.split):
            inputs = model.page_inputs(doc.page)
            _, decoding = model.decode_parts(inputs)
            ids = decoding.comments
            n += 1
            found += bool(ids)
            if doc.id in marks:
                marked += marks[doc.id]
                marked_found += marks[doc.id] and bool(ids)
                unmarked_found += (not marks[doc.id]) and bool(ids)
            if ids:
                units = [tokenize(b.text) for b in inputs.blocks]
                coverage = sequence_coverage(units, doc.gold_words)
                matched = sum(round(coverage[j] * len(units[j])) for j in ids)
                comment_words += sum(len(units[j]) for j in ids)
                prose += sum(len(units[j]) for j in ids if len(units[j]) >= PROSE_MIN_WORDS)
                gold_in += matched
                with_gold += matched > 0
                if matched:
                    stolen_pages.append((matched, doc.key, sum(len(units[j]) for j in ids)))
            doc.release()
        rows.append([ds, n, found, f"{marked_found} / {marked}" if marks else "",
                     f"{unmarked_found} / {len(marks) - marked}" if marks else "",
                     comment_words, f"{prose / max(comment_words, 1):.0%}", gold_in, with_gold])
    print(f"auto's reader comments, {args.split} split, "
          f"{time.perf_counter() - started:.0f} s\n")
    print("\n".join(markdown_table(
        ["dataset", "pages", "with comments", "marked: found / marked",
         "unmarked: found / unmarked", "comment words", "prose", "gold words in comments",
         "pages with gold words in comments"], [[str(c) for c in r] for r in rows], 1)))
    if stolen_pages and args.show:
        print("\nMost gold words in comments (page, gold words matched, comment words):\n")
        for matched, key, words in sorted(stolen_pages, reverse=True)[: args.show]:
            print(f"- `{key}`: {matched} of {words}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
