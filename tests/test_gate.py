"""The evaluation gate (benchmarks/gate.py): its verdicts, and the shipped extractors against
the pinned baselines in benchmarks/baselines.json."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

BASELINES = Path(__file__).resolve().parents[1] / "benchmarks" / "baselines.json"

PINNED = {
    "per_dataset": 2,
    "tolerance": {"f1": 0.005, "lost": 1},
    "datasets": {"cleaneval": {"pages": 2, "digest": "aa"}},
    "models": {"auto.skops": "m1"},
    "figures": {"auto": {"cleaneval": {"f1": 0.9, "lost": 1}},
                "bte": {"cleaneval": {"f1": 0.8, "lost": 2}}},
}


@pytest.fixture
def gate(benchmark_module):
    return benchmark_module("gate")


def _current() -> dict:
    return copy.deepcopy({k: PINNED[k] for k in ("datasets", "models", "figures")})


def test_the_same_figures_pass_and_drops_within_tolerance_pass(gate):
    current = _current()
    assert gate.compare(PINNED, current) == []
    current["figures"]["auto"]["cleaneval"] = {"f1": 0.896, "lost": 2}
    assert gate.compare(PINNED, current) == []


def test_an_f1_drop_beyond_tolerance_fails_naming_extractor_and_dataset(gate):
    current = _current()
    current["figures"]["bte"]["cleaneval"]["f1"] = 0.79
    assert gate.compare(PINNED, current) == [
        "bte on cleaneval: F1 0.7900 < pinned 0.8000 - 0.005"]


def test_more_lost_pages_beyond_tolerance_fail(gate):
    current = _current()
    current["figures"]["auto"]["cleaneval"]["lost"] = 3
    assert gate.compare(PINNED, current) == [
        "auto on cleaneval: 3 lost pages > pinned 1 + 1"]


def test_changed_inputs_or_models_fail_even_with_equal_figures(gate):
    current = _current()
    current["datasets"]["cleaneval"]["digest"] = "bb"
    current["models"]["auto.skops"] = "m2"
    current["models"]["new.skops"] = "m3"
    problems = gate.compare(PINNED, current)
    assert len(problems) == 3
    assert problems[0].startswith("input digest of cleaneval changed")
    assert problems[1].startswith("model file auto.skops changed")
    assert problems[2].startswith("model file new.skops is new")


def test_a_pinned_figure_not_measured_fails(gate):
    current = _current()
    del current["figures"]["bte"]
    assert gate.compare(PINNED, current) == ["bte on cleaneval: not measured"]


def test_the_committed_baselines_are_complete():
    pinned = json.loads(BASELINES.read_text(encoding="utf-8"))
    assert {"per_dataset", "tolerance", "datasets", "models", "figures"} <= set(pinned)
    assert "auto" in pinned["figures"] and "auto.skops" in pinned["models"]
    for per_ds in pinned["figures"].values():
        assert set(per_ds) == set(pinned["datasets"])


@pytest.mark.datasets
@pytest.mark.slow
def test_the_shipped_extractors_pass_the_gate(datasets_dir):
    """The gate as CI and a developer run it: its own process, two worker processes."""
    gate_py = BASELINES.parent / "gate.py"
    run = subprocess.run([sys.executable, str(gate_py), "--root", str(datasets_dir)],
                         capture_output=True, text=True, cwd=BASELINES.parents[1], check=False)
    assert run.returncode == 0, run.stdout + run.stderr
