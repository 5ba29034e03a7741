"""Which pages of the article sets and trafilatura's suite the whole-web changes touch.

    CORPUSCRAWL_DATASETS=../shared/datasets .venv/bin/python benchmarks/wholeweb_checks.py

For ``auto``'s three page-level changes, the pages of each article set's test split (and
of every page of the ``trafilatura`` snippet set) on which each one acts:

* streamed segments read (:func:`corpuscrawl.html.streamed.stream_segments` non-empty);
* the empty-output fallback (the decoding kept nothing), with the fallback's F1 (gold
  sets) or snippets found (snippet set) against the empty output's;
* the thread rule of :class:`~corpuscrawl.pagetext.extraction.Extraction` (comment bodies found and
  the page's type is ``forum``).

A page none of them acts on gets the same text as before the changes.
"""

from __future__ import annotations

import sys

from corpuscrawl.evaluation.datasets import Dataset, datasets_root
from corpuscrawl.evaluation.metrics import score
from corpuscrawl.evaluation.names import GOLD_DATASETS
from corpuscrawl.evaluation.snippets import score_snippets
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.page_typing.page_type import page_type
from corpuscrawl.html.streamed import stream_segments


def main() -> int:
    root = datasets_root()
    auto = get_extractor("auto")
    rows, notes = [], []
    for name in (*GOLD_DATASETS, "trafilatura"):
        ds = Dataset(root / name)
        if ds.has_gold:
            ids = ds.split([i for i in ds.ids() if ds.gold_path(i).is_file()])[1]
        else:
            ids = [i for i in ds.ids() if i in ds.snippets]
        streamed = empty = comments = forum = 0
        for doc in ids:
            page = ds.load_page(doc)
            streamed += bool(stream_segments(page))
            review, found = auto.estimator._reviewed(page)
            if not review.text.strip():
                empty += 1
                text = auto.extract(page)
                if ds.has_gold:
                    gold = ds.gold(doc) or ""
                    notes.append(f"{name}/{doc}: empty F1 {score('', gold).f1:.2f}, fallback "
                                 f"F1 {score(text, gold).f1:.2f}")
                else:
                    before, after = score_snippets("", ds.snippets[doc]), \
                        score_snippets(text, ds.snippets[doc])
                    notes.append(f"{name}/{doc}: snippets found {before.with_found} -> "
                                 f"{after.with_found} of {after.with_total}; unwanted "
                                 f"absent {before.without_absent} -> {after.without_absent} "
                                 f"of {after.without_total}")
            elif found and not review.replaced_by:
                comments += 1
                if page_type(page) == "forum":
                    forum += 1
                    notes.append(f"{name}/{doc}: comment bodies on a page typed forum: "
                                 "they join the text in a crawl")
        rows.append([name, "test split" if ds.has_gold else "all (snippets)", str(len(ids)),
                     str(streamed), str(empty), str(comments), str(forum)])
    lines = markdown_table(["dataset", "pages", "n", "streamed segments", "empty → fallback",
                            "with comment bodies", "… typed forum"], rows)
    print("\n".join([*lines, "", *(f"- {n}" for n in notes)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
