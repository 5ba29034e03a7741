"""The shipped model cards state what the shipped files are: each card's SHA-256 line is its
model file's, its parameters are the file's predictor's named parameters and what its fit
measured, its class and training time are the file's, and (with the benchmark datasets)
its test-split table is what today's code scores with the file.  Also the comparison of two
model files (``benchmarks/model_identity.py``) that proves a retrained model unchanged."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.svm import SVC

from corpuscrawl.extract.learned.features import FEATURE_NAMES
from corpuscrawl.extract.learned.hybrid import HybridAModel
from corpuscrawl.extract.learned.models import LearnedModel, load_model_file
from corpuscrawl.learn.model_files import file_sha256, save_model
from corpuscrawl.learn.training import SHIPPED_MODELS, card_fit_results, shipped_datasets
from corpuscrawl.resources.shipped import shipped_dir

MODELS = shipped_dir("models")


def card_of(name: str) -> str:
    """The text of the shipped card of model ``name``."""
    assert MODELS is not None
    return (MODELS / f"{name}.md").read_text(encoding="utf-8")


def section(text: str, title: str) -> list[str]:
    """The non-empty lines of a card's ``## title`` section."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert match, f"no section {title!r}"
    return [line for line in match.group(1).splitlines() if line.strip()]


def shipped_model(name: str) -> LearnedModel:
    """The shipped model file of ``name``, loaded as a crawl loads it."""
    assert MODELS is not None
    return load_model_file(MODELS / f"{name}.skops")


@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_the_card_records_the_sha256_of_the_shipped_model_file(name):
    assert MODELS is not None
    lines = re.findall(r"^File SHA-256: `([0-9a-f]*)`$", card_of(name), re.MULTILINE)
    assert lines == [file_sha256(MODELS / f"{name}.skops")], \
        f"models/{name}.md does not record the SHA-256 of models/{name}.skops"


@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_the_card_lists_the_predictors_parameters_and_what_its_fit_recorded(name):
    model = shipped_model(name)
    text = card_of(name)
    params = model.get_params(deep=False)
    assert section(text, "Hyper-parameters") == [
        f"- {k}: `{list(v) if isinstance(v, tuple) else v}`" for k, v in params.items()]
    recorded = card_fit_results(model)
    assert recorded == {**(getattr(model, "fit_info_", None) or {}),
                        **({"base extractors": list(model.base_)} if getattr(model, "base_", ())
                           else {})}
    if recorded:
        assert section(text, "Recorded by the fit")[1:] == [
            f"- {k}: `{v}`" for k, v in recorded.items()]
    else:
        assert "## Recorded by the fit" not in text


@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_the_card_gives_the_training_command_that_rebuilds_its_file(name):
    """The shipped file's parameters are the training defaults, so ``corpuscrawl train
    NAME`` (the card's rebuild line) trains it again."""
    from corpuscrawl.learn.training import training_command

    assert re.findall(r"^Rebuild: (.*)$", card_of(name), re.MULTILINE) == [
        f"`corpuscrawl train {name}`"]
    dirs = [Path("/d") / n for n in shipped_datasets(name)]
    assert training_command(name, shipped_model(name), dirs) == f"`corpuscrawl train {name}`"


def test_a_model_trained_with_other_parameters_gets_a_command_naming_them():
    from corpuscrawl.learn.training import training_command

    model = shipped_model("auto")
    dirs = [Path("/d") / n for n in shipped_datasets("auto")]
    model.page_check = True
    assert training_command("auto", model, dirs[:2]) == (
        "`corpuscrawl train auto --data /d/scrapinghub,/d/cleaneval` with page_check=True "
        "(keyword arguments of `corpuscrawl.learn.training.train`: no option of the command "
        "sets them)")


def test_autos_card_gives_the_out_of_fold_f1_its_file_records():
    model = shipped_model("auto")
    oof = model.fit_info_["out_of_fold_f1"]
    assert f"- out_of_fold_f1: `{oof}`" in section(card_of("auto"), "Recorded by the fit")
    assert f"- lambda: `{model.lambda_}`" in card_of("auto")
    assert f"- bias: `{model.bias_}`" in card_of("auto")


