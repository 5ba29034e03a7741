"""Property test: no generated hostile HTML makes any extractor or the template engine raise,
leak non-XML characters, or run without bound."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpuscrawl.html.content import sanitize_text
from corpuscrawl.html.page import Page
from tests.hostile_helpers import every_extraction

EXTRACTIONS = every_extraction(CORPUSCRAWL_EXTRACTION_TIMEOUT=5)

FRAGMENTS = [
    "<div>", "</div>", "<p>", "</p>", "<span>", "<b>", "<font size=2>", "<table><tr><td>",
    "</td></tr></table>", "<li>", "<ul>", "<h1>", "</h1>", "<br>", "<br/>", "<hr>", "<img src=x>",
    "<a href='/x'>", "<a href='javascript:void(0)'>", "</a>", "<title>", "</title>", "<head>",
    "<body>", "</body>", "</html>", "<html>", "<frameset>", "<frame src=a>", "<noframes>",
    "<noscript>", "</noscript>", "<script>", "</script>", "<style>", "</style>", "<svg>",
    "<math>", "<template>", "<select><option>", "<textarea>", "<pre>", "<!--", "-->",
    "<![CDATA[", "]]>", "<?xml version='1.0' encoding='utf-16'?>", '<meta charset="utf-16">',
    "<meta http-equiv='refresh' content='0'>", "<base href='http://x/'>", "&#0;", "&#xD800;",
    "&nbsp;", "&amp", "&#x110000;", "\x00", "\x01", "\x07", "\x0b", "\x0c", "\x1b", "\x7f",
    "\x85", "\u2028", "\ufeff", "\ufffe", "\uffff", "\ufffd", "<", ">", "\"", "'", "=",
    "<div class='post' data-x='", "' id=a>", "word ", "The harbour town voted on Tuesday. ",
    "Größe café naïve ", "日本語の文章です。", "العربية ", "\u200b", "\u00ad",
]

fragment = st.sampled_from(FRAGMENTS)
chunk = st.one_of(
    fragment,
    st.text(max_size=40),
    st.builds(lambda f, n: f * n, fragment, st.integers(min_value=1, max_value=400)),
)
html_text = st.lists(chunk, max_size=40).map("".join)
html_bytes = st.one_of(
    st.binary(max_size=3000),
    st.builds(lambda t, enc: t.encode(enc, "replace"), html_text,
              st.sampled_from(["utf-8", "latin-1", "cp1252", "utf-16-le", "utf-16", "shift_jis"])),
)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(body=st.one_of(html_text, html_bytes), charset=st.sampled_from([None, "utf-16", "latin-1"]))
def test_no_hostile_page_breaks_an_extractor(body, charset):
    page = Page.from_html(body, url="http://fuzz.test/", encoding=charset)
    for name, extraction in EXTRACTIONS.items():
        start = time.perf_counter()
        result = extraction.run(page)
        assert time.perf_counter() - start < 10, name
        assert not result.error, (name, result.error)
        assert sanitize_text(result.text)[1] == 0, name
        if page.binary:
            assert result.skipped == "binary" and not result.text
