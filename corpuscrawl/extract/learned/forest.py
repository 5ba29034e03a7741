"""Fast, identical predictions of a fitted binary gradient-boosted tree classifier.

``auto`` predicts one page at a time, a few hundred blocks, with 300 trees
(:mod:`.auto`, :mod:`.stacking`).  scikit-learn's
``HistGradientBoostingClassifier.predict_proba`` makes one call per tree, and
on so few rows the calls cost more than the tree walks: about a quarter of
``auto``'s time per page.  :func:`compile_forest` copies the trees' nodes once
into one array of 16-byte nodes, each tree in preorder (a step reads one record);
:class:`CompiledForest` then walks every tree for every row
in one call of the optional C accelerator ``_forest`` (``setup.py``) and turns
the summed scores into probabilities with the model's own loss, so the
probabilities are bit-identical to scikit-learn's (``tests/test_forest.py``).
Without the accelerator, or for a model it does not cover (more than two
classes, categorical splits), the model itself is returned and used as it is.

The compiled copy reads scikit-learn's private tree layout
(``_predictors[i][0].nodes`` with its field names, ``_baseline_prediction``,
``_loss``), which a scikit-learn release may change.  So nothing pins
scikit-learn to one release for it: :func:`compile_forest` checks the layout
(:func:`check_layout`) and then that the compiled walk gives the model's own
probabilities, bit for bit, on probe rows made of the trees' thresholds, the
values just above them and missing values (:func:`verify_compiled`); a model
that fails either is used as it is (scikit-learn's own ``predict_proba``,
slower, same probabilities), with one warning (``tests/test_forest_layout.py``).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingClassifier

from corpuscrawl.resources.accelerators import accelerator

#: The interface of ``_forest.c`` this module calls.
FOREST_API = 2
#: The C walk; None when not built for :data:`FOREST_API` (scikit-learn's own
#: predict_proba then, same numbers).
_forest = accelerator("corpuscrawl.extract.learned._forest", FOREST_API)

logger = logging.getLogger(__name__)

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
            f"has no {exc} where corpuscrawl.extract.learned.forest reads its trees") from exc
    if missing or baseline.size != model.n_trees_per_iteration_ or not callable(loss):
        raise ForestLayoutError(
            f"scikit-learn {sklearn.__version__}: tree nodes lack {missing or 'nothing'}, "
            f"baseline has {baseline.size} values")


#: One node of the compiled walk (``_forest.c``): a split's threshold or a leaf's value, the
#: split's feature (:data:`LEAF_FEATURE` for a leaf, :data:`MISSING_LEFT_BIT` set when a
#: missing value goes left) and the index of its right child (its left child is the next node).
NODE_DTYPE = np.dtype([("threshold", "<f8"), ("feature", "<i4"), ("right", "<i4")])
LEAF_FEATURE = -1
MISSING_LEFT_BIT = 1 << 30


def preorder(left: np.ndarray, right: np.ndarray, leaf: np.ndarray) -> np.ndarray:
    """The node indices of one tree (root 0) in preorder: each split, its left subtree, then
    its right subtree.  scikit-learn already stores its trees so (the identity is returned
    at once); any other order is walked."""
    n = len(leaf)
    splits = np.flatnonzero(~leaf)
    if (left[splits] == splits + 1).all() and (right[splits] > splits + 1).all() and \
            (right[splits] < n).all():
        return np.arange(n)
    order: list[int] = []
    stack = [0]
    while stack:
        k = stack.pop()
        order.append(k)
        if len(order) > n:
            raise ValueError("tree nodes do not form a tree (a node is reached twice)")
        if not leaf[k]:
            stack += [int(right[k]), int(left[k])]
    return np.array(order, dtype=np.int64)


class CompiledForest:
    """The trees of a fitted binary ``HistGradientBoostingClassifier`` as one array of
    16-byte nodes (:data:`NODE_DTYPE`), each tree in preorder."""

    def __init__(self, model: HistGradientBoostingClassifier):
        check_layout(model)
        if not covers(model):
            raise ValueError("only binary classifiers without categorical splits are compiled")
        if model.n_features_in_ > MISSING_LEFT_BIT - 1:
            raise ValueError(f"{model.n_features_in_} features: more than the compiled walk "
                             "indexes")
        self.model = model
        self.n_features = int(model.n_features_in_)
        records, roots, offset = [], [], 0
        for predictor in model._predictors:
            tree = predictor[0].nodes
            leaf = tree["is_leaf"].astype(bool)
            left, right = tree["left"].astype(np.int64), tree["right"].astype(np.int64)
            order = preorder(left, right, leaf)
            position = np.empty(len(tree), dtype=np.int64)
            position[order] = np.arange(len(order))
            t = tree[order]
            is_leaf = leaf[order]
            rec = np.zeros(len(order), dtype=NODE_DTYPE)
            rec["threshold"] = np.where(is_leaf, t["value"], t["num_threshold"])
            rec["feature"] = np.where(
                is_leaf, LEAF_FEATURE,
                t["feature_idx"].astype(np.int64)
                | np.where(t["missing_go_to_left"].astype(bool), MISSING_LEFT_BIT, 0))
            rec["right"] = np.where(is_leaf, 0, position[right[order] * ~is_leaf] + offset)
            records.append(rec)
            roots.append(offset)
            offset += len(rec)
        self.nodes = np.concatenate(records) if records else np.zeros(0, dtype=NODE_DTYPE)
        self.roots = np.array(roots, dtype=np.int64)
        self.baseline = float(np.asarray(model._baseline_prediction).ravel()[0])

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
            _forest.forest_raw(rows, self.n_features, self.nodes, self.roots, self.baseline,
                               out)
        return out

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities, as the model's ``predict_proba`` gives them."""
        return self.model._loss.predict_proba(self.raw_scores(x)[:, None])


