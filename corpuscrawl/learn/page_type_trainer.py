"""Training the page-type classifier (:mod:`corpuscrawl.extract.page_typing.page_type`), with its
cross-validation grouped by site and its card.

    corpuscrawl train page-type [--models-dir DIR]      # from the datasets root
    python -m corpuscrawl.learn.page_type_trainer [--models-dir models] [--datasets-root DIR]

Labelled pages: every page of a dataset whose manifest records a ``page_type``
(WCXB's dev pages: article, service, forum, documentation, listing, collection,
product), and every gold page of the article sets (:data:`ARTICLE_DATASETS`) as
``article``.  Out-of-fold predictions come from :data:`FOLDS_DEFAULT` folds by site
(:func:`~corpuscrawl.evaluation.datasets.grouped_fold` of
:meth:`~corpuscrawl.evaluation.datasets.Dataset.group`: a site's pages are never on both
sides); the card reports their accuracy per dataset, per-type precision/recall and the
confusion matrix.  The shipped model is then fitted on all pages.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from corpuscrawl.evaluation.datasets import Dataset, datasets_root, grouped_fold
from corpuscrawl.evaluation.names import GOLD_DATASETS
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract.page_typing.page_type import (
    MIN_PROBABILITY_DEFAULT,
    MODEL_FILE,
    PageTypeModel,
)
from corpuscrawl.extract.page_typing.page_type_features import (
    FEATURE_NAMES,
    PAGE_TYPES,
    URL_FEATURES,
    feature_row,
)

#: Datasets whose gold pages are all articles (news and blog pages).
ARTICLE_DATASETS = GOLD_DATASETS
#: Datasets whose manifest labels each page's type.
TYPED_DATASETS = ("wcxb",)
#: Folds of the grouped cross-validation.
FOLDS_DEFAULT = 5
#: Inverse L2 strength of the logistic regression (chosen by the grouped cross-validation:
#: see the card).
C_DEFAULT = 0.5
#: The columns of the URL features, ``url_known`` first.
_URL_COLUMNS = [FEATURE_NAMES.index(name) for name in URL_FEATURES]
#: Seed of the grouped folds.
FOLD_SEED = "corpuscrawl-page-type"
#: The card beside ``page-type.json``.
CARD_FILE = "page-type.md"
#: The command that rebuilds the shipped file (named on the card).
REBUILD_COMMAND = "corpuscrawl train page-type"


@dataclass
class Labelled:
    """Feature rows of labelled pages with their type, site and ``dataset/id`` key."""

    x: np.ndarray
    y: list[str]
    groups: list[str]
    keys: list[str]


def labelled_pages(root: Path, typed: Sequence[str] = TYPED_DATASETS,
                   articles: Sequence[str] = ARTICLE_DATASETS,
                   select: Callable[[str], bool] | None = None) -> Labelled:
    """The labelled pages of the datasets under ``root`` (missing datasets are skipped);
    ``select``, given a page's ``dataset/id`` key, keeps only the pages it is true for (a
    fixed sample)."""
    rows, ys, groups, keys = [], [], [], []
    for name in (*typed, *articles):
        if not (root / name / "html").is_dir():
            continue
        ds = Dataset(root / name)
        for doc in ds.ids():
            if select is not None and not select(f"{name}/{doc}"):
                continue
            label = ds.page_type(doc) if name in typed else "article"
            if name not in typed and not ds.gold_path(doc).is_file():
                continue
            if not label:
                continue
            rows.append(feature_row(ds.load_page(doc)))
            ys.append(label)
            groups.append(ds.group(doc))
            keys.append(f"{name}/{doc}")
    return Labelled(np.asarray(rows, float).reshape(-1, len(FEATURE_NAMES)), ys, groups, keys)


def without_urls(x: np.ndarray) -> np.ndarray:
    """The rows ``x`` as they would be if the pages' URLs were not known (a page read from
    a file): the URL features set to what a page without a web URL has."""
    blank = np.array(x, float, copy=True)
    blank[:, _URL_COLUMNS] = 0.0
    return blank


def fit(x: np.ndarray, y: Sequence[str], c: float = C_DEFAULT,
        min_probability: float = MIN_PROBABILITY_DEFAULT) -> PageTypeModel:
    """The logistic regression of ``y`` on standardised ``x``, as plain parameters.

    Every page with a web URL is also learned from once without it (:func:`without_urls`),
    so that the model types a page read from a file by its content: otherwise "no URL"
    would only be seen on pages of the article sets that record no URLs (dragnet, l3s-gn1,
    readability) and would mean "article".

    Fitted with one BLAS thread: the solver's matrix products sum in an order that depends
    on the thread count, so a model fitted with more threads differs in the last bits and
    the file would depend on the machine that wrote it."""
    known = np.flatnonzero(x[:, _URL_COLUMNS[0]] > 0)
    x = np.vstack([x, without_urls(x[known])])
    y = [*y, *(y[i] for i in known)]
    scaler = StandardScaler().fit(x)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    with threadpool_limits(limits=1):
        lr = LogisticRegression(C=c, max_iter=5000).fit((x - scaler.mean_) / scale, list(y))
    coef, intercept = lr.coef_, lr.intercept_
    if len(lr.classes_) == 2:  # one logit: the softmax of (0, z) is the same sigmoid
        coef = np.vstack([np.zeros_like(coef), coef])
        intercept = np.concatenate([[0.0], intercept])
    return PageTypeModel(tuple(str(k) for k in lr.classes_), FEATURE_NAMES, scaler.mean_,
                         scale, coef, intercept, min_probability)


def out_of_fold(data: Labelled, folds: int = FOLDS_DEFAULT, c: float = C_DEFAULT,
                urls: bool = True) -> list[str]:
    """Every page's type predicted by a model fitted without its site's fold (the raw
    argmax: "other" by low probability is counted apart); with ``urls`` false, predicted
    as if the page's URL were not known."""
    fold = np.asarray([grouped_fold(g, lambda s: s, folds, FOLD_SEED) for g in data.groups])
    out = [""] * len(data.y)
    y = np.asarray(data.y)
    for f in range(folds):
        held = np.flatnonzero(fold == f)
        train = np.flatnonzero(fold != f)
        if not len(held) or not len(train):
            continue
        model = fit(data.x[train], y[train], c)
        p = model.probabilities(data.x[held] if urls else without_urls(data.x[held]))
        for i, row in zip(held, p, strict=True):
            out[i] = model.classes[int(row.argmax())]
    return out