@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_the_card_names_the_files_class_training_time_and_training_documents(name):
    model = shipped_model(name)
    text = card_of(name)
    assert text.startswith(f"# Model card: `{name}` ({type(model).__name__})\n")
    assert re.search(rf"^Trained: {re.escape(model.meta_['trained_at'])}( in \d+ s)?$", text,
                     re.MULTILINE)
    counts = re.search(r"^Training documents per dataset: (.*)$", text, re.MULTILINE)
    assert counts
    per_dataset = dict(part.rsplit(" ", 1) for part in counts.group(1).split(", "))
    assert list(per_dataset) == list(shipped_datasets(name))
    assert sum(map(int, per_dataset.values())) == model.meta_["train_documents"]
    assert [f"- `{Path(d).name}`" for d in model.meta_["data"]] == section(text, "Data")[
        : len(model.meta_["data"])]
    assert f"label counts on the training data: {model.label_counts_}" in text


def card_scores(text: str) -> list[str]:
    """The rows of a card's test-split table."""
    return [line for line in section(text, "Scores on the test split (never trained or tuned on)")
            if line.startswith("| ") and not line.startswith(("| dataset", "|---"))]


@pytest.mark.slow
@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_the_cards_test_split_table_is_what_todays_code_scores_with_the_file(name, datasets_dir):
    from corpuscrawl.learn.training import build_extractor, score_rows
    from corpuscrawl.learn.trainset import documents

    docs = documents([datasets_dir / d for d in shipped_datasets(name)], "test")
    rows = score_rows(build_extractor(name, shipped_model(name)), docs, show_progress=False)
    assert card_scores(card_of(name)) == [
        f"| {d} | {n} | {p:.4f} | {r:.4f} | {f:.4f} | {m:.4f} |" for d, n, p, r, f, m in rows]


def small_hybrid_a(c: float = 1.0, trained_at: str = "2026-01-01T00:00:00+00:00") -> HybridAModel:
    """A fitted hybrid-a over random rows (its SVM's ``C`` set by ``c``)."""
    rng = np.random.default_rng(0)
    x = rng.random((30, len(FEATURE_NAMES)))
    model = HybridAModel(base=("bte", "readability"))
    model.svm_ = SVC(C=c).fit(x, (x[:, 0] > 0.5).astype(int))
    model.constant_ = 0
    model.base_ = ("bte", "readability")
    model.feature_names_in_ = FEATURE_NAMES
    model.label_counts_ = {"bte": 15, "readability": 15}
    model.fit_info_ = {"kernel": "rbf"}
    model.meta_ = {"trained_at": trained_at, "data": ["tinyset"], "train_documents": 30}
    return model


def test_model_identity_sees_through_ids_and_training_time(tmp_path, benchmark_module, capsys):
    identity = benchmark_module("model_identity")
    first = save_model("hybrid-a", small_hybrid_a(), tmp_path / "a")
    second = save_model("hybrid-a", small_hybrid_a(trained_at="2026-02-02T00:00:00+00:00"),
                        tmp_path / "b")
    assert first.read_bytes() != second.read_bytes()
    assert identity.main(["hybrid-a", str(first), str(second)]) == 0
    out = capsys.readouterr().out
    assert "files differ" in out
    assert "payload: 0 difference(s)" in out and "objects: 0 difference(s)" in out


def test_model_identity_compares_random_states_by_their_state(benchmark_module):
    import numpy as np

    identity = benchmark_module("model_identity")
    assert identity.object_differences(np.random.RandomState(3), np.random.RandomState(3)) == []
    assert identity.object_differences({"r": np.random.RandomState(3)},
                                       {"r": np.random.RandomState(4)})[0].startswith("r[1]:")


def test_model_identity_names_what_differs(tmp_path, benchmark_module, capsys):
    identity = benchmark_module("model_identity")
    first = save_model("hybrid-a", small_hybrid_a(), tmp_path / "a")
    other = small_hybrid_a(c=5.0)
    other.fit_info_ = {"kernel": "rbf", "out_of_fold_f1": 0.5}
    second = save_model("hybrid-a", other, tmp_path / "b")
    assert identity.main(["hybrid-a", str(first), str(second)]) == 1
    out = capsys.readouterr().out
    objects = out.split("objects:", 1)[1]
    assert "svm_.C: 1.0 vs 5.0" in objects
    assert re.search(r"svm_\.dual_coef_: \d+ of \d+ entries differ, largest absolute", objects)
    assert "fit_info_.out_of_fold_f1: only in the second" in objects
    payload = out.split("payload:", 1)[1].split("objects:", 1)[0]
    assert "svm_.dual_coef_.file: 'sha256:" in payload
    assert "fit_info_.out_of_fold_f1: only in the second file" in payload
    assert "__id__" not in out