def covers(model: HistGradientBoostingClassifier) -> bool:
    """True for a binary classifier (one tree per iteration) without categorical splits."""
    return model.n_trees_per_iteration_ == 1 and not any(
        predictor[0].nodes["is_categorical"].any() for predictor in model._predictors)


#: Probe rows :func:`verify_compiled` walks (and scikit-learn predicts) per model.
PROBE_ROWS = 256


def probe_rows(forest: CompiledForest, rows: int = PROBE_ROWS, seed: int = 0) -> np.ndarray:
    """Rows whose every value is one of a feature's split thresholds in the forest, the next
    float above it, or missing (NaN): each split's comparison (``<=`` goes left) and its
    missing-value side are taken both ways across the rows."""
    rng = np.random.default_rng(seed)
    splits = forest.nodes[forest.nodes["feature"] != LEAF_FEATURE]
    features = splits["feature"] & ~MISSING_LEFT_BIT
    out = np.empty((rows, forest.n_features), dtype=np.float64)
    for f in range(forest.n_features):
        thresholds = np.unique(splits["threshold"][features == f])
        values = np.concatenate([thresholds, np.nextafter(thresholds, np.inf), [np.nan, 0.0]])
        out[:, f] = rng.choice(values, size=rows)
    return out


def verify_compiled(forest: CompiledForest) -> None:
    """Raise :class:`ForestLayoutError` unless the compiled walk gives ``forest.model``'s own
    ``predict_proba`` bit for bit on :func:`probe_rows` (a layout whose fields kept their
    names but changed their meaning fails here)."""
    rows = probe_rows(forest)
    if not np.array_equal(forest.predict_proba(rows), forest.model.predict_proba(rows)):
        raise ForestLayoutError(
            f"scikit-learn {sklearn.__version__}: the compiled walk's probabilities differ from "
            "the model's own on probe rows")


#: Reasons already warned about (one warning per reason and process, not one per model).
_warned: set[str] = set()


def compile_forest(model: Any) -> Any:
    """A :class:`CompiledForest` of ``model`` when the accelerator is built, covers the model
    and reads its layout right (:func:`check_layout`, :func:`verify_compiled`), else
    ``model`` itself (anything with ``predict_proba``); a layout it cannot read is named in
    one warning."""
    if _forest is None or not isinstance(model, HistGradientBoostingClassifier):
        return model
    try:
        check_layout(model)
        if not covers(model):
            return model
        compiled = CompiledForest(model)
        verify_compiled(compiled)
    except (ForestLayoutError, ValueError, KeyError, IndexError, TypeError) as exc:
        reason = f"{type(exc).__name__}: {exc}"
        if reason not in _warned:
            _warned.add(reason)
            logger.warning("compiled tree walk not used, scikit-learn's own predict_proba "
                           "instead (same probabilities, slower): %s", reason)
        return model
    return compiled


__all__ = ["LEAF_FEATURE", "MISSING_LEFT_BIT", "NODE_DTYPE", "NODE_FIELDS", "CompiledForest",
           "PROBE_ROWS", "ForestLayoutError", "check_layout", "compile_forest", "covers", "preorder",
           "probe_rows", "verify_compiled"]
