"""Charset decisions, binary bodies and sanitising (corpuscrawl.html.content)."""

from __future__ import annotations

import codecs
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from corpuscrawl.html.content import (
    Charset,
    decide_encoding,
    decode_body,
    has_binary_signature,
    looks_binary,
    plain_text_utf8,
    sanitize_text,
    sniff_markup,
)

LATIN = "<html><head>{meta}</head><body><p>café naïve résumé</p></body></html>"


def test_meta_naming_utf16_is_not_believed_on_ascii_compatible_bytes():
    body = LATIN.format(meta='<meta charset="utf-16">').encode("latin-1")
    charset = decide_encoding(body)
    assert charset.codec == "cp1252" and charset.ignored_label == "utf-16"
    utf8 = LATIN.format(meta='<meta http-equiv="Content-Type" content="text/html; charset=UTF-32">')
    text, charset = decode_body(utf8.encode("utf-8"))
    assert "café naïve résumé" in text and charset.source == "detected"


def test_a_utf16_declaration_is_found_as_written_and_a_commented_one_is_not():
    one_byte = '<meta charset="UTF-16"><p>Un caf\xe9 au port, rien de plus.</p>'.encode("latin-1")
    text, charset = decode_body(one_byte)  # one legacy byte: UTF-8 would make it U+FFFD
    assert "café" in text and (charset.codec, charset.ignored_label) == ("cp1252", "utf-16")
    xml = ('<?xml version="1.0" encoding="utf-16"?>' + LATIN.format(meta="")).encode("latin-1")
    assert decide_encoding(xml).ignored_label == "utf-16"
    commented = LATIN.format(meta='<!-- <meta charset="utf-16"> --><meta charset="windows-1252">')
    assert decide_encoding(commented.encode("cp1252")) == Charset("cp1252", "meta")


def test_labels_decode_with_the_codec_that_reads_their_pages():
    chinese = "<p>汉字 € \U00020000</p>".encode("gb18030")  # GBK's decoder is GB18030's
    assert decode_body(chinese, "gbk")[0] == "<p>汉字 € \U00020000</p>"
    western = LATIN.format(meta="")
    assert decide_encoding(western.encode("cp850"), "cp850").codec == "cp850"  # no browser label
    for textless in ("base64", "x-user-defined", "utf-7"):
        assert decode_body(western.encode("utf-8"), textless)[1].source == "detected", textless
    for codec in ("utf-32-le", "utf-32-be"):
        bom = codecs.BOM_UTF32_LE if codec.endswith("le") else codecs.BOM_UTF32_BE
        assert decode_body(bom + western.encode(codec))[0] == western, codec


def test_bom_then_header_then_meta_then_detection():
    body = '<html><head><meta charset="iso-8859-2"></head><p>Zażółć gęślą</p>'.encode("cp1250")
    assert decide_encoding(codecs.BOM_UTF8 + body).source == "bom"
    assert decide_encoding(body, "windows-1250").codec == "cp1250"
    assert decide_encoding(body).source == "meta"
    assert decide_encoding(LATIN.format(meta="").encode("utf-8")).codec == "utf-8"
    text, _ = decode_body(codecs.BOM_UTF8 + "<p>é</p>".encode())
    assert text == "<p>é</p>"  # the BOM is dropped


def test_header_naming_utf16_is_believed_only_when_the_bytes_are_utf16():
    body = LATIN.format(meta="").encode("utf-8")
    assert decide_encoding(body, "utf-16").codec == "utf-8"
    assert decode_body(LATIN.format(meta="").encode("utf-16-le"), "utf-16")[0].startswith("<html>")


def test_detection_keeps_central_european_text_and_defaults_to_windows_1252():
    polish = "<p>Zażółć gęślą jaźń, to jest polski tekst.</p>".encode("cp1250")
    assert decide_encoding(polish).codec == "cp1250"
    assert decide_encoding("<p>Größe, Maße, schön.</p>".encode("cp1252")).codec == "cp1252"


def test_random_bytes_are_binary_and_text_with_controls_is_not():
    noise = random.Random(1).randbytes(100_000)
    assert looks_binary(noise.decode("utf-8", "replace"))
    assert looks_binary(noise.decode("latin-1"))
    words = " ".join(f"word{i}\x00" for i in range(2000))
    assert not looks_binary(words)
    assert not looks_binary("日本語のテキストです。" * 500)
    assert has_binary_signature(b"%PDF-1.7 ...") and not has_binary_signature(b"<html>")


def test_sanitize_drops_nul_and_spaces_other_controls():
    assert sanitize_text("a\x00b c\x07d\x0ce\ufffe") == ("ab c d e", 4)
    assert sanitize_text("plain text\n\ttab") == ("plain text\n\ttab", 0)


def test_markup_sniffing_as_whatwg_does():
    assert sniff_markup(b"  <!doctype html><html>") == "html"
    assert sniff_markup(b"<p>x</p>") == "html"
    assert sniff_markup(b'<?xml version="1.0"?><urlset>') == "xml"
    assert sniff_markup(b"plain words") is None and sniff_markup(b"\x89PNG") is None


#: Every character the binary and XML checks single out, beside ordinary text and markup.
_EDGE_CHARS = ("".join(map(chr, range(0x00, 0x20))) + "\x7f\x80\x85\x9f\xa0\xc2\u00ff"
               "\ufffd\ufffe\uffff\ud800\udfff\U0001f600 <>ab")


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_EDGE_CHARS) | st.characters(), max_size=80).map("".join))
def test_plain_text_utf8_only_passes_text_the_full_checks_leave_alone(text):
    utf8 = plain_text_utf8(text)
    if utf8 is not None:
        assert utf8 == text.encode("utf-8")
        assert not looks_binary(text)
        assert sanitize_text(text) == (text, 0)
    elif not looks_binary(text):
        assert any(ch in text for ch in "\ufffd\x7f") or any(
            0x80 <= ord(ch) <= 0x9f for ch in text) or sanitize_text(text)[1] > 0


def test_plain_text_utf8_sends_every_singled_out_character_to_the_full_checks():
    for ch in [*map(chr, range(0x00, 0x09)), "\x0b", "\x0c", *map(chr, range(0x0e, 0x20)),
               *map(chr, range(0x7f, 0xa0)), "\ufffd", "\ufffe", "\uffff", "\ud800", "\udfff"]:
        assert plain_text_utf8(f"<p>caf\u00e9 {ch} x</p>") is None, repr(ch)
    for text in ("", "<p>plain</p>\t\r\n", "<p>caf\u00e9 \u00a0 \U0001f600</p>"):
        assert plain_text_utf8(text) == text.encode("utf-8")
