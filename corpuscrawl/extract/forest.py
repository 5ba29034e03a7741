"""Fast, identical predictions of a fitted binary gradient-boosted tree classifier.

``auto`` predicts one page at a time, a few hundred blocks, with 300 trees
(:mod:`.auto`, :mod:`.stacking`).  scikit-learn's
``HistGradientBoostingClassifier.predict_proba`` makes one call per tree, and
on so few rows the calls cost more than the tree walks: about a quarter of
``auto``'s time per page.  :func:`compile_forest` copies the trees' nodes into
flat arrays once; :class:`CompiledForest` then walks every tree for every row
in one call of the optional C accelerator ``_forest`` (``setup.py``) and turns
the summed scores into probabilities with the model's own loss, so the
probabilities are bit-identical to scikit-learn's (``tests/test_forest.py``).
Without the accelerator, or for a model it does not cover (more than two
classes, categorical splits), the model itself is returned and used as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from corpuscrawl.extract import _forest
except ImportError:  # not built: scikit-learn's own predict_proba, same numbers
    _forest = None

_LEAF = 1
_MISSING_LEFT = 2


class CompiledForest:
    """The trees of a fitted binary ``HistGradientBoostingClassifier`` as flat arrays."""

    def __init__(self, model: Any):
        predictors = model._predictors
        if model.n_trees_per_iteration_ != 1 or any(len(p) != 1 for p in predictors):
            raise ValueError("only binary classifiers (one tree per iteration) are compiled")
        trees = [p[0].nodes for p in predictors]
        if any(t["is_categorical"].any() for t in trees):
            raise ValueError("categorical splits are not compiled")
        sizes = np.array([len(t) for t in trees], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        nodes = np.concatenate(trees) if trees else np.zeros(0, dtype=np.float64)
        shift = np.repeat(offsets, sizes)
        leaf = nodes["is_leaf"].astype(bool)
        self.model = model
        self.n_features = int(model.n_features_in_)
        self.feature = np.where(leaf, 0, nodes["feature_idx"]).astype(np.int64)
        self.threshold = nodes["num_threshold"].astype(np.float64)
        self.flags = (leaf * _LEAF + nodes["missing_go_to_left"].astype(bool) * _MISSING_LEFT
                      ).astype(np.uint8)
        self.left = np.where(leaf, 0, nodes["left"].astype(np.int64) + shift).astype(np.int64)
        self.right = np.where(leaf, 0, nodes["right"].astype(np.int64) + shift).astype(np.int64)
        self.value = nodes["value"].astype(np.float64)
        self.roots = offsets
        self.baseline = float(np.asarray(model._baseline_prediction).ravel()[0])
        self.max_steps = int(nodes["depth"].max()) + 1 if len(nodes) else 1

    @property
    def classes_(self) -> np.ndarray:
        """The model's class labels."""
        return self.model.classes_

    def raw_scores(self, x: np.ndarray) -> np.ndarray:
        """Baseline plus the sum of the trees' leaf values for each row of ``x``."""
        rows = np.ascontiguousarray(x, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] != self.n_features:
            raise ValueError(f"x has shape {rows.shape}, the model {self.n_features} features")
        out = np.empty(len(rows), dtype=np.float64)
        if len(rows):
            _forest.forest_raw(rows, self.n_features, self.feature, self.threshold, self.flags,
                               self.left, self.right, self.value, self.roots, self.baseline,
                               self.max_steps, out)
        return out

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities, as the model's ``predict_proba`` gives them."""
        return self.model._loss.predict_proba(self.raw_scores(x)[:, None])


def compile_forest(model: Any) -> Any:
    """A :class:`CompiledForest` of ``model`` when the accelerator is built and covers the
    model, else ``model`` itself (anything with ``predict_proba``)."""
    if _forest is None or not hasattr(model, "_predictors"):
        return model
    try:
        return CompiledForest(model)
    except (ValueError, AttributeError, KeyError):
        return model


__all__ = ["CompiledForest", "compile_forest"]
