"""The collapsed-DOM walk in Python and in C, side by side on the same pages.

    CORPUSCRAWL_DATASETS=../shared/datasets .venv/bin/python benchmarks/cdom_walk_speed.py \
        [--per-dataset 40]

Each page (the first ``--per-dataset`` test pages of each gold dataset) is parsed twice
(not timed); then, interleaved page by page, the Python walk runs on the cleaned copy of
one parse (making ``Page.clean_tree`` included, as ``page_blocks`` did it) and the C walk
on the other (``page_blocks`` as it is: the parsed tree read as if cleaned).  Each page
is seen once by each walk, so per-page caches (the class keyword regex's) are as cold as in
a crawl of new sites.  CPU time per page; the blocks are compared.
"""

from __future__ import annotations

import argparse
import sys
import time

from corpuscrawl.evaluation.datasets import datasets_root
from corpuscrawl.evaluation.names import GOLD_DATASETS
from corpuscrawl.extract.segment import cdom
from corpuscrawl.html.page import Page
from corpuscrawl.learn.trainset import documents


def main(argv: list[str] | None = None) -> int:
    """Time both walks and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-dataset", type=int, default=40)
    args = parser.parse_args(argv)
    if not cdom.accelerated():
        print(f"C walk not in use: {cdom.accelerator_problem()}", file=sys.stderr)
        return 2
    root = datasets_root()
    htmls = [doc.dataset.read_html(doc.id) for ds in GOLD_DATASETS
             for doc in documents([root / ds], "test")[: args.per_dataset]]
    python_s = c_s = 0.0
    for html in htmls:
        for_python, for_c = Page.from_html(html), Page.from_html(html)
        t0 = time.process_time()
        tree = for_python.clean_tree
        body = tree.find("body")
        expected = cdom.python_tree_blocks(body if body is not None else tree)
        t1 = time.process_time()
        got = cdom.page_blocks(for_c)
        c_s += time.process_time() - t1
        python_s += t1 - t0
        if got != expected:
            print("blocks differ", file=sys.stderr)
            return 1
    n = len(htmls)
    print(f"{n} pages, same blocks; CPU ms/page: Python walk on clean_tree "
          f"{1000 * python_s / n:.2f}, C walk {1000 * c_s / n:.2f} "
          f"(ratio {python_s / c_s:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
