"""The installed scikit-learn has the private tree layout the compiled walk reads.

Runs whether or not the C accelerator is built: a scikit-learn release that
renames a node field or the baseline fails here, not silently in a crawl.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from corpuscrawl.extract.learned.forest import NODE_FIELDS, ForestLayoutError, check_layout, covers


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
    with pytest.raises(ForestLayoutError, match="pinned in pyproject.toml"):
        check_layout(model)


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
