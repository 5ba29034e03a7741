"""The predictor/estimator split: predictors (crawl time) have no ``fit``; each learned model's
estimator in ``corpuscrawl.learn`` subclasses its predictor and adds it; what is saved is
always the predictor, so a model file names no training class."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest
import skops.io as sio
from sklearn.base import clone
from sklearn.svm import SVC

from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.extract.learned.auto import AutoModel
from corpuscrawl.extract.learned.features import FEATURE_NAMES
from corpuscrawl.extract.learned.hybrid import HybridAModel, SegmentSVMModel
from corpuscrawl.extract.learned.models import (
    TRUSTED_EXTRA_TYPES,
    LearnedModel,
    ModelFileError,
    load_model,
    model_class,
)
from corpuscrawl.extract.learned.page_check import PageCheck
from corpuscrawl.learn.auto_trainer import AutoEstimator
from corpuscrawl.learn.estimator import Estimator, as_predictor, estimator_class
from corpuscrawl.learn.hybrid_trainer import HybridAEstimator
from corpuscrawl.learn.model_files import model_path, save_model
from corpuscrawl.learn.page_check_trainer import PageCheckEstimator
from corpuscrawl.learn.training import ESTIMATORS, fit_model
from corpuscrawl.learn.trainset import documents

pytestmark = pytest.mark.usefixtures("private_cache")

LEARNED = ("auto", "sequence", "hybrid-a", "hybrid-b", "segment-svm")


def schema_of(path) -> str:
    with zipfile.ZipFile(path) as zf:
        return zf.read("schema.json").decode()


def test_predictors_have_no_fit_and_each_has_one_estimator_in_learn():
    for name in LEARNED:
        predictor = model_class(name)
        assert not hasattr(predictor, "fit"), f"{predictor.__name__} has a fit method"
        estimator = estimator_class(predictor)
        assert estimator in ESTIMATORS
        assert estimator.__module__.startswith("corpuscrawl.learn.")
        assert issubclass(estimator, predictor) and estimator.predictor_class is predictor
        assert callable(estimator.fit)
        # the same named parameters: get_params, set_params and clone work unchanged
        assert estimator().get_params() == predictor().get_params()
        assert clone(estimator().set_params(**predictor().get_params())).__class__ is estimator
        # only predictors are trusted in a model file
        assert f"{estimator.__module__}.{estimator.__name__}" not in TRUSTED_EXTRA_TYPES
        assert f"{predictor.__module__}.{predictor.__name__}" in TRUSTED_EXTRA_TYPES
    assert not hasattr(PageCheck, "fit") and PageCheckEstimator.predictor_class is PageCheck


def test_fit_returns_the_estimator_and_saving_writes_the_predictor(tinyset, tmp_path):
    docs = documents([tinyset], "train")
    fitted = fit_model("segment-svm", docs, None, show_progress=False)
    assert type(fitted).__name__ == "SegmentSVMEstimator"
    again = estimator_class(SegmentSVMModel)()
    assert again.fit(docs) is again
    predictor = fitted.predictor()
    assert type(predictor) is SegmentSVMModel and not isinstance(predictor, Estimator)
    assert predictor.get_params() == fitted.get_params()
    assert predictor.svm_ is fitted.svm_ and predictor.feature_names_in_ == fitted.feature_names_in_
    test = documents([tinyset], "test")
    assert predictor.predict([d.page for d in test]) == fitted.predict([d.page for d in test])
    path = save_model("segment-svm", fitted, tmp_path)
    assert "corpuscrawl.learn" not in schema_of(path)
    loaded = load_model("segment-svm", SegmentSVMModel, tmp_path)
    assert type(loaded) is SegmentSVMModel
    assert loaded.predict([d.page for d in test]) == fitted.predict([d.page for d in test])


def _fitted_auto_parts(model: AutoModel) -> AutoModel:
    """Fitted attributes of a tiny auto model (values only: nothing here is applied)."""
    model.unary_, model.stage2_, model.pairwise_ = SVC(), None, SVC()
    model.lambda_, model.bias_, model.votes_ = 0.1, 0.0, ()
    model.feature_names_in_ = model.pair_feature_names_ = model.pair_columns_ = ("a",)
    return model


def test_a_fitted_attribute_holding_an_estimator_is_saved_as_its_predictor(tmp_path):
    check = PageCheckEstimator(robust=("bte", "readability"))
    check.keep_share_, check.confidence_, check.fit_info_ = 0.25, 0.3, {"replaced": 2}
    model = _fitted_auto_parts(AutoEstimator(max_iter=7))
    model.page_check_ = check
    model.__dict__["_runtime"] = {"built": "at prediction"}
    predictor = as_predictor(model)
    assert type(predictor) is AutoModel and type(predictor.page_check_) is PageCheck
    assert predictor.page_check_.get_params() == check.get_params()
    assert predictor.page_check_.confidence_ == 0.3 and predictor.max_iter == 7
    assert "_runtime" not in vars(predictor)  # derived at prediction, never saved or copied
    path = save_model("auto", model, tmp_path)
    assert "corpuscrawl.learn" not in schema_of(path)
    assert "PageCheck" in schema_of(path)
    # a predictor or any other object is returned as it is
    assert as_predictor(predictor) is predictor and as_predictor(3) == 3


def test_a_file_holding_a_training_class_is_refused_naming_the_save_function(tmp_path):
    model = HybridAEstimator(base=("bte", "readability"))
    x = np.random.default_rng(0).random((10, len(FEATURE_NAMES)))
    model.svm_, model.constant_ = SVC().fit(x, [0, 1] * 5), 0
    model.base_, model.feature_names_in_ = ("bte", "readability"), FEATURE_NAMES
    sio.dump(model, model_path("hybrid-a", tmp_path))  # not through save_model
    with pytest.raises(ModelFileError, match="training classes.*HybridAEstimator.*save_model"):
        load_model("hybrid-a", HybridAModel, tmp_path)
    save_model("hybrid-a", model, tmp_path)
    assert type(load_model("hybrid-a", HybridAModel, tmp_path)) is HybridAModel


class NotAModelPart:
    """A type no model file may contain."""


def test_save_refuses_a_model_the_loader_would_refuse_and_leaves_no_file(tmp_path):
    model = HybridAModel()
    model.svm_, model.constant_, model.base_ = NotAModelPart(), 0, ("bte",)
    with pytest.raises(TypeError, match="NotAModelPart"):
        save_model("hybrid-a", model, tmp_path)
    assert not list(tmp_path.glob("*.skops*"))


class OwnModel(LearnedModel):
    """A user's learned model: a predictor of its own."""

    name = "own"

    def __init__(self, depth: int = 2):
        self.depth = depth