def test_model_identity_refuses_a_file_that_is_not_a_model(tmp_path, benchmark_module, capsys):
    identity = benchmark_module("model_identity")
    good = save_model("hybrid-a", small_hybrid_a(), tmp_path)
    bad = tmp_path / "bad.skops"
    bad.write_bytes(b"not a zip")
    assert identity.main(["hybrid-a", str(good), str(bad)]) == 2
    assert "bad.skops: not a readable skops file" in capsys.readouterr().err
    assert identity.main(["hybrid-a", str(good), str(tmp_path / "missing.skops")]) == 2


def test_the_element_classifier_card_states_the_shipped_files_tree():
    import json

    assert MODELS is not None
    model = json.loads((MODELS / "element-classifier.json").read_text(encoding="utf-8"))
    card = (MODELS / "element-classifier.md").read_text(encoding="utf-8")
    assert f"params `{model['params']}`)" in card
    assert f"the tree has\n{len(model['nodes']['left'])} nodes." in card
    assert f"- Trained: {model['metadata']['date']}\n" in card
    assert f"{model['metadata']['records']} labelled elements" in card
    accuracy = model["metadata"]["cv_leave_one_site_out_accuracy"]
    loso = card.split("## Cross-validation: leave one site out", 1)[1].split("## ", 1)[0]
    assert f"Accuracy: {accuracy:.3f}" in loso


@pytest.mark.slow
def test_retraining_the_element_classifier_gives_the_shipped_file_and_card(tmp_path,
                                                                           monkeypatch):
    """``corpuscrawl train element-classifier`` on the shipped labelled set rebuilds the
    shipped file and card (all but the date)."""
    import json

    from corpuscrawl.cli import main as cli_main
    from corpuscrawl.learn.element_trainer import CARD_NAME, MODEL_NAME

    assert MODELS is not None
    monkeypatch.delenv("CORPUSCRAWL_MODELS_DIR", raising=False)
    assert cli_main(["train", "element-classifier", "--models-dir", str(tmp_path),
                     "--quiet"]) == 0

    def undated(data: dict) -> dict:
        return {**data, "metadata": {**data["metadata"], "date": ""}}

    shipped = json.loads((MODELS / MODEL_NAME).read_text(encoding="utf-8"))
    retrained = json.loads((tmp_path / MODEL_NAME).read_text(encoding="utf-8"))
    assert undated(retrained) == undated(shipped)
    trained = re.compile(r"^- Trained: .*$", re.MULTILINE)
    assert trained.sub("", (tmp_path / CARD_NAME).read_text(encoding="utf-8")) == \
        trained.sub("", (MODELS / CARD_NAME).read_text(encoding="utf-8"))


def test_card_only_writes_the_card_of_the_file_as_it_is(tinyset, tmp_path, private_cache, capsys):
    from corpuscrawl.cli import main as cli_main
    from corpuscrawl.learn.training import train

    path = train("segment-svm", [tinyset], models_dir=tmp_path, show_progress=False)
    written = (tmp_path / "segment-svm.md").read_text(encoding="utf-8")
    model_bytes = path.read_bytes()
    (tmp_path / "segment-svm.md").write_text("stale", encoding="utf-8")
    assert cli_main(["train", "segment-svm", "--card-only", "--data", str(tinyset),
                     "--models-dir", str(tmp_path), "--quiet"]) == 0
    card = (tmp_path / "segment-svm.md").read_text(encoding="utf-8")
    assert path.read_bytes() == model_bytes  # the model file is not touched
    assert card == written  # training time and duration as the file records them
    assert f"File SHA-256: `{file_sha256(path)}`" in card
    assert "| tinyset |" in card


