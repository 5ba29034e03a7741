"""Train a learned extractor by name, save it under ``models/``, score it, write its card.

Used by ``corpuscrawl train``.  Every model trains on the train part of the
project's split (:func:`corpuscrawl.evaluation.datasets.split`) of the given
gold-text datasets and is scored on their test part, which no model ever
trains or tunes on; the scores go on the card ``models/<name>.md``.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tqdm import tqdm

from corpuscrawl.evaluation.datasets import SPLIT_SEED_DEFAULT, TEST_FRACTION_DEFAULT, Dataset
from corpuscrawl.evaluation.metrics import score, summarize
from corpuscrawl.evaluation.names import GOLD_DATASETS, LEARNED_EXTRACTORS
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import Extractor
from corpuscrawl.extract.learned.models import LearnedModel, model_class
from corpuscrawl.learn.auto_trainer import AutoEstimator
from corpuscrawl.learn.estimator import estimator_class
from corpuscrawl.learn.hybrid_trainer import HybridAEstimator, HybridBEstimator, SegmentSVMEstimator
from corpuscrawl.learn.model_files import ModelCard, model_path, save_model, write_card
from corpuscrawl.learn.sequence_trainer import SequenceEstimator
from corpuscrawl.learn.trainset import Doc, documents

#: Models ``corpuscrawl train all`` trains, in this order.
SHIPPED_MODELS = LEARNED_EXTRACTORS
#: Gold-text datasets the shipped models are trained on (under the datasets root), in the
#: order their documents were read when the shipped models were trained.
SHIPPED_DATASETS = ("scrapinghub", *(d for d in GOLD_DATASETS if d != "scrapinghub"))
#: Gold sets a shipped model is trained on beyond :data:`SHIPPED_DATASETS`: ``auto``, the
#: default extractor, also learns from wcxb (the whole web: forum, documentation, service,
#: product, listing and collection pages beside articles), whose split is by site.
EXTRA_DATASETS: dict[str, tuple[str, ...]] = {"auto": ("wcxb",)}


def shipped_datasets(model: str) -> tuple[str, ...]:
    """The datasets the shipped ``model`` is trained and scored on, in reading order."""
    return (*SHIPPED_DATASETS, *EXTRA_DATASETS.get(model, ()))

#: The estimators of the shipped models (each found from its predictor by
#: :func:`~corpuscrawl.learn.estimator.estimator_class`; a user's own is found the same way).
ESTIMATORS = (AutoEstimator, SequenceEstimator, HybridAEstimator, SegmentSVMEstimator,
              HybridBEstimator)


def split_description(dataset_dirs: Sequence[str | Path]) -> str:
    """How the card's datasets are split: by site for a dataset whose manifest names each
    page's domain (:meth:`~corpuscrawl.evaluation.datasets.Dataset.split`), else by id."""
    by_site = [Path(d).name for d in dataset_dirs if Dataset(Path(d)).grouped]
    how = "by document id" + (f"; by site for {', '.join(by_site)}" if by_site else "")
    return (f"corpuscrawl.evaluation.datasets.split ({how}, "
            f"test_fraction={TEST_FRACTION_DEFAULT}, seed={SPLIT_SEED_DEFAULT!r});"
            " trained on the train part, scored on the test part")


def progress_bar(desc: str, enabled: bool = True) -> Callable[[Iterable[Doc]], Iterable[Doc]]:
    """A function wrapping an iterable of documents in a tqdm progress bar."""
    def wrap(docs: Iterable[Doc]) -> Iterable[Doc]:
        seq = list(docs)
        return tqdm(seq, desc=desc, unit="doc", disable=not enabled, mininterval=2)
    return wrap


