"""The search path of shipped models and templates: user's directory first, then the shipped copy."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from corpuscrawl.extract.learned.auto import AutoModel
from corpuscrawl.extract.learned.models import ModelNotFoundError, load_model
from corpuscrawl.resources import shipped

REPO = Path(__file__).resolve().parent.parent


def test_from_a_checkout_the_shipped_copies_are_the_top_level_directories(monkeypatch):
    monkeypatch.delenv("CORPUSCRAWL_MODELS_DIR", raising=False)
    assert shipped.shipped_dir("models") == REPO / "models"
    assert shipped.shipped_dir("templates") == REPO / "templates"
    assert shipped.models_dir() == REPO / "models"
    assert shipped.find_model("auto.skops") == REPO / "models" / "auto.skops"
    assert shipped.models_write_dir() == REPO / "models"  # training from a checkout


def test_models_dir_environment_is_searched_first_then_the_shipped_models(tmp_path, monkeypatch):
    monkeypatch.setenv("CORPUSCRAWL_MODELS_DIR", str(tmp_path))
    (tmp_path / "element-classifier.json").write_text("{}")
    assert shipped.models_dirs() == [tmp_path, REPO / "models"]
    assert shipped.models_dir() == tmp_path
    assert shipped.models_write_dir() == tmp_path  # where new models are written
    assert shipped.find_model("element-classifier.json") == tmp_path / "element-classifier.json"
    assert shipped.find_model("auto.skops") == REPO / "models" / "auto.skops"


def test_an_explicit_models_dir_is_the_only_one_searched(tmp_path):
    assert shipped.models_dirs(tmp_path) == [tmp_path]
    with pytest.raises(ModelNotFoundError, match="auto.skops not found"):
        load_model("auto", AutoModel, tmp_path)


def test_templates_setting_comes_before_the_shipped_templates(tmp_path):
    assert shipped.templates_dirs(tmp_path) == [tmp_path, REPO / "templates"]
    assert shipped.templates_dirs("") == [REPO / "templates"]
    assert shipped.find("templates", "wikipedia.org.txt", [tmp_path]) == \
        REPO / "templates" / "wikipedia.org.txt"


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown shipped data kind 'data'"):
        shipped.shipped_dir("data")


def test_a_zipped_copy_is_unpacked_once_into_a_content_named_cache(tmp_path, monkeypatch):
    archive = tmp_path / "project.egg"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("corpuscrawl/data/models/a.json", '{"a": 1}')
        zf.writestr("corpuscrawl/data/models/cards/a.md", "# a")
    monkeypatch.setenv("CORPUSCRAWL_CACHE_DIR", str(tmp_path / "cache"))
    copy = zipfile.Path(archive, "corpuscrawl/data/models/")
    first = shipped._unpacked(copy, "models")
    assert first.parent.parent == tmp_path / "cache" and first.name == "models"
    assert (first / "a.json").read_text() == '{"a": 1}'
    assert (first / "cards" / "a.md").read_text() == "# a"
    (first / "a.json").touch()
    assert shipped._unpacked(copy, "models") == first  # same content: same directory, no copy
    with zipfile.ZipFile(archive, "a") as zf:
        zf.writestr("corpuscrawl/data/models/b.json", "{}")
    assert shipped._unpacked(zipfile.Path(archive, "corpuscrawl/data/models/"),
                             "models") != first  # new content: new directory


def test_an_unwritable_cache_is_a_clear_error(tmp_path, monkeypatch):
    archive = tmp_path / "project.egg"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("corpuscrawl/data/models/a.json", "{}")
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("CORPUSCRAWL_CACHE_DIR", str(blocker / "cache"))
    with pytest.raises(shipped.ShippedDataError, match="set CORPUSCRAWL_CACHE_DIR"):
        shipped._unpacked(zipfile.Path(archive, "corpuscrawl/data/models/"), "models")
