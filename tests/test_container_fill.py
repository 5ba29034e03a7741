"""The container fill: lists, tables and code blocks inside the kept text's own element."""

from __future__ import annotations

import numpy as np
import pytest

import corpuscrawl.extract.learned.auto as auto_module
from corpuscrawl.evaluation.datasets import Dataset
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.learned.auto import decoded_labels
from corpuscrawl.extract.segment.cdom import tree_blocks
from corpuscrawl.extract.segment.container import fill_container, main_container
from corpuscrawl.html.page import Page

PARA = "<p>Paragraph {} explains how the service is booked and what it costs per visit.</p>"


def _blocks(html: str) -> list:
    return tree_blocks(Page.from_html(html).tree.find("body"))


def _page(inner: str) -> list:
    """A page: a sidebar list, the main element (two paragraphs, ``inner``, two more) and a
    footer list."""
    return _blocks("<html><body><ul class='sidebar'><li><a href='/a'>Prices</a></li>"
                   "<li>Opening hours of the shop</li></ul><div id='main'>"
                   + PARA.format(1) + PARA.format(2) + inner + PARA.format(3) + PARA.format(4)
                   + "</div><ul><li>Terms of the site and its legal notes</li></ul>"
                   "</body></html>")


def _probabilities(blocks: list, structured: float, outside: float) -> np.ndarray:
    """0.9 for the paragraphs, ``structured`` inside the main element, ``outside`` for the
    sidebar and footer lists."""
    main = blocks[2].path[1]
    return np.array([0.9 if b.text.startswith("Paragraph") else
                     structured if main in b.path else outside for b in blocks])


def test_a_table_and_code_inside_the_kept_element_join_the_text():
    blocks = _page("<table><tr><td>Small flat</td><td>40 euros</td></tr></table>"
                   "<pre>book --visit monday</pre><ul><li>Bring your own ladder</li></ul>")
    p = _probabilities(blocks, structured=0.2, outside=0.3)
    labels = [int(x > 0.5) for x in p]
    filled = fill_container(blocks, labels, p)
    texts = [b.text for b, keep in zip(blocks, filled, strict=True) if keep]
    assert {"Small flat", "40 euros", "book --visit monday", "Bring your own ladder"} <= set(texts)
    # the sidebar and the footer lists are outside the main element: unchanged
    assert not any(t in texts for t in ("Prices", "Opening hours of the shop",
                                        "Terms of the site and its legal notes"))


def test_what_the_model_is_nearly_sure_of_stays_out():
    blocks = _page("<ul><li><a href='/x'>Share on a network</a></li></ul>")
    p = _probabilities(blocks, structured=0.05, outside=0.3)
    labels = [int(x > 0.5) for x in p]
    assert fill_container(blocks, labels, p) == labels


def test_a_list_after_the_last_kept_block_stays_out():
    blocks = _blocks("<html><body><div id='main'>" + PARA.format(1) + PARA.format(2)
                     + "<ul><li>Another story of the site</li><li>And one more</li></ul>"
                     "</div></body></html>")
    p = np.array([0.9, 0.9, 0.3, 0.3])
    labels = [1, 1, 0, 0]
    assert fill_container(blocks, labels, p) == labels


def test_nothing_kept_means_no_container():
    blocks = _page("<ul><li>Bring your own ladder</li></ul>")
    labels = [0] * len(blocks)
    assert main_container(blocks, labels) is None
    assert fill_container(blocks, labels, np.full(len(blocks), 0.3)) == labels


def test_the_decoding_fills_unless_switched_off():
    blocks = _page("<table><tr><td>Small flat</td><td>40 euros</td></tr></table>")
    p = _probabilities(blocks, structured=0.2, outside=0.3)
    pairs = np.full((len(blocks) - 1, 4), 0.25)
    plain = decoded_labels(blocks, p, pairs, 0.0, 0.0, container_fill=False)
    filled = decoded_labels(blocks, p, pairs, 0.0, 0.0)
    assert sum(filled) == sum(plain) + 2


def test_on_a_service_page_the_paragraphs_inside_the_kept_element_join_the_text():
    blocks = _page("<h3>Our visits</h3><p>A short note on how each visit is planned.</p>")
    main = blocks[2].path[1]
    p = np.array([0.9 if b.text.startswith("Paragraph") else 0.25 if main in b.path
                  else 0.3 for b in blocks])
    pairs = np.full((len(blocks) - 1, 4), 0.25)
    texts = {kind: [b.text for b, keep in zip(blocks, decoded_labels(
        blocks, p, pairs, 0.0, 0.0, page_type=kind), strict=True) if keep]
        for kind in ("article", "service")}
    assert "A short note on how each visit is planned." not in texts["article"]
    assert {"Our visits", "A short note on how each visit is planned."} <= set(texts["service"])
    assert "Opening hours of the shop" not in texts["service"]  # outside the main element
    below = p.copy()
    below[below == 0.25] = 0.15  # under the floor: stays out on a service page too
    assert decoded_labels(blocks, below, pairs, 0.0, 0.0, page_type="service") == \
        decoded_labels(blocks, below, pairs, 0.0, 0.0, page_type="article")


@pytest.mark.datasets
def test_a_table_of_items_on_a_real_page_is_kept(datasets_dir, monkeypatch):
    """wcxb 2905, a list of Nobel laureates: the model alone keeps the introduction and a
    few rows of the table; with the fill the rows join the text, and they are the gold's."""
    if not (datasets_dir / "wcxb" / "html").is_dir():
        pytest.skip(f"wcxb not found under {datasets_dir}")
    ds = Dataset(datasets_dir / "wcxb")
    if not ds.gold_path("2905").is_file():
        pytest.skip("wcxb page 2905 not in the datasets")
    page, gold = ds.load_page("2905"), ds.gold("2905") or ""
    extractor = get_extractor("auto")
    filled = extractor.extract(page).splitlines()
    monkeypatch.setattr(auto_module, "fill_container",
                        lambda blocks, labels, p, **options: list(labels))
    plain = extractor.extract(page).splitlines()
    added = [line for line in filled if line not in plain]
    assert {"Wilhelm Röntgen", "Emil von Behring"} <= set(added)
    assert len(added) > 100
    assert sum(line in gold for line in added) >= 0.9 * len(added)