def fit_model(name: str, docs: Sequence[Doc], base_names: Sequence[str] | None,
              show_progress: bool = True, **params: Any) -> LearnedModel:
    """Fit the model of the learned extractor ``name`` on training documents, with
    constructor ``params``; ``base_names`` set its base extractors (or votes) when it has
    any.  The registry gives the predictor class
    (:func:`~corpuscrawl.extract.learned.models.model_class`), the estimator that trains
    it is its subclass (:func:`~corpuscrawl.learn.estimator.estimator_class`); returns the
    fitted estimator (:meth:`~corpuscrawl.learn.estimator.Estimator.predictor` gives what
    is saved).

    A model is a function of its training set alone, whoever trains it (the
    ``train`` command, a cross-validation fold, a test):

    * the documents are taken in the order of their keys, so ``--data A,B`` and
      ``--data B,A`` train the same model (row samples — the pairwise rows, the
      tree models' binning sample, the MLP's batches — are drawn by position);
    * fitting runs with one BLAS/OpenMP thread: the MLP's matrix products sum in
      an order that depends on the thread count, and training amplifies the
      last-bit differences (``sequence`` fitted with two threads stopped after
      46 epochs instead of 38 and scored 0.9155 instead of 0.9262 on the test
      split); the boosted trees come out the same either way.
    """
    from threadpoolctl import threadpool_limits

    cls = estimator_class(model_class(name))
    if base_names and cls.base_param:
        params[cls.base_param] = tuple(base_names)
    try:
        model = cls(**params)
    except TypeError as exc:
        raise ValueError(f"model {name!r} does not take the parameters {params}: {exc}") from exc
    docs = sorted(docs, key=lambda d: d.key)
    with threadpool_limits(limits=1):
        return model.fit(docs, progress=progress_bar(f"{name}: features", show_progress))


def build_extractor(name: str, model: LearnedModel) -> Extractor:
    """The extractor of model ``name`` (its registry entry) around a model in memory."""
    return get_extractor(name, estimator=model)


def score_rows(extractor: Extractor, docs: Sequence[Doc], show_progress: bool = True,
               desc: str = "test split") -> list[tuple[str, int, float, float, float, float]]:
    """Per-dataset and pooled (P, R, F1 summed; mean F1) scores of ``extractor`` on ``docs``."""
    by_dataset: dict[str, list] = {}
    for doc in progress_bar(desc, show_progress)(docs):
        try:
            text = extractor.extract(doc.page)
        except Exception:  # scored as an empty answer, as a crawl would keep going
            text = ""
        by_dataset.setdefault(doc.dataset.name, []).append(
            score(text, doc.gold, with_levenshtein=False))
        doc.release()
    rows = []
    pooled = []
    for ds, scores in sorted(by_dataset.items()):
        s = summarize(scores)
        pooled.extend(scores)
        rows.append((ds, s.documents, s.precision, s.recall, s.f1, s.mean_f1))
    if len(by_dataset) > 1:
        s = summarize(pooled)
        rows.append(("pooled", s.documents, s.precision, s.recall, s.f1, s.mean_f1))
    return rows


def card_hyperparameters(model: LearnedModel) -> dict[str, Any]:
    """The card's hyper-parameters: the model's named parameters (``get_params``), tuples
    shown as lists."""
    return {k: list(v) if isinstance(v, tuple) else v
            for k, v in model.get_params(deep=False).items()}


def card_fit_results(model: LearnedModel) -> dict[str, Any]:
    """What the card reports fitting chose and measured (``fit_info_``: for ``auto`` the
    out-of-fold F1, λ and bias), then the base and vote extractors the fit used."""
    results = dict(getattr(model, "fit_info_", None) or {})
    for attribute, label in (("base_", "base extractors"), ("votes_", "vote extractors")):
        if getattr(model, attribute, None):
            results[label] = list(getattr(model, attribute))
    return results


def card_notes(model: LearnedModel) -> list[str]:
    """The card's notes: the label counts of the training data."""
    return [f"label counts on the training data: {getattr(model, 'label_counts_', None)}"]


def training_command(name: str, model: LearnedModel, dataset_dirs: Sequence[str | Path]) -> str:
    """The command that trains ``model`` again: ``corpuscrawl train NAME`` with ``--data``
    when the datasets are not the shipped ones and ``--base`` when its base extractors (or
    votes) are not the default; parameters off their defaults that no option sets are named
    as the keyword arguments of :func:`train` that give them."""
    names = [Path(d).name for d in dataset_dirs]
    parts = [f"corpuscrawl train {name}"]
    if tuple(names) != shipped_datasets(name):
        parts.append("--data " + ",".join(str(d) for d in dataset_dirs))
    defaults = {k: p.default for k, p in inspect.signature(type(model).__init__).parameters.items()
                if p.default is not inspect.Parameter.empty}
    base_param = getattr(estimator_class(type(model)), "base_param", None)
    others = []
    for key, value in model.get_params(deep=False).items():
        default = defaults.get(key, value)
        same = (list(value) == list(default) if isinstance(value, (list, tuple))
                and isinstance(default, (list, tuple)) else value == default)
        if same:
            continue
        if key == base_param:
            parts.append("--base " + ",".join(value))
        else:
            others.append(f"{key}={value!r}")
    command = f"`{' '.join(parts)}`"
    if others:
        command += (f" with {', '.join(others)} (keyword arguments of "
                    "`corpuscrawl.learn.training.train`: no option of the command sets them)")
    return command


