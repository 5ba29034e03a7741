"""Writing trained models and their cards: ``<name>.skops`` (skops) and ``<name>.md``.

Models are written to ``CORPUSCRAWL_MODELS_DIR``, an explicit directory, or a
checkout's ``models/`` — never into an installed package
(:func:`corpuscrawl.resources.shipped.models_write_dir`).  What is written is always the
predictor (a fitted estimator of :mod:`corpuscrawl.learn` is converted with
:func:`~corpuscrawl.learn.estimator.as_predictor`), and a file is only put in
place once it holds nothing but the types the loader trusts, so loading it at
crawl time imports nothing from :mod:`corpuscrawl.learn`.  Loading them is
:mod:`corpuscrawl.extract.learned.models`'s job.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import skops.io as sio

from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract.learned.models import (
    MODEL_SUFFIX,
    TRUSTED_EXTRA_TYPES,
    LearnedModel,
)
from corpuscrawl.learn.estimator import as_predictor
from corpuscrawl.resources.shipped import models_write_dir


def model_path(name: str, directory: str | Path | None = None) -> Path:
    """Where the model called ``name`` is written (:func:`corpuscrawl.resources.shipped.models_write_dir`)."""
    return models_write_dir(directory) / f"{name}{MODEL_SUFFIX}"


def card_path(name: str, directory: str | Path | None = None) -> Path:
    """Where the card of the model called ``name`` is written, beside the model."""
    return models_write_dir(directory) / f"{name}.md"


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file (recorded on the card so a changed file can be noticed)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_model(name: str, model: LearnedModel, directory: str | Path | None = None) -> Path:
    """Write a fitted ``model`` with skops as its predictor (an estimator is converted,
    :func:`~corpuscrawl.learn.estimator.as_predictor`), atomically: a reader never sees
    half a file, and a file the loader would refuse (a type it does not trust) is never
    put in place (``TypeError`` naming the types)."""
    if not isinstance(model, LearnedModel):
        raise TypeError(f"save_model writes corpuscrawl models, not {type(model).__name__}")
    predictor = as_predictor(model)
    path = model_path(name, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        sio.dump(predictor, tmp)
        untrusted = sorted(set(sio.get_untrusted_types(file=tmp)) - set(TRUSTED_EXTRA_TYPES))
        if untrusted:
            raise TypeError(f"model {name!r} ({type(model).__name__}) holds types a model file "
                            f"may not contain: {', '.join(untrusted)}")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


@dataclass
class ModelCard:
    """What a card says: data, split, date, hyper-parameters (the model's named parameters),
    what the fit chose and measured, scores on the test split."""

    name: str
    kind: str
    description: str
    data: Sequence[str]
    split: str
    trained_at: str
    hyperparameters: Mapping[str, Any]
    train_counts: Mapping[str, int]
    #: Rows: (dataset, documents, P, R, F1 summed, mean F1).
    test_scores: Sequence[tuple[str, int, float, float, float, float]] = ()
    notes: Sequence[str] = field(default_factory=list)
    #: What fitting chose and measured on the training data (not parameters one sets).
    fit_results: Mapping[str, Any] = field(default_factory=dict)
    #: How to train the file again (:func:`corpuscrawl.learn.training.training_command`).
    command: str = ""

    def render(self, sha256: str = "", seconds: float | None = None) -> str:
        """The card as Markdown."""
        lines = [f"# Model card: `{self.name}` ({self.kind})", "", self.description, "",
                 "## Data", ""]
        lines += [f"- `{d}`" for d in self.data]
        lines += ["", f"Split: {self.split}", "", "Training documents per dataset: "
                  + ", ".join(f"{k} {v}" for k, v in self.train_counts.items()), "",
                  f"Trained: {self.trained_at}"
                  + (f" in {seconds:.0f} s" if seconds is not None else ""), ""]
        if self.command:
            lines += [f"Rebuild: {self.command}", ""]
        if sha256:
            lines += [f"File SHA-256: `{sha256}`", ""]
        lines += ["## Hyper-parameters", ""]
        lines += [f"- {k}: `{v}`" for k, v in self.hyperparameters.items()]
        if self.fit_results:
            lines += ["", "## Recorded by the fit", "",
                      "What the training run that wrote the file chose, measured (on the "
                      "training data) and used.", ""]
            lines += [f"- {k}: `{v}`" for k, v in self.fit_results.items()]
        lines += ["", "## Scores on the test split (never trained or tuned on)", "",
                  "Word-level LCS scores: P/R/F1 from summed counts, and mean per-document F1.",
                  ""]
        lines += markdown_table(["dataset", "docs", "P", "R", "F1", "mean F1"],
                                [[d, str(n), f"{p:.4f}", f"{r:.4f}", f"{f:.4f}", f"{m:.4f}"]
                                 for d, n, p, r, f, m in self.test_scores])
        if self.notes:
            lines += ["", "## Notes", ""] + [f"- {n}" for n in self.notes]
        return "\n".join(lines) + "\n"


def write_card(card: ModelCard, directory: str | Path | None = None,
               seconds: float | None = None) -> Path:
    """Write ``models/<name>.md`` next to the model file (whose SHA-256 it records)."""
    path = card_path(card.name, directory)
    model = model_path(card.name, directory)
    sha = file_sha256(model) if model.is_file() else ""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(card.render(sha, seconds), encoding="utf-8")
    return path


__all__ = ["ModelCard", "card_path", "file_sha256", "model_path", "save_model", "write_card"]
