"""Feature matrices whose columns carry their names.

A learned model is fitted on columns in one order; if the code computing the
features later adds, drops or reorders a column, a model fitted before would
read one feature as another and silently predict nonsense.  Every feature
function of the learned models therefore returns a :class:`NamedMatrix`: the
values and the column names made together (the matrix refuses names that do
not match its width), and every model keeps the names it was fitted on
(``feature_names_in_``, scikit-learn's convention) and refuses, with
:class:`FeatureNamesError`, a matrix whose names differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from corpuscrawl.extract.base import ExtractorError


class FeatureNamesError(ExtractorError, ValueError):
    """A feature matrix's columns are not the ones a model was fitted on."""


@dataclass(frozen=True, slots=True)
class NamedMatrix:
    """A 2-D feature matrix (rows = blocks, segments or pages) and one name per column."""

    values: np.ndarray
    names: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.values.ndim != 2 or self.values.shape[1] != len(self.names):
            raise FeatureNamesError(
                f"a feature matrix of shape {self.values.shape} cannot have the "
                f"{len(self.names)} column names {_abbreviated(self.names)}")

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def hstack(self, *others: NamedMatrix) -> NamedMatrix:
        """This matrix with the columns of ``others`` appended (same rows)."""
        if not others:
            return self
        return NamedMatrix(np.hstack([self.values, *(o.values for o in others)]),
                           self.names + tuple(n for o in others for n in o.names))

    def select(self, names: Sequence[str]) -> NamedMatrix:
        """The columns called ``names``, in that order (FeatureNamesError for a missing one)."""
        names = tuple(names)
        if names == self.names[:len(names)]:
            return NamedMatrix(self.values[:, :len(names)], names)
        index = {n: i for i, n in enumerate(self.names)}
        missing = [n for n in names if n not in index]
        if missing:
            raise FeatureNamesError(f"feature columns {_abbreviated(missing)} are not among "
                                    f"{_abbreviated(self.names)}")
        return NamedMatrix(self.values[:, [index[n] for n in names]], names)


def prefixed(prefix: str, names: Sequence[str]) -> tuple[str, ...]:
    """``names`` with ``prefix`` in front of each (columns of a neighbour, a base extractor)."""
    return tuple(f"{prefix}{n}" for n in names)


def check_feature_names(fitted: Sequence[str], given: Sequence[str], model: str) -> None:
    """Raise :class:`FeatureNamesError` unless ``given`` are exactly the ``fitted`` names."""
    fitted, given = tuple(fitted), tuple(given)
    if fitted == given:
        return
    missing = [n for n in fitted if n not in set(given)]
    extra = [n for n in given if n not in set(fitted)]
    if missing or extra:
        detail = (f"missing {_abbreviated(missing)}" if missing else "") + (
            "; " if missing and extra else "") + (f"unknown {_abbreviated(extra)}" if extra else "")
    else:
        first = next(i for i, (a, b) in enumerate(zip(fitted, given, strict=True)) if a != b)
        detail = f"same names in another order (column {first}: {given[first]!r} where the " \
                 f"model has {fitted[first]!r})"
    raise FeatureNamesError(
        f"model {model!r} was fitted on {len(fitted)} feature columns and is given "
        f"{len(given)} that differ: {detail}; the feature code changed since it was "
        f"trained — retrain it with `corpuscrawl train {model}`")


def _abbreviated(names: Sequence[str], most: int = 6) -> str:
    shown = ", ".join(map(repr, list(names)[:most]))
    return f"[{shown}{', ...' if len(names) > most else ''}]"


__all__ = ["FeatureNamesError", "NamedMatrix", "check_feature_names", "prefixed"]
