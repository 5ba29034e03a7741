"""benchmarks/auto_models.py on a tiny gold set: two model files side by side with the
bootstrap of their difference, and the score cache per model file."""

from __future__ import annotations

import shutil
from pathlib import Path

from corpuscrawl.resources.shipped import shipped_dir


def test_two_files_are_scored_on_the_test_split_with_their_difference(
        benchmark_module, data_dir: Path, tmp_path: Path, private_cache,
        capsys) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark_module("auto_models")
    root = tmp_path / "datasets"
    shutil.copytree(data_dir / "learned" / "tinyset", root / "tinyset")
    models = shipped_dir("models")
    assert models is not None
    copy = tmp_path / "copy.skops"
    shutil.copyfile(models / "auto.skops", copy)
    out = tmp_path / "report.md"
    assert bench.main([f"a={models / 'auto.skops'}", f"b={copy}", "--root", str(root),
                       "--datasets", "tinyset", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| tinyset |")]
    assert len(rows) == 2
    assert rows[0].split("|")[3:] == rows[1].split("|")[3:]  # the same file scores the same
    assert "| article sets | +0.00 | +0.00 to +0.00 |" in text
    assert "wcxb" not in text.split("## ", 1)[0].split("| pages |", 1)[1]
    assert list((tmp_path / "cache" / "auto-models").glob("*.json"))  # cached per file