def card(data: Labelled, predicted: Sequence[str], model: PageTypeModel,
         folds: int, command: str, predicted_without_urls: Sequence[str]) -> list[str]:
    """The Markdown card: data, out-of-fold accuracy per dataset (with the pages' URLs and
    without them), per-type scores and the confusion matrix."""
    y = np.asarray(data.y)
    p = np.asarray(predicted)
    q = np.asarray(predicted_without_urls)
    known = data.x[:, _URL_COLUMNS[0]] > 0
    datasets = np.asarray([k.split("/", 1)[0] for k in data.keys])
    types = [t for t in PAGE_TYPES if t in set(data.y)]
    lines = ["# Model card: page type (`page-type.json`)", "",
             "Multinomial logistic regression (scikit-learn `LogisticRegression`, C "
             f"{C_DEFAULT}) over the {len(FEATURE_NAMES)} standardised features of "
             "`corpuscrawl/extract/page_typing/page_type_features.py`, stored as plain parameters "
             "(`corpuscrawl/extract/page_typing/page_type.py`).", "",
             f"- Trained: {datetime.now(UTC):%Y-%m-%d}; rebuild: `{command}`",
             f"- Pages: {len(y)} from {len(set(data.groups))} sites: "
             + ", ".join(f"{d} {int((datasets == d).sum())}" for d in dict.fromkeys(datasets)),
             "- Classes: " + ", ".join(f"{t} {int((y == t).sum())}" for t in types),
             f"- `other`: no training pages; a page without text, or whose best type has "
             f"probability < {model.min_probability}, is `other`", "",
             f"## Out of fold, {folds} folds grouped by site", "",
             "No page of a held-out site is seen in training.  *Without URL*: the same "
             "pages typed as if read from files (their URL features blanked); pages that "
             "record no URL are typed so in both columns.", ""]
    rows = []
    for d in [*dict.fromkeys(datasets), "all"]:
        m = datasets == d if d != "all" else np.ones(len(y), bool)
        rows.append([d, str(int(m.sum())), str(int((m & known).sum())),
                     f"{(y[m] == p[m]).mean():.3f}", f"{(y[m] == q[m]).mean():.3f}"])
    lines += markdown_table(["dataset", "pages", "with URL", "accuracy", "without URL"],
                            rows) + [""]
    rows = []
    for t in types:
        tp = int(((p == t) & (y == t)).sum())
        prec = tp / max(int((p == t).sum()), 1)
        rec = tp / max(int((y == t).sum()), 1)
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        rows.append([t, f"{prec:.3f}", f"{rec:.3f}", f"{f1:.3f}", str(int((y == t).sum()))])
    lines += markdown_table(["type", "precision", "recall", "F1", "pages"], rows) + [""]
    lines += ["Confusion matrix (rows: labelled type, columns: predicted):", ""]
    rows = [[t, *(str(int(((y == t) & (p == u)).sum())) for u in types)] for t in types]
    lines += markdown_table(["labelled \\ predicted", *types], rows) + [""]
    return lines


def train(root: Path, out_dir: Path, folds: int = FOLDS_DEFAULT) -> list[str]:
    """Fit the classifier on the labelled pages under datasets ``root``, write
    ``page-type.json`` and its card ``page-type.md`` into ``out_dir``; returns the card's
    lines.  A ``ValueError`` when ``root`` holds no labelled page."""
    data = labelled_pages(root)
    if not data.y:
        raise ValueError(f"no labelled pages under {root}")
    predicted = out_of_fold(data, folds)
    predicted_without_urls = out_of_fold(data, folds, urls=False)
    model = fit(data.x, data.y)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / MODEL_FILE).write_text(json.dumps(model.to_dict()), encoding="utf-8")
    lines = card(data, predicted, model, folds, REBUILD_COMMAND, predicted_without_urls)
    (out_dir / CARD_FILE).write_text("\n".join(lines), encoding="utf-8")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Command line: train, write the model and card, print the card."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets-root", help="default: CORPUSCRAWL_DATASETS or ../shared/datasets")
    parser.add_argument("--models-dir", default=str(Path(__file__).resolve().parents[2] / "models"))
    parser.add_argument("--folds", type=int, default=FOLDS_DEFAULT)
    args = parser.parse_args(argv)
    try:
        lines = train(datasets_root(args.datasets_root), Path(args.models_dir), args.folds)
    except ValueError as exc:
        parser.error(str(exc))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
