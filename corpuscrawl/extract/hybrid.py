"""The thesis' learned hybrids: a document-level selector and two segment classifiers.

Source: seed 000 §4.2.2–4.3, §5, §6.3.3–6.3.6; SPEC §4.

* ``hybrid-a`` (§4.2.2): every training page is labelled with the base
  extractor whose output has the best word-LCS F1 on it (ties: the first in
  the base list, BTE first as in the thesis' numbering); an SVM learns that
  label from the page's 37 features (:mod:`.features`); at extraction time
  the predicted extractor runs.
* ``hybrid-b`` (§4.2.3): pages are cut into segments (:mod:`.segments`);
  each segment's vector is its 37 features plus, per base extractor, the LCS
  of the segment's words with the extractor's output divided by the
  segment's word count; a segment is content when the gold text covers it
  above ``threshold`` (0.9); an SVM classifies segments and the output is
  the text of the content segments, in order.
* ``segment-svm`` (§4.3): the same without the agreement features.

The SVM is scikit-learn's ``SVC`` (libsvm, RBF kernel, C = 1: libsvm's
defaults; the thesis does not report other settings).  Deviation: the thesis
trained hybrid B on 60 pages because libsvm was too slow on more; here the
whole training split is used, capped at :data:`MAX_SEGMENTS_DEFAULT` segments
(a deterministic sample) to keep training within minutes.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.svm import SVC

from corpuscrawl.evaluation.metrics import score
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.alignment import SEGMENT_THRESHOLD_DEFAULT, lcs_coverage
from corpuscrawl.extract.features import html_features
from corpuscrawl.extract.segments import Segment, segment_page
from corpuscrawl.extract.trainset import BaseOutputs, Doc
from corpuscrawl.models import load_model
from corpuscrawl.page import Page

#: SVM regularisation (libsvm's default C; the thesis reports no other value).
SVM_C_DEFAULT = 1.0
#: Most segments used to fit the segment SVMs (RBF SVC training is quadratic).
MAX_SEGMENTS_DEFAULT = 20_000
#: Seed of the deterministic segment sample.
SAMPLE_SEED_DEFAULT = 13

Progress = Callable[[Iterable[Doc]], Iterable[Doc]]


def _identity(docs: Iterable[Doc]) -> Iterable[Doc]:
    return docs


def document_features(page: Page) -> list[float]:
    """The 37 features of the whole page (§4.2.1)."""
    return html_features(page.html)


def best_extractor(outputs: Sequence[str], gold: str) -> int:
    """Index of the output with the best F1 against ``gold`` (the first one on ties)."""
    f1s = [score(o, gold, with_levenshtein=False).f1 for o in outputs]
    return int(np.argmax(f1s))


def fit_hybrid_a(docs: Sequence[Doc], base: BaseOutputs, c: float = SVM_C_DEFAULT,
                 progress: Progress = _identity) -> dict[str, Any]:
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


class HybridAExtractor:
    """Document-level selector (hybrid A): predict the best base extractor, then run it."""

    name = "hybrid-a"

    def __init__(self, model: str = "hybrid-a", models_dir: str | Path | None = None,
                 state: dict[str, Any] | None = None):
        self.state = state if state is not None else load_model(model, "hybrid-a", models_dir)
        self.base = list(self.state["base"])
        self.extractors = [get_extractor(n) for n in self.base]

    def choose(self, page: Page) -> str:
        """Name of the base extractor the selector picks for ``page``."""
        svm = self.state["svm"]
        if svm is None:
            return self.base[self.state["constant"]]
        row = np.asarray([document_features(page)], dtype=np.float64)
        return self.base[int(svm.predict(row)[0])]

    def extract(self, page: Page) -> str:
        """Text of the base extractor chosen for ``page``."""
        return self.extractors[self.base.index(self.choose(page))].extract(page)


def segment_rows(segments: Sequence[Segment], outputs: Sequence[str] | None) -> np.ndarray:
    """Feature rows of segments: 37 values, plus one LCS coverage per output when given."""
    out_words = [o.split() for o in outputs] if outputs is not None else []
    rows = []
    for seg in segments:
        row = html_features(seg.html)
        row.extend(lcs_coverage(seg.words, w) for w in out_words)
        rows.append(row)
    width = 37 + len(out_words)
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), width)


def fit_segment_svm(docs: Sequence[Doc], base: BaseOutputs | None,
                    threshold: float = SEGMENT_THRESHOLD_DEFAULT, c: float = SVM_C_DEFAULT,
                    max_segments: int = MAX_SEGMENTS_DEFAULT,
                    progress: Progress = _identity) -> dict[str, Any]:
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


class SegmentSVMExtractor:
    """Segment classifier without agreement features (the thesis' SVM-seg)."""

    name = "segment-svm"
    kind = "segment-svm"

    def __init__(self, model: str | None = None, models_dir: str | Path | None = None,
                 state: dict[str, Any] | None = None):
        self.state = state if state is not None else load_model(model or self.kind, self.kind,
                                                                 models_dir)
        self.base = list(self.state["base"])
        self.extractors = [get_extractor(n) for n in self.base]

    def content_segments(self, page: Page) -> list[Segment]:
        """The segments the SVM classifies as content, in page order."""
        segments = segment_page(page)
        if not segments:
            return []
        outputs = [e.extract(page) for e in self.extractors] if self.extractors else None
        pred = self.state["svm"].predict(segment_rows(segments, outputs))
        return [s for s, p in zip(segments, pred, strict=True) if p == 1]

    def extract(self, page: Page) -> str:
        """Text of the content segments joined by newlines."""
        return "\n".join(s.text for s in self.content_segments(page))


class HybridBExtractor(SegmentSVMExtractor):
    """Segment classifier with one agreement feature per base extractor (hybrid B)."""

    name = "hybrid-b"
    kind = "hybrid-b"


__all__ = [
    "MAX_SEGMENTS_DEFAULT",
    "SVM_C_DEFAULT",
    "HybridAExtractor",
    "HybridBExtractor",
    "SegmentSVMExtractor",
    "best_extractor",
    "document_features",
    "fit_hybrid_a",
    "fit_segment_svm",
    "segment_rows",
]
