"""Title, date and author from JSON-LD, meta tags, microdata, <time> and the URL."""

from __future__ import annotations

import pytest

from corpuscrawl.extract.meta.metadata import (
    Metadata,
    clean_author,
    extract_metadata,
    normalize_date,
)
from corpuscrawl.html.page import Page


@pytest.fixture
def fixtures(data_dir):
    return data_dir / "extractors"


def test_json_ld_graph_beats_meta_tags(fixtures):
    meta = extract_metadata(Page.from_file(fixtures / "metadata_jsonld.html"))
    assert meta == Metadata("Bridge reopens after repairs", "2021-06-03T08:15:00+02:00",
                            "Ana Novak, Marko Horvat")


def test_meta_author_and_time_element_with_broken_json_ld(fixtures):
    meta = extract_metadata(Page.from_file(fixtures / "metadata_meta.html"))
    assert meta == Metadata("Harvest festival", "2022-09-17", "Jana Kovač")


def test_plain_page_time_text_rel_author_and_h1_title(fixtures):
    meta = extract_metadata(Page.from_file(fixtures / "metadata_plain.html"))
    assert meta == Metadata("Untitled page heading", "2020-03-03", "Lee Park")


def test_url_date_is_the_last_resort():
    page = Page.from_html("<html><body><p>x</p></body></html>",
                          url="https://example.org/news/2018/02/03/story.html")
    assert extract_metadata(page).date == "2018-02-03"
    assert extract_metadata(Page.from_html("<p>x</p>")) == Metadata()


@pytest.mark.parametrize(("value", "iso"), [
    ("2019-05-17T10:20:30Z", "2019-05-17T10:20:30Z"),
    ("2019-05-17T10:20:30+0200", "2019-05-17T10:20:30+02:00"),
    ("2019-05-17 10:20", "2019-05-17T10:20:00"),
    ("20190517", "2019-05-17"),
    ("May 17, 2019", "2019-05-17"),
    ("17 May 2019", "2019-05-17"),
    ("March 3rd, 2020", "2020-03-03"),
    ("2019-13-45", ""),
    ("yesterday", ""),
])
def test_normalize_date(value, iso):
    assert normalize_date(value) == iso


def test_clean_author():
    assert clean_author("By  Jane Doe ") == "Jane Doe"
    assert clean_author("https://facebook.com/someone") == ""
    assert clean_author("This is a whole sentence and certainly not the name of a person") == ""
