"""Trained models by name: ``models/<name>.skops`` plus a card ``models/<name>.md``.

A model file holds one predictor object (:class:`LearnedModel`, a
scikit-learn ``BaseEstimator``: its parameters named in ``__init__``, fitted
attributes ending in ``_``, ``extract``/``predict``), one class per learned
extractor, saved with skops.  Predictors have no ``fit``: each one's
estimator (the predictor subclassed with ``fit``, e.g.
``corpuscrawl.learn.auto_trainer.AutoEstimator``) lives in :mod:`corpuscrawl.learn`,
which imports this package and is never imported by it, and what it saves is
the predictor again.  Loading never executes code from the file: skops
rebuilds only types it trusts by default (scikit-learn estimators, numpy
arrays, builtins), plus the types listed in :data:`TRUSTED_EXTRA_TYPES` (our
model classes and a few scikit-learn internals); a file that mentions any
other type (a tampered or foreign file) is refused with :class:`ModelFileError`
naming the file and the types.  Raw pickle is never used.  A file holding a
model of another class, or the dict state earlier versions wrote, is refused
with the command that retrains or converts it (:class:`LegacyModelError`).

A model is used in a crawl through its extractor (:class:`LearnedExtractor`,
the registry entry): it loads the model by name and calls its ``extract``.
Loading and applying a model imports no training code
(``tests/test_import_graph.py`` checks it, imports inside functions included).

Models are looked up in ``CORPUSCRAWL_MODELS_DIR`` when set, then in the
shipped models (:mod:`corpuscrawl.resources.shipped`: the installed package's copy, or
``models/`` of a source checkout); a directory passed explicitly is the only
one searched.  Writing models and cards is :mod:`corpuscrawl.learn.model_files`'s job.
"""

from __future__ import annotations

import logging
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

import skops.io as sio
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.resources.shipped import (
    MODELS_DIR_ENV,
    find_model,
    models_dir,
    models_dirs,
)

logger = logging.getLogger("corpuscrawl.models")
#: Types that skops does not trust by default but our models contain: our predictor classes
#: (never their estimators of :mod:`corpuscrawl.learn`) and scikit-learn internals
#: (histogram gradient boosting trees; the MLP's optimizer state).  Nothing else is loaded.
TRUSTED_EXTRA_TYPES = (
    "corpuscrawl.extract.learned.auto.AutoModel",
    "corpuscrawl.extract.learned.hybrid.HybridAModel",
    "corpuscrawl.extract.learned.hybrid.HybridBModel",
    "corpuscrawl.extract.learned.hybrid.SegmentSVMModel",
    "corpuscrawl.extract.learned.page_check.PageCheck",
    "corpuscrawl.extract.learned.sequence.SequenceModel",
    "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
    "sklearn.neural_network._stochastic_optimizers.AdamOptimizer",
    "sklearn.neural_network._stochastic_optimizers.SGDOptimizer",
)
MODEL_SUFFIX = ".skops"
#: The package of the estimators (predictors with ``fit``); a file holding one is refused.
TRAINING_PACKAGE = "corpuscrawl.learn"


class ModelNotFoundError(ExtractorError, FileNotFoundError):
    """The model file of a learned extractor does not exist."""


class ModelFileError(ExtractorError):
    """A model file exists but is refused: untrusted types, corrupt, or of another kind."""


class LegacyModelError(ModelFileError):
    """A model file holds the dict state of an earlier corpuscrawl, not a model object."""


def check_fitted(model: Any) -> None:
    """Raise scikit-learn's ``NotFittedError`` unless ``model`` has fitted attributes (names
    ending in ``_``), as ``sklearn.utils.validation.check_is_fitted`` decides; that function
    refuses an object without ``fit``, which a predictor is."""
    fitted = [k for k in vars(model) if k.endswith("_") and not k.startswith("__")]
    if not fitted:
        raise NotFittedError(f"This {type(model).__name__} instance is not fitted yet: it has "
                             "no fitted attributes; train it with `corpuscrawl train`.")


class LearnedModel(BaseEstimator):
    """What every learned model is at crawl time: a fitted scikit-learn-shaped predictor
    over pages.

    Subclasses name their parameters in ``__init__`` (stored unchanged, so
    ``get_params``/``set_params``/``clone`` work) and read fitted attributes ending in
    ``_``; ``extract(page)`` gives a page's text and ``predict(pages)`` the texts of
    many.  There is no ``fit`` here: training is the estimator's, a subclass in
    :mod:`corpuscrawl.learn` that adds ``fit(docs)`` (gold documents, each with its
    ``page`` and ``gold`` text) and sets the fitted attributes; a crawl, which loads and
    applies models, never imports it.
    """

    #: Registry name of the extractor the model serves (``models/<name>.skops``).
    name: ClassVar[str] = ""
    #: One sentence for the model card.
    description: ClassVar[str] = ""
    #: The constructor parameter ``corpuscrawl train --base`` sets (None: the model has none).
    base_param: ClassVar[str | None] = None

    def extract(self, page: Any) -> str:
        """The text the model keeps of one :class:`~corpuscrawl.html.page.Page`."""
        raise NotImplementedError

    def predict(self, pages: Iterable[Any]) -> list[str]:
        """The text of each page (:meth:`extract` of each)."""
        check_fitted(self)
        return [self.extract(page) for page in pages]

    def __getstate__(self) -> dict[str, Any]:
        # What a model derives from its fitted attributes when it first predicts (compiled
        # trees, built extractors) lives in ``_runtime`` and is never saved.
        state = dict(super().__getstate__())
        state.pop("_runtime", None)
        return state


