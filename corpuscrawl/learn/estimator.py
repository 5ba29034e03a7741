"""The training half of a learned model: an estimator is its predictor plus ``fit``.

A learned model's predictor (``corpuscrawl.extract.learned``: parameters, fitted
attributes, ``extract``/``predict``/``predict_proba``, the feature-name check)
is what a crawl loads and applies; it has no ``fit``, so crawl-time code never
imports training code.  Its estimator lives here, in :mod:`corpuscrawl.learn`:
a subclass of the predictor with :class:`Estimator` first among its bases,
adding ``fit`` (scikit-learn's shape: ``fit`` returns ``self`` with fitted
attributes ending in ``_``; the parameters are the predictor's, so
``get_params``/``set_params``/``clone`` work unchanged)::

    class AutoEstimator(Estimator, AutoModel):
        def fit(self, docs, y=None, progress=None):
            fit_auto(self, docs, progress)  # sets unary_, pairwise_, lambda_, ...
            return self

What is saved is always the predictor (:meth:`Estimator.predictor`, which
:func:`corpuscrawl.learn.model_files.save_model` applies), so loading a model
file at crawl time imports nothing from this package and skops trusts only the
predictor classes.  The estimator class of a registry name is found from the
predictor class the registry gives (:func:`estimator_class`), so there is no
second table of names.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sklearn.base import BaseEstimator

from corpuscrawl.extract.base import ExtractorError


class Estimator:
    """Mixin that makes a predictor class trainable; put it first among the bases.

    ``predictor_class`` is the predictor the estimator extends: the first
    scikit-learn estimator class after the estimator classes in the method
    resolution order (set when the subclass is defined), or named explicitly on it
    (a predictor with scikit-learn's shape that is not a ``BaseEstimator``, like
    :class:`corpuscrawl.browse.classifier.ElementClassifier`).
    """

    predictor_class: ClassVar[type[BaseEstimator]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "predictor_class" in cls.__dict__:
            return
        for base in cls.__mro__[1:]:
            if issubclass(base, BaseEstimator) and not issubclass(base, Estimator):
                cls.predictor_class = base
                return
        raise TypeError(f"{cls.__name__} extends no predictor: an Estimator subclass needs a "
                        "scikit-learn estimator class (the predictor) among its bases")

    def predictor(self) -> Any:
        """The fitted predictor: an object of :attr:`predictor_class` with this estimator's
        parameters and fitted attributes (shared, not copied); what a model file holds."""
        return as_predictor(self)


def as_predictor(model: Any) -> Any:
    """``model`` as its predictor class when it is an :class:`Estimator` (its attributes
    converted as well: a fitted attribute may hold another estimator, e.g. ``auto``'s page
    check); any other object unchanged."""
    if not isinstance(model, Estimator):
        return model
    cls = type(model).predictor_class
    predictor = cls.__new__(cls)
    if hasattr(cls, "__setstate__"):  # scikit-learn's BaseEstimator
        predictor.__setstate__({key: as_predictor(value)
                                for key, value in model.__getstate__().items()})
    else:  # a plain class (the element classifier): its state is its attributes
        vars(predictor).update({key: as_predictor(value) for key, value in vars(model).items()})
    return predictor


def estimator_class(predictor: type[Any]) -> type[Any]:
    """The estimator class whose predictor is ``predictor`` (among the :class:`Estimator`
    subclasses defined so far: corpuscrawl's own, :mod:`corpuscrawl.learn.training`
    imports them, and those of modules a user imported).  One defined directly on the
    predictor wins over its own subclasses; raises :class:`ExtractorError` when there is
    none or the choice is ambiguous."""
    found: list[type[Any]] = []
    pending = list(Estimator.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        # a class whose definition failed (no predictor among its bases) has none
        if getattr(cls, "predictor_class", None) is predictor and cls not in found:
            found.append(cls)
    direct = [cls for cls in found if predictor in cls.__bases__] or found
    if len(direct) == 1:
        return direct[0]
    if not direct:
        raise ExtractorError(
            f"no estimator class trains {predictor.__module__}.{predictor.__name__}: define "
            f"`class MyEstimator(Estimator, {predictor.__name__})` with a `fit` method "
            "(corpuscrawl.learn.estimator) in a module imported before training")
    names = ", ".join(sorted(f"{c.__module__}.{c.__name__}" for c in direct))
    raise ExtractorError(f"several estimator classes train {predictor.__name__}: {names}")


__all__ = ["Estimator", "as_predictor", "estimator_class"]