def model_card(name: str, model: LearnedModel, dataset_dirs: Sequence[str | Path],
               train_docs: Sequence[Doc], trained_at: str,
               rows: Sequence[tuple[str, int, float, float, float, float]]) -> ModelCard:
    """The card of ``model`` trained on ``train_docs`` (the train split of
    ``dataset_dirs``) at ``trained_at`` and scored ``rows`` on their test split."""
    counts: dict[str, int] = {}
    for doc in train_docs:
        counts[doc.dataset.name] = counts.get(doc.dataset.name, 0) + 1
    return ModelCard(name=name, kind=type(model).__name__, description=model.description,
                     data=[Path(d).name for d in dataset_dirs],
                     split=split_description(dataset_dirs),
                     trained_at=trained_at, hyperparameters=card_hyperparameters(model),
                     fit_results=card_fit_results(model), train_counts=counts,
                     test_scores=rows, notes=card_notes(model),
                     command=training_command(name, model, dataset_dirs))


def train(name: str, dataset_dirs: Sequence[str | Path], base_names: Sequence[str] | None = None,
          models_dir: str | Path | None = None, evaluate: bool = True,
          show_progress: bool = True, **params: Any) -> Path:
    """Train, save and score model ``name``; returns the model file path."""
    started = time.monotonic()
    train_docs = documents(dataset_dirs, "train")
    if not train_docs:
        raise ValueError("no gold-text documents in the train split of "
                         + ", ".join(str(d) for d in dataset_dirs))
    model = fit_model(name, train_docs, base_names, show_progress, **params).predictor()
    trained_at = datetime.now(UTC).isoformat(timespec="seconds")
    seconds = round(time.monotonic() - started)
    model.meta_ = {"trained_at": trained_at, "data": [str(d) for d in dataset_dirs],
                   "train_documents": len(train_docs), "train_seconds": seconds}
    path = save_model(name, model, models_dir)
    rows = []
    if evaluate:
        test_docs = documents(dataset_dirs, "test")
        rows = score_rows(build_extractor(name, model), test_docs, show_progress,
                          f"{name}: test split")
    write_card(model_card(name, model, dataset_dirs, train_docs, trained_at, rows),
               models_dir, seconds)
    return path


def write_file_card(name: str, dataset_dirs: Sequence[str | Path],
                    models_dir: str | Path | None = None, show_progress: bool = True) -> Path:
    """Write the card of the model file ``<models_dir>/<name>.skops`` as it is, without
    training: its parameters, fit results, training time (and duration, when the file
    records it) and label counts read from the file, its scores on the test split of
    ``dataset_dirs`` measured now.  The datasets must be those the file was trained on
    (same names, same number of training documents), or a ``ValueError`` says how they
    differ; a missing file is a ``ModelNotFoundError``.  Returns the card's path."""
    from corpuscrawl.extract.learned.models import ModelNotFoundError, load_model_file

    path = model_path(name, models_dir)
    if not path.is_file():
        raise ModelNotFoundError(f"model file {path} not found; train it with "
                                 f"`corpuscrawl train {name}`")
    model = load_model_file(path, model_class(name))
    meta = getattr(model, "meta_", None) or {}
    if "trained_at" not in meta:
        raise ValueError(f"model file {path} records no training time (meta_); retrain it "
                         f"with `corpuscrawl train {name}`")
    trained_on = [Path(d).name for d in meta.get("data", [])]
    given = [Path(d).name for d in dataset_dirs]
    train_docs = documents(dataset_dirs, "train")
    if trained_on != given or meta.get("train_documents") != len(train_docs):
        raise ValueError(f"model file {path} was trained on {', '.join(trained_on)} "
                         f"({meta.get('train_documents')} training documents), not on "
                         f"{', '.join(given)} ({len(train_docs)}); pass those datasets")
    rows = score_rows(build_extractor(name, model), documents(dataset_dirs, "test"),
                      show_progress, f"{name}: test split")
    return write_card(model_card(name, model, dataset_dirs, train_docs, meta["trained_at"],
                                 rows), models_dir, meta.get("train_seconds"))


__all__ = ["ESTIMATORS", "EXTRA_DATASETS", "SHIPPED_DATASETS", "SHIPPED_MODELS", "build_extractor",
           "split_description",
           "card_fit_results", "card_hyperparameters", "card_notes", "fit_model", "model_card",
           "score_rows", "train", "training_command", "write_file_card"]
