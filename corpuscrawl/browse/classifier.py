"""Decision-tree classifier of page elements: Revealer, Inner, Outer, Closer, LanguageSelection, Other.

Source: Komporday's thesis, part III §9.1 and §9.3: "a decision tree
classifies the page's links and elements".  The tree is scikit-learn's
``DecisionTreeClassifier`` over the features of :mod:`corpuscrawl.browse.elements`.

This module is the crawl-time half, the predictor :class:`ElementClassifier`:
its parameters, the fitted tree as plain arrays, ``predict``/``predict_proba``
and loading with validation.  It has no ``fit``: the estimator
:class:`corpuscrawl.learn.element_trainer.ElementClassifierEstimator` subclasses it,
adds ``fit`` and writes the model file, so a crawl never imports training code.

The model file is plain JSON (node arrays, class names, feature names), not a
pickle, and prediction walks those arrays, so loading a model never executes
code and needs no scikit-learn: a crawl that renders pages does not pay
scikit-learn's import (0.8 s on the development machine:
``python -c "import time, numpy, scrapy; t = time.perf_counter(); import sklearn.base;
print(time.perf_counter() - t)"``, 0.78-0.80 s over three runs), which is why
the predictor is a plain class with scikit-learn's shape rather than a
``BaseEstimator``.  A loaded file is validated (feature names, node indices,
shapes) and every problem is reported naming the file.  Models are loaded by
name from the models search path of :mod:`corpuscrawl.resources.shipped`
(``element-classifier`` -> ``element-classifier.json`` in
``$CORPUSCRAWL_MODELS_DIR``, then in the shipped models).
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import numpy as np

from corpuscrawl.browse.elements import (
    FEATURE_NAMES,
    LABELS,
    ElementRecord,
    feature_matrix,
    layout_view,
)
from corpuscrawl.resources.shipped import find_model, models_dirs
from corpuscrawl.resources.shipped import (
    models_dir as models_dir,  # re-exported: the one models_dir
)

logger = logging.getLogger("corpuscrawl.browse.classifier")

#: File-format tag and version written into every model file.
MODEL_FORMAT = "corpuscrawl-element-classifier"
MODEL_VERSION = 1
#: Name of the shipped model in ``models/``.
DEFAULT_MODEL_NAME = "element-classifier"
#: Tree depth limit: deep enough for the ~50 features, shallow enough to stay readable
#: and not to memorise single pages (chosen by cross-validation on the shipped set).
MAX_DEPTH_DEFAULT = 10
#: At least two training elements per leaf, to avoid leaves that memorise one element.
MIN_SAMPLES_LEAF_DEFAULT = 2


class ModelError(ValueError):
    """A model file is missing or invalid; the message names the file and the reason."""


@dataclass(frozen=True)
class TreeArrays:
    """A fitted decision tree as plain arrays (the JSON model's content)."""

    left: np.ndarray
    right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    value: np.ndarray  # (n_nodes, n_classes) class weights per node

    def leaves(self, x: np.ndarray) -> np.ndarray:
        """Index of the leaf each row of ``x`` ends in."""
        node = np.zeros(len(x), dtype=np.int64)
        rows = np.arange(len(x))
        while True:
            internal = self.left[node] >= 0
            if not internal.any():
                return node
            idx = rows[internal]
            cur = node[idx]
            go_left = x[idx, self.feature[cur]] <= self.threshold[cur]
            node[idx] = np.where(go_left, self.left[cur], self.right[cur])


class ElementClassifier:
    """Classify page elements with a fitted decision tree over :data:`FEATURE_NAMES`.

    The predictor, in scikit-learn's shape: parameters named in ``__init__`` and
    stored unchanged (:meth:`get_params`, :meth:`set_params`, so scikit-learn's
    ``clone`` works), fitted attributes ending in ``_`` (``classes_``, ``tree_``,
    ``metadata_``: what the training run recorded), :meth:`predict` and
    :meth:`predict_proba`.  A fitted model comes from :meth:`load` (or
    :func:`load_classifier`); training is the estimator's
    (:class:`corpuscrawl.learn.element_trainer.ElementClassifierEstimator`).
    """

    classes_: tuple[str, ...]
    tree_: TreeArrays
    metadata_: dict[str, Any]

    def __init__(self, max_depth: int | None = MAX_DEPTH_DEFAULT,
                 min_samples_leaf: int = MIN_SAMPLES_LEAF_DEFAULT,
                 class_weight: str | None = "balanced", random_state: int = 0,
                 layout_keys: Sequence[str] | None = None):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.class_weight = class_weight
        self.random_state = random_state
        #: Layout keys the model reads (None: all); e.g. ``STRUCTURAL_LAYOUT_KEYS``, so that
        #: the same model serves rendered pages and static HTML.
        self.layout_keys = layout_keys

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor parameters by name (scikit-learn's ``get_params``; none of them
        holds an estimator, so ``deep`` changes nothing)."""
        return {name: getattr(self, name) for name in PARAM_NAMES}

    def set_params(self, **params: Any) -> Self:
        """Set constructor parameters by name (scikit-learn's ``set_params``); an unknown
        name is a ``ValueError`` listing the valid ones."""
        unknown = sorted(set(params) - set(PARAM_NAMES))
        if unknown:
            raise ValueError(f"invalid parameter(s) {unknown} for {type(self).__name__}; "
                             f"valid: {', '.join(PARAM_NAMES)}")
        for name, value in params.items():
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.get_params().items() if v != _DEFAULTS[k]}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in changed.items())})"

    def feature_rows(self, records: Sequence[ElementRecord]) -> np.ndarray:
        """The records' feature matrix as the model reads it (only its ``layout_keys``)."""
        if self.layout_keys is not None:
            records = [layout_view(r, self.layout_keys) for r in records]
        return np.asarray(feature_matrix(records), dtype=np.float64)

    def _require_fitted(self) -> TreeArrays:
        tree = getattr(self, "tree_", None)
        if tree is None:
            raise ModelError("the element classifier is not fitted: load a model file "
                             "(load_classifier) or train one with "
                             "`python -m corpuscrawl.learn.element_trainer train`")
        return tree

    def predict_proba(self, X: Sequence[ElementRecord]) -> np.ndarray:
        """Class probabilities of each record of ``X`` (scikit-learn's name for the
        samples), columns in ``classes_`` order."""
        tree = self._require_fitted()
        if not X:
            return np.zeros((0, len(self.classes_)))
        value = tree.value[tree.leaves(self.feature_rows(X))]
        total = value.sum(axis=1, keepdims=True)
        return np.divide(value, total, out=np.zeros_like(value), where=total > 0)

    def predict(self, X: Sequence[ElementRecord]) -> list[str]:
        """The most probable label of each record of ``X``."""
        if not X:
            return []
        proba = self.predict_proba(X)
        return [self.classes_[i] for i in proba.argmax(axis=1)]

    # --- loading -----------------------------------------------------------------------

    @classmethod
    def from_json(cls, data: Any, source: str = "<model>") -> Self:
        """Rebuild and validate a model from a model file's content (what the estimator's
        ``to_json`` writes); every problem is a :class:`ModelError` naming ``source``."""
        if not isinstance(data, dict) or data.get("format") != MODEL_FORMAT:
            raise ModelError(f"{source}: not a corpuscrawl element-classifier model "
                             f"(expected format {MODEL_FORMAT!r})")
        if data.get("version") != MODEL_VERSION:
            raise ModelError(f"{source}: model version {data.get('version')!r} is not supported "
                             f"(this corpuscrawl reads version {MODEL_VERSION})")
        if list(data.get("feature_names", [])) != list(FEATURE_NAMES):
            raise ModelError(f"{source}: the model was trained on other features than this "
                             "version computes; retrain it with "
                             "`python -m corpuscrawl.learn.element_trainer`")
        classes = data.get("classes") or []
        if not classes or any(c not in LABELS for c in classes):
            raise ModelError(f"{source}: classes {classes!r} must be among {LABELS}")
        try:
            nodes = data["nodes"]
            tree = TreeArrays(left=np.asarray(nodes["left"], dtype=np.int64),
                              right=np.asarray(nodes["right"], dtype=np.int64),
                              feature=np.asarray(nodes["feature"], dtype=np.int64),
                              threshold=np.asarray(nodes["threshold"], dtype=np.float64),
                              value=np.asarray(nodes["value"], dtype=np.float64))
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"{source}: malformed 'nodes' ({exc})") from exc
        _validate_tree(tree, len(classes), source)
        params = {k: v for k, v in (data.get("params") or {}).items() if k in PARAM_NAMES}
        if params.get("layout_keys") is not None:
            params["layout_keys"] = tuple(params["layout_keys"])
        model = cls(**params)
        model.classes_ = tuple(classes)
        model.tree_ = tree
        model.metadata_ = dict(data.get("metadata") or {})
        return model

    @classmethod
    def load(cls, path: str | Path) -> Self:
        """Read and validate a model file (JSON)."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ModelError(f"cannot read element-classifier model {path}: "
                             f"{exc.strerror or exc}") from exc
        except json.JSONDecodeError as exc:
            raise ModelError(f"{path}: not valid JSON ({exc})") from exc
        return cls.from_json(data, str(path))


#: The constructor parameters, in order (what :meth:`ElementClassifier.get_params` lists).
PARAM_NAMES = tuple(inspect.signature(ElementClassifier.__init__).parameters)[1:]
_DEFAULTS = {name: p.default for name, p in
             inspect.signature(ElementClassifier.__init__).parameters.items() if name != "self"}


def _validate_tree(tree: TreeArrays, n_classes: int, source: str) -> None:
    n = len(tree.left)
    shapes_ok = (n > 0 and tree.right.shape == (n,) and tree.feature.shape == (n,)
                 and tree.threshold.shape == (n,) and tree.value.shape == (n, n_classes))
    if not shapes_ok:
        raise ModelError(f"{source}: node arrays have inconsistent shapes")
    internal = tree.left >= 0
    if not np.array_equal(internal, tree.right >= 0):
        raise ModelError(f"{source}: every internal node needs two children")
    idx = np.arange(n)
    # Children always come after their parent (scikit-learn's depth-first layout):
    # this rules out cycles and out-of-range indices.
    bad = internal & ((tree.left <= idx) | (tree.right <= idx) | (tree.left >= n) |
                      (tree.right >= n) | (tree.feature < 0) |
                      (tree.feature >= len(FEATURE_NAMES)))
    if bad.any():
        raise ModelError(f"{source}: invalid child or feature index at node {int(idx[bad][0])}")


def load_classifier(name_or_path: str | Path = DEFAULT_MODEL_NAME) -> ElementClassifier:
    """Load a model by name from the models search path (``<name>.json``) or from a path."""
    path: Path | None = Path(name_or_path)
    if path is not None and path.suffix != ".json" and not path.exists():
        path = find_model(f"{name_or_path}.json")
    if path is None or not path.exists():
        dirs = models_dirs()
        available = sorted({p.stem for d in dirs for p in d.glob("*.json")})
        raise ModelError(f"element-classifier model {name_or_path!r} not found "
                         f"{'at ' + str(path) if path else 'in ' + ', '.join(map(str, dirs))}; "
                         f"models there: {available or 'none'} "
                         "(train one with `python -m corpuscrawl.learn.element_trainer`)")
    logger.debug("loading element classifier from %s", path)
    return ElementClassifier.load(path)


__all__ = ["DEFAULT_MODEL_NAME", "MODEL_FORMAT", "MODEL_VERSION", "PARAM_NAMES", "ElementClassifier",
           "ModelError", "TreeArrays", "load_classifier", "models_dir"]
