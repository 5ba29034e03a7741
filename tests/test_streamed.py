"""Streamed server rendering: hidden ``S:<n>`` segments are read where their placeholder is;
other hidden elements (menus, drawers, segments no placeholder asks for) stay out."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpuscrawl.evaluation.datasets import Dataset
from corpuscrawl.evaluation.metrics import score
from corpuscrawl.extract import get_extractor
from corpuscrawl.html.page import Page
from corpuscrawl.html.streamed import completed_stream, stream_segments

DATA = Path(__file__).parent / "data" / "wholeweb"


def page(name: str) -> Page:
    return Page.from_file(DATA / name, url=f"https://example.org/{name}")


def test_a_streamed_segment_replaces_its_placeholder_and_fallback():
    original = page("streamed.html")
    before = original.body.text_content()
    done = completed_stream(original)
    assert done is not original
    main = done.tree.find(".//main")
    text = " ".join(main.text_content().split())
    assert "oxbow lakes" in text
    assert "Loading article" not in text
    assert done.tree.xpath("//*[@id='S:0']") == []
    assert done.tree.xpath("//template[@id='B:0']") == []
    # The shared tree of the original page is untouched.
    assert original.body.text_content() == before
    assert original.tree.xpath("//*[@id='S:0']")


def test_hidden_elements_without_a_placeholder_stay_hidden():
    drawer = page("hidden_drawer.html")
    assert stream_segments(drawer) == []
    assert completed_stream(drawer) is drawer


def test_a_page_without_streaming_markers_is_returned_as_is():
    plain = Page.from_html("<html><body><div hidden id='x'><p>secret</p></div>"
                           "<p>Visible text.</p></body></html>")
    assert completed_stream(plain) is plain


def test_auto_reads_the_streamed_article_and_not_the_hidden_drawer():
    auto = get_extractor("auto")
    streamed = auto.extract(page("streamed.html"))
    assert "oxbow lakes" in streamed and "learned this the hard way" in streamed
    assert "Loading article" not in streamed
    drawer = auto.extract(page("hidden_drawer.html"))
    assert "sipes" in drawer
    assert "all-season tyres" not in drawer
    assert "Account settings" not in drawer


@pytest.mark.datasets
def test_wcxb_pages_whose_text_is_streamed_are_read(datasets_dir):
    """WCXB pages whose visible HTML is a skeleton and whose article arrives in hidden
    ``S:`` segments (React streaming): ``auto`` scored F1 < 0.05 on each before."""
    ds = Dataset(datasets_dir / "wcxb")
    auto = get_extractor("auto")
    for doc in ("0155", "4053", "4416", "4503"):
        f1 = score(auto.extract(ds.load_page(doc)), ds.gold(doc) or "").f1
        assert f1 >= 0.75, (doc, f1)


def test_auto_never_returns_nothing_when_a_classic_extractor_finds_text(monkeypatch):
    """A page whose decoding keeps nothing gets the fallback extractor's text."""
    from corpuscrawl.extract.learned import auto as auto_module
    from corpuscrawl.extract.learned.page_check import Review

    extractor = get_extractor("auto")
    model = extractor.estimator
    monkeypatch.setattr(type(model), "_reviewed", lambda self, page: (Review(""), ""))
    parts = extractor.extract_parts(page("hidden_drawer.html"))
    assert "sipes" in parts.text and parts.comments == ""
    monkeypatch.setattr(auto_module, "EMPTY_FALLBACK", None)
    assert extractor.extract_parts(page("hidden_drawer.html")).text == ""
