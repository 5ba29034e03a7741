"""The installed scikit-learn has the private tree layout the compiled walk reads, and a
model whose layout differs is predicted by scikit-learn itself, with one warning.

The layout checks run whether or not the C accelerator is built: a scikit-learn release
that renames a node field or the baseline shows here (a crawl on it still gets the same
probabilities, from scikit-learn's own ``predict_proba``).
"""

from __future__ import annotations

import logging

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from corpuscrawl.extract.learned import forest
from corpuscrawl.extract.learned.forest import (
    NODE_FIELDS,
    ForestLayoutError,
    check_layout,
    compile_forest,
    covers,
)


@pytest.fixture(scope="module")
def model() -> HistGradientBoostingClassifier:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 4))
    return HistGradientBoostingClassifier(max_iter=5, early_stopping=False).fit(x, x[:, 0] > 0)


def test_installed_scikit_learn_has_the_layout(model) -> None:
    check_layout(model)
    assert set(NODE_FIELDS) <= set(model._predictors[0][0].nodes.dtype.names)
    assert covers(model)


def test_a_changed_layout_is_refused_with_the_version(model, monkeypatch) -> None:
    class Renamed:
        """A predictor whose node records lack the fields read by the compiled walk."""

        nodes = np.zeros(3, dtype=[("value", "f8"), ("leaf", "u1")])

    monkeypatch.setattr(model, "_predictors", [[Renamed()]])
    with pytest.raises(ForestLayoutError, match=r"scikit-learn \d.*lack"):
        check_layout(model)
    monkeypatch.delattr(model, "_baseline_prediction")
    with pytest.raises(ForestLayoutError, match="_baseline_prediction"):
        check_layout(model)


def _fallback_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "compiled tree walk not used" in
            r.getMessage()]


needs_walk = pytest.mark.skipif(forest._forest is None,
                                reason="the optional C accelerator is not built")


@needs_walk
def test_a_renamed_layout_falls_back_to_scikit_learn_with_one_warning(model, monkeypatch,
                                                                      caplog) -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(50, 4))
    expected = model.predict_proba(x)
    assert isinstance(compile_forest(model), forest.CompiledForest)
    renamed = model._predictors[0][0].nodes.dtype.names
    monkeypatch.setattr(forest, "_warned", set())
    monkeypatch.setattr(forest, "NODE_FIELDS", (*NODE_FIELDS, "threshold_bin"))  # a new field
    assert "threshold_bin" not in renamed
    with caplog.at_level(logging.WARNING, logger=forest.__name__):
        for _ in range(3):  # e.g. both of auto's stages and a reload: one warning
            assert compile_forest(model) is model
    assert len(_fallback_warnings(caplog)) == 1
    assert "threshold_bin" in _fallback_warnings(caplog)[0]
    assert np.array_equal(compile_forest(model).predict_proba(x), expected)


@needs_walk
def test_a_layout_whose_meaning_changed_falls_back(model, monkeypatch, caplog) -> None:
    """Same field names, other predictions (a release that changed what a field means): the
    probe rows catch it and scikit-learn's own predictions are used."""
    own = model._raw_predict
    monkeypatch.setattr(forest, "_warned", set())
    monkeypatch.setattr(model, "_raw_predict", lambda x, *a, **k: own(x, *a, **k) + 1e-9)
    with caplog.at_level(logging.WARNING, logger=forest.__name__):
        assert compile_forest(model) is model
    assert "differ from the model's own on probe rows" in _fallback_warnings(caplog)[0]


@needs_walk
def test_probe_rows_take_every_split_both_ways(model) -> None:
    compiled = compile_forest(model)
    rows = forest.probe_rows(compiled)
    assert rows.shape == (forest.PROBE_ROWS, model.n_features_in_)
    assert np.isnan(rows).any(axis=0).all()
    splits = compiled.nodes[compiled.nodes["feature"] != forest.LEAF_FEATURE]
    at = splits["threshold"][:, None] == rows[:, splits["feature"] & ~forest.MISSING_LEFT_BIT].T
    assert at.any(axis=1).mean() > 0.5  # most thresholds are hit exactly by some row


def test_the_shipped_auto_model_has_the_layout() -> None:
    from corpuscrawl.extract.learned.auto import AutoExtractor

    try:
        model = AutoExtractor().estimator
    except FileNotFoundError as exc:  # the shipped model is part of the repository
        pytest.fail(f"shipped auto model missing: {exc}")
    assert isinstance(model.unary_, HistGradientBoostingClassifier)
    for tree_model in (model.unary_, model.stage2_):
        if isinstance(tree_model, HistGradientBoostingClassifier):
            check_layout(tree_model)
