"""Model files: one estimator class per learned model, skops round trip, trusted types only,
clear refusals (tampered, foreign, other model, earlier dict format), named feature columns,
conversion of earlier files, cards."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest
import skops.io as sio
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC

from corpuscrawl.cli import main as cli_main
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.learned.auto import AutoModel
from corpuscrawl.extract.learned.columns import (
    FeatureNamesError,
    NamedMatrix,
    check_feature_names,
)
from corpuscrawl.extract.learned.features import FEATURE_NAMES
from corpuscrawl.extract.learned.hybrid import (
    HybridAExtractor,
    HybridAModel,
    HybridBModel,
    SegmentSVMModel,
    document_rows,
)
from corpuscrawl.extract.learned.models import (
    TRUSTED_EXTRA_TYPES,
    LearnedModel,
    LegacyModelError,
    ModelFileError,
    ModelNotFoundError,
    load_model,
    load_model_file,
    model_class,
)
from corpuscrawl.extract.learned.page_check import PageCheck
from corpuscrawl.extract.learned.sequence import SequenceModel
from corpuscrawl.html.page import Page
from corpuscrawl.learn.model_files import ModelCard, card_path, model_path, save_model, write_card

PAGE = Page.from_html("<html><body><div><p>" + "Some words of a page. " * 20
                      + "</p></div><div><a href='/'>Home</a></div></body></html>",
                      url="http://example.com/")


class NotAModelPart:
    """A type no model may contain: stands for code smuggled into a model file."""

    def __init__(self) -> None:
        self.x = 1


def fitted_hybrid_a() -> HybridAModel:
    """A hybrid-a model whose SVM picks readability (1) or bte (0) by the page size bucket."""
    rng = np.random.default_rng(0)
    x = rng.random((40, len(FEATURE_NAMES)))
    y = (x[:, 0] > 0.5).astype(int)
    model = HybridAModel(base=("bte", "readability"), c=2.0)
    model.svm_ = SVC().fit(x, y)
    model.constant_ = 0
    model.base_ = ("bte", "readability")
    model.feature_names_in_ = FEATURE_NAMES
    model.label_counts_ = {"bte": 20, "readability": 20}
    model.fit_info_ = {"kernel": "rbf"}
    return model


def test_every_learned_extractor_has_one_model_class_with_the_sklearn_shape():
    classes = {name: model_class(name) for name in
               ("auto", "sequence", "hybrid-a", "hybrid-b", "segment-svm")}
    assert classes == {"auto": AutoModel, "sequence": SequenceModel, "hybrid-a": HybridAModel,
                       "hybrid-b": HybridBModel, "segment-svm": SegmentSVMModel}
    for name, cls in classes.items():
        assert cls.name == name and cls.description
        model = cls()
        params = model.get_params()
        assert params and all(getattr(model, k) == v for k, v in params.items())
        assert clone(model).get_params() == params
        # fitted attributes only after fit
        assert not [k for k in vars(model) if k.endswith("_")]
        assert f"corpuscrawl.extract.learned.{cls.__module__.rsplit('.', 1)[1]}." \
               f"{cls.__name__}" in TRUSTED_EXTRA_TYPES
    assert AutoModel().set_params(max_iter=7).max_iter == 7
    assert PageCheck().get_params()["robust"] == ("bte", "boilerpipe-default", "readability")
    with pytest.raises(Exception, match="not a learned model"):
        model_class("bte")


def test_an_unfitted_model_refuses_to_predict():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        HybridAModel().predict([PAGE])
    with pytest.raises(NotFittedError):
        HybridAExtractor(estimator=HybridAModel())


def test_save_load_round_trip_predicts_the_same(tmp_path):
    model = fitted_hybrid_a()
    save_model("hybrid-a", model, tmp_path)
    loaded = load_model("hybrid-a", HybridAModel, tmp_path)
    assert isinstance(loaded, HybridAModel) and loaded.get_params() == model.get_params()
    assert loaded.feature_names_in_ == FEATURE_NAMES and loaded.c == 2.0
    assert loaded.predict([PAGE]) == model.predict([PAGE])
    assert loaded.choose(PAGE) == model.choose(PAGE)
    extractor = get_extractor("hybrid-a", models_dir=str(tmp_path))
    assert extractor.extract(PAGE) == get_extractor(model.choose(PAGE)).extract(PAGE)
    # what a model builds to predict (the base extractors) is not saved
    assert "_runtime" in vars(loaded)
    save_model("again", loaded, tmp_path)
    with zipfile.ZipFile(model_path("again", tmp_path)) as zf:
        assert "_runtime" not in zf.read("schema.json").decode()


def test_feature_columns_are_named_and_checked():
    values = np.zeros((2, 3))
    with pytest.raises(FeatureNamesError, match="cannot have the 2 column names"):
        NamedMatrix(values, ("a", "b"))
    m = NamedMatrix(values, ("a", "b", "c"))
    assert m.select(("c", "a")).names == ("c", "a")
    with pytest.raises(FeatureNamesError, match="'z'"):
        m.select(("z",))
    check_feature_names(("a", "b"), ("a", "b"), "auto")
    with pytest.raises(FeatureNamesError, match="another order.*column 0.*retrain.*train auto"):
        check_feature_names(("a", "b"), ("b", "a"), "auto")
    with pytest.raises(FeatureNamesError, match="missing \\['b'\\]; unknown \\['c'\\]"):
        check_feature_names(("a", "b"), ("a", "c"), "auto")
    assert document_rows(PAGE).names == FEATURE_NAMES


def test_a_model_refuses_features_other_than_those_it_was_fitted_on():
    model = fitted_hybrid_a()
    model.feature_names_in_ = FEATURE_NAMES[1:] + FEATURE_NAMES[:1]  # fitted on another order
    with pytest.raises(FeatureNamesError, match="hybrid-a"):
        model.extract(PAGE)


def test_missing_model_names_the_file_and_the_train_command(tmp_path):
    with pytest.raises(ModelNotFoundError) as info:
        load_model("auto", AutoModel, tmp_path)
    message = str(info.value)
    assert str(model_path("auto", tmp_path)) in message
    assert "corpuscrawl train auto" in message


def test_untrusted_type_is_refused(tmp_path):
    path = model_path("evil", tmp_path)
    sio.dump({"kind": "test", "payload": NotAModelPart()}, path)
    with pytest.raises(ModelFileError, match="does not trust"):
        load_model("evil", None, tmp_path)


def _rewrite_schema(path, change) -> None:
    with zipfile.ZipFile(path) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    schema = json.loads(files["schema.json"])
    change(schema)
    files["schema.json"] = json.dumps(schema).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)


def _nodes(node):
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from _nodes(v)
    elif isinstance(node, list):
        for v in node:
            yield from _nodes(v)


@pytest.mark.parametrize("target", ["SVC", "HybridAModel"])
def test_tampered_file_pointing_at_os_system_is_refused(tmp_path, target):
    save_model("hybrid-a", fitted_hybrid_a(), tmp_path)

    def to_os_system(schema):
        node = next(n for n in _nodes(schema) if n.get("__class__") == target)
        node["__module__"], node["__class__"] = "os", "system"

    _rewrite_schema(model_path("hybrid-a", tmp_path), to_os_system)
    with pytest.raises(ModelFileError, match=r"os\.system"):
        load_model("hybrid-a", HybridAModel, tmp_path)


def test_corrupt_file_another_model_and_a_foreign_object_are_refused(tmp_path):
    model_path("bad", tmp_path).write_bytes(b"not a zip at all")
    with pytest.raises(ModelFileError, match="not a readable skops file"):
        load_model("bad", None, tmp_path)
    save_model("hybrid-a", fitted_hybrid_a(), tmp_path)
    with pytest.raises(ModelFileError, match="holds a 'hybrid-a' model.*train auto"):
        load_model("hybrid-a", AutoModel, tmp_path)
    sio.dump(LogisticRegression(), model_path("lr", tmp_path))
    with pytest.raises(ModelFileError, match="holds a LogisticRegression, not a corpuscrawl"):
        load_model("lr", None, tmp_path)


def legacy_hybrid_a_state() -> dict:
    """A hybrid-a model as earlier versions saved it: a dict of its parts."""
    model = fitted_hybrid_a()
    return {"kind": "hybrid-a", "base": ["bte", "readability"], "svm": model.svm_,
            "constant": 0, "params": {"C": 2.0, "kernel": "rbf", "gamma": "scale"},
            "label_counts": {"bte": 20, "readability": 20},
            "meta": {"trained_at": "2024-01-01T00:00:00+00:00"}}


def test_an_earlier_dict_file_is_refused_naming_the_command_that_converts_it(tmp_path):
    path = model_path("hybrid-a", tmp_path)
    sio.dump(legacy_hybrid_a_state(), path)
    with pytest.raises(LegacyModelError) as info:
        load_model("hybrid-a", HybridAModel, tmp_path)
    assert f"corpuscrawl train hybrid-a --convert {path}" in str(info.value)
    with pytest.raises(LegacyModelError):
        get_extractor("hybrid-a", models_dir=str(tmp_path))


def test_convert_keeps_the_fitted_estimators_and_the_outputs(tmp_path, capsys):
    old = tmp_path / "old"
    old.mkdir()
    sio.dump(legacy_hybrid_a_state(), old / "hybrid-a.skops")
    new = tmp_path / "new"
    new.mkdir()
    (new / "hybrid-a.md").write_text("# card\n\nFile SHA-256: `00`\n\nrest\n")
    assert cli_main(["train", "hybrid-a", "--convert", str(old / "hybrid-a.skops"),
                     "--models-dir", str(new)]) == 0
    model = load_model_file(new / "hybrid-a.skops", HybridAModel)
    reference = fitted_hybrid_a()
    assert model.get_params() == reference.get_params()
    assert model.feature_names_in_ == FEATURE_NAMES and model.base_ == ("bte", "readability")
    assert model.meta_["trained_at"].startswith("2024")
    x = document_rows(PAGE).values
    assert np.array_equal(model.svm_.decision_function(x), reference.svm_.decision_function(x))
    assert model.predict([PAGE]) == reference.predict([PAGE])
    from corpuscrawl.learn.model_files import file_sha256

    card = (new / "hybrid-a.md").read_text()
    assert f"File SHA-256: `{file_sha256(new / 'hybrid-a.skops')}`" in card and "rest" in card
    # converting a converted file, or into another model, is refused with exit code 2
    assert cli_main(["train", "hybrid-a", "--convert", str(new / "hybrid-a.skops"),
                     "--models-dir", str(tmp_path / "x")]) == 2
    assert "nothing to convert" in capsys.readouterr().err
    assert cli_main(["train", "auto", "--convert", str(old / "hybrid-a.skops"),
                     "--models-dir", str(tmp_path / "x")]) == 2
    assert "not 'auto'" in capsys.readouterr().err


def test_converting_a_file_whose_estimator_reads_other_columns_is_refused(tmp_path):
    state = legacy_hybrid_a_state()
    state["svm"] = SVC().fit(np.random.default_rng(0).random((10, 5)), [0, 1] * 5)
    sio.dump(state, tmp_path / "old.skops")
    assert cli_main(["train", "hybrid-a", "--convert", str(tmp_path / "old.skops"),
                     "--models-dir", str(tmp_path / "new")]) == 2
    assert not (tmp_path / "new" / "hybrid-a.skops").exists()


def test_the_shipped_models_are_model_objects():
    for name in ("auto", "sequence", "hybrid-a", "hybrid-b", "segment-svm"):
        model = load_model(name, model_class(name))
        assert isinstance(model, LearnedModel) and model.feature_names_in_
        assert model.meta_["train_documents"] > 0


def test_card_records_data_split_hyperparameters_scores_and_hash(tmp_path):
    save_model("m", fitted_hybrid_a(), tmp_path)
    card = ModelCard(name="m", kind="test", description="A test model.", data=["tinyset"],
                     split="by id", trained_at="2024-01-01T00:00:00+00:00",
                     hyperparameters={"C": 1.0}, train_counts={"tinyset": 10},
                     test_scores=[("tinyset", 2, 0.9, 0.8, 0.85, 0.84)])
    text = write_card(card, tmp_path, seconds=3).read_text()
    assert card_path("m", tmp_path).is_file()
    for needle in ("tinyset", "by id", "2024-01-01", "- C: `1.0`",
                   "| tinyset | 2 | 0.9000 | 0.8000 | 0.8500 | 0.8400 |", "SHA-256"):
        assert needle in text


def test_shipped_cards_cite_sources_by_name_not_outside_the_repository():
    from corpuscrawl.resources.shipped import shipped_dir

    cards = sorted(shipped_dir("models").glob("*.md"))
    assert {c.stem for c in cards} >= {"auto", "sequence", "hybrid-a", "hybrid-b", "segment-svm"}
    for card in cards:
        text = card.read_text(encoding="utf-8")
        for pointer in ("SPEC §", "SPEC.md", "seed 00", "issue "):
            assert pointer not in text, f"{card.name} cites {pointer!r}"


def test_the_card_writer_cites_no_outside_document(tmp_path):
    from corpuscrawl.learn.training import card_fit_results, card_hyperparameters, card_notes

    model = fitted_hybrid_a()
    card = ModelCard(name="hybrid-a", kind=type(model).__name__, description=model.description,
                     data=["tinyset"], split="by id", trained_at="2024-01-01",
                     hyperparameters=card_hyperparameters(model), train_counts={"tinyset": 1},
                     notes=card_notes(model), fit_results=card_fit_results(model))
    text = card.render()
    assert "Bakić's thesis" in text and "- c: `2.0`" in text and "base extractors" in text
    assert "SPEC" not in text and "seed 00" not in text


def test_the_shipped_block_models_predict_texts_and_block_probabilities():
    from corpuscrawl.extract.learned.sequence import SequenceExtractor

    for cls in (AutoModel, SequenceModel):
        model = load_model(cls.name, cls)
        (proba,) = model.predict_proba([PAGE])
        assert proba.shape[1] == 2 and np.allclose(proba.sum(axis=1), 1.0)
        assert model.predict([PAGE]) == [model.extract(PAGE)]
        assert "Some words of a page." in model.extract(PAGE)
    shipped = load_model("sequence", SequenceModel)
    override = SequenceExtractor(lam=0.5).estimator
    assert override.lam == 0.5 and override.unary_ is not None
    assert SequenceExtractor().estimator.lam == shipped.lam != 0.5
