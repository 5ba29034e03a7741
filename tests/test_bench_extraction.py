"""benchmarks/extraction.py end to end on the tiny fixture dataset (no peers, one extractor)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corpuscrawl.evaluation.results_file import RUNS_MARKER


@pytest.fixture
def bench(benchmark_module):  # type: ignore[no-untyped-def]
    return benchmark_module("extraction")


def test_benchmark_writes_results_and_keeps_notes(bench, tmp_path: Path, data_dir: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "datasets"
    shutil.copytree(data_dir / "evaluation" / "tiny", root / "tiny")
    shutil.copytree(data_dir / "evaluation" / "snippets", root / "snip")
    out = tmp_path / "results.md"
    argv = ["--root", str(root), "--extractors", "bte", "--peers", "none", "--out", str(out)]
    assert bench.main(argv) == 0
    text = out.read_text(encoding="utf-8")
    assert "benchmarks/extraction.py --root" in text.splitlines()[4]
    assert "## tiny" in text and "## snip (snippets)" in text
    # A second run into the same file adds a dated section and keeps the first report.
    assert bench.main(argv) == 0
    again = out.read_text(encoding="utf-8")
    assert again.startswith(text.rstrip("\n") + f"\n\n{RUNS_MARKER}\n\n## Run ")
    assert "### tiny" in again.split(RUNS_MARKER, 1)[1]
    assert "Scorer speed" in text and "20,000-word" in text
    row = next(line for line in text.splitlines() if line.startswith("| bte | 3 |"))
    assert float(row.split("|")[5]) > 0.8  # BTE's F1 on the tiny article pages
