"""The element decision tree: the predictor (browse/, no fit) and its estimator (learn/, fit
and the model file), JSON persistence, validation, the shipped model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sklearn.base import clone, is_classifier
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score

from corpuscrawl.browse.classifier import (
    ElementClassifier,
    ModelError,
    load_classifier,
    models_dir,
)
from corpuscrawl.browse.elements import STRUCTURAL_LAYOUT_KEYS, ElementRecord
from corpuscrawl.learn.element_trainer import ElementClassifierEstimator
from corpuscrawl.learn.estimator import Estimator, estimator_class

PAGE = "http://index.hu/cikk/"


def toy_set() -> list[ElementRecord]:
    records = []
    for i in range(6):
        records.append(ElementRecord(tag="a", attributes={"href": f"/cikk/{i}"}, text=f"Cikk {i}",
                                     page_url=PAGE, label="Inner"))
        records.append(ElementRecord(tag="a", attributes={"href": f"https://other{i}.org/"},
                                     text="Máshol", page_url=PAGE, label="Outer"))
        records.append(ElementRecord(tag="button", attributes={"class": "load-more"},
                                     text="Load more" if i % 2 else "Több", page_url=PAGE,
                                     label="Revealer"))
        records.append(ElementRecord(tag="button", attributes={"class": "cc-accept"},
                                     text="Accept", page_url=PAGE, label="Closer",
                                     layout={"fixed": True, "z_index": 9999}))
    return records


def test_fit_predict_and_round_trip(tmp_path: Path) -> None:
    records = toy_set()
    model = ElementClassifierEstimator()
    assert model.fit(records) is model
    assert model.predict(records) == [r.label for r in records]
    path = model.save(tmp_path / "m.json")
    loaded = ElementClassifier.load(path)
    assert type(loaded) is ElementClassifier
    assert loaded.predict(records) == model.predict(records)
    assert (loaded.predict_proba(records) == model.predict_proba(records)).all()
    assert loaded.predict([]) == []


def test_unfitted_and_bad_labels() -> None:
    with pytest.raises(ModelError, match="not fitted"):
        ElementClassifier().predict([ElementRecord(tag="a")])
    with pytest.raises(ValueError, match="unknown label"):
        ElementClassifierEstimator().fit([ElementRecord(tag="a")], ["Link"])
    with pytest.raises(ValueError, match="as many labels"):
        ElementClassifierEstimator().fit(toy_set(), ["Inner"])


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(format="pickle"), "not a corpuscrawl element-classifier"),
    (lambda d: d.update(version=99), "version 99"),
    (lambda d: d["feature_names"].append("new_feature"), "retrain"),
    (lambda d: d["nodes"]["left"].__setitem__(0, 0), "invalid child"),
    (lambda d: d["nodes"].pop("value"), "malformed 'nodes'"),
    (lambda d: d.update(classes=["Link"]), "classes"),
])
def test_invalid_model_files_are_reported(tmp_path: Path, change, message: str) -> None:
    data = ElementClassifierEstimator().fit(toy_set()).to_json()
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ModelError, match=message) as info:
        ElementClassifier.load(path)
    assert str(path) in str(info.value)


def test_missing_model_lists_available(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORPUSCRAWL_MODELS_DIR", str(tmp_path))
    ElementClassifierEstimator().fit(toy_set()).save(tmp_path / "mine.json")
    assert models_dir() == tmp_path
    assert load_classifier("mine").classes_
    with pytest.raises(ModelError, match=r"not found.*\[.*'mine'.*\]"):
        load_classifier("nothing")


def test_shipped_model_loads_and_classifies_seed_examples() -> None:
    """The shipped model matches this version's features and gets the seed's examples right."""
    model = load_classifier()
    fb = "https://www.facebook.com/post/1"
    examples = {
        "Revealer": ElementRecord(
            tag="a", attributes={"class": "UFIPagerLink", "href": "#", "role": "button"},
            text="View previous replies", page_url=fb,
            layout={"visible": True, "width": 140, "height": 18, "cursor_pointer": True}),
        "Inner": ElementRecord(
            tag="a", page_url="http://index.hu/", text="Nem periodikusan csapódnak a Földre",
            attributes={"href": "http://dex.hu/x.php?id=inxcl&url=http%3A%2F%2Findex.hu%2F"
                                "tudomany%2F2017%2F03%2F06%2Fnem_periodikusan%2F"},
            layout={"visible": True, "width": 300, "height": 20, "cursor_pointer": True}),
        "LanguageSelection": ElementRecord(
            tag="a", page_url="http://www.euronews.com/2017/03/06/merkel", text="Magyar",
            page_lang="en", attributes={"href": "http://hu.euronews.com/2017/03/06/merkel",
                                        "lang": "hu-HU", "hreflang": "hu"},
            layout={"visible": True, "width": 60, "height": 18, "cursor_pointer": True}),
        "Closer": ElementRecord(
            tag="button", attributes={"class": "cookie-accept", "data-action": "accept"},
            text="Accept all", page_url=fb,
            layout={"visible": True, "fixed": True, "z_index": 10000, "overlay_cover": 0.2,
                    "width": 120, "height": 36, "cursor_pointer": True}),
    }
    predicted = model.predict(list(examples.values()))
    assert dict(zip(examples, predicted, strict=True)) == {k: k for k in examples}


def test_the_predictor_has_no_fit_and_its_estimator_in_learn_adds_it() -> None:
    assert not hasattr(ElementClassifier, "fit")
    assert estimator_class(ElementClassifier) is ElementClassifierEstimator
    assert ElementClassifierEstimator.predictor_class is ElementClassifier
    assert issubclass(ElementClassifierEstimator, ElementClassifier)
    # the same named parameters; scikit-learn's clone and set_params work on both
    params = {"max_depth": 4, "min_samples_leaf": 3, "class_weight": None, "random_state": 7,
              "layout_keys": STRUCTURAL_LAYOUT_KEYS}
    estimator = ElementClassifierEstimator(**params)
    assert estimator.get_params() == ElementClassifier(**params).get_params() == params
    copy = clone(estimator)
    assert type(copy) is ElementClassifierEstimator and copy.get_params() == params
    assert copy.set_params(max_depth=2) is copy and copy.max_depth == 2
    with pytest.raises(ValueError, match="invalid parameter.*depth.*valid: max_depth"):
        copy.set_params(depth=2)
    assert "max_depth=4" in repr(estimator) and repr(ElementClassifier()) == "ElementClassifier()"


def test_the_fitted_estimator_is_its_predictor_plus_fit(tmp_path: Path) -> None:
    records = toy_set()
    fitted = ElementClassifierEstimator(layout_keys=STRUCTURAL_LAYOUT_KEYS).fit(records)
    predictor = fitted.predictor()
    assert type(predictor) is ElementClassifier and not isinstance(predictor, Estimator)
    assert predictor.get_params() == fitted.get_params()
    assert predictor.tree_ is fitted.tree_ and predictor.classes_ == fitted.classes_
    assert vars(predictor).keys() == vars(fitted).keys()
    assert predictor.predict(records) == fitted.predict(records)
    assert (predictor.predict_proba(records) == fitted.predict_proba(records)).all()
    # the file holds plain parameters and arrays; loading gives the predictor back
    loaded = ElementClassifier.load(fitted.save(tmp_path / "m.json"))
    assert loaded.get_params() == fitted.get_params()
    assert loaded.metadata_ == {} and loaded.classes_ == fitted.classes_
    # a fresh estimator is unfitted: no fitted attribute until fit
    assert not [k for k in vars(ElementClassifierEstimator()) if k.endswith("_")]


def test_the_estimator_is_a_scikit_learn_classifier_over_records() -> None:
    """scikit-learn's model selection takes it as it is: cross-validation, grid search."""
    records = toy_set()
    labels = [r.label for r in records]
    estimator = ElementClassifierEstimator(min_samples_leaf=1)
    assert is_classifier(estimator)
    scores = cross_val_score(estimator, records, labels, cv=StratifiedKFold(n_splits=3))
    assert list(scores) == [1.0, 1.0, 1.0]
    search = GridSearchCV(estimator, {"max_depth": [1, 4]}, cv=StratifiedKFold(n_splits=3))
    search.fit(records, labels)
    assert search.best_params_ == {"max_depth": 4}
    best = search.best_estimator_
    assert type(best) is ElementClassifierEstimator and best.score(records, labels) == 1.0
    assert type(best.predictor()) is ElementClassifier


def test_loading_and_predicting_imports_no_training_code_and_no_scikit_learn() -> None:
    """A crawl that renders pages loads the element classifier without the training half
    and without paying scikit-learn's import."""
    script = ("import json, sys\n"
              "from corpuscrawl.browse.classifier import load_classifier\n"
              "from corpuscrawl.browse.elements import ElementRecord\n"
              "label = load_classifier().predict([ElementRecord(tag='a', text='Accept')])\n"
              "print(json.dumps([label, sorted(m for m in sys.modules if m.startswith("
              "('sklearn', 'corpuscrawl.learn', 'corpuscrawl.evaluation')))]))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[1], timeout=120)
    labels, loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(labels) == 1 and loaded == []
