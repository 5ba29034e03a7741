"""Check that a change to the export stage leaves its output byte-identical.

    # the code before a change, from git, and the code now:
    git archive HEAD corpuscrawl benchmarks | tar -x -C /tmp/before
    PYTHONPATH=/tmp/before .venv/bin/python benchmarks/boilerplate_identity.py --out /tmp/before.out
    PYTHONPATH=$PWD .venv/bin/python benchmarks/boilerplate_identity.py --out /tmp/after.out
    .venv/bin/python benchmarks/boilerplate_identity.py --compare /tmp/before.out /tmp/after.out

What it does: the ``bte`` outputs of the pages of the benchmark datasets whose
domain repeats (the documents of ``benchmarks/boilerplate.py``, cached in its
``--cache``) go, in that order, through the cleaning JSON Lines exporter with
an export stage — SQLite history file and near-duplicate index — under four
configurations (the defaults; judging from the first document; a small
buffer that releases domains early; no prior and no near-duplicate check).
One ``<configuration>.jsonl`` per configuration is written to ``--out``;
``--compare`` says whether two such directories are byte-identical.
The ``corpuscrawl`` on ``PYTHONPATH`` is the code run (the extractor outputs are
read from the same cache, so only the export stage differs).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
from pathlib import Path


def export_all(out: Path, cache: Path, datasets: str | None, limit: int) -> None:
    """Write one JSON Lines file per configuration for the corpuscrawl on PYTHONPATH."""
    import corpuscrawl
    from corpuscrawl.boilerplate.detector import Detector, DetectorConfig
    from corpuscrawl.boilerplate.sqlite_history import SQLiteHistory
    from corpuscrawl.boilerplate.stage import ExportStage
    from corpuscrawl.dedup import NearDuplicateIndex
    from corpuscrawl.exporters import CorpusJsonLinesExporter
    from corpuscrawl.items import Document
    print(f"code: {Path(corpuscrawl.__file__).parent}")
    texts = json.loads((cache / "bte.json").read_text())
    from corpuscrawl.evaluation.datasets import datasets_root
    from corpuscrawl.evaluation.domains import repeated_domains  # boilerplate.py's documents
    docs = [d for d in repeated_domains(datasets_root(datasets)) if d.key in texts][:limit]
    configs = {
        "default": (DetectorConfig(), 1000, True),
        "warm1": (DetectorConfig(warm_documents=1), 1000, True),
        "warm5-buffer7": (DetectorConfig(warm_documents=5, min_fraction=0.3), 7, True),
        "no-prior-no-dedup": (DetectorConfig(use_patterns=False, min_documents=3), 1000, False),
    }
    out.mkdir(parents=True, exist_ok=True)
    for name, (config, buffer_size, dedup) in configs.items():
        with tempfile.TemporaryDirectory() as tmp:
            history = SQLiteHistory(Path(tmp) / "history.sqlite3")
            stage = ExportStage(Detector(history, config),
                                NearDuplicateIndex() if dedup else None, buffer_size)
            sink = io.BytesIO()
            exporter = CorpusJsonLinesExporter(sink, stage=stage)
            exporter.start_exporting()
            for d in docs:
                exporter.export_item(Document(url=d.url or d.key, domain=d.domain,
                                              text=texts[d.key]))
            exporter.finish_exporting()
            history.close()
        data = sink.getvalue()
        (out / f"{name}.jsonl").write_bytes(data)
        lines = data.count(b"\n")
        print(f"{name}: {len(docs)} documents in, {lines} written, {dict(stage.stats)}")


def compare(a: Path, b: Path) -> bool:
    """True when both directories hold the same files with the same bytes."""
    names = sorted({p.name for p in a.glob("*.jsonl")} | {p.name for p in b.glob("*.jsonl")})
    same = bool(names)
    for name in names:
        left, right = a / name, b / name
        equal = left.exists() and right.exists() and left.read_bytes() == right.read_bytes()
        print(f"{name}: {'identical' if equal else 'DIFFERENT'}")
        same &= equal
    return same


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="directory for the JSON Lines files")
    ap.add_argument("--compare", nargs=2, metavar="DIR", help="compare two --out directories")
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "cc-bench-bp"),
                    help="benchmarks/boilerplate.py's cache of extractor outputs (bte.json)")
    ap.add_argument("--datasets", default=None, help="datasets root (default: shared)")
    ap.add_argument("--limit", type=int, default=100_000, help="first N documents only")
    args = ap.parse_args(argv)
    if args.compare:
        return 0 if compare(Path(args.compare[0]), Path(args.compare[1])) else 1
    if not args.out:
        ap.error("--out or --compare is required")
    export_all(Path(args.out), Path(args.cache), args.datasets, args.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
