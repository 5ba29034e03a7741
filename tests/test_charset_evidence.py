"""A charset label is believed only when the bytes bear it out (corpuscrawl.html.charset_evidence)."""

from __future__ import annotations

import gzip

import pytest

from corpuscrawl.html.charset_evidence import check_label
from corpuscrawl.html.content import _codec, decide_encoding, decode_body
from corpuscrawl.html.page import Page
from tests.conftest import DATASETS_DIR as DATASETS
from tests.support.hostile_hosts import CHINESE, CYRILLIC, JAPANESE, WESTERN


def doc(text: str, head: str = "") -> str:
    return (f"<!DOCTYPE html><html><head>{head}<title>t</title></head><body>"
            + f"<p>{text}</p>" * 3 + "</body></html>")


@pytest.mark.parametrize("text, encoding, label, expected", [
    (CYRILLIC, "utf-8", "iso-8859-1", "utf-8"),
    (CYRILLIC, "cp1251", "utf-8", "cp1251"),
    (CYRILLIC, "cp1251", "iso-8859-1", "cp1251"),
    (WESTERN, "cp1252", "utf-8", "cp1252"),
    (WESTERN, "utf-8", "windows-1252", "utf-8"),
    (JAPANESE, "shift_jis", "utf-8", "cp932"),
    (CHINESE, "gb18030", "iso-8859-1", "gb18030"),
    (CHINESE, "utf-8", "gbk", "utf-8"),
])
def test_a_label_the_bytes_contradict_gives_way_to_the_bytes(text, encoding, label, expected):
    body = doc(text).encode(encoding)
    decoded, charset = decode_body(body, label)
    assert charset.codec == expected and charset.source == "evidence"
    assert text in decoded and "\ufffd" not in decoded
    assert charset.ignored_label == _codec(label)


@pytest.mark.parametrize("text, encoding", [
    (CYRILLIC, "cp1251"), (CYRILLIC, "koi8-r"), (WESTERN, "cp1252"), (WESTERN, "iso-8859-15"),
    (JAPANESE, "shift_jis"), (JAPANESE, "euc-jp"), (CHINESE, "gb18030"), (CYRILLIC, "iso-8859-5"),
    (CYRILLIC, "utf-8"), (WESTERN, "utf-8"),
])
def test_a_label_that_fits_is_kept(text, encoding):
    body = doc(text).encode(encoding)
    for place in ("header", "meta"):
        if place == "header":
            charset = decide_encoding(body, encoding)
        else:
            charset = decide_encoding(doc(text, f"<meta charset='{encoding}'>").encode(encoding))
        assert charset.source == place and charset.codec == _codec(encoding)


def test_the_meta_label_is_tried_before_detection_when_the_header_lies():
    body = doc(CYRILLIC, "<meta charset='koi8-r'>").encode("koi8-r")
    charset = decide_encoding(body, "utf-8")
    assert charset.codec == "koi8-r" and charset.source == "evidence"


def test_a_few_stray_bytes_in_a_utf8_page_keep_its_label():
    body = doc(CYRILLIC * 3).encode() + "<p>café</p>".encode("cp1252") * 3
    charset = decide_encoding(body, "utf-8")
    assert charset.codec == "utf-8" and charset.source == "header"


def test_a_labelled_body_nothing_reads_is_undecodable_not_mojibake():
    body = doc("x").encode() + bytes(range(0x80, 0x100)) * 40  # no encoding makes text of this
    page = Page.from_html(body, url="http://x.test/", encoding="utf-8")
    assert page.unreadable in ("charset_undecodable", "binary") and page.html == ""


def test_check_label_passes_ascii_and_fitting_labels_through():
    assert check_label(b"<p>plain</p>", "cp1252").fits
    assert check_label(doc(WESTERN).encode("cp1252"), "cp1252").fits


@pytest.mark.datasets
def test_labels_of_the_benchmark_pages_change_only_for_valid_utf8():
    """Every benchmark page keeps its label unless the bytes are valid UTF-8 under another one
    (the measure in benchmarks/results/hostile.md, "Lying charsets")."""
    if not DATASETS.is_dir():
        pytest.skip(f"benchmark datasets not found at {DATASETS}")
    changed = 0
    for path in sorted(DATASETS.glob("*/html/*.html.gz")):
        body = gzip.decompress(path.read_bytes())
        charset = decide_encoding(body)
        if charset.source == "evidence":
            changed += 1
            assert charset.codec == "utf-8", path
            body.decode("utf-8")  # valid
    assert changed < 150
