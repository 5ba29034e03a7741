"""benchmarks/extraction.py end to end on the tiny fixture dataset (no peers, one extractor)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture
def bench(benchmark_module):  # type: ignore[no-untyped-def]
    return benchmark_module("extraction")


def test_benchmark_writes_results_and_keeps_notes(bench, tmp_path: Path, data_dir: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "datasets"
    shutil.copytree(data_dir / "evaluation" / "tiny", root / "tiny")
    shutil.copytree(data_dir / "evaluation" / "snippets", root / "snip")
    out = tmp_path / "results.md"
    out.write_text(f"old table\n{bench.NOTES_MARKER}\nmy analysis\n", encoding="utf-8")
    assert bench.main(["--root", str(root), "--extractors", "bte", "--peers", "none",
                       "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "old table" not in text
    assert text.rstrip().endswith("my analysis")
    assert "benchmarks/extraction.py --root" in text.splitlines()[4]
    assert "## tiny" in text and "## snip (snippets)" in text
    assert "Scorer speed" in text and "20,000-word" in text
    row = next(line for line in text.splitlines() if line.startswith("| bte | 3 |"))
    assert float(row.split("|")[5]) > 0.8  # BTE's F1 on the tiny article pages
