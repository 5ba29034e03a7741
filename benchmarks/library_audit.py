"""Time the export stage's paragraph splitting and MinHash signatures on gold texts.

    .venv/bin/python benchmarks/library_audit.py [--texts 2000]

Prints ms per text for ``normalize.split_paragraphs``, ``patterns.notice_candidates`` (over
the text's paragraphs) and ``MinHasher.signature``
over the first N gold texts of ``DATASETS/*/clean/*`` (``--datasets``, else
:func:`corpuscrawl.evaluation.datasets.datasets_root`) (best of
``--repeat`` passes), with a SHA-1 of all results, so two code trees can be
compared for speed and for identical output (results:
benchmarks/results/library_audit.md; run with another checkout on ``PYTHONPATH`` to time it).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corpuscrawl.evaluation.datasets import datasets_root


def gold_texts(root: Path, limit: int) -> list[str]:
    """The first ``limit`` gold texts (sorted by path) of every dataset under ``root``."""
    texts = []
    for path in sorted(root.glob("*/clean/*"))[:limit]:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        texts.append(data.decode("utf-8", "replace"))
    return texts


def best_pass(function: Callable[[str], Any], texts: list[str],
              repeat: int) -> tuple[float, list[Any]]:
    """Fastest of ``repeat`` passes (seconds) and the outputs of the last one."""
    best, outputs = float("inf"), []
    for _ in range(repeat):
        start = time.perf_counter()
        outputs = [function(text) for text in texts]
        best = min(best, time.perf_counter() - start)
    return best, outputs


def main(argv: list[str] | None = None) -> None:
    """Run both timings and print one line each."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", type=Path,
                    help="datasets directory (default: $CORPUSCRAWL_DATASETS, else ../shared/datasets)")
    ap.add_argument("--texts", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    from corpuscrawl.boilerplate import normalize, patterns
    from corpuscrawl.export.dedup import MinHasher

    texts = gold_texts(datasets_root(args.datasets), args.texts)
    seconds, paragraphs = best_pass(normalize.split_paragraphs, texts, args.repeat)
    digest = hashlib.sha1(repr([[tuple(p) for p in ps] for ps in paragraphs]).encode())
    print(f"split_paragraphs: {seconds / len(texts) * 1e3:.4f} ms/text over {len(texts)} texts, "
          f"{sum(map(len, paragraphs))} paragraphs, sha1 {digest.hexdigest()}")
    lines = {text: [p.text for p in ps] for text, ps in zip(texts, paragraphs, strict=True)}
    seconds, found = best_pass(lambda text: patterns.notice_candidates(lines[text]), texts,
                               args.repeat)
    digest = hashlib.sha1(repr(found).encode())
    print(f"notice_candidates: {seconds / len(texts) * 1e3:.4f} ms/text, "
          f"sha1 {digest.hexdigest()}")
    seconds, signatures = best_pass(MinHasher().signature, texts, args.repeat)
    digest = hashlib.sha1(b"".join(s.tobytes() for s in signatures))
    print(f"MinHash signature: {seconds / len(texts) * 1e3:.4f} ms/text, sha1 {digest.hexdigest()}")


if __name__ == "__main__":
    main()
