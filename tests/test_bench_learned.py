"""benchmarks/learned.py end to end on tiny datasets: the test split of a gold set and a
snippet set run whole as out-of-domain pages."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corpuscrawl.evaluation.datasets import Dataset
from corpuscrawl.evaluation.results_file import RUNS_MARKER
from corpuscrawl.evaluation.snippets import score_snippets, summarize_snippets
from corpuscrawl.extract import get_extractor


@pytest.fixture
def bench(benchmark_module):  # type: ignore[no-untyped-def]
    return benchmark_module("learned")


@pytest.fixture
def root(tmp_path: Path, data_dir: Path, monkeypatch) -> Path:  # type: ignore[no-untyped-def]
    root = tmp_path / "datasets"
    shutil.copytree(data_dir / "learned" / "tinyset", root / "tinyset")
    shutil.copytree(data_dir / "evaluation" / "snippets", root / "snip")
    monkeypatch.setenv("CORPUSCRAWL_DATASETS", str(root))
    return root


def _row(text: str, section: str, method: str) -> list[str]:
    body = text.split(section, 1)[1]
    line = next(x for x in body.splitlines() if x.startswith(f"| {method} |"))
    return [c.strip() for c in line.strip("|").split("|")]


def test_snippet_pages_are_scored_whole_beside_the_gold_test_split(
        bench, root: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "learned.md"
    out.write_text(f"# head\n{RUNS_MARKER}\nmy history\n", encoding="utf-8")
    assert bench.main(["--datasets", "tinyset", "--snippets", "snip", "--out", str(out)]) == 0
    assert "snip: 2 snippet documents done" in capsys.readouterr().err
    text = out.read_text(encoding="utf-8")
    assert text.startswith(f"# head\n{RUNS_MARKER}\n\n## Run ") and text.rstrip().endswith("my history")
    section = "### Out of domain: snip snippet pages (all 2, never trained on)"
    assert section in text
    cells = _row(text, section, "auto")
    assert cells[1] == "2"  # every page of the snippet set, not a test split of it
    with_found, without_absent = float(cells[6]), float(cells[7])
    assert 0.0 <= with_found <= 1.0 and 0.0 <= without_absent <= 1.0
    # The table holds the snippet counts of the method's own extractions.
    ds = Dataset(root / "snip")
    expected = summarize_snippets(
        score_snippets(get_extractor("readability").extract(ds.load_page(i)), ds.snippets[i])
        for i in ds.ids())
    cells = _row(text, section, "readability")
    assert float(cells[4].strip("*")) == pytest.approx(expected.f1, abs=5e-5)
    assert float(cells[6]) == pytest.approx(expected.with_found_share, abs=5e-5)


def test_no_snippet_sets_and_a_set_without_snippets(
        bench, root: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "learned.md"
    assert bench.main(["--datasets", "tinyset", "--snippets", "", "--out", str(out)]) == 0
    assert "Out of domain" not in out.read_text(encoding="utf-8")
    assert bench.main(["--datasets", "tinyset", "--snippets", "tinyset", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "tinyset has no snippets.jsonl, not run" in text and "Out of domain" not in text
