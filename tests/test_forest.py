"""Compiled tree walks of ``auto``'s gradient-boosted models: identical, guarded, optional."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from corpuscrawl.extract.learned.auto import AutoExtractor
from corpuscrawl.extract.learned.forest import CompiledForest, compile_forest
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
    broken = compile_forest(model)
    inner = int(np.flatnonzero(broken.flags == 0)[0])
    broken.left = broken.left.copy()
    broken.left[inner] = len(broken.flags) + 10
    with pytest.raises(ValueError, match="out of range"):
        broken.raw_scores(np.zeros((2, 8)))
    looping = compile_forest(model)
    root = int(looping.roots[0])
    looping.left = looping.left.copy()
    looping.right = looping.right.copy()
    looping.left[root] = looping.right[root] = root  # a cycle: never reaches a leaf
    with pytest.raises(ValueError, match="max_steps"):
        looping.raw_scores(np.zeros((2, 8)))
    with pytest.raises(ValueError, match="out"):
        _forest.forest_raw(np.zeros((2, 8)), 8, compiled.feature, compiled.threshold,
                           compiled.flags, compiled.left, compiled.right, compiled.value,
                           compiled.roots, 0.0, 10, np.zeros(3))
