"""Every extractor and the template engine on hostile pages: bounded, nothing lost silently."""

from __future__ import annotations

import pytest

from corpuscrawl.html.content import sanitize_text
from corpuscrawl.html.page import Page
from tests.hostile_helpers import every_extraction, extraction_for
from tests.support.hostile_pages import PAGES, HostilePage, page_named

#: Pages of a few MB at most: every extractor runs on them in CI (200,000 siblings take
#: about 45 s over all extractors: marked slow).
SMALL = [pytest.param(p, marks=pytest.mark.slow) if p.name == "siblings" else p
         for p in PAGES if p.name not in ("huge-attribute", "huge-text", "50mb")]
#: Extractors that must keep the article of every text page (the others may judge it away).
ROBUST = ("bte", "justext", "boilerpipe-default", "readability", "auto")


def build(spec: HostilePage) -> Page:
    return Page.from_html(spec.build(), url=f"http://hostile.test/{spec.name}",
                          encoding=spec.charset)


#: The survival tests' extraction budget: a page that hangs an extractor still ends in an
#: error, but a loaded CI machine does not turn a slow page into one (the crawl's is 20 s).
TEST_BUDGET_SECONDS = 120


@pytest.fixture(scope="module")
def extractions():
    return every_extraction(CORPUSCRAWL_EXTRACTION_TIMEOUT=TEST_BUDGET_SECONDS)


@pytest.mark.parametrize("spec", SMALL, ids=lambda p: p.name if isinstance(p, HostilePage) else "")
def test_every_extractor_survives_the_page(spec, extractions):
    page = build(spec)
    if spec.marker:
        assert spec.marker in page.body.text_content()  # the parser lost nothing
    if spec.decoded:
        assert spec.decoded in page.html
    for name, extraction in extractions.items():
        # an extraction over its time budget ends with an error, which the asserts below catch
        result = extraction.run(page)
        if spec.binary:
            assert result.skipped == "binary" and not result.text, name
            continue
        assert not result.error, (name, result.error)
        assert sanitize_text(result.text)[1] == 0, name  # XML-compatible text only
        assert "\ufffd" not in result.text and "Ã©" not in result.text, name
        if spec.marker and name in ROBUST:
            assert spec.marker in result.text, name


def test_binary_bodies_are_recognised_not_extracted():
    for name in ("binary", "binary-latin1", "png"):
        page = build(page_named(name))
        assert page.binary and page.html == "" and page.notes == ("binary",)
    text = page_named("nul-controls").build()
    assert not Page.from_html(text).binary  # text with stray controls stays text


def test_justext_keeps_the_words_of_text_with_nul_and_control_characters():
    page = build(page_named("nul-controls"))
    clean = build(page_named("unclosed-title"))
    words = len(extraction_for("justext").run(page).text.split())
    assert words >= 0.9 * len(extraction_for("justext").run(clean).text.split())
    assert "control_chars_removed" in page.notes


def test_lying_charsets_are_decided_as_browsers_do():
    for name in ("charset-utf16-on-latin1", "charset-utf16-on-utf8", "header-utf16-on-utf8"):
        page = build(page_named(name))
        assert "café du port" in page.html and "charset_label_ignored" in page.notes, name
    assert "café du port" in build(page_named("utf16-no-bom")).html


def test_text_past_the_parsers_depth_limit_is_kept_and_noted():
    for name in ("deep-nesting", "unclosed-nesting"):
        page = build(page_named(name))
        assert "parse_reparsed" in page.notes
        text = extraction_for("template").run(page).text
        assert text.startswith("Harbour town keeps its old ferry\nThe council"), name


@pytest.mark.slow
def test_text_after_a_20_mb_attribute_is_kept():
    page = build(page_named("huge-attribute"))
    assert "parse_reparsed" in page.notes
    for name in ("bte", "justext", "template"):
        result = extraction_for(name).run(page)
        assert "harbour town voted" in result.text and "trimmed" in result.notes, name


@pytest.mark.slow
def test_oversized_pages_fail_into_the_failed_store_or_go_to_the_cheap_extractor():
    page = build(page_named("50mb"))
    result = extraction_for("justext").run(page)
    assert result.error.startswith("OversizedPage")
    # no time budget: what is tested is where an oversized page goes, and bte over the
    # trimmed 50 MB page can take longer than the default budget on a loaded machine
    cheap = extraction_for("justext", CORPUSCRAWL_EXTRACTION_OVERSIZED="bte",
                           CORPUSCRAWL_EXTRACTION_TIMEOUT=0).run(page)
    assert not cheap.error, cheap.error
    assert cheap.extractor == "bte" and "harbour town voted" in cheap.text
    assert "oversized" in cheap.notes
