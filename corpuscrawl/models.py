"""Trained models by name: ``models/<name>.skops`` plus a card ``models/<name>.md``.

A model is a plain dict (kind, parameters, fitted scikit-learn estimators,
metadata) saved with skops.  Loading never executes code from the file: skops
rebuilds only types it trusts by default (scikit-learn estimators, numpy
arrays, builtins), plus the few extra scikit-learn internals listed in
:data:`TRUSTED_EXTRA_TYPES`; a file that mentions any other type (a tampered
or foreign file) is refused with :class:`ModelFileError` naming the file and
the types.  Raw pickle is never used.

Models are looked up in ``CORPUSCRAWL_MODELS_DIR`` when set, then in the
shipped models (:mod:`corpuscrawl.shipped`: the installed package's copy, or
``models/`` of a source checkout); a directory passed explicitly is the only
one searched.  New models are written to ``CORPUSCRAWL_MODELS_DIR``, an explicit
directory, or a checkout's ``models/`` — never into an installed package.
"""

from __future__ import annotations

import hashlib
import logging
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import skops.io as sio

from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.shipped import (
    MODELS_DIR_ENV,
    find_model,
    models_dir,
    models_dirs,
    models_write_dir,
)

logger = logging.getLogger("corpuscrawl.models")
#: scikit-learn internals that skops does not trust by default but our models contain
#: (histogram gradient boosting trees; the MLP's optimizer state).  Nothing else is loaded.
TRUSTED_EXTRA_TYPES = (
    "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
    "sklearn.neural_network._stochastic_optimizers.AdamOptimizer",
    "sklearn.neural_network._stochastic_optimizers.SGDOptimizer",
)
MODEL_SUFFIX = ".skops"


class ModelNotFoundError(ExtractorError, FileNotFoundError):
    """The model file of a learned extractor does not exist."""


class ModelFileError(ExtractorError):
    """A model file exists but is refused: untrusted types, corrupt, or of another kind."""


def model_path(name: str, directory: str | Path | None = None) -> Path:
    """Where the model called ``name`` is written (:func:`corpuscrawl.shipped.models_write_dir`)."""
    return models_write_dir(directory) / f"{name}{MODEL_SUFFIX}"


def find_model_path(name: str, directory: str | Path | None = None) -> Path | None:
    """The file the model called ``name`` is loaded from (first on the search path), or None."""
    return find_model(f"{name}{MODEL_SUFFIX}", directory)


def card_path(name: str, directory: str | Path | None = None) -> Path:
    """Where the card of the model called ``name`` is written, beside the model."""
    return models_write_dir(directory) / f"{name}.md"


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file (recorded on the card so a changed file can be noticed)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_model(name: str, state: Mapping[str, Any], directory: str | Path | None = None) -> Path:
    """Write ``state`` (a dict of plain values, numpy arrays, sklearn estimators) with skops."""
    path = model_path(name, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    sio.dump(dict(state), tmp)
    tmp.replace(path)
    return path


def load_model(name: str, kind: str | None = None,
               directory: str | Path | None = None) -> dict[str, Any]:
    """Load model ``name``; check it holds only trusted types and (optionally) its ``kind``.

    Raises :class:`ModelNotFoundError` (naming the file and the train command)
    when it is missing and :class:`ModelFileError` when it is refused.
    """
    path = find_model_path(name, directory)
    if path is None:
        filename = f"{name}{MODEL_SUFFIX}"
        where = [str(d / filename) for d in models_dirs(directory)] or [filename]
        raise ModelNotFoundError(
            f"model file {' nor '.join(where)} not found; train it with "
            f"`corpuscrawl train {kind or name}` (or set {MODELS_DIR_ENV} to the directory "
            f"holding {filename})"
        )
    logger.info("loading model %s from %s", name, path)
    return load_model_file(path, kind)


def load_model_file(path: str | Path, kind: str | None = None) -> dict[str, Any]:
    """Load a model file with the trusted-types check (see the module docstring)."""
    path = Path(path)
    try:
        untrusted = sio.get_untrusted_types(file=path)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise ModelFileError(f"refusing model file {path}: not a readable skops file ({exc})") \
            from exc
    refused = sorted(set(untrusted) - set(TRUSTED_EXTRA_TYPES))
    if refused:
        raise ModelFileError(
            f"refusing model file {path}: it contains types that corpuscrawl does not trust "
            f"({', '.join(refused)}); it was not written by `corpuscrawl train` or was altered. "
            "Retrain the model instead of loading this file."
        )
    try:
        state = sio.load(path, trusted=list(untrusted))
    except Exception as exc:  # skops raises many kinds on a corrupt archive
        raise ModelFileError(f"refusing model file {path}: cannot be loaded ({exc})") from exc
    if not isinstance(state, dict):
        raise ModelFileError(f"refusing model file {path}: expected a dict, got {type(state)}")
    if kind is not None and state.get("kind") != kind:
        raise ModelFileError(
            f"model file {path} holds a {state.get('kind')!r} model, not {kind!r}; "
            f"train it with `corpuscrawl train {kind}`"
        )
    return state


@dataclass
class ModelCard:
    """What a card says: data, split, date, hyper-parameters, scores on the test split."""

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

    def render(self, sha256: str = "", seconds: float | None = None) -> str:
        """The card as Markdown."""
        lines = [f"# Model card: `{self.name}` ({self.kind})", "", self.description, "",
                 "## Data", ""]
        lines += [f"- `{d}`" for d in self.data]
        lines += ["", f"Split: {self.split}", "", "Training documents per dataset: "
                  + ", ".join(f"{k} {v}" for k, v in self.train_counts.items()), "",
                  f"Trained: {self.trained_at}"
                  + (f" in {seconds:.0f} s" if seconds is not None else ""), ""]
        if sha256:
            lines += [f"File SHA-256: `{sha256}`", ""]
        lines += ["## Hyper-parameters", ""]
        lines += [f"- {k}: `{v}`" for k, v in self.hyperparameters.items()]
        lines += ["", "## Scores on the test split (never trained or tuned on)", "",
                  "Word-level LCS scores (SPEC §2): P/R/F1 from summed counts, and mean per-document F1.",
                  "", "| dataset | docs | P | R | F1 | mean F1 |", "|---|---|---|---|---|---|"]
        lines += [f"| {d} | {n} | {p:.4f} | {r:.4f} | {f:.4f} | {m:.4f} |"
                  for d, n, p, r, f, m in self.test_scores]
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


__all__ = [
    "MODELS_DIR_ENV",
    "TRUSTED_EXTRA_TYPES",
    "ModelCard",
    "ModelFileError",
    "ModelNotFoundError",
    "card_path",
    "find_model_path",
    "load_model",
    "load_model_file",
    "model_path",
    "models_dir",
    "models_dirs",
    "save_model",
    "write_card",
]
