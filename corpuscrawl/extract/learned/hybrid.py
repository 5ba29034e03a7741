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

The models are :class:`HybridAModel`, :class:`SegmentSVMModel` and
:class:`HybridBModel`, predictors (parameters and fitted attributes, no
``fit``: their estimators, which add ``fit``, are in
``corpuscrawl.learn.hybrid_trainer``); the ``*Extractor`` classes are their registry
entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.learned.agreement import lcs_coverage
from corpuscrawl.extract.learned.columns import NamedMatrix, check_feature_names, prefixed
from corpuscrawl.extract.learned.features import FEATURE_NAMES, html_features
from corpuscrawl.extract.learned.models import LearnedExtractor, LearnedModel, check_fitted
from corpuscrawl.extract.segment.segments import Segment, segment_page
from corpuscrawl.html.page import Page

#: The base extractors of the thesis' hybrids (§4.2.2), BTE first as in its numbering.
THESIS_BASE_DEFAULT = ("bte", "readability", "boilerpipe-default", "boilerpipe-article")
#: SVM regularisation (libsvm's default C; the thesis reports no other value).
SVM_C_DEFAULT = 1.0
#: Coverage above which a training segment is content (Bakić's thesis §4.2.3).
SEGMENT_THRESHOLD_DEFAULT = 0.9
#: Most segments the segment SVMs are fitted on (RBF SVC training is quadratic).
MAX_SEGMENTS_DEFAULT = 20_000


def document_features(page: Page) -> list[float]:
    """The 37 features of the whole page (§4.2.1)."""
    return html_features(page.html)


def document_rows(page: Page) -> NamedMatrix:
    """The page's one row of the 37 named features (§4.2.1)."""
    return NamedMatrix(np.asarray([document_features(page)], dtype=np.float64), FEATURE_NAMES)


def segment_rows(segments: Sequence[Segment], outputs: Sequence[str] | None,
                 base: Sequence[str] = ()) -> NamedMatrix:
    """Feature rows of segments: the 37 named values, plus one LCS coverage
    ``lcs_<extractor>`` per base output when given (``base`` names them)."""
    out_words = [o.split() for o in outputs] if outputs is not None else []
    names = FEATURE_NAMES + (prefixed("lcs_", base) if out_words else ())
    if len(names) != len(FEATURE_NAMES) + len(out_words):
        raise ValueError(f"{len(out_words)} base outputs for the base extractors {list(base)}")
    rows = []
    for seg in segments:
        row = html_features(seg.html)
        row.extend(lcs_coverage(seg.words, w) for w in out_words)
        rows.append(row)
    return NamedMatrix(np.asarray(rows, dtype=np.float64).reshape(len(rows), len(names)), names)


class HybridAModel(LearnedModel):
    """Document-level selector (hybrid A): an SVM predicts the best base extractor from the
    page's 37 features, then that extractor runs.

    Parameters: the ``base`` extractors and the SVM's ``c``.  Fitted attributes: ``svm_``
    (an RBF ``SVC``, None when one extractor was best on every training page),
    ``constant_`` (that extractor's index), ``feature_names_in_``, ``label_counts_``.
    """

    name = "hybrid-a"
    description = ("Document-level selector (Bakić's thesis §4.2.2): an SVM on the page's 37 "
                   "features picks the base extractor to run.")
    base_param = "base"

    def __init__(self, base: Sequence[str] = THESIS_BASE_DEFAULT, c: float = SVM_C_DEFAULT):
        self.base = base
        self.c = c

    def _extractors(self) -> list[Any]:
        runtime = self.__dict__.get("_runtime")
        if runtime is None:
            runtime = self.__dict__["_runtime"] = [get_extractor(n) for n in self.base_]
        return runtime

    def choose(self, page: Page) -> str:
        """Name of the base extractor the selector picks for ``page``."""
        check_fitted(self)
        if self.svm_ is None:
            return self.base_[self.constant_]
        rows = document_rows(page)
        check_feature_names(self.feature_names_in_, rows.names, self.name)
        return self.base_[int(self.svm_.predict(rows.values)[0])]

    def extract(self, page: Page) -> str:
        """Text of the base extractor chosen for ``page``."""
        return self._extractors()[self.base_.index(self.choose(page))].extract(page)


