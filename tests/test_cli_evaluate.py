"""``corpuscrawl evaluate`` and ``corpuscrawl report`` end to end on the tiny fixture dataset."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corpuscrawl.cli import main
from corpuscrawl.evaluation.scoring import OVERALL_ID, read_csv


@pytest.fixture
def tiny(tmp_path: Path, data_dir: Path) -> Path:
    root = tmp_path / "tiny"
    shutil.copytree(data_dir / "evaluation" / "tiny", root)
    return root


def test_extract_then_evaluate_writes_csv_and_prints_table(
        tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", "-e", "bte", "-j", "1", "--no-progress", str(tiny)]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(tiny)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:4] == ["dataset", "method", "docs", "missing"]
    assert "tiny" in out and "bte" in out
    overall, docs = read_csv(tiny / "bte" / "evaluation.csv")
    assert overall["id"] == OVERALL_ID
    assert [d["id"] for d in docs] == ["boom", "latin", "news"]
    assert float(overall["f1"]) > 0.8  # BTE finds the article text on these simple pages


def test_methods_dir_outside_a_read_only_dataset(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["extract", "-e", "bte", "-j", "1", "--no-progress", "-o", str(out),
                 str(tiny)]) == 0
    assert main(["evaluate", str(tiny), "--methods-dir", str(out)]) == 0
    assert (out / "bte" / "evaluation.csv").is_file()
    # DIR/<dataset name>/ is preferred when it exists.
    shutil.move(str(out / "bte"), str(out / "tiny" / "bte"))
    (out / "bte").mkdir()
    assert main(["evaluate", str(tiny), "--methods-dir", str(out)]) == 0
    assert (out / "tiny" / "bte" / "evaluation.csv").is_file()


def test_methods_dir_when_a_method_shares_the_dataset_name(tiny: Path, tmp_path: Path) -> None:
    # `extract -o DIR` on a dataset named like a method (readability): DIR/<name>/ is
    # then a method directory, not a directory of method directories.
    dataset = tmp_path / "readability"
    tiny.rename(dataset)
    out = tmp_path / "out"
    assert main(["extract", "-e", "bte", "-e", "readability", "-j", "1", "--no-progress",
                 "-o", str(out), str(dataset)]) == 0
    assert main(["evaluate", str(dataset), "--methods-dir", str(out)]) == 0
    assert (out / "bte" / "evaluation.csv").is_file()
    assert (out / "readability" / "evaluation.csv").is_file()


def test_nothing_to_evaluate(tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", str(tiny)]) == 2
    assert "no method directories" in capsys.readouterr().err


def test_snippet_dataset(tmp_path: Path, data_dir: Path,
                         capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "snippets"
    shutil.copytree(data_dir / "evaluation" / "snippets", root)
    assert main(["extract", "-e", "bte", "-j", "1", "--no-progress", str(root)]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(root)]) == 0
    assert "with found" in capsys.readouterr().out
    overall, _ = read_csv(root / "bte" / "evaluation.csv")
    assert overall["with_total"] == "3" and overall["without_total"] == "3"


def test_report_writes_plots_and_diffs(tiny: Path, tmp_path: Path) -> None:
    assert main(["extract", "-e", "bte", "-e", "justext", "-j", "1", "--no-progress",
                 str(tiny)]) == 0
    report = tmp_path / "report"
    assert main(["report", str(tiny), "-o", str(report), "--worst", "2"]) == 0
    index = (report / "index.html").read_text(encoding="utf-8")
    assert "scores-tiny.png" in index and "f1-tiny.png" in index
    assert (report / "scores-tiny.png").read_bytes()[:4] == b"\x89PNG"
    assert (report / "f1-tiny.png").read_bytes()[:4] == b"\x89PNG"
    worst = (report / "worst-tiny-bte.html").read_text(encoding="utf-8")
    assert worst.count("<h2>") == 2
    assert "extracted" in worst and "gold" in worst
    # report does not rewrite evaluation.csv
    assert not (tiny / "bte" / "evaluation.csv").exists()


def test_evaluate_with_report_option(tiny: Path, tmp_path: Path) -> None:
    assert main(["extract", "-e", "bte", "-j", "1", "--no-progress", str(tiny)]) == 0
    assert main(["evaluate", str(tiny), "--report", str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "index.html").is_file()
    assert (tiny / "bte" / "evaluation.csv").is_file()


def test_compare_prints_the_lead_with_its_interval_per_dataset_and_over_all(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "tiny2"
    shutil.copytree(tiny, other)
    for ds in (tiny, other):
        assert main(["extract", "-e", "bte", "-e", "newsfeed", "-j", "1", "--no-progress",
                     str(ds)]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(tiny), str(other), "--compare", "bte,newsfeed"]) == 0
    out = capsys.readouterr().out
    assert "bte vs newsfeed: lead in summed F1 points" in out
    lines = {line.split(":")[0].strip(): line for line in out.splitlines() if line.startswith("  ")}
    assert set(lines) == {"tiny", "tiny2", "all"}
    assert "3 docs" in lines["tiny"] and "6 docs" in lines["all"]
    assert "tiny2/" in lines["all"]  # the documents moving the pooled lead are named


def test_compare_refuses_bad_method_names_with_the_names_it_has(
        tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", "-e", "bte", "-j", "1", "--no-progress", str(tiny)]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(tiny), "--compare", "bte"]) == 2
    assert "two different method names" in capsys.readouterr().err
    assert main(["evaluate", str(tiny), "--compare", "bte,auto"]) == 2
    err = capsys.readouterr().err
    assert "no method 'auto' for dataset tiny (have: bte)" in err
    assert (tiny / "bte" / "evaluation.csv").is_file()  # the scores are still written
