"""jusText extractor: stoplists, ©-paragraphs, shared tree untouched."""

import pytest

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.html.page import Page

EN = ("<p>The volunteers who cleaned the river on Saturday said that they had found more "
      "plastic than in any of the previous years, and they want the council to act before "
      "the next storm washes even more of it down from the streets into the water.</p>")
HR = ("<p>Gradska knjižnica potpisala je ovog tjedna sporazum o suradnji s jednom knjižnicom, "
      "a dvije će ustanove razmjenjivati knjige i organizirati zajedničke večeri te "
      "pomagati jedna drugoj u digitalizaciji starih novina i fotografija iz svojih zbirki.</p>")


def page(body: str) -> Page:
    return Page.from_html(f"<html><body><div><a href='/'>Home</a> <a href='/x'>News</a></div>"
                          f"{body}</body></html>")


def test_keeps_prose_and_drops_link_menus():
    text = get_extractor("justext", language="en").extract(page(EN * 2))
    assert "volunteers" in text and "Home" not in text


def test_language_decides_the_stoplist():
    assert get_extractor("justext", language="hr").extract(page(HR * 2))
    assert get_extractor("justext", language="Croatian").extract(page(HR * 2))
    assert get_extractor("justext", language="auto").extract(page(HR * 2))
    assert get_extractor("justext", language="en").extract(page(HR * 2)) == ""


def test_copyright_paragraph_is_bad():
    notice = ("<p>© 2024 The paper and all of the writers. All of the rights are reserved and "
              "no part of this may be used without the permission of the owners of it.</p>")
    text = get_extractor("justext", language="en").extract(page(EN + notice + EN))
    assert "©" not in text and "volunteers" in text


def test_unknown_language_is_a_clear_error():
    with pytest.raises(ExtractorError, match="no jusText stoplist for language 'xx'"):
        get_extractor("justext", language="xx")
