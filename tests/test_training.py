"""The shipped training set, its reader, the label rules and cross-validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpuscrawl.browse.classifier import models_dir
from corpuscrawl.browse.elements import LABELS
from corpuscrawl.learn.element_trainer import (
    PAGES_DIR_DEFAULT,
    TRAIN_SET_NAME,
    cross_validate,
    load_label_rules,
    read_jsonl,
    site_group,
    train,
)


def test_shipped_set_is_valid_and_covers_every_class() -> None:
    records = read_jsonl(models_dir() / TRAIN_SET_NAME)
    assert len(records) >= 200
    assert {r.label for r in records} == set(LABELS)
    assert len({site_group(r) for r in records}) >= 8


def test_every_fixture_page_has_label_rules() -> None:
    rules = load_label_rules(PAGES_DIR_DEFAULT)
    pages = {str(p.relative_to(PAGES_DIR_DEFAULT)) for p in PAGES_DIR_DEFAULT.rglob("*.html")}
    # Pages that only serve as link targets need no rules.
    assert pages - set(rules) <= {"forum/outer-target.html", "bench/page.html"}


def test_reader_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text('{"tag": "a", "label": "Inner"}\n\nnot json\n')
    with pytest.raises(ValueError, match=r"set.jsonl:3: invalid JSON"):
        read_jsonl(path)
    path.write_text('{"tag": "a"}\n')
    with pytest.raises(ValueError, match=r"set.jsonl:1: record has no 'label'"):
        read_jsonl(path)


def test_bad_label_in_rules_is_reported(tmp_path: Path) -> None:
    (tmp_path / "labels.json").write_text(json.dumps({"a.html": [["a", "Link"]]}))
    with pytest.raises(ValueError, match="unknown label.*Link"):
        load_label_rules(tmp_path)


def test_cross_validation_reports_every_class() -> None:
    records = read_jsonl(models_dir() / TRAIN_SET_NAME)
    report = cross_validate(records, grouped=True)
    assert set(report) == set(LABELS) | {"accuracy"}
    # Navigation links are easy; the floor guards against a broken feature.
    assert report["Outer"]["recall"] >= 0.9 and report["Inner"]["f1"] >= 0.85
    assert report["accuracy"]["value"] >= 0.75


def test_train_writes_model_and_card(tmp_path: Path) -> None:
    model = train(models_dir() / TRAIN_SET_NAME, tmp_path)
    assert (tmp_path / "element-classifier.json").is_file()
    card = (tmp_path / "element-classifier.md").read_text()
    assert "leave one site out" in card and "| Revealer |" in card
    assert model.metadata_["records"] >= 200
