"""Language identification and stoplist names."""

import pytest

from corpuscrawl.html.language import detect, stoplist_name


def test_detects_languages_of_real_sentences():
    assert detect("Gradska knjižnica potpisala je ovog tjedna sporazum o suradnji.")[0] in ("hr", "bs", "sr")
    assert detect("The council approved a six-month trial of the late-night bus service.")[0] == "en"
    assert detect("A könyvtár új olvasóterme csütörtökön nyílt meg a régi magtárban.")[0] == "hu"


def test_too_short_text_has_no_language():
    assert detect("ok") == ("", 0.0)


def test_stoplist_names():
    assert stoplist_name("pl") == "Polish"
    assert stoplist_name("hungarian") == "Hungarian"
    with pytest.raises(ValueError, match="ISO 639-1"):
        stoplist_name("klingon")
