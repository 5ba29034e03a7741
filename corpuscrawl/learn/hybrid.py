"""Training the hybrids of Kohlschütter's thesis (:mod:`corpuscrawl.extract.learned.hybrid`).

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
from typing import Any

import numpy as np
from sklearn.svm import SVC

from corpuscrawl.evaluation.metrics import score
from corpuscrawl.extract.learned.agreement import lcs_coverage
from corpuscrawl.extract.learned.hybrid import document_features, segment_rows
from corpuscrawl.extract.segment.segments import segment_page
from corpuscrawl.learn.alignment import SEGMENT_THRESHOLD_DEFAULT
from corpuscrawl.learn.trainset import BaseOutputs, Doc, Progress, no_progress

#: SVM regularisation (libsvm's default C; the thesis reports no other value).
SVM_C_DEFAULT = 1.0
#: Most segments used to fit the segment SVMs (RBF SVC training is quadratic).
MAX_SEGMENTS_DEFAULT = 20_000
#: Seed of the deterministic segment sample.
SAMPLE_SEED_DEFAULT = 13


def best_extractor(outputs: Sequence[str], gold: str) -> int:
    """Index of the output with the best F1 against ``gold`` (the first one on ties)."""
    f1s = [score(o, gold, with_levenshtein=False).f1 for o in outputs]
    return int(np.argmax(f1s))


def fit_hybrid_a(docs: Sequence[Doc], base: BaseOutputs, c: float = SVM_C_DEFAULT,
                 progress: Progress = no_progress) -> dict[str, Any]:
    """Train the document-level selector on ``docs`` (their base outputs come from ``base``)."""
    rows, labels = [], []
    for doc in progress(docs):
        labels.append(best_extractor(base.all(doc), doc.gold))
        rows.append(document_features(doc.page))
        doc.release()
    svm = SVC(C=c, kernel="rbf", gamma="scale")
    counts = Counter(base.names[i] for i in labels)
    if len(set(labels)) > 1:
        svm.fit(np.asarray(rows, dtype=np.float64), np.asarray(labels))
    else:  # one extractor always best: nothing to learn, the SVM would refuse one class
        svm = None
    return {"kind": "hybrid-a", "base": list(base.names), "svm": svm,
            "constant": int(labels[0]) if labels else 0,
            "params": {"C": c, "kernel": "rbf", "gamma": "scale"},
            "label_counts": dict(counts)}


def fit_segment_svm(docs: Sequence[Doc], base: BaseOutputs | None,
                    threshold: float = SEGMENT_THRESHOLD_DEFAULT, c: float = SVM_C_DEFAULT,
                    max_segments: int = MAX_SEGMENTS_DEFAULT,
                    progress: Progress = no_progress) -> dict[str, Any]:
    """Train hybrid B (``base`` given: agreement features) or the segment SVM (``base=None``)."""
    rows, labels = [], []
    for doc in progress(docs):
        segments = segment_page(doc.page)
        if segments:
            outputs = base.all(doc) if base is not None else None
            rows.append(segment_rows(segments, outputs))
            labels.extend(int(lcs_coverage(s.words, doc.gold_words) > threshold)
                          for s in segments)
        doc.release()
    x = np.vstack(rows) if rows else np.zeros((0, 37))
    y = np.asarray(labels)
    if len(y) > max_segments:
        keep = sorted(random.Random(SAMPLE_SEED_DEFAULT).sample(range(len(y)), max_segments))
        x, y = x[keep], y[keep]
    svm = SVC(C=c, kernel="rbf", gamma="scale")
    svm.fit(x, y)
    kind = "hybrid-b" if base is not None else "segment-svm"
    return {"kind": kind, "base": list(base.names) if base is not None else [], "svm": svm,
            "params": {"C": c, "kernel": "rbf", "gamma": "scale", "threshold": threshold,
                       "max_segments": max_segments},
            "label_counts": {"content": int(y.sum()), "boilerplate": int(len(y) - y.sum())}}


__all__ = [
    "MAX_SEGMENTS_DEFAULT",
    "SVM_C_DEFAULT",
    "best_extractor",
    "fit_hybrid_a",
    "fit_segment_svm",
]
