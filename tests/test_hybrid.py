"""The thesis' hybrids: selector labels, segment rows, train -> save -> load -> predict."""

from __future__ import annotations

import numpy as np
import pytest

from corpuscrawl.evaluation.metrics import score
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.extract.learned.hybrid import (
    HybridAExtractor,
    HybridBExtractor,
    SegmentSVMExtractor,
    segment_rows,
)
from corpuscrawl.extract.segment.segments import segment_page
from corpuscrawl.html.page import Page
from corpuscrawl.learn import trainset
from corpuscrawl.learn.hybrid_trainer import best_extractor
from corpuscrawl.learn.training import train
from corpuscrawl.learn.trainset import BaseOutputs, documents

pytestmark = pytest.mark.usefixtures("private_cache")


def test_best_extractor_is_the_best_f1_and_the_first_on_ties():
    gold = "one two three four"
    assert best_extractor(["one", "one two three four", "x"], gold) == 1
    assert best_extractor(["one two", "one two", "x"], gold) == 0


def test_segment_rows_add_one_lcs_coverage_per_output(data_dir):
    segments = segment_page(Page.from_file(data_dir / "learned" / "segments.html"))
    rows = segment_rows(segments, ["A quoted box", "nothing"], ["bte", "justext"])
    assert rows.values.shape == (len(segments), 39)
    assert rows.names[-2:] == ("lcs_bte", "lcs_justext")
    assert rows.values[2, 37] == 1.0 and rows.values[2, 38] == 0.0
    assert segment_rows(segments, None).values.shape == (len(segments), 37)
    with pytest.raises(ValueError, match="base outputs"):
        segment_rows(segments, ["A quoted box"], ["bte", "justext"])


def test_hybrid_a_round_trip_picks_a_base_extractor(tinyset, tmp_path):
    train("hybrid-a", [tinyset], base_names=["bte", "justext"], models_dir=tmp_path,
          show_progress=False)
    extractor = HybridAExtractor(models_dir=tmp_path)
    for doc in documents([tinyset], "test"):
        chosen = extractor.choose(doc.page)
        assert chosen in ("bte", "justext")
        assert extractor.extract(doc.page) == get_extractor(chosen).extract(doc.page)


@pytest.mark.parametrize("name,cls", [("hybrid-b", HybridBExtractor),
                                      ("segment-svm", SegmentSVMExtractor)])
def test_segment_classifiers_round_trip(name, cls, tinyset, tmp_path):
    train(name, [tinyset], base_names=["bte", "justext"], models_dir=tmp_path,
          show_progress=False)
    extractor = cls(models_dir=tmp_path)
    assert extractor.estimator.base_ == (("bte", "justext") if name == "hybrid-b" else ())
    for doc in documents([tinyset], "test"):
        text = extractor.extract(doc.page)
        assert score(text, doc.gold).f1 > 0.9
        assert "Copyright" not in text


def test_registry_builds_hybrids_and_reports_a_missing_model(tmp_path):
    for name in ("hybrid-a", "hybrid-b", "segment-svm"):
        with pytest.raises(ExtractorError, match=f"corpuscrawl train {name}"):
            get_extractor(name, models_dir=str(tmp_path))


def test_document_features_come_from_the_page_html(data_dir):
    from corpuscrawl.extract.learned.hybrid import document_features

    page = Page.from_file(data_dir / "learned" / "segments.html")
    assert np.isclose(sum(document_features(page)[:6]), 1.0)


def test_cached_base_outputs_follow_the_code_every_extractor_shares(tinyset, monkeypatch):
    """A parser fix changes every extractor's output without touching its module: the
    cache must not serve the old text."""
    doc = documents([tinyset], "all")[0]
    first = BaseOutputs(["bte"])
    assert first.get(doc, "bte") == get_extractor("bte").extract(doc.page)
    first._path(doc, "bte").write_text("stale output", encoding="utf-8")
    assert BaseOutputs(["bte"]).get(doc, "bte") == "stale output"  # same code: cached
    monkeypatch.setattr(trainset, "package_hash", lambda: "edited-package")
    assert BaseOutputs(["bte"]).get(doc, "bte") == get_extractor("bte").extract(doc.page)
