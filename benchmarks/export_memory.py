"""Memory of the export stage's per-document state over 20,000 and 100,000 documents.

Feeds generated documents (50 domains, distinct texts, one shared copyright line) to the
export stage with its SQLite boilerplate history, as a crawl does, once with the
near-duplicate index and page versions in memory (dicts) and once in their SQLite
scratch files (:mod:`corpuscrawl.dedup_store`, the crawl's default), each in its own
process; reports Python's traced memory and the process's RSS at 1k, 5k, 10k, 20k,
50k and 100k documents and the growth per 1,000 documents.

    python benchmarks/export_memory.py --documents 100000
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from corpuscrawl.evaluation.tables import ANALYSIS_MARKER, markdown_table, write_keeping_notes

REPO = Path(__file__).resolve().parent.parent
MARKS = (1_000, 5_000, 10_000, 20_000, 50_000, 100_000)
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def rss_mb() -> float:
    """This process's resident set size in MB."""
    with open("/proc/self/status", encoding="ascii") as fh:
        return int(fh.read().split("VmRSS:")[1].split()[0]) / 1024


def measure(kind: str, documents: int) -> list[tuple[int, float, float]]:
    """(documents, traced MB, RSS MB) at each mark, for the stores of ``kind``."""
    from corpuscrawl.boilerplate.backends import open_history
    from corpuscrawl.boilerplate.detector import Detector
    from corpuscrawl.boilerplate.stage import ExportStage
    from corpuscrawl.dedup import NearDuplicateIndex
    from corpuscrawl.dedup_store import SQLiteNearDuplicateIndex, SQLitePageVersions
    from corpuscrawl.items import Document, content_hash

    tmp = tempfile.mkdtemp()
    history = open_history(f"{tmp}/history.sqlite3")
    if kind == "memory":
        stage = ExportStage(Detector(history), NearDuplicateIndex())
    else:
        stage = ExportStage(Detector(history), SQLiteNearDuplicateIndex(directory=tmp),
                            versions=SQLitePageVersions(tmp))
    words = ["".join(random.Random(i).choice(LETTERS) for _ in range(7)) for i in range(3000)]
    rng = random.Random(1)
    out = []
    tracemalloc.start()
    for i in range(documents):
        paragraphs = [" ".join(rng.choice(words) for _ in range(60)) for _ in range(4)]
        text = "\n".join([*paragraphs, "Copyright 2024 The Site. All rights reserved."])
        stage.submit(Document(url=f"http://site{i % 50}.example/p/{i}.html",
                              domain=f"site{i % 50}.example", text=text,
                              content_hash=content_hash(text)))
        if i + 1 in MARKS:
            gc.collect()
            out.append((i + 1, tracemalloc.get_traced_memory()[0] / 2**20, rss_mb()))
    return out


def main() -> None:
    """Measure both kinds of store in child processes; write benchmarks/results/memory.md."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--child", choices=("memory", "sqlite"), help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks/results/memory.md")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.documents)))
        return
    results = {}
    for kind in ("memory", "sqlite"):
        proc = subprocess.run([sys.executable, __file__, "--child", kind, "--documents",
                               str(args.documents)], capture_output=True, text=True, check=True,
                              cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)))
        results[kind] = json.loads(proc.stdout.splitlines()[-1])
    rows = []
    for kind, label in (("memory", "dicts in memory (before)"),
                        ("sqlite", "SQLite scratch files (the crawl's default)")):
        marks = results[kind]
        first, last = marks[0], marks[-1]
        per_k = [(last[col] - first[col]) / (last[0] - first[0]) * 1000 * 1024 for col in (1, 2)]
        rows.append([label, *(f"{traced:.1f} / {rss:.0f}" for _, traced, rss in marks),
                     f"{per_k[0]:.0f} KB / {per_k[1]:.0f} KB"])
    header = ["near-duplicate index and page versions",
              *(f"{n // 1000}k docs: traced / RSS MB" for n, _, _ in results["memory"]),
              "growth per 1,000 docs: traced / RSS"]
    command = f"python benchmarks/export_memory.py --documents {args.documents}"
    lines = ["# Memory of the export stage's per-document state", "",
             f"Command: `PYTHONPATH=$PWD {command}`; {time.strftime('%Y-%m-%d %H:%M')} UTC "
             f"(load average {os.getloadavg()[0]:.1f}; memory figures do not depend on it).", "",
             "Generated documents (50 domains, 4 distinct paragraphs each plus one shared "
             "copyright line) submitted to the export stage with its SQLite boilerplate "
             "history, as the crawl's pipeline does. Traced = Python allocations "
             "(tracemalloc); RSS includes SQLite's page caches (bounded).", "",
             *markdown_table(header, rows, right_from=1), ""]
    write_keeping_notes(args.out, lines, ANALYSIS_MARKER)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