def test_card_only_refuses_other_data_and_a_missing_file(tinyset, tmp_path, private_cache,
                                                         capsys):
    import shutil

    from corpuscrawl.cli import main as cli_main
    from corpuscrawl.learn.training import train

    train("segment-svm", [tinyset], models_dir=tmp_path, show_progress=False)
    other = tmp_path / "otherset"
    shutil.copytree(tinyset, other)
    card = (tmp_path / "segment-svm.md").read_text(encoding="utf-8")
    assert cli_main(["train", "segment-svm", "--card-only", "--data", str(other),
                     "--models-dir", str(tmp_path), "--quiet"]) == 2
    assert "was trained on tinyset" in capsys.readouterr().err
    assert (tmp_path / "segment-svm.md").read_text(encoding="utf-8") == card  # kept
    assert cli_main(["train", "hybrid-a", "--card-only", "--data", str(tinyset),
                     "--models-dir", str(tmp_path), "--quiet"]) == 2
    assert "hybrid-a.skops not found; train it with" in capsys.readouterr().err
    assert not (tmp_path / "hybrid-a.md").exists()


def test_card_only_refuses_a_file_that_records_no_training(tinyset, tmp_path, capsys):
    from corpuscrawl.cli import main as cli_main

    model = small_hybrid_a()
    del model.meta_
    save_model("hybrid-a", model, tmp_path)
    assert cli_main(["train", "hybrid-a", "--card-only", "--data", str(tinyset),
                     "--models-dir", str(tmp_path), "--quiet"]) == 2
    assert "records no training time" in capsys.readouterr().err
    assert not (tmp_path / "hybrid-a.md").exists()


def test_the_cards_split_line_names_the_datasets_split_by_site(tmp_path):
    from corpuscrawl.learn.training import split_description

    by_id = tmp_path / "articles"
    by_site = tmp_path / "wholeweb"
    for d in (by_id, by_site):
        (d / "html").mkdir(parents=True)
    (by_id / "manifest.jsonl").write_text('{"id": "a", "url": "https://a.example/x"}\n',
                                          encoding="utf-8")
    (by_site / "manifest.jsonl").write_text('{"id": "b", "domain": "b.example"}\n',
                                            encoding="utf-8")
    assert split_description([by_id]).startswith(
        "corpuscrawl.evaluation.datasets.split (by document id, test_fraction=")
    assert split_description([by_id, by_site]).startswith(
        "corpuscrawl.evaluation.datasets.split (by document id; by site for wholeweb, ")


def test_train_all_trains_every_shipped_model_and_both_classifiers(tinyset, tmp_path,
                                                                   monkeypatch):
    """``corpuscrawl train all`` trains every extractor model and then the page-type and
    element classifiers, each into the models directory given; a failing one stops it."""
    from corpuscrawl.cli import main as cli_main
    from corpuscrawl.commands import train as train_command
    from corpuscrawl.learn import training

    trained: list[tuple[str, str]] = []
    monkeypatch.setattr(training, "train", lambda name, dirs, models_dir=None, **kw: (
        trained.append((name, models_dir)) or Path(models_dir) / f"{name}.skops"))
    monkeypatch.setattr(train_command, "train_own", lambda name, args: (
        trained.append((name, args.models_dir)) or 0))
    assert cli_main(["train", "all", "--data", str(tinyset), "--models-dir", str(tmp_path),
                     "--quiet"]) == 0
    assert trained == [(name, str(tmp_path)) for name in
                       (*SHIPPED_MODELS, "page-type", "element-classifier")]
    trained.clear()
    assert cli_main(["train", "element-classifier", "--models-dir", str(tmp_path)]) == 0
    assert trained == [("element-classifier", str(tmp_path))]
    monkeypatch.setattr(train_command, "train_own", lambda name, args: 2)
    assert cli_main(["train", "page-type", "--models-dir", str(tmp_path)]) == 2


def test_train_element_classifier_without_a_labelled_set_says_how_to_build_one(
        tmp_path, monkeypatch, capsys):
    from corpuscrawl.cli import main as cli_main
    from corpuscrawl.resources import shipped

    monkeypatch.setattr(shipped, "find_model", lambda filename, explicit=None: None)
    assert cli_main(["train", "element-classifier", "--models-dir", str(tmp_path)]) == 2
    assert "no labelled set elements-train.jsonl" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
