"""benchmarks/page_wide_bits.py's page cache: numpy arrays and JSON read with
``allow_pickle=False``, the same data back, and a cache of another format rebuilt."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from corpuscrawl.evaluation.metrics import Score
from corpuscrawl.extract.segment.cdom import Block


@pytest.fixture
def bench(benchmark_module):  # type: ignore[no-untyped-def]
    return benchmark_module("page_wide_bits")


def pages() -> dict:
    """Three pages: two with blocks (a mask beyond 64 bits, gap tags), one without."""
    blocks = [Block("Héllo world", 2, 0, "p", (7, 3, 0), 3, (1 << 70) | 5, 1,
                    frozenset({"br", "h2"})),
              Block("Menu", 1, 1, "a", (9, 0), 2, 2)]
    rng = np.random.default_rng(0)
    return {"keys": ["set/a", "set/b", "set/c"],
            "xs": [rng.random((2, 5)), np.zeros((0, 5)), rng.random((1, 5))],
            "ys": [np.array([1, 0], np.int8), np.zeros(0, np.int8), np.array([1], np.int8)],
            "blocks": [blocks, [], blocks[:1]],
            "golds": ["Héllo world", "", "Héllo"],
            "others": {"bte": [Score(2, 1, 0), Score(0, 0, 0), Score(1, 0, 1, 3)]}}


def test_the_cache_gives_the_same_pages_back(bench, tmp_path: Path) -> None:
    data = pages()
    path = tmp_path / bench.PAGES_CACHE
    bench.save_pages(path, data)
    back = bench.load_pages(path)
    assert back is not None
    assert back["keys"] == data["keys"] and back["golds"] == data["golds"]
    assert back["blocks"] == data["blocks"] and back["others"] == data["others"]
    for got, want in zip(back["xs"] + back["ys"], data["xs"] + data["ys"], strict=True):
        assert got.dtype == want.dtype and np.array_equal(got, want)
    with np.load(path, allow_pickle=False) as npz:  # nothing in it needs pickle
        assert all(npz[name].dtype != object for name in npz.files)
    assert not list(tmp_path.glob("*.tmp*"))


@pytest.mark.parametrize("content", [
    pickle.dumps({"keys": []}),                       # the old cache's format
    b"PK\x03\x04 broken",                             # a broken zip
])
def test_a_cache_of_another_format_is_rebuilt_not_loaded(bench, tmp_path: Path, content: bytes,
                                                        capsys) -> None:
    path = tmp_path / bench.PAGES_CACHE
    path.write_bytes(content)
    assert bench.load_pages(path) is None
    assert "rebuilding it" in capsys.readouterr().err


def test_an_npz_holding_objects_or_another_version_is_refused(bench, tmp_path: Path) -> None:
    path = tmp_path / bench.PAGES_CACHE
    np.savez(path, meta=np.array([{"format": 1}], dtype=object))
    assert bench.load_pages(path) is None             # allow_pickle=False refuses it
    data = pages()
    bench.save_pages(path, data)
    bench.PAGES_FORMAT += 1
    try:
        assert bench.load_pages(path) is None
    finally:
        bench.PAGES_FORMAT -= 1


def test_collect_rebuilds_over_an_old_cache(bench, tmp_path: Path, monkeypatch) -> None:
    """The old ``pages.pickle`` is never read, and an unreadable ``pages.npz`` is replaced
    by what the collection gives (its page loop stubbed here: no datasets)."""
    (tmp_path / "pages.pickle").write_bytes(b"\x80\x04not to be unpickled")
    (tmp_path / bench.PAGES_CACHE).write_bytes(pickle.dumps(["old"]))
    monkeypatch.setattr(bench, "datasets_root", lambda: tmp_path)
    monkeypatch.setattr(bench, "documents", lambda dirs, part: [])
    monkeypatch.setattr(bench, "BaseOutputs", lambda names: type("B", (), {"names": []})())
    monkeypatch.setattr(bench, "available_peers", lambda peers: ([], []))
    data = bench.collect(tmp_path, model=None)
    assert data["keys"] == [] and data["others"] == {}
    assert bench.load_pages(tmp_path / bench.PAGES_CACHE) == data
