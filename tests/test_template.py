"""Template syntax (Bakić's thesis §4.6): every selector form, nesting, errors naming file and line."""

from pathlib import Path

import pytest

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.extract.classic.template import (
    TemplateError,
    TemplateExtractor,
    load_template,
    parse_line,
    parse_template,
)
from corpuscrawl.html.page import Page

TEMPLATES_DIR = Path(__file__).parent.parent / "templates"
FIXTURES = Path(__file__).parent / "data" / "templates"

PAGE = Page.from_html("""<html><body>
<div id="nav">Menu</div>
<article><h1>Title</h1><p class="lead">Lead text</p><p>Body text</p></article>
<div class="content">Second block <span data-x="1">nested data</span></div>
<p data-x="2">Outside data</p>
<div title='He said "hi"'>Quoted</div>
</body></html>""")


def extract(template_text: str) -> str:
    return TemplateExtractor(parse_template(template_text)).extract(PAGE)


def test_element_name_selects_every_such_element():
    assert extract("h1") == "Title"


def test_attribute_with_any_value():
    assert extract("data-x=") == "nested data\nOutside data"


def test_attribute_with_exact_value_everything_after_equals():
    assert extract("class=content") == "Second block nested data"
    assert extract("class=lea") == ""  # exact match, not prefix
    assert extract('title=He said "hi"') == "Quoted"


def test_nested_matches_are_skipped_and_texts_newline_joined():
    # the span is inside the selected div, so it is not repeated
    assert extract("class=content\ndata-x=") == "Second block nested data\nOutside data"
    assert extract("article\np") == "Title\nLead text\nBody text\nOutside data"


def test_blank_lines_skipped_and_union_in_document_order():
    assert extract("\n\nh1\n\nid=nav\n") == "Menu\nTitle"


def test_union_xpath():
    t = parse_template("article\nclass=x\ndata-id=")
    assert t.xpath == "//article | //*[@class='x'] | //*[@data-id]"
    assert parse_line("title=it's").xpath() == '//*[@title="it\'s"]'


@pytest.mark.parametrize("line,reason", [
    ("di v", "element name"),
    ("p.lead", "element name"),
    ("cl@ss=x", "attribute name"),
    ("=value", "attribute name"),
    ("title=a'b\"c", "both"),
])
def test_invalid_lines_are_rejected_with_file_and_line(tmp_path, line, reason):
    path = tmp_path / "bad.txt"
    path.write_text(f"article\n\n{line}\n", encoding="utf-8")
    with pytest.raises(TemplateError) as err:
        load_template(path)
    assert err.value.line_no == 3
    assert str(path) in str(err.value) and ":3:" in str(err.value)
    assert reason in str(err.value)


def test_registry_builds_template_extractor_from_path(tmp_path):
    path = tmp_path / "site.example.txt"
    path.write_text("h1\n", encoding="utf-8")
    extractor = get_extractor("template", path=str(path))
    assert extractor.name == "template-site.example"
    assert extractor.extract(PAGE) == "Title"
    with pytest.raises(ExtractorError, match="needs a template"):
        get_extractor("template")
    with pytest.raises(ExtractorError, match="cannot read template"):
        get_extractor("template", path=str(tmp_path / "missing.txt"))


def shipped_templates():
    return sorted(TEMPLATES_DIR.glob("*.txt"))


@pytest.mark.parametrize("template_path", shipped_templates(), ids=lambda p: p.stem)
def test_every_shipped_template_matches_its_fixture(template_path):
    """Each templates/<domain>.txt has tests/data/templates/<domain>.html and .expected.txt."""
    html = FIXTURES / f"{template_path.stem}.html"
    expected = FIXTURES / f"{template_path.stem}.expected.txt"
    assert html.is_file() and expected.is_file(), f"missing fixture for {template_path.name}"
    page = Page.from_file(html)
    text = TemplateExtractor(load_template(template_path)).extract(page)
    assert text == expected.read_text(encoding="utf-8").strip()
