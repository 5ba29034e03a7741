"""``auto``'s C accelerators beside the Python code they replace, on the same pages, one run.

    CORPUSCRAWL_DATASETS=../shared/datasets .venv/bin/python benchmarks/auto_accelerators.py \
        [--per-dataset 40] [--rounds 3]

For the first ``--per-dataset`` test pages of each gold dataset: the per-block string
statistics (``block_features.python_text_columns`` vs ``_blocktext``), the blocks' fields
the block matrix reads (``block_features.python_block_fields`` vs ``_blocktext``), the
block matrix's own, window, page and ancestor numbers (``python_text_features``, numpy, vs
``_blocktext``), the
title-word counts (``title_features.python_title_matches`` vs ``_blocktext``), the tree
distances to the headline (``block_features.python_tree_distances`` vs ``_blocktext``), the
title heuristic's tree lookups (``meta.lookups``' lxml ones vs ``_cdom``'s: ``<title>``,
the title metas, the site-name metas and links home) and the language of the page's
longest blocks (py3langid's own identifier vs the one with the ``_langid`` walk),
each pair run alternately over all pages ``--rounds`` times; CPU ms per page, and a check
that both give the same result on every page.  The collapsed-DOM walk has its own
benchmark (``cdom_walk_speed.py``), the tree walk ``auto_speed.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from corpuscrawl.evaluation.datasets import datasets_root
from corpuscrawl.evaluation.names import GOLD_DATASETS
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract.learned import block_features as bf
from corpuscrawl.extract.learned import title_features as tf
from corpuscrawl.extract.learned.sequence import page_stopwords
from corpuscrawl.extract.meta import lookups
from corpuscrawl.extract.meta.title import HOME_HREFS, SITE_NAME_METAS, TITLE_METAS, extract_title
from corpuscrawl.extract.segment.cdom import page_blocks
from corpuscrawl.html.page import Page
from corpuscrawl.learn.trainset import documents


def side_by_side(pages: list[Any], python: Callable[[Any], Any], c: Callable[[Any], Any],
                 rounds: int) -> tuple[float, float]:
    """CPU seconds per page of each; raises when they disagree on a page."""
    for page in pages:
        if python(page) != c(page):
            raise SystemExit("results differ")
    spent = [0.0, 0.0]
    for _ in range(rounds):
        for k, fn in enumerate((python, c)):
            t0 = time.process_time()
            for page in pages:
                fn(page)
            spent[k] += time.process_time() - t0
    n = rounds * len(pages)
    return spent[0] / n, spent[1] / n


def title_lookups(page: Page, python: bool = False) -> tuple[Any, ...]:
    """What the title heuristic reads of the page's tree, through lxml or the C lookups."""
    url = page.url.rstrip("/")

    def home(href: str) -> bool:
        return href.strip() in HOME_HREFS or href.strip().rstrip("/") == url

    if python:
        return (lookups.python_first_text(page.tree, "title"),
                lookups.python_meta_contents(page.tree, TITLE_METAS),
                lookups.python_meta_contents(page.tree, SITE_NAME_METAS),
                lookups.python_link_texts(page.body, home))
    return (lookups.first_text(page.tree, "title"), lookups.meta_contents(page.tree, TITLE_METAS),
            *lookups.metas_and_link_texts(page.tree, SITE_NAME_METAS, page.body, home))


def main(argv: list[str] | None = None) -> int:
    """Print one line per accelerator."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-dataset", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if bf._blocktext is None:
        print("the C accelerators are not built", file=sys.stderr)
        return 2
    root = datasets_root()
    pages = []
    for ds in GOLD_DATASETS:
        for doc in documents([root / ds], "test")[: args.per_dataset]:
            page = Page.from_html(doc.dataset.read_html(doc.id), doc.dataset.urls.get(doc.id, ""))
            blocks = page_blocks(page)
            title = set(tf._tokens(extract_title(page)))
            stop = page_stopwords(blocks)
            pages.append((blocks, stop, title, page, bf.block_fields(blocks),
                          bf._text_matrix(blocks, stop)))
    with_title = [p for p in pages if p[2] and p[0]]
    rows = [
        ("block string statistics", pages,
         lambda p: [list(c) for c in bf.python_text_columns(p[0], p[1])],
         lambda p: [list(c) for c in bf._text_columns(p[0], p[1])]),
        ("block fields", pages,
         lambda p: [a.tolist() for a in bf.python_block_fields(p[0])],
         lambda p: [a.tolist() for a in bf.block_fields(p[0])]),
        ("block text features (own, window, page, ancestors)", [p for p in pages if p[0]],
         lambda p: bf.python_text_features(p[4], p[5]).tobytes(),
         lambda p: bf.text_features(p[4], p[5]).tobytes()),
        ("title lookups (title, metas, links home)", pages,
         lambda p: title_lookups(p[3], python=True), lambda p: title_lookups(p[3])),
        ("title-word counts", with_title, lambda p: tf.python_title_matches(p[0], p[2]),
         lambda p: tf._title_matches(p[0], p[2])),
        ("tree distances to a block", with_title,
         lambda p: bf.python_tree_distances(p[0], p[0][len(p[0]) // 2]),
         lambda p: bf.tree_distances(p[0], p[0][len(p[0]) // 2])),
    ]
    print(f"{len(pages)} pages (first {args.per_dataset} test pages of each dataset), "
          f"{args.rounds} rounds, same results on every page")
    header = ["part", "Python ms/page", "C ms/page", "ratio"]
    print("\n".join(markdown_table(header, [])))
    for name, subset, python, c in rows:
        p, k = side_by_side(subset, python, c, args.rounds)
        print(markdown_table(header, [(name, f"{1000 * p:.3f}", f"{1000 * k:.3f}",
                                       f"{p / k:.1f}")])[-1], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
