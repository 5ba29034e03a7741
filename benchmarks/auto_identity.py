"""Fingerprints of ``auto``'s work on the gold datasets' test split: proof that a speed-up
changed no output.

    CORPUSCRAWL_DATASETS=../shared/datasets .venv/bin/python benchmarks/auto_identity.py \
        [--split test] [--per-dataset N] [--python-walk]

Prints one SHA-1 each over every page of the split, in dataset and page order, of:
``auto``'s output text; the collapsed-DOM blocks (every field of every
:class:`~corpuscrawl.extract.segment.cdom.Block`); the unary feature matrices
(their float32 bytes); the block probabilities (float64 bytes).  Run it before and after
a change: equal digests mean equal outputs on those pages.  ``--python-walk`` forces the
pure-Python collapsed-DOM walk (the C accelerator, when built, is used otherwise).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time

from corpuscrawl.evaluation.datasets import datasets_root
from corpuscrawl.evaluation.names import GOLD_DATASETS
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.learned.auto import page_probabilities
from corpuscrawl.extract.segment import cdom
from corpuscrawl.html.page import Page
from corpuscrawl.learn.trainset import documents


def main(argv: list[str] | None = None) -> int:
    """Print the digests."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="test")
    parser.add_argument("--per-dataset", type=int, default=0, help="0 = all pages")
    parser.add_argument("--python-walk", action="store_true")
    args = parser.parse_args(argv)
    if args.python_walk:
        cdom.use_accelerator(False)
    root = datasets_root()
    auto = get_extractor("auto")
    model = auto.estimator
    digests = {k: hashlib.sha1() for k in ("text", "blocks", "unary", "probabilities")}
    pages = 0
    started = time.perf_counter()
    for ds in GOLD_DATASETS:
        docs = documents([root / ds], args.split)
        for doc in docs[: args.per_dataset or None]:
            html, url = doc.dataset.read_html(doc.id), doc.dataset.urls.get(doc.id, "")
            digests["text"].update(auto.extract(Page.from_html(html, url)).encode() + b"\0")
            inputs = model.page_inputs(Page.from_html(html, url))
            for b in inputs.blocks:
                digests["blocks"].update(repr((b.text, b.words, b.link_words, b.container_tag,
                                               b.path, b.depth, b.mask, b.gap,
                                               sorted(b.gap_tags))).encode())
            digests["blocks"].update(b"\0")
            digests["unary"].update(inputs.unary.values.tobytes() + b"\0")
            if inputs.blocks:
                digests["probabilities"].update(
                    page_probabilities(model.compiled_potentials, inputs, model.lambda_)[0]
                    .tobytes())
            digests["probabilities"].update(b"\0")
            pages += 1
    print(f"{pages} pages ({args.split} split), C walk: {cdom.accelerated()}, "
          f"{time.perf_counter() - started:.0f} s")
    for name, digest in digests.items():
        print(f"{name}: {digest.hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
