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
one searched.  Writing models and cards is :mod:`corpuscrawl.learn.model_files`'s job.
"""

from __future__ import annotations

import logging
import zipfile
from pathlib import Path
from typing import Any

import skops.io as sio

from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.shipped import (
    MODELS_DIR_ENV,
    find_model,
    models_dir,
    models_dirs,
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


def find_model_path(name: str, directory: str | Path | None = None) -> Path | None:
    """The file the model called ``name`` is loaded from (first on the search path), or None."""
    return find_model(f"{name}{MODEL_SUFFIX}", directory)


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


__all__ = [
    "MODELS_DIR_ENV",
    "TRUSTED_EXTRA_TYPES",
    "ModelFileError",
    "ModelNotFoundError",
    "find_model_path",
    "load_model",
    "load_model_file",
    "models_dir",
    "models_dirs",
]
