"""Model files: skops round trip, trusted types only, clear refusals, cards."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from corpuscrawl.extract.learned.models import ModelFileError, ModelNotFoundError, load_model
from corpuscrawl.learn.model_files import ModelCard, card_path, model_path, save_model, write_card


class NotAModelPart:
    """A type no model may contain: stands for code smuggled into a model file."""

    def __init__(self) -> None:
        self.x = 1


def fitted() -> LogisticRegression:
    x = np.array([[0.0], [1.0], [2.0], [3.0]])
    return LogisticRegression().fit(x, [0, 0, 1, 1])


def test_save_load_round_trip_predicts_the_same(tmp_path):
    model = fitted()
    save_model("m", {"kind": "test", "model": model, "params": {"C": 1.0}}, tmp_path)
    state = load_model("m", "test", tmp_path)
    assert state["params"] == {"C": 1.0}
    x = np.array([[0.5], [2.5]])
    assert (state["model"].predict(x) == model.predict(x)).all()


def test_missing_model_names_the_file_and_the_train_command(tmp_path):
    with pytest.raises(ModelNotFoundError) as info:
        load_model("auto", "auto", tmp_path)
    message = str(info.value)
    assert str(model_path("auto", tmp_path)) in message
    assert "corpuscrawl train auto" in message


def test_untrusted_type_is_refused(tmp_path):
    import skops.io as sio

    path = model_path("evil", tmp_path)
    sio.dump({"kind": "test", "payload": NotAModelPart()}, path)
    with pytest.raises(ModelFileError, match="does not trust"):
        load_model("evil", "test", tmp_path)


def test_tampered_file_pointing_at_os_system_is_refused(tmp_path):
    save_model("m", {"kind": "test", "model": fitted()}, tmp_path)
    path = model_path("m", tmp_path)
    with zipfile.ZipFile(path) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    schema = json.loads(files["schema.json"])
    model = schema["content"]["model"]
    model["__module__"], model["__class__"] = "os", "system"
    files["schema.json"] = json.dumps(schema).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    with pytest.raises(ModelFileError, match=r"os\.system"):
        load_model("m", "test", tmp_path)


def test_corrupt_file_and_wrong_kind_are_refused(tmp_path):
    model_path("bad", tmp_path).write_bytes(b"not a zip at all")
    with pytest.raises(ModelFileError, match="not a readable skops file"):
        load_model("bad", None, tmp_path)
    save_model("seq", {"kind": "sequence"}, tmp_path)
    with pytest.raises(ModelFileError, match="not 'auto'"):
        load_model("seq", "auto", tmp_path)


def test_card_records_data_split_hyperparameters_scores_and_hash(tmp_path):
    save_model("m", {"kind": "test"}, tmp_path)
    card = ModelCard(name="m", kind="test", description="A test model.", data=["tinyset"],
                     split="by id", trained_at="2024-01-01T00:00:00+00:00",
                     hyperparameters={"C": 1.0}, train_counts={"tinyset": 10},
                     test_scores=[("tinyset", 2, 0.9, 0.8, 0.85, 0.84)])
    text = write_card(card, tmp_path, seconds=3).read_text()
    assert card_path("m", tmp_path).is_file()
    for needle in ("tinyset", "by id", "2024-01-01", "- C: `1.0`",
                   "| tinyset | 2 | 0.9000 | 0.8000 | 0.8500 | 0.8400 |", "SHA-256"):
        assert needle in text
