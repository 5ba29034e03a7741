"""Cross-fitting by folds of the document key: out-of-fold predictions for stacking and
for choosing decoding parameters.

A page's fold is a hash of its key (:func:`corpuscrawl.evaluation.datasets.fold_of`),
so folds never change between runs or page orders.  Out-of-fold predictions are
what a model gives on pages it was not fitted on; a second stage (stacked
generalisation, Wolpert 1992) or a decision threshold fitted on in-sample
predictions would learn to trust over-confident ones.

The folds are handed to scikit-learn's ``PredefinedSplit``, which yields each
fold's training and held-out indices (pages that cannot be used take part in
neither).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from sklearn.model_selection import PredefinedSplit

from corpuscrawl.evaluation.datasets import fold_of

#: Folds of the out-of-fold first-stage probabilities (3 measured; more cost training time).
FOLDS_DEFAULT = 3
#: Seed of the out-of-fold partition (:func:`~corpuscrawl.evaluation.datasets.fold_of`): its own,
#: since under the train/test split's seed the train part's hashes all lie above the test
#: fraction and its folds would be unequal.
FOLD_SEED = "corpuscrawl-stacking"


def cross_fit(keys: Sequence[str], usable: Sequence[bool], folds: int, seed: str,
              fit: Callable[[list[int]], Any], predict: Callable[[Any, int], Any]
              ) -> list[Any]:
    """``predict(model, i)`` for every usable page ``i``, ``model`` being ``fit`` of the usable
    page indices outside ``i``'s fold (folds by :func:`fold_of` of the page key under
    ``seed``); None for the other pages and for a fold with nothing to fit or predict."""
    out: list[Any] = [None] * len(keys)
    pages = np.flatnonzero(np.asarray(usable, dtype=bool))
    if not len(pages):
        return out
    split = PredefinedSplit([fold_of(keys[i], folds, seed) for i in pages])
    for train, held in split.split():
        if not len(train):
            continue
        model = fit(pages[train].tolist())
        for i in pages[held].tolist():
            out[i] = predict(model, i)
    return out


def out_of_fold(keys: Sequence[str], xs: Sequence[np.ndarray], ys: Sequence[np.ndarray],
                fit: Callable[[np.ndarray, np.ndarray], Any],
                folds: int = FOLDS_DEFAULT) -> list[np.ndarray]:
    """First-stage probabilities of every page from a model fitted without that page's fold."""
    out = cross_fit(keys, [bool(len(y)) for y in ys], folds, FOLD_SEED,
                    lambda train: fit(np.vstack([xs[i] for i in train]),
                                      np.concatenate([ys[i] for i in train])),
                    lambda model, i: model.predict_proba(xs[i])[:, 1])
    return [np.zeros(0) if p is None else p for p in out]


__all__ = ["FOLDS_DEFAULT", "FOLD_SEED", "cross_fit", "out_of_fold"]
