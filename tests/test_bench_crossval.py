"""benchmarks/crossval.py end to end on the tiny learned dataset (two folds, no peers)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from corpuscrawl.evaluation.results_file import RUNS_MARKER


@pytest.fixture
def bench(benchmark_module):  # type: ignore[no-untyped-def]
    return benchmark_module("crossval")


def test_every_document_is_scored_once_by_a_model_that_did_not_train_on_it(
        bench, tmp_path: Path, data_dir: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "datasets"
    shutil.copytree(data_dir / "learned" / "tinyset", root / "tinyset")
    monkeypatch.setenv("CORPUSCRAWL_DATASETS", str(root))
    monkeypatch.setenv("CORPUSCRAWL_CACHE", str(tmp_path / "cache"))
    out, dump = tmp_path / "cv.md", tmp_path / "scores.jsonl"
    out.write_text(f"# head\n{RUNS_MARKER}\nmy history\n", encoding="utf-8")
    argv = ["--folds", "2", "--models", "sequence", "--datasets", "tinyset", "--peers", "none",
            "--out", str(out), "--dump", str(dump)]
    assert bench.main(argv) == 0
    assert capsys.readouterr().err.count("sequence fold") == 2  # one model per fold
    rows = [json.loads(line) for line in dump.read_text().splitlines()]
    assert sorted(r["doc"] for r in rows) == sorted(f"tinyset/page{i:02d}" for i in range(12))
    assert {r["fold"] for r in rows} == {0, 1}
    text = out.read_text(encoding="utf-8")
    assert text.startswith(f"# head\n{RUNS_MARKER}\n\n## Run ") and text.rstrip().endswith("my history")
    assert "2-fold cross-validation" in text and "### Pooled summed F1 by fold" in text
    row = next(line for line in text.splitlines() if line.startswith("| sequence |"))
    assert float(row.split("|")[2]) > 0.9  # the tiny pages are easy for the block model
    # A second run reuses the fold models trained by the same source.
    assert bench.main(argv) == 0
    assert "trained on" not in capsys.readouterr().err


def test_a_single_fold_is_refused(bench) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit):
        bench.main(["--folds", "1"])


def test_a_fold_model_cached_by_an_earlier_version_is_converted_not_retrained(
        bench, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import numpy as np
    import skops.io as sio
    from sklearn.svm import SVC

    from corpuscrawl.extract.learned.features import FEATURE_NAMES
    from corpuscrawl.extract.learned.hybrid import HybridAModel

    rng = np.random.default_rng(0)
    svm = SVC().fit(rng.random((10, len(FEATURE_NAMES))), [0, 1] * 5)
    sio.dump({"kind": "hybrid-a", "base": ["bte", "readability"], "svm": svm, "constant": 0,
              "params": {"C": 1.0}}, tmp_path / "hybrid-a-fold0of5-3docs.skops")
    model = bench.fold_model("hybrid-a", 0, 5, [object()] * 3, tmp_path)
    assert isinstance(model, HybridAModel) and model.base_ == ("bte", "readability")
    again = bench.fold_model("hybrid-a", 0, 5, [object()] * 3, tmp_path)  # now a model file
    assert isinstance(again, HybridAModel)
