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
classes, categorical splits), the model itself is returned and used as it is.

The compiled copy reads scikit-learn's private tree layout
(``_predictors[i][0].nodes`` with its field names, ``_baseline_prediction``,
``_loss``).  scikit-learn is pinned to the range this was tested with
(pyproject.toml), and :func:`check_layout` refuses a model whose layout
differs with :class:`ForestLayoutError` instead of quietly predicting another
way; ``tests/test_forest_layout.py`` fails on such a scikit-learn.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingClassifier

try:
    from corpuscrawl.extract.learned import _forest
except ImportError:  # not built: scikit-learn's own predict_proba, same numbers
    _forest = None

_LEAF = 1
_MISSING_LEFT = 2
#: Fields of scikit-learn's tree node records that the compiled copy reads.
NODE_FIELDS = ("value", "feature_idx", "num_threshold", "missing_go_to_left", "left", "right",
               "is_leaf", "depth", "is_categorical")


class ForestLayoutError(RuntimeError):
    """scikit-learn's private tree layout is not the one the compiled walk was written for."""


def check_layout(model: HistGradientBoostingClassifier) -> None:
    """Raise :class:`ForestLayoutError` unless ``model`` has the private layout read here."""
    try:
        predictors = model._predictors
        nodes = predictors[0][0].nodes
        missing = [f for f in NODE_FIELDS if f not in (nodes.dtype.names or ())]
        baseline = np.asarray(model._baseline_prediction)
        loss = model._loss.predict_proba
    except (AttributeError, IndexError, TypeError) as exc:
        raise ForestLayoutError(
            f"scikit-learn {sklearn.__version__}: the fitted HistGradientBoostingClassifier "
            f"has no {exc} where corpuscrawl.extract.learned.forest reads its trees; install the "
            "scikit-learn range pinned in pyproject.toml") from exc
    if missing or baseline.size != model.n_trees_per_iteration_ or not callable(loss):
        raise ForestLayoutError(
            f"scikit-learn {sklearn.__version__}: tree nodes lack {missing or 'nothing'}, "
            f"baseline has {baseline.size} values; install the scikit-learn range pinned in "
            "pyproject.toml")


class CompiledForest:
    """The trees of a fitted binary ``HistGradientBoostingClassifier`` as flat arrays."""

    def __init__(self, model: HistGradientBoostingClassifier):
        check_layout(model)
        if not covers(model):
            raise ValueError("only binary classifiers without categorical splits are compiled")
        trees = [p[0].nodes for p in model._predictors]
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


def covers(model: HistGradientBoostingClassifier) -> bool:
    """True for a binary classifier (one tree per iteration) without categorical splits."""
    return model.n_trees_per_iteration_ == 1 and not any(
        predictor[0].nodes["is_categorical"].any() for predictor in model._predictors)


def compile_forest(model: Any) -> Any:
    """A :class:`CompiledForest` of ``model`` when the accelerator is built and covers the
    model, else ``model`` itself (anything with ``predict_proba``).

    A fitted gradient-boosting classifier whose private layout differs raises
    :class:`ForestLayoutError` (see the module docstring).
    """
    if _forest is None or not isinstance(model, HistGradientBoostingClassifier):
        return model
    check_layout(model)
    return CompiledForest(model) if covers(model) else model


__all__ = ["CompiledForest", "ForestLayoutError", "NODE_FIELDS", "check_layout",
           "compile_forest", "covers"]
