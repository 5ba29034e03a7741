"""Training the hybrids of Bakić's thesis: :class:`HybridAEstimator`,
:class:`SegmentSVMEstimator` and :class:`HybridBEstimator`, the predictors of
:mod:`corpuscrawl.extract.learned.hybrid` with ``fit``.

Hybrid A learns which base extractor is best for a whole page: each training
page is labelled with the base extractor whose output scores the best F1
against the gold text, and an RBF SVM learns that label from the page's 37
HTML features.  Hybrid B and the segment SVM label each segment as content
when the gold text covers more than 90 % of its words (LCS coverage), and an
RBF SVM learns that label from the segment's features (hybrid B adds one
agreement feature per base extractor).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import numpy as np
from sklearn.svm import SVC

from corpuscrawl.evaluation.metrics import score
from corpuscrawl.extract.learned.agreement import lcs_coverage
from corpuscrawl.extract.learned.features import FEATURE_NAMES
from corpuscrawl.extract.learned.hybrid import (
    HybridAModel,
    HybridBModel,
    SegmentSVMModel,
    document_rows,
    segment_rows,
)
from corpuscrawl.extract.segment.segments import segment_page
from corpuscrawl.learn.estimator import Estimator
from corpuscrawl.learn.trainset import BaseOutputs, Doc, Progress, no_progress, required_base

#: Seed of the deterministic segment sample.
SAMPLE_SEED_DEFAULT = 13


def best_extractor(outputs: Sequence[str], gold: str) -> int:
    """Index of the output with the best F1 against ``gold`` (the first one on ties)."""
    f1s = [score(o, gold, with_levenshtein=False).f1 for o in outputs]
    return int(np.argmax(f1s))


def fit_hybrid_a(model: HybridAModel, docs: Sequence[Doc],
                 progress: Progress | None = None) -> HybridAModel:
    """Train the document-level selector on ``docs`` (the outputs of ``model.base``, those
    of them installed, come from the cache); returns ``model``."""
    base = BaseOutputs(required_base(tuple(model.base)))
    rows, labels = [], []
    for doc in (progress or no_progress)(docs):
        labels.append(best_extractor(base.all(doc), doc.gold))
        rows.append(document_rows(doc.page).values[0])
        doc.release()
    svm = SVC(C=model.c, kernel="rbf", gamma="scale")
    if len(set(labels)) > 1:
        svm.fit(np.asarray(rows, dtype=np.float64), np.asarray(labels))
    else:  # one extractor always best: nothing to learn, the SVM would refuse one class
        svm = None
    model.svm_ = svm
    model.constant_ = int(labels[0]) if labels else 0
    model.base_ = tuple(base.names)
    model.feature_names_in_ = FEATURE_NAMES
    model.label_counts_ = dict(Counter(base.names[i] for i in labels))
    model.fit_info_ = {"kernel": "rbf", "gamma": "scale"}
    return model


def fit_segment_svm(model: SegmentSVMModel, docs: Sequence[Doc],
                    progress: Progress | None = None) -> SegmentSVMModel:
    """Train hybrid B (``model.base`` given: agreement features) or the segment SVM (no
    base extractors) on ``docs``; returns ``model``."""
    names = required_base(tuple(model.base)) if model.base else ()
    base = BaseOutputs(names) if names else None
    rows, labels = [], []
    columns = FEATURE_NAMES
    for doc in (progress or no_progress)(docs):
        segments = segment_page(doc.page)
        if segments:
            outputs = base.all(doc) if base is not None else None
            matrix = segment_rows(segments, outputs, names)
            columns = matrix.names
            rows.append(matrix.values)
            labels.extend(int(lcs_coverage(s.words, doc.gold_words) > model.threshold)
                          for s in segments)
        doc.release()
    x = np.vstack(rows) if rows else np.zeros((0, len(columns)))
    y = np.asarray(labels)
    if len(y) > model.max_segments:
        keep = sorted(random.Random(SAMPLE_SEED_DEFAULT).sample(range(len(y)),
                                                                model.max_segments))
        x, y = x[keep], y[keep]
    model.svm_ = SVC(C=model.c, kernel="rbf", gamma="scale").fit(x, y)
    model.base_ = tuple(names)
    model.feature_names_in_ = tuple(columns)
    model.label_counts_ = {"content": int(y.sum()), "boilerplate": int(len(y) - y.sum())}
    model.fit_info_ = {"kernel": "rbf", "gamma": "scale"}
    return model


class HybridAEstimator(Estimator, HybridAModel):
    """Hybrid A with ``fit``: the parameters and fitted attributes of :class:`HybridAModel`."""

    def fit(self, docs: Sequence[Doc], y: None = None,
            progress: Progress | None = None) -> HybridAEstimator:
        """Learn from gold documents (``y`` is unused) with :func:`fit_hybrid_a`; returns
        ``self``."""
        fit_hybrid_a(self, docs, progress)
        return self


class SegmentSVMEstimator(Estimator, SegmentSVMModel):
    """The segment SVM with ``fit``: the parameters and fitted attributes of
    :class:`SegmentSVMModel`."""

    def fit(self, docs: Sequence[Doc], y: None = None,
            progress: Progress | None = None) -> SegmentSVMEstimator:
        """Learn from gold documents (``y`` is unused) with :func:`fit_segment_svm`; returns
        ``self``."""
        fit_segment_svm(self, docs, progress)
        return self


class HybridBEstimator(Estimator, HybridBModel):
    """Hybrid B with ``fit``: the parameters and fitted attributes of :class:`HybridBModel`
    (the segment SVM with agreement features)."""

    def fit(self, docs: Sequence[Doc], y: None = None,
            progress: Progress | None = None) -> HybridBEstimator:
        """Learn from gold documents (``y`` is unused) with :func:`fit_segment_svm`; returns
        ``self``."""
        fit_segment_svm(self, docs, progress)
        return self


__all__ = [
    "HybridAEstimator",
    "HybridBEstimator",
    "SegmentSVMEstimator",
    "best_extractor",
    "fit_hybrid_a",
    "fit_segment_svm",
]
