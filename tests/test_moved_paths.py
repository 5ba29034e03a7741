"""Import paths from before the package's layout fail with an error naming the new path:
in ``CORPUSCRAWL_EXTRACTORS`` (at start, naming the key), in Scrapy component settings,
in a user's own module, and in a real ``scrapy crawl``."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
from scrapy.settings import Settings
from scrapy.utils.misc import load_object

import corpuscrawl
from corpuscrawl.extract import EXTRACTORS_BASE, ExtractorError, get_extractor, load_factory
from corpuscrawl.extraction import ConfigError, ExtractionConfig
from corpuscrawl.moved import MOVED_MODULES, ModuleMovedError, moved_path
from tests.crawl_helpers import run_crawl

PACKAGE_DIR = Path(corpuscrawl.__file__).resolve().parent

#: The built-in extractor table as it read before the layout (what users copied).
OLD_EXTRACTOR_PATHS = {
    "bte": "corpuscrawl.extract.bte:BTEExtractor",
    "justext": "corpuscrawl.extract.jt:JusTextExtractor",
    "template": "corpuscrawl.extract.template:TemplateExtractor",
    "boilerpipe-default": "corpuscrawl.extract.boilerpipe:BoilerpipeDefaultExtractor",
    "boilerpipe-article": "corpuscrawl.extract.boilerpipe:BoilerpipeArticleExtractor",
    "readability": "corpuscrawl.extract.readability:ReadabilityExtractor",
    "newsfeed": "corpuscrawl.extract.newsfeed:NewsFeedExtractor",
    "energy": "corpuscrawl.extract.energy:EnergyExtractor",
    "linkblocks": "corpuscrawl.extract.linkblocks:LinkBlocksExtractor",
    "hybrid-a": "corpuscrawl.extract.hybrid:HybridAExtractor",
    "hybrid-b": "corpuscrawl.extract.hybrid:HybridBExtractor",
    "segment-svm": "corpuscrawl.extract.hybrid:SegmentSVMExtractor",
    "sequence": "corpuscrawl.extract.sequence:SequenceExtractor",
    "auto": "corpuscrawl.extract.auto:AutoExtractor",
}


def _module_file(name: str) -> Path:
    rel = Path(*name.split(".")[1:])
    return PACKAGE_DIR / rel if (PACKAGE_DIR / rel).is_dir() else (PACKAGE_DIR / rel).with_suffix(".py")


@pytest.mark.parametrize(("old", "new"), sorted(MOVED_MODULES.items()))
def test_every_moved_module_is_gone_and_its_new_home_exists(old, new):
    assert not _module_file(old).exists(), f"{old} exists again: drop it from MOVED_MODULES"
    assert _module_file(new).exists(), f"{new} (the new home of {old}) does not exist"


def test_old_extractor_paths_point_to_the_registered_classes():
    """Each old built-in path's suggestion is exactly the path the registry uses now."""
    for name, old in OLD_EXTRACTOR_PATHS.items():
        assert moved_path(old) == EXTRACTORS_BASE[name], name
        assert load_factory(moved_path(old)) is load_factory(EXTRACTORS_BASE[name])


def test_current_and_foreign_paths_are_not_rewritten():
    for path in [*EXTRACTORS_BASE.values(), "mypkg.extractors:Mine", "corpuscrawl.extract:get_extractor",
                 "corpuscrawl.export_glue.ExportStagePipeline"]:
        assert moved_path(path) is None, path
    assert moved_path("corpuscrawl.boilerplate.scrapy_glue.ExportStagePipeline") == (
        "corpuscrawl.export_glue.ExportStagePipeline")


