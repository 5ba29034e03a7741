"""benchmarks/learned.py --dump and benchmarks/lost_causes.py on a tiny gold set: the dump
holds each method's counts per page, and the comparison and evidence read it."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from corpuscrawl.evaluation.datasets import Dataset, split
from corpuscrawl.evaluation.metrics import Score, score
from corpuscrawl.extract import get_extractor


@pytest.fixture
def dump(benchmark_module, tmp_path: Path, data_dir: Path, monkeypatch) -> Path:  # type: ignore[no-untyped-def]
    root = tmp_path / "datasets"
    shutil.copytree(data_dir / "learned" / "tinyset", root / "tinyset")
    monkeypatch.setenv("CORPUSCRAWL_DATASETS", str(root))
    path = tmp_path / "scores.jsonl"
    assert benchmark_module("learned").main(
        ["--datasets", "tinyset", "--snippets", "", "--out", str(tmp_path / "learned.md"),
         "--dump", str(path)]) == 0
    return path


def test_the_dump_holds_every_method_s_counts_of_every_test_page(dump: Path) -> None:
    rows = [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]
    ds = Dataset(Path(dump.parent / "datasets" / "tinyset"))
    _, test = split([i for i in ds.ids() if ds.gold_path(i).is_file()])
    assert [r["doc"] for r in rows] == [f"tinyset/{i}" for i in test]
    for row in rows:
        doc = row["doc"].split("/", 1)[1]
        expected = score(get_extractor("bte").extract(ds.load_page(doc)), ds.gold(doc) or "",
                         with_levenshtein=False)
        assert row["bte"] == [expected.tp, expected.fp, expected.fn]
        assert {"auto", "readability"} <= set(row)
        # the peers are benchmark extras, not installed by .ci/setup: there when importable
        assert ("trafilatura (peer)" in row) == (importlib.util.find_spec("trafilatura")
                                                is not None)


def test_lost_causes_compares_two_methods_and_reads_the_dump(
        benchmark_module, dump: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    lost_causes = benchmark_module("lost_causes")
    keys, scores = lost_causes.load_dump(dump)
    assert len(keys) == len(scores["auto"]) and all(isinstance(s, Score) for s in scores["bte"])
    assert lost_causes.main([str(dump), "--difference", "auto,bte"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("summed F1 ") and "95 % stratified bootstrap" in out
    assert "lost articles" in out
    assert lost_causes.main([str(dump), "--methods", "bte"]) == 0
    assert capsys.readouterr().out.startswith("## bte: ")
    with pytest.raises(SystemExit):
        lost_causes.main([str(dump), "--difference", "auto,nosuchmethod"])
