"""The element decision tree: fit/predict, JSON persistence, validation, the shipped model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpuscrawl.browse.classifier import (
    ElementClassifier,
    ModelError,
    load_classifier,
    models_dir,
)
from corpuscrawl.browse.elements import ElementRecord

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
    model = ElementClassifier().fit(records)
    assert model.predict(records) == [r.label for r in records]
    path = model.save(tmp_path / "m.json")
    loaded = ElementClassifier.load(path)
    assert loaded.predict(records) == model.predict(records)
    assert (loaded.predict_proba(records) == model.predict_proba(records)).all()
    assert loaded.predict([]) == []


def test_unfitted_and_bad_labels() -> None:
    with pytest.raises(ModelError, match="not fitted"):
        ElementClassifier().predict([ElementRecord(tag="a")])
    with pytest.raises(ValueError, match="unknown label"):
        ElementClassifier().fit([ElementRecord(tag="a")], ["Link"])


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(format="pickle"), "not a corpuscrawl element-classifier"),
    (lambda d: d.update(version=99), "version 99"),
    (lambda d: d["feature_names"].append("new_feature"), "retrain"),
    (lambda d: d["nodes"]["left"].__setitem__(0, 0), "invalid child"),
    (lambda d: d["nodes"].pop("value"), "malformed 'nodes'"),
    (lambda d: d.update(classes=["Link"]), "classes"),
])
def test_invalid_model_files_are_reported(tmp_path: Path, change, message: str) -> None:
    data = ElementClassifier().fit(toy_set()).to_json()
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ModelError, match=message) as info:
        ElementClassifier.load(path)
    assert str(path) in str(info.value)


def test_missing_model_lists_available(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORPUSCRAWL_MODELS_DIR", str(tmp_path))
    ElementClassifier().fit(toy_set()).save(tmp_path / "mine.json")
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
