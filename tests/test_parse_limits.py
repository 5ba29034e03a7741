"""Pages past libxml2's limits keep their text (corpuscrawl.html.parse_limits)."""

from __future__ import annotations

import lxml.html

from corpuscrawl.html.page import parse_html_noted
from corpuscrawl.html.parse_limits import (
    cap_nesting,
    flatten_to_text,
    parse_beyond_limits,
    resource_limit,
)


def test_the_limit_error_is_read_from_the_parser():
    parser = lxml.html.HTMLParser(recover=True)
    lxml.html.document_fromstring("<div>" * 300 + "x", parser=parser)
    assert "depth" in resource_limit(parser).lower()
    parser = lxml.html.HTMLParser(recover=True)
    lxml.html.document_fromstring("<p>a<b>broken</i></p><unknown>", parser=parser)
    assert resource_limit(parser) == ""


def test_cap_nesting_cuts_wrapper_runs_first_and_keeps_inline_spacing():
    html = "<section> a <b>x</b> <div>" + "<div>" * 30 + "<p>t</p>" + "</div>" * 31
    capped = cap_nesting(html, 25)
    assert capped.startswith("<section> a <b>x</b> <div>") and "<p>t</p>" in capped
    assert capped.count("<div>") < 25
    assert cap_nesting("<p>a<p>b<p>c", 2) == "<p>a<p>b<p>c"  # implied ends are not depth
    script = "<div><script>if (a<b) { x = '<div>'; }</script></div>"
    assert cap_nesting(script, 5) == script


def test_flattening_keeps_title_and_text_blocks_only():
    flat = flatten_to_text("<title>T &amp; U</title><div>one <b>two</b></div><script>x</script>"
                           "<!-- c --><p>three &lt;4&gt;</p>")
    assert flat == ("<html><head><title>T &amp; U</title></head><body><p>one two</p>"
                    "<p>three &lt;4&gt;</p></body></html>")


def test_parse_beyond_limits_and_the_page_parse_use_it():
    root, repair = parse_beyond_limits("<div>" * 5000 + "<p>deep text</p>")
    assert repair == "reparsed" and "deep text" in root.text_content()
    root, repair = parse_html_noted("<p>" + "<span>" * 3000 + "kept</p>")
    assert repair == "reparsed" and "kept" in root.text_content()
    assert parse_html_noted("<p>normal</p>")[1] == ""