class SegmentSVMModel(LearnedModel):
    """Segment classifier without agreement features (the thesis' SVM-seg).

    Parameters: the SVM's ``c``, the gold coverage ``threshold`` above which a training
    segment is content, the most segments fitted on (``max_segments``) and the ``base``
    extractors whose agreement joins the features (none here; :class:`HybridBModel` has
    them).  Fitted attributes: ``svm_``, ``base_``, ``feature_names_in_``,
    ``label_counts_``.
    """

    name = "segment-svm"
    description = ("Segment classifier (Bakić's thesis §4.3): an SVM on each div/table "
                   "segment's 37 features keeps or drops the segment.")

    def __init__(self, base: Sequence[str] = (), c: float = SVM_C_DEFAULT,
                 threshold: float = SEGMENT_THRESHOLD_DEFAULT,
                 max_segments: int = MAX_SEGMENTS_DEFAULT):
        self.base = base
        self.c = c
        self.threshold = threshold
        self.max_segments = max_segments

    def _extractors(self) -> list[Any]:
        runtime = self.__dict__.get("_runtime")
        if runtime is None:
            runtime = self.__dict__["_runtime"] = [get_extractor(n) for n in self.base_]
        return runtime

    def content_segments(self, page: Page) -> list[Segment]:
        """The segments the SVM classifies as content, in page order."""
        check_fitted(self)
        segments = segment_page(page)
        if not segments:
            return []
        extractors = self._extractors()
        outputs = [e.extract(page) for e in extractors] if extractors else None
        rows = segment_rows(segments, outputs, self.base_)
        check_feature_names(self.feature_names_in_, rows.names, self.name)
        pred = self.svm_.predict(rows.values)
        return [s for s, p in zip(segments, pred, strict=True) if p == 1]

    def extract(self, page: Page) -> str:
        """Text of the content segments joined by newlines."""
        return "\n".join(s.text for s in self.content_segments(page))


class HybridBModel(SegmentSVMModel):
    """Segment classifier with one agreement feature per base extractor (hybrid B)."""

    name = "hybrid-b"
    description = ("Segment classifier with agreement features (Bakić's thesis §4.2.3): 37 "
                   "features + LCS coverage of the segment by each base extractor's output.")
    base_param = "base"

    def __init__(self, base: Sequence[str] = THESIS_BASE_DEFAULT, c: float = SVM_C_DEFAULT,
                 threshold: float = SEGMENT_THRESHOLD_DEFAULT,
                 max_segments: int = MAX_SEGMENTS_DEFAULT):
        super().__init__(base, c, threshold, max_segments)


class HybridAExtractor(LearnedExtractor):
    """The ``hybrid-a`` extractor: :class:`HybridAModel` from ``models/hybrid-a.skops``."""

    name = "hybrid-a"
    model_class = HybridAModel
    estimator: HybridAModel

    def choose(self, page: Page) -> str:
        """Name of the base extractor the selector picks for ``page``."""
        return self.estimator.choose(page)


class SegmentSVMExtractor(LearnedExtractor):
    """The ``segment-svm`` extractor: :class:`SegmentSVMModel` from its model file."""

    name = "segment-svm"
    model_class = SegmentSVMModel
    estimator: SegmentSVMModel

    def content_segments(self, page: Page) -> list[Segment]:
        """The segments the SVM classifies as content, in page order."""
        return self.estimator.content_segments(page)


class HybridBExtractor(SegmentSVMExtractor):
    """The ``hybrid-b`` extractor: :class:`HybridBModel` from ``models/hybrid-b.skops``."""

    name = "hybrid-b"
    model_class = HybridBModel
    estimator: HybridBModel


__all__ = [
    "MAX_SEGMENTS_DEFAULT",
    "SEGMENT_THRESHOLD_DEFAULT",
    "SVM_C_DEFAULT",
    "THESIS_BASE_DEFAULT",
    "HybridAExtractor",
    "HybridAModel",
    "HybridBExtractor",
    "HybridBModel",
    "SegmentSVMExtractor",
    "SegmentSVMModel",
    "document_features",
    "document_rows",
    "segment_rows",
]
