"""Scoring method directories and the evaluation.csv format."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from corpuscrawl.evaluation.datasets import Dataset
from corpuscrawl.evaluation.scoring import (
    GOLD_COLUMNS,
    OVERALL_ID,
    SNIPPET_COLUMNS,
    evaluate_dataset,
    evaluate_texts,
    read_csv,
)


@pytest.fixture
def tiny(tmp_path: Path, data_dir: Path) -> Dataset:
    root = tmp_path / "tiny"
    shutil.copytree(data_dir / "evaluation" / "tiny", root)
    return Dataset(root)


def write_method(ds: Dataset, method: str, texts: dict[str, str]) -> Path:
    d = ds.path / method
    d.mkdir()
    for doc, text in texts.items():
        (d / f"{doc}.txt").write_text(text, encoding="utf-8")
    return d


def test_evaluation_csv_overall_row_first_then_documents(tiny: Dataset) -> None:
    gold = {doc: tiny.gold(doc) or "" for doc in ("news", "latin", "boom")}
    method = write_method(tiny, "perfect", {**gold, "nogold": "whatever"})
    [result] = evaluate_dataset(tiny)
    assert result.method == "perfect" and result.missing == 0
    with (method / "evaluation.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert tuple(rows[0]) == GOLD_COLUMNS
    assert rows[1][0] == OVERALL_ID
    assert [r[0] for r in rows[2:]] == ["boom", "latin", "news"]  # nogold is not scored
    overall, docs = read_csv(method / "evaluation.csv")
    assert float(overall["f1"]) == 1.0 and float(overall["mean_f1"]) == 1.0
    assert overall["levenshtein"] == "0" and overall["extracted"] == "3"
    assert all(float(d["precision"]) == 1.0 and d["fp"] == "0" for d in docs)


def test_hand_computed_summed_and_mean_scores(tiny: Dataset) -> None:
    news_gold = (tiny.gold("news") or "").split()  # 65 words
    texts = {
        "news": " ".join(["Home", "Sport", *news_gold]),  # TP 59, FP 2
        "latin": "",  # empty extraction: TP 0, FN = all 32 gold words
        # boom: no output file at all -> scored as empty, marked missing
    }
    result = evaluate_texts(tiny, "m", texts)
    s = result.summary
    n_news, n_latin = len(news_gold), len((tiny.gold("latin") or "").split())
    n_boom = len((tiny.gold("boom") or "").split())
    assert (s.tp, s.fp, s.fn) == (n_news, 2, n_latin + n_boom)
    assert s.precision == pytest.approx(n_news / (n_news + 2))
    assert s.recall == pytest.approx(n_news / (n_news + n_latin + n_boom))
    news_f1 = 2 * n_news / (2 * n_news + 2)
    assert s.mean_f1 == pytest.approx(news_f1 / 3)
    assert result.missing == 1


def test_methods_outside_the_dataset_and_extracted_only(tiny: Dataset, tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "half").mkdir(parents=True)
    (out / "half" / "news.txt").write_text(tiny.gold("news") or "", encoding="utf-8")
    [strict] = evaluate_dataset(tiny, out, write=False)
    [partial] = evaluate_dataset(tiny, out, write=False, extracted_only=True)
    assert strict.summary.documents == 3 and strict.missing == 2
    assert partial.summary.documents == 1 and partial.summary.f1 == 1.0
    assert not (out / "half" / "evaluation.csv").exists()


def test_ascii_only_drops_accents_before_matching(tiny: Dataset) -> None:
    texts = {"latin": "Le cafe de la gare"}
    plain = evaluate_texts(tiny, "m", texts, ids=["latin"])
    folded = evaluate_texts(tiny, "m", texts, ids=["latin"], ascii_only=True)
    assert plain.summary.tp == 4  # "cafe" != "café"
    assert folded.summary.tp == 4  # "caf" != "cafe": dropping is not transliterating
    assert evaluate_texts(tiny, "m", {"latin": "Le café"}, ids=["latin"],
                          ascii_only=True).summary.tp == 2


def test_snippet_dataset_csv(data_dir: Path, tmp_path: Path) -> None:
    root = tmp_path / "snippets"
    shutil.copytree(data_dir / "evaluation" / "snippets", root)
    ds = Dataset(root)
    write_method(ds, "m", {"s1": "The museum reopened its glass hall. See the whale skeleton.",
                           "s2": "Only a paywall notice here: Subscribe now to read on."})
    [result] = evaluate_dataset(ds)
    assert result.kind == "snippets"
    overall, docs = read_csv(root / "m" / "evaluation.csv")
    assert tuple(overall) == SNIPPET_COLUMNS
    # s1: 2/2 with found, 0/1 without present; s2: 0/1 with found, 2/2 without present
    assert (overall["tp"], overall["fn"], overall["fp"]) == ("2", "1", "2")
    assert (overall["with_found"], overall["with_total"]) == ("2", "3")
    assert (overall["without_absent"], overall["without_total"]) == ("1", "3")
    assert [d["id"] for d in docs] == ["s1", "s2"]