def test_estimator_class_finds_a_users_estimator_and_explains_a_missing_one():
    class Orphan(LearnedModel):
        name = "orphan"

    with pytest.raises(ExtractorError, match="no estimator class trains .*Orphan.*Estimator"):
        estimator_class(Orphan)

    class OwnEstimator(Estimator, OwnModel):
        def fit(self, docs, y=None, progress=None):
            self.depth_ = self.depth
            return self

    assert estimator_class(OwnModel) is OwnEstimator
    fitted = OwnEstimator(depth=5).fit([])
    assert type(fitted.predictor()) is OwnModel and fitted.predictor().depth_ == 5

    class Tweaked(OwnEstimator):  # a subclass of an estimator: the direct one still wins
        pass

    assert Tweaked.predictor_class is OwnModel and estimator_class(OwnModel) is OwnEstimator

    class Second(Estimator, OwnModel):
        pass

    with pytest.raises(ExtractorError, match="several estimator classes"):
        estimator_class(OwnModel)
    with pytest.raises(TypeError, match="extends no predictor"):
        type("Loose", (Estimator,), {})


def test_train_saves_and_describes_the_predictor(tinyset, tmp_path):
    from corpuscrawl.learn.training import train

    path = train("segment-svm", [tinyset], models_dir=tmp_path, show_progress=False)
    assert "corpuscrawl.learn" not in schema_of(path)
    assert type(load_model("segment-svm", SegmentSVMModel, tmp_path)) is SegmentSVMModel
    card = (tmp_path / "segment-svm.md").read_text(encoding="utf-8")
    assert card.startswith("# Model card: `segment-svm` (SegmentSVMModel)")
    assert "| tinyset |" in card  # scored on the test split, as saved