def test_an_old_extractor_path_fails_at_start_naming_the_key_and_the_new_path():
    settings = Settings({"CORPUSCRAWL_EXTRACTORS": {
        "mine": "corpuscrawl.extract.bte:BTEExtractor"}})
    with pytest.raises(ConfigError, match=(
            r"CORPUSCRAWL_EXTRACTORS\['mine'\] = 'corpuscrawl.extract.bte:BTEExtractor'.*"
            r"use 'corpuscrawl.extract.classic.bte:BTEExtractor'")):
        ExtractionConfig.from_settings(settings)
    # given as JSON on the command line, the same
    settings = Settings({"CORPUSCRAWL_EXTRACTORS": '{"x": "corpuscrawl.extract.auto:AutoExtractor"}'})
    with pytest.raises(ConfigError, match="use 'corpuscrawl.extract.learned.auto:AutoExtractor'"):
        ExtractionConfig.from_settings(settings)
    # the new path is accepted and builds the extractor
    settings = Settings({"CORPUSCRAWL_EXTRACTORS": {"mine": EXTRACTORS_BASE["bte"]}})
    config = ExtractionConfig.from_settings(settings)
    assert get_extractor("mine", config.extractors).name == "bte"


def test_old_module_imports_name_the_new_module():
    with pytest.raises(ModuleMovedError, match="corpuscrawl.extract.bte moved to "
                                               "corpuscrawl.extract.classic.bte"):
        importlib.import_module("corpuscrawl.extract.bte")
    # a ModuleNotFoundError, so code that catches that keeps working
    with pytest.raises(ModuleNotFoundError, match="corpuscrawl.export_glue"):
        load_object("corpuscrawl.boilerplate.scrapy_glue.ExportStagePipeline")
    with pytest.raises(ExtractorError, match="moved to corpuscrawl.extract.classic.jt"):
        get_extractor("old", {"old": "corpuscrawl.extract.jt:JusTextExtractor"})
    # a name that never existed keeps Python's own message
    with pytest.raises(ModuleNotFoundError, match="No module named 'corpuscrawl.nothing_here'"):
        importlib.import_module("corpuscrawl.nothing_here")


def test_a_user_module_importing_an_old_path_names_the_new_one(tmp_path, monkeypatch):
    """A user's extractor subclassing a built-in one through its old module."""
    (tmp_path / "my_old_extractor.py").write_text(
        "from corpuscrawl.extract.bte import BTEExtractor\n\n"
        "class Mine(BTEExtractor):\n    name = 'mine'\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "my_old_extractor", raising=False)
    with pytest.raises(ExtractorError, match="corpuscrawl.extract.bte moved to "
                                             "corpuscrawl.extract.classic.bte"):
        get_extractor("mine", {"mine": "my_old_extractor:Mine"})


def test_a_crawl_with_an_old_extractor_path_stops_at_start_with_the_new_path(tmp_path):
    out = tmp_path / "old.jsonl"
    docs, log, code = run_crawl(out, "seeds=http://127.0.0.1:9/", settings={
        "CORPUSCRAWL_EXTRACTORS": '{"mine": "corpuscrawl.extract.readability:ReadabilityExtractor"}',
        "CORPUSCRAWL_EXTRACTOR": "mine"}, timeout=120)
    assert code != 0 and not docs
    assert "use 'corpuscrawl.extract.classic.readability:ReadabilityExtractor'" in log
    assert "CORPUSCRAWL_EXTRACTORS['mine']" in log


def test_running_a_moved_module_names_its_new_path(tmp_path):
    """``python -m corpuscrawl.browse.training`` (the element classifier's trainer before it
    moved to learn/) says where it is now."""
    import os
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "corpuscrawl.browse.training", "--help"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(PACKAGE_DIR.parent)))
    assert proc.returncode != 0
    assert "corpuscrawl.browse.training moved to corpuscrawl.learn.elements" in proc.stderr


def test_a_crawl_with_an_old_pipeline_path_stops_at_start_with_the_new_path(tmp_path):
    docs, log, code = run_crawl(tmp_path / "old.jsonl", "seeds=http://127.0.0.1:9/", settings={
        "ITEM_PIPELINES": '{"corpuscrawl.boilerplate.scrapy_glue.ExportStagePipeline": 900}'},
        timeout=120)
    assert code != 0 and not docs
    assert "corpuscrawl.boilerplate.scrapy_glue moved to corpuscrawl.export_glue" in log
