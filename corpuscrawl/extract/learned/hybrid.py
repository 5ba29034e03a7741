"""The thesis' learned hybrids: a document-level selector and two segment classifiers.

Source: Bakić's thesis §4.2.2–4.3, §5, §6.3.3–6.3.6.

* ``hybrid-a`` (§4.2.2): every training page is labelled with the base
  extractor whose output has the best word-LCS F1 on it (ties: the first in
  the base list, BTE first as in the thesis' numbering); an SVM learns that
  label from the page's 37 features (:mod:`.features`); at extraction time
  the predicted extractor runs.
* ``hybrid-b`` (§4.2.3): pages are cut into segments (:mod:`corpuscrawl.extract.segment.segments`);
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

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.learned.agreement import lcs_coverage
from corpuscrawl.extract.learned.features import html_features
from corpuscrawl.extract.learned.models import load_model
from corpuscrawl.extract.segment.segments import Segment, segment_page
from corpuscrawl.html.page import Page


def document_features(page: Page) -> list[float]:
    """The 37 features of the whole page (§4.2.1)."""
    return html_features(page.html)


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
    "HybridAExtractor",
    "HybridBExtractor",
    "SegmentSVMExtractor",
    "document_features",
    "segment_rows",
]
