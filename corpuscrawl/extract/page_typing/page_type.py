"""The page's type: article, forum, documentation, service, product, listing, collection
or other, predicted from the page.

A multinomial logistic regression over the features of
:mod:`corpuscrawl.extract.page_typing.page_type_features` (standardised), stored as plain
parameters in ``models/page-type.json`` (no pickle: class names, feature names, the
scaler's means and scales, coefficients and intercepts), trained by
``python -m corpuscrawl.learn.page_type_trainer`` on WCXB's typed pages and the article sets'
pages (all articles), cross-validated with folds grouped by site; the card
``models/page-type.md`` has its out-of-fold accuracy and confusion matrix.

``other`` is what a page gets when it has no text to judge, or when no type reaches
:data:`MIN_PROBABILITY_DEFAULT` (the training data has no ``other`` pages, so the
classifier never names it itself).
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from corpuscrawl.extract.page_typing.page_type_features import (
    FEATURE_NAMES,
    PAGE_TYPES,
    feature_row,
)
from corpuscrawl.html.page import Page
from corpuscrawl.resources.shipped import find_model

logger = logging.getLogger(__name__)

#: The model file's name (looked up like the other models, :mod:`corpuscrawl.resources.shipped`).
MODEL_FILE = "page-type.json"
#: Below this probability of its best type a page is ``other``.
MIN_PROBABILITY_DEFAULT = 0.4
#: The type of a page with no text at all.
OTHER = "other"


class PageTypeModelError(ValueError):
    """The page-type model file is missing, unreadable or not for these features."""


@dataclass(frozen=True)
class PageTypeModel:
    """A fitted multinomial logistic regression over standardised page features."""

    classes: tuple[str, ...]
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    min_probability: float = MIN_PROBABILITY_DEFAULT

    @classmethod
    def from_dict(cls, data: dict) -> PageTypeModel:
        """The model of a parsed ``page-type.json``; :class:`PageTypeModelError` when it does
        not fit the features this code computes."""
        try:
            model = cls(tuple(data["classes"]), tuple(data["features"]),
                        np.asarray(data["mean"], float), np.asarray(data["scale"], float),
                        np.asarray(data["coef"], float), np.asarray(data["intercept"], float),
                        float(data.get("min_probability", MIN_PROBABILITY_DEFAULT)))
        except (KeyError, TypeError, ValueError) as exc:
            raise PageTypeModelError(f"not a page-type model ({exc})") from exc
        if model.features != FEATURE_NAMES:
            raise PageTypeModelError("the page-type model was fitted on other features; "
                                     "retrain it (python -m corpuscrawl.learn.page_type_trainer)")
        k, n = len(model.classes), len(model.features)
        if model.coef.shape != (k, n) or model.intercept.shape != (k,) \
                or model.mean.shape != (n,) or model.scale.shape != (n,) \
                or not set(model.classes) <= set(PAGE_TYPES):
            raise PageTypeModelError("the page-type model's arrays do not fit its classes "
                                     "and features")
        return model

    def to_dict(self) -> dict:
        """The plain parameters ``page-type.json`` holds."""
        return {"classes": list(self.classes), "features": list(self.features),
                "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "coef": self.coef.tolist(), "intercept": self.intercept.tolist(),
                "min_probability": self.min_probability}

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """Class probabilities (``n × classes``) of feature rows."""
        z = (np.asarray(rows, float) - self.mean) / self.scale @ self.coef.T + self.intercept
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def predict(self, page: Page) -> tuple[str, float]:
        """The page's type and its probability (``other`` and 0 for a page without text,
        ``other`` and the best probability when that is under ``min_probability``)."""
        row = feature_row(page)
        if row[FEATURE_NAMES.index("words")] == 0.0:
            return OTHER, 0.0
        p = self.probabilities(np.asarray([row]))[0]
        best = int(p.argmax())
        prob = float(p[best])
        if prob < self.min_probability or math.isnan(prob):
            return OTHER, prob
        return self.classes[best], prob


def load_page_type_model(path: str | Path | None = None) -> PageTypeModel:
    """The page-type model of ``path`` (default: ``page-type.json`` on the models' search
    path); :class:`PageTypeModelError` naming the file when it is missing or unusable."""
    found = Path(path) if path else find_model(MODEL_FILE)
    if found is None or not found.is_file():
        raise PageTypeModelError(f"page-type model {found or MODEL_FILE} not found; train it "
                                 "with `python -m corpuscrawl.learn.page_type_trainer`")
    try:
        data = json.loads(found.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PageTypeModelError(f"{found}: unreadable page-type model ({exc})") from exc
    try:
        return PageTypeModel.from_dict(data)
    except PageTypeModelError as exc:
        raise PageTypeModelError(f"{found}: {exc}") from exc


@lru_cache(maxsize=1)
def _default_model() -> PageTypeModel | None:
    try:
        return load_page_type_model()
    except PageTypeModelError as exc:
        logger.warning("page types not predicted: %s", exc)
        return None


def page_type(page: Page) -> str:
    """The type of ``page`` by the shipped model ("" when no model can be loaded: the
    warning says why, once; "" when typing the page fails: the warning names it).  Kept in
    ``page.page_type``, so the page is typed once whoever asks first (the extractor's
    decoding, the crawl's document)."""
    if page.page_type is not None:
        return page.page_type
    model = _default_model()
    try:
        kind = model.predict(page)[0] if model is not None else ""
    except Exception as exc:  # the type is best effort: the page is still extracted
        logger.warning("page type failed on %s: %r", page.url, exc)
        kind = ""
    page.page_type = kind
    return kind


__all__ = ["MIN_PROBABILITY_DEFAULT", "MODEL_FILE", "OTHER", "PageTypeModel",
           "PageTypeModelError", "load_page_type_model", "page_type"]
