"""Compiled tree walks of ``auto``'s gradient-boosted models: identical, guarded, optional."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from corpuscrawl.extract.learned.auto import AutoExtractor
from corpuscrawl.extract.learned.forest import (
    LEAF_FEATURE,
    CompiledForest,
    compile_forest,
    preorder,
)
from corpuscrawl.learn.training import train
from corpuscrawl.learn.trainset import documents

_forest = pytest.importorskip("corpuscrawl.extract.learned._forest",
                              reason="the optional C accelerator is not built")


def _data(seed: int, n: int = 600, classes: int = 2) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 8)).astype(np.float32)
    x[rng.random(size=x.shape) < 0.05] = np.nan  # missing values take the learned side
    y = (np.nan_to_num(x[:, 0]) + 0.5 * np.nan_to_num(x[:, 3]) > 0).astype(int)
    if classes > 2:
        y = y + (np.nan_to_num(x[:, 1]) > 1)
    return x, y


@pytest.fixture(scope="module")
def model():
    x, y = _data(0)
    return HistGradientBoostingClassifier(max_iter=40, max_leaf_nodes=15, early_stopping=False,
                                          random_state=0).fit(x, y)


def test_probabilities_are_bit_identical_to_scikit_learn(model):
    compiled = compile_forest(model)
    assert isinstance(compiled, CompiledForest)
    x, _ = _data(1, n=300)
    assert np.array_equal(compiled.predict_proba(x), model.predict_proba(x))
    assert np.array_equal(compiled.predict_proba(x[:1]), model.predict_proba(x[:1]))
    assert compiled.predict_proba(x[:0]).shape == (0, 2)
    assert list(compiled.classes_) == [0, 1]


def test_auto_extractor_labels_match_the_uncompiled_models(data_dir, tmp_path):
    tinyset = data_dir / "learned" / "tinyset"
    train("auto", [tinyset], models_dir=tmp_path, show_progress=False, max_iter=20,
          stacking=True, decoding_folds=0)  # both stages compiled
    model = AutoExtractor(models_dir=tmp_path).estimator
    compiled = model.compiled_potentials
    assert isinstance(compiled.unary, CompiledForest)
    assert isinstance(compiled.stage2, CompiledForest)
    for doc in documents([tinyset], "train") + documents([tinyset], "test"):
        inputs = model.page_inputs(doc.page)
        assert model.decode(inputs)[1] == model.decode(inputs, model.potentials)[1]


def test_models_it_does_not_cover_are_used_as_they_are():
    x, y = _data(2, classes=3)
    three = HistGradientBoostingClassifier(max_iter=5, early_stopping=False).fit(x, y)
    assert compile_forest(three) is three
    assert compile_forest("not a model") == "not a model"


def test_wrong_input_and_broken_trees_raise_instead_of_reading_out_of_bounds(model):
    compiled = compile_forest(model)
    with pytest.raises(ValueError, match="8 features"):
        compiled.raw_scores(np.zeros((3, 5)))
    split = int(np.flatnonzero(compiled.nodes["feature"] != LEAF_FEATURE)[0])
    for field, value in (("right", len(compiled.nodes) + 10),  # outside the forest
                         ("right", compiled.roots[1] + 1),  # into the next tree
                         ("right", split),  # back to itself: a cycle
                         ("feature", 8)):  # a feature the rows do not have
        broken = compile_forest(model)
        broken.nodes = broken.nodes.copy()
        broken.nodes[field][split] = value
        with pytest.raises(ValueError, match="out of range"):
            broken.raw_scores(np.zeros((2, 8)))
    unordered = compile_forest(model)
    unordered.roots = unordered.roots[::-1].copy()
    with pytest.raises(ValueError, match="root out of range"):
        unordered.raw_scores(np.zeros((2, 8)))
    with pytest.raises(ValueError, match="do not fit"):
        _forest.forest_raw(np.zeros((2, 8)), 8, compiled.nodes, compiled.roots, 0.0,
                           np.zeros(3))


def test_rows_without_missing_values_take_the_same_paths(model):
    """A page without NaN walks the loop without the missing-value test: same sums."""
    compiled = compile_forest(model)
    x = np.nan_to_num(_data(3, n=200)[0])
    assert np.array_equal(compiled.raw_scores(x),
                          model._raw_predict(x).ravel())
    x[5, 2] = np.nan  # one NaN anywhere: the other loop, still the same sums
    assert np.array_equal(compiled.raw_scores(x), model._raw_predict(x).ravel())


def test_trees_stored_in_another_node_order_are_put_in_preorder(model):
    """:func:`preorder` relabels a tree that is not stored in preorder: same scores."""
    shuffled = copy.deepcopy(model)
    rng = np.random.default_rng(4)
    for predictor in shuffled._predictors:
        nodes = predictor[0].nodes
        perm = np.concatenate([[0], 1 + rng.permutation(len(nodes) - 1)])  # root stays first
        where = np.empty(len(nodes), dtype=np.int64)
        where[perm] = np.arange(len(nodes))
        moved = nodes[perm].copy()
        split = ~moved["is_leaf"].astype(bool)
        moved["left"][split] = where[moved["left"][split]]
        moved["right"][split] = where[moved["right"][split]]
        predictor[0].nodes = moved
    x, _ = _data(5, n=200)
    assert np.array_equal(shuffled.predict_proba(x), model.predict_proba(x))
    assert np.array_equal(compile_forest(shuffled).predict_proba(x), model.predict_proba(x))
    looped = np.zeros(3, dtype=bool)
    with pytest.raises(ValueError, match="reached twice"):
        preorder(np.array([1, 0, 0]), np.array([2, 0, 0]), looped)