class LearnedExtractor:
    """The registry's entry of a learned model: loads ``models/<name>.skops`` (or takes an
    ``estimator`` already in memory) and extracts with it."""

    name: ClassVar[str] = ""
    model_class: ClassVar[type[LearnedModel]] = LearnedModel

    def __init__(self, model: str | None = None, models_dir: str | Path | None = None,
                 estimator: LearnedModel | None = None):
        if estimator is None:
            estimator = load_model(model or self.name, self.model_class, models_dir)
        elif not isinstance(estimator, self.model_class):
            raise ModelFileError(f"{self.name} needs a {self.model_class.__name__}, "
                                 f"not a {type(estimator).__name__}")
        check_fitted(estimator)
        self.estimator = estimator

    def extract(self, page: Any) -> str:
        """The model's text of ``page``."""
        return self.estimator.extract(page)


def model_class(name: str, overrides: Any = None) -> type[LearnedModel]:
    """The model class of the learned extractor registered as ``name`` (the registry,
    :mod:`corpuscrawl.extract`, is the one table of names)."""
    from corpuscrawl.extract import load_factory, registry
    from corpuscrawl.extract.base import UnknownExtractorError

    table = registry(overrides)
    if name not in table:
        raise UnknownExtractorError(name, sorted(table))
    factory = load_factory(table[name])
    cls = getattr(factory, "model_class", None)
    if not (isinstance(cls, type) and issubclass(cls, LearnedModel)) or cls is LearnedModel:
        raise ExtractorError(f"extractor {name!r} ({table[name]}) is not a learned model")
    return cls


def find_model_path(name: str, directory: str | Path | None = None) -> Path | None:
    """The file the model called ``name`` is loaded from (first on the search path), or None."""
    return find_model(f"{name}{MODEL_SUFFIX}", directory)


def load_model(name: str, model_class: type[LearnedModel] | None = None,
               directory: str | Path | None = None) -> LearnedModel:
    """Load model ``name``; check it holds only trusted types and (optionally) is a
    ``model_class``.

    Raises :class:`ModelNotFoundError` (naming the file and the train command)
    when it is missing and :class:`ModelFileError` when it is refused.
    """
    path = find_model_path(name, directory)
    if path is None:
        filename = f"{name}{MODEL_SUFFIX}"
        where = [str(d / filename) for d in models_dirs(directory)] or [filename]
        raise ModelNotFoundError(
            f"model file {' nor '.join(where)} not found; train it with "
            f"`corpuscrawl train {model_class.name if model_class else name}` (or set {MODELS_DIR_ENV} to the directory "
            f"holding {filename})"
        )
    logger.info("loading model %s from %s", name, path)
    return load_model_file(path, model_class)


def read_model_file(path: str | Path) -> Any:
    """The object a model file holds, loaded with the trusted-types check (any of them:
    a model, or an earlier version's dict state for :mod:`corpuscrawl.learn.convert`)."""
    path = Path(path)
    try:
        untrusted = sio.get_untrusted_types(file=path)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise ModelFileError(f"refusing model file {path}: not a readable skops file ({exc})") \
            from exc
    refused = sorted(set(untrusted) - set(TRUSTED_EXTRA_TYPES))
    training = [t for t in refused if t.startswith(TRAINING_PACKAGE + ".")]
    if training:
        raise ModelFileError(
            f"refusing model file {path}: it holds training classes ({', '.join(training)}), "
            "not the predictor a crawl loads; write models with "
            "corpuscrawl.learn.model_files.save_model (or `corpuscrawl train`), which saves "
            "the predictor")
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
    return state


def load_model_file(path: str | Path, model_class: type[LearnedModel] | None = None
                    ) -> LearnedModel:
    """Load a model file with the trusted-types check (see the module docstring); refuse
    anything but a fitted model (of ``model_class`` when given)."""
    path = Path(path)
    model = read_model_file(path)
    if isinstance(model, dict) and "kind" in model:
        kind = model["kind"]
        raise LegacyModelError(
            f"model file {path} holds a {kind!r} model in the dict format of an earlier "
            f"corpuscrawl; convert it (same fitted estimators, same outputs) with "
            f"`corpuscrawl train {kind} --convert {path}`, or retrain it with "
            f"`corpuscrawl train {kind}`")
    if not isinstance(model, LearnedModel):
        raise ModelFileError(f"refusing model file {path}: it holds a {type(model).__name__}, "
                             "not a corpuscrawl model")
    wanted = model_class or LearnedModel
    if not isinstance(model, wanted) or (model_class is not None
                                         and model.name != model_class.name):
        raise ModelFileError(
            f"model file {path} holds a {model.name!r} model ({type(model).__name__}), not "
            f"{wanted.name!r}; train it with `corpuscrawl train {wanted.name}`")
    check_fitted(model)
    return model


__all__ = [
    "MODELS_DIR_ENV",
    "TRAINING_PACKAGE",
    "TRUSTED_EXTRA_TYPES",
    "LearnedExtractor",
    "LearnedModel",
    "LegacyModelError",
    "ModelFileError",
    "ModelNotFoundError",
    "check_fitted",
    "find_model_path",
    "load_model",
    "load_model_file",
    "model_class",
    "models_dir",
    "read_model_file",
    "models_dirs",
]
