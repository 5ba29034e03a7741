"""Where a collection's state lives and how collections are named."""

from __future__ import annotations

import pytest
from scrapy.settings import Settings

from corpuscrawl.crawlstate import state_paths
from corpuscrawl.crawlstate.scrapy_glue.location import state_dir
from corpuscrawl.crawlstate.state_paths import (
    CollectionNameError,
    StateDirUnknown,
    check_collection,
    collection_from_seeds,
)


def test_one_seed_names_its_host_and_port() -> None:
    assert collection_from_seeds(["https://www.example.com/news/"]) == "example.com"
    assert collection_from_seeds(["http://127.0.0.1:8080/"]) == "127.0.0.1_8080"
    assert collection_from_seeds(["http://127.0.0.1:8081/"]) != "127.0.0.1_8080"


def test_several_seeds_are_stable_and_distinct() -> None:
    a = collection_from_seeds(["https://b.org/x", "https://a.org/"])
    assert a == collection_from_seeds(["https://a.org/", "https://b.org/x"])
    assert a.startswith("a.org-1more-")
    assert a != collection_from_seeds(["https://a.org/", "https://b.org/y"])


@pytest.mark.parametrize("bad", ["", "..", "a/b", "-x", "x" * 101, "é"])
def test_bad_names_are_refused_with_a_reason(bad: str) -> None:
    with pytest.raises(CollectionNameError, match="collection"):
        check_collection(bad)


def test_state_dir_setting_wins_over_scrapy_data_dir(tmp_path) -> None:
    settings = Settings({"CORPUSCRAWL_STATE_DIR": str(tmp_path), "CORPUSCRAWL_COLLECTION": "c1"})
    path = state_dir(settings)
    assert path == tmp_path / "c1" and path.is_dir()
    assert state_dir(settings, "c2", create=False) == tmp_path / "c2"
    assert not (tmp_path / "c2").exists()


def test_default_is_scrapy_project_data_dir(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SCRAPY_SETTINGS_MODULE", raising=False)
    (tmp_path / "scrapy.cfg").write_text("[settings]\ndefault = corpuscrawl.settings\n")
    path = state_dir(Settings({"CORPUSCRAWL_COLLECTION": "demo"}), create=False)
    assert path == tmp_path / ".scrapy" / "corpuscrawl" / "demo"


def test_the_plain_state_dir_takes_the_project_root_from_its_caller(tmp_path) -> None:
    """The plain module never asks Scrapy where its project is: a crawl passes the root."""
    settings = Settings({"CORPUSCRAWL_COLLECTION": "demo"})
    with pytest.raises(StateDirUnknown, match="CORPUSCRAWL_STATE_DIR"):
        state_paths.state_dir(settings, create=False)
    assert state_paths.state_dir(settings, create=False,
                                 project_root=lambda: tmp_path) == tmp_path / "demo"
    jobdir = Settings({"JOBDIR": str(tmp_path / "job")})
    assert state_paths.state_dir(jobdir) == tmp_path / "job" and (tmp_path / "job").is_dir()
