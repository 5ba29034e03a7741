"""Page types: the features, the plain-parameter model (loading, refusing, predicting), the
shipped model on clear pages, and the type on every document and in the crawl summary."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from corpuscrawl.extract.page_typing.page_type import (
    OTHER,
    PageTypeModel,
    PageTypeModelError,
    load_page_type_model,
)
from corpuscrawl.extract.page_typing.page_type_features import (
    FEATURE_NAMES,
    PAGE_TYPES,
    feature_row,
    page_type_features,
)
from corpuscrawl.html.page import Page
from corpuscrawl.items import Document
from corpuscrawl.learn.page_type_trainer import fit
from corpuscrawl.pagetext.extraction import Extraction
from corpuscrawl.report.summary import PAGE_TYPE_PREFIX, build_summary, human_summary

DATA = Path(__file__).parent / "data" / "wholeweb"


def fixture(name: str, url: str) -> Page:
    return Page.from_file(DATA / name, url=url)


def test_features_read_structured_data_class_words_and_the_url():
    page = fixture("forum_thread.html", "https://bakers.example/forum/thread/8812-sourdough")
    f = page_type_features(page)
    assert set(f) == set(FEATURE_NAMES)
    assert f["schema_discussion"] == 1.0 and f["schema_product"] == 0.0
    assert f["class_post"] > 0 and f["url_forum"] >= 1 and f["url_depth"] == 3.0
    assert 0 < f["share_p"] < 1 and f["n_textarea"] > 0


def test_features_of_a_page_nested_deeper_than_the_recursion_limit():
    html = "<html><body>" + "<div>" * 5000 + "<p>deep words here</p>" + "</div>" * 5000
    row = feature_row(Page.from_html(html + "</body></html>", "https://example.org/a"))
    assert len(row) == len(FEATURE_NAMES) and row[FEATURE_NAMES.index("words")] > 0


def toy_model() -> PageTypeModel:
    """A model fitted on two kinds of rows: many list items (listing) or long paragraphs."""
    rng = np.random.default_rng(0)
    x = rng.normal(0, 0.1, (40, len(FEATURE_NAMES)))
    li, p = FEATURE_NAMES.index("share_li"), FEATURE_NAMES.index("longest_p")
    x[:20, li] += 1.0
    x[20:, p] += 1.0
    return fit(x, ["listing"] * 20 + ["article"] * 20)


def test_the_model_round_trips_through_plain_parameters_and_predicts():
    model = toy_model()
    again = PageTypeModel.from_dict(json.loads(json.dumps(model.to_dict())))
    rows = np.zeros((2, len(FEATURE_NAMES)))
    rows[0, FEATURE_NAMES.index("share_li")] = 1.0
    rows[1, FEATURE_NAMES.index("longest_p")] = 1.0
    p = again.probabilities(rows)
    assert np.allclose(p.sum(axis=1), 1.0)
    assert [again.classes[i] for i in p.argmax(axis=1)] == ["listing", "article"]


def test_a_page_without_text_is_other():
    assert toy_model().predict(Page.from_html("<html><body><div></div></body></html>")) \
        == (OTHER, 0.0)


def test_a_model_for_other_features_or_a_broken_file_is_refused(tmp_path):
    data = toy_model().to_dict()
    with pytest.raises(PageTypeModelError, match="other features"):
        PageTypeModel.from_dict({**data, "features": data["features"][:-1]})
    with pytest.raises(PageTypeModelError, match="do not fit"):
        PageTypeModel.from_dict({**data, "classes": ["article", "recipe"]})
    bad = tmp_path / "page-type.json"
    bad.write_text("{not json")
    with pytest.raises(PageTypeModelError, match="unreadable"):
        load_page_type_model(bad)
    with pytest.raises(PageTypeModelError, match="not found"):
        load_page_type_model(tmp_path / "missing.json")


def test_the_shipped_model_knows_a_forum_thread_from_an_article():
    model = load_page_type_model()
    assert set(model.classes) <= set(PAGE_TYPES)
    forum = fixture("forum_thread.html", "https://bakers.example/forum/thread/8812-sourdough")
    assert model.predict(forum)[0] == "forum"
    article = fixture("hidden_drawer.html", "https://cars.example/news/2024/11/winter-tyres")
    assert model.predict(article)[0] == "article"


def test_every_extraction_result_and_document_carries_the_page_type():
    page = fixture("forum_thread.html", "https://bakers.example/forum/thread/8812-sourdough")
    result = Extraction().run(page)
    assert result.page_type == "forum"
    assert Document(page_type=result.page_type).page_type == "forum"


def test_the_pipeline_puts_the_page_type_in_the_document_and_counts_it():
    from collections import Counter

    from corpuscrawl.export.scrapy_glue.pipelines import ExtractionPipeline, PipelineConfig
    from corpuscrawl.pagetext.crawled import CrawledPage
    from corpuscrawl.pagetext.extraction import ExtractionResult

    class Stats(Counter):
        def inc_value(self, key, count=1):
            self[key] += count

    stats = Stats()
    pipeline = ExtractionPipeline(PipelineConfig(), stats)
    for kind in ("forum", "forum", ""):
        result = ExtractionResult(text="Some posts of a thread.", extractor="auto",
                                  language="en", page_type=kind)
        doc = pipeline.process_item(CrawledPage(url="http://a.com/t", status=200, html="",
                                                result=result))
        assert doc.page_type == kind
    assert stats[f"{PAGE_TYPE_PREFIX}forum"] == 2
    assert not any(k == PAGE_TYPE_PREFIX for k in stats)


def test_the_summary_counts_documents_by_page_type():
    stats = {"corpuscrawl/documents": 5, f"{PAGE_TYPE_PREFIX}article": 3,
             f"{PAGE_TYPE_PREFIX}forum": 2}
    summary = build_summary(stats)
    assert summary["page_types"] == {"article": 3, "forum": 2}
    assert "page types: article 3, forum 2" in human_summary(summary)
    assert build_summary({})["page_types"] == {}


def test_corpuscrawl_train_page_type_writes_the_model_and_its_card(tmp_path, monkeypatch):
    """``corpuscrawl train page-type`` fits on the labelled pages under the datasets root
    (a typed set's manifest types, an article set's gold pages) and writes a model the
    crawl loads, with a card naming that command; it refuses options it has no use for."""
    import shutil

    from corpuscrawl.cli import main as cli_main

    tinyset = Path(__file__).parent / "data" / "learned" / "tinyset"
    root = tmp_path / "datasets"
    shutil.copytree(tinyset, root / "cleaneval")
    shutil.copytree(tinyset / "html", root / "wcxb" / "html")
    (root / "wcxb" / "clean").mkdir()
    ids = sorted(p.stem for p in (tinyset / "html").glob("*.html"))
    types = ("forum", "listing", "product")
    (root / "wcxb" / "manifest.jsonl").write_text("".join(
        json.dumps({"id": doc, "domain": f"site{i}.example", "page_type": types[i % 3]}) + "\n"
        for i, doc in enumerate(ids)), encoding="utf-8")
    monkeypatch.setenv("CORPUSCRAWL_DATASETS", str(root))
    out = tmp_path / "models"
    assert cli_main(["train", "page-type", "--models-dir", str(out), "--quiet"]) == 0
    model = load_page_type_model(out / "page-type.json")
    assert set(model.classes) == {"article", *types}
    card = (out / "page-type.md").read_text(encoding="utf-8")
    assert "rebuild: `corpuscrawl train page-type`" in card
    assert f"- Pages: {2 * len(ids)} from " in card
    assert cli_main(["train", "page-type", "--data", str(root / "cleaneval")]) == 2


def test_a_page_is_typed_once_and_auto_decodes_with_the_documents_type(monkeypatch):
    from corpuscrawl.extract.learned import auto as auto_module
    from corpuscrawl.extract.page_typing import page_type as page_type_module

    calls = []
    real = page_type_module.PageTypeModel.predict

    def counted(self, page):
        calls.append(page.url)
        return real(self, page)

    monkeypatch.setattr(page_type_module.PageTypeModel, "predict", counted)
    seen = []
    decoded = auto_module.decoded_parts

    def recorded(*args, **kwargs):
        seen.append(kwargs.get("page_type"))
        return decoded(*args, **kwargs)

    monkeypatch.setattr(auto_module, "decoded_parts", recorded)
    page = fixture("forum_thread.html", "https://bakers.example/forum/thread/8812-sourdough")
    result = Extraction().run(page)
    assert result.ok and result.page_type and page.page_type == result.page_type
    assert len(seen) == 1 and seen[0]() == result.page_type  # what auto's decoding reads
    assert calls == [page.url]  # typed once


def test_auto_alone_types_the_page_only_when_its_decoding_depends_on_it(monkeypatch):
    from corpuscrawl.extract import get_extractor
    from corpuscrawl.extract.learned import auto as auto_module

    asked = []
    monkeypatch.setattr(auto_module, "page_type", lambda page: asked.append(page) or "service")
    page = fixture("forum_thread.html", "https://bakers.example/forum/thread/8812-sourdough")
    extractor = get_extractor("auto")
    decoded = auto_module.decoded_parts
    changed = []

    def recorded(blocks, unary_p, *args, **kwargs):
        labels = decoded(blocks, unary_p, *args, **{**kwargs, "page_type": ""}).labels
        out = decoded(blocks, unary_p, *args, **kwargs)
        changed.append(out.labels != labels)
        return out

    monkeypatch.setattr(auto_module, "decoded_parts", recorded)
    extractor.extract(page)
    assert len(changed) == 1 and len(asked) <= 1
    if changed[0]:
        assert asked == [page]


def test_a_type_set_on_the_page_is_the_one_used():
    from corpuscrawl.extract.page_typing.page_type import page_type

    page = fixture("forum_thread.html", "https://bakers.example/forum/thread/8812-sourdough")
    page.page_type = "service"
    assert page_type(page) == "service"


def test_a_failing_type_is_empty_and_the_page_still_extracted(monkeypatch, caplog):
    from corpuscrawl.extract.page_typing import page_type as page_type_module

    def broken(self, page):
        raise RuntimeError("broken model")

    monkeypatch.setattr(page_type_module.PageTypeModel, "predict", broken)
    page = fixture("forum_thread.html", "https://bakers.example/forum/thread/8812-sourdough")
    result = Extraction().run(page)
    assert result.ok and result.page_type == "" and result.text
    assert "page type failed" in caplog.text
