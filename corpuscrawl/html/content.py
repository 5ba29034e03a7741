"""What a response body is: its character encoding, whether it is text at all, clean text.

Decisions follow the browsers (WHATWG Encoding and MIME Sniffing standards):

* **Charset** — a byte-order mark, then the HTTP ``charset``, then the
  ``<meta>`` prescan (w3lib's), then detection (strict UTF-8, then
  charset-normalizer, as Scrapy's ``TextResponse`` does, then windows-1252).
  A label is believed only when the bytes bear it out
  (:mod:`corpuscrawl.html.charset_evidence`): valid UTF-8 under another label is
  UTF-8, a label leaving many bytes undecodable or giving mess (Cyrillic read
  as Latin) gives way to the page's other label or detection, and a labelled
  body nothing reads is not ``readable``.
  A ``<meta>`` naming UTF-16 or UTF-32 is never believed: the HTML standard
  reads it as UTF-8, since a page whose ``<meta>`` can be read as ASCII is not
  UTF-16; when the bytes are not valid UTF-8 either, detection decides.  An HTTP
  header naming UTF-16/32 is believed only when the bytes look like it (no BOM
  but the zero bytes of UTF-16 text).  Such a ``<meta>`` is found from the label
  as written (:func:`utf16_32_declaration`): w3lib's prescan (from 2.6 on) gives
  the standard's UTF-8 in its place.
* **Labels** resolve through w3lib's table of the browsers' names, else as
  Python codec names (``cp850``, ``utf-32``; the Encoding Standard reads
  ISO-2022-KR and HZ as ``replacement``, one U+FFFD for the whole body).  A
  label for GBK decodes with GB18030 (the Encoding Standard's GBK decoder is
  GB18030's, and pages labelled ``gb2312`` or ``gbk`` hold GB18030
  characters); ``x-user-defined`` (bytes as private-use characters), UTF-7 and
  non-text codecs are no label.  Byte-order marks include UTF-32's.
* **Binary** — a known file signature (images, archives, PDF, fonts, media,
  executables) or a sample dominated by the WHATWG "binary data bytes" (C0
  controls other than whitespace), C1 controls or undecodable bytes while
  almost free of whitespace.  Text with stray NUL or control characters has
  its words and spaces and stays text.
* **Sanitising** — characters an XML tree cannot hold (C0 controls except tab,
  line feed and carriage return; U+FFFE, U+FFFF; lone surrogates) are removed
  once, so every extractor and lxml's cleaner get XML-compatible text.  NUL
  is dropped, as browsers do; the other controls (and the form feed, HTML
  whitespace) become a space: in real pages they stand between words.

Plain library code: no Scrapy.
"""

from __future__ import annotations

import codecs
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser

from w3lib.encoding import html_body_declared_encoding, resolve_encoding

from corpuscrawl.html.charset_evidence import check_label

#: Leading bytes of formats that are never a web page (WHATWG MIME Sniffing's image,
#: audio/video, font and archive signatures, plus PDF, executables and compressed data).
BINARY_SIGNATURES = (
    b"%PDF-", b"\x89PNG\r\n\x1a\n", b"GIF87a", b"GIF89a", b"\xff\xd8\xff", b"RIFF",
    b"\x00\x00\x01\x00", b"\x00\x00\x02\x00", b"OggS", b"\x1aE\xdf\xa3", b"fLaC", b"wOFF",
    b"wOF2", b"\x00\x01\x00\x00", b"PK\x03\x04", b"\x1f\x8b", b"7z\xbc\xaf\x27\x1c",
    b"Rar!\x1a\x07", b"\xfd7zXZ\x00", b"(\xb5/\xfd", b"\x7fELF", b"\xca\xfe\xba\xbe",
    b"\xcf\xfa\xed\xfe", b"\x00asm",
)
#: Characters sampled from the start, middle and end of a body to classify it.
SNIFF_SAMPLE_CHARS_DEFAULT = 16 * 1024
#: A sample is binary when at least this share of it is control or undecodable characters ...
BINARY_BAD_SHARE_DEFAULT = 0.08
#: ... and less than this share is whitespace (prose and markup have 10-20 %; random bytes ~2 %).
BINARY_MAX_SPACE_SHARE_DEFAULT = 0.05
#: Bodies shorter than this are binary only at a higher share of bad characters.
SHORT_BODY_CHARS = 64

# WHATWG "binary data bytes" (C0 controls that are not whitespace), C1 controls, U+FFFD.
_BAD_CHARS_RE = re.compile("[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f-\x9f\ufffd]")
# Not allowed in XML 1.0 (lxml refuses them in text and attribute values).
_NOT_XML_RE = re.compile("[\x00-\x08\x0b\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
_DROPPED_RE = re.compile("[\x00\ufffe\uffff\ud800-\udfff]")
_SPACED_RE = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f]")
#: Central European codecs taken from detection when the text has letters windows-1252 lacks
#: (ą, ł, ő, č ...); every other Latin-only guess (cp1250 for English, cp775, mac-roman, DOS
#: pages: charset-normalizer's picks on Western text) becomes windows-1252, the browsers'
#: default for undeclared Western pages.
CENTRAL_EUROPEAN_CODECS = frozenset({"cp1250", "iso8859-2"})
_UTF16_32 = ("utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be")
#: The Encoding Standard's labels of UTF-16 that are no Python codec name.
_UTF16_LABELS = frozenset({"csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff",
                           "unicodefffe"})
#: Codecs a label may resolve to that give no text: the Encoding Standard's
#: ``replacement`` (one U+FFFD for the whole body) and ``x-user-defined`` (bytes as
#: private-use characters).
_TEXTLESS_CODECS = frozenset({"replacement", "x-user-defined"})
#: Codecs decoded with a superset that browsers use in their place.
_WIDER_CODECS = {"gbk": "gb18030"}
#: Byte-order marks, UTF-32's before UTF-16's (``FF FE 00 00`` starts with ``FF FE``).
_BOMS = ((codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF32_LE, "utf-32-le"),
         (codecs.BOM_UTF16_BE, "utf-16-be"), (codecs.BOM_UTF16_LE, "utf-16-le"),
         (codecs.BOM_UTF8, "utf-8"))
#: Where a ``<meta>`` or XML declaration may name UTF-16/32: pages that do are rare,
#: so the declaration is parsed only when the prescanned bytes match this.
_UTF16_32_HINT_RE = re.compile(
    rb"(?:charset|encoding)\s*=\s*[\"']?\s*(?:utf[-_]?(?:16|32)|ucs-?2|unicode|iso-10646-ucs-2|"
    rb"csunicode)", re.IGNORECASE)
_XML_ENCODING_RE = re.compile(r"""\bencoding\s*=\s*["']([^"']*)""", re.IGNORECASE)
_CONTENT_CHARSET_RE = re.compile(r"""charset\s*=\s*["']?\s*([\w.:-]+)""", re.IGNORECASE)
#: Bytes of a body the ``<meta>`` prescan reads (the HTML standard's 1,024, w3lib's 4,096).
PRESCAN_BYTES = 4096


def read_bom(body: bytes) -> tuple[str, bytes] | tuple[None, None]:
    """``(codec, BOM)`` of the byte-order mark ``body`` starts with, else ``(None, None)``."""
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return codec, bom
    return None, None


def _python_codec(name: str) -> str | None:
    """Python's canonical name of text codec ``name``, or None (unknown, non-text, UTF-7)."""
    try:
        info = codecs.lookup(name)
    except (LookupError, TypeError, ValueError):
        return None
    if not getattr(info, "_is_text_encoding", True):  # base64, zlib, rot13 ...
        return None
    return None if info.name == "utf-7" or info.name in _TEXTLESS_CODECS else info.name


@functools.lru_cache(maxsize=256)
def _codec(name: str | None) -> str | None:
    """The Python codec that decodes charset label ``name``, or None.

    w3lib's table of the browsers' labels first; a label it has no text codec for
    (``cp850``, ``utf-32``, ``iso-2022-kr``) as a Python codec name, which the
    bytes must then bear out like any label.
    """
    if not name:
        return None
    resolved = resolve_encoding(name)
    codec = (_python_codec(resolved) if resolved else None) or _python_codec(name.strip())
    return _WIDER_CODECS.get(codec, codec) if codec else None


def _label_name(label: str) -> str:
    """``label`` as reported: the Python codec name when there is one, else as written."""
    label = label.strip().lower()
    return _python_codec(label) or label


def is_utf16_32(name: str | None) -> bool:
    """True when charset label ``name`` names UTF-16 or UTF-32 in any byte order."""
    if not name:
        return False
    label = name.strip().lower()
    return label in _UTF16_LABELS or (_python_codec(label) or "") in _UTF16_32


class _DeclarationParser(HTMLParser):
    """The label of the first ``<meta>`` or XML declaration naming a charset, before ``<body>``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.label: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.label is not None:
            return
        if tag == "body":
            self.label = ""
        elif tag == "meta":
            values = {name: value or "" for name, value in attrs}
            if "charset" in values:
                self.label = values["charset"].strip()
            elif "content-type" in values.get("http-equiv", "").lower():
                match = _CONTENT_CHARSET_RE.search(values.get("content", ""))
                if match:
                    self.label = match.group(1)

    handle_startendtag = handle_starttag

    def handle_pi(self, data: str) -> None:
        match = _XML_ENCODING_RE.search(data) if data.lower().startswith("xml") else None
        if self.label is None and match:
            self.label = match.group(1).strip()


def utf16_32_declaration(head: bytes) -> str:
    """The label (as written) of ``head``'s first charset declaration when it names UTF-16
    or UTF-32, else "".

    w3lib's prescan (from 2.6 on) resolves such a ``<meta>`` to the standard's UTF-8,
    or skips a UTF-32 one, so the label is read here, only from heads that spell one.
    """
    if _UTF16_32_HINT_RE.search(head) is None:
        return ""
    parser = _DeclarationParser()
    parser.feed(head.decode("latin-1"))
    return parser.label if parser.label and is_utf16_32(parser.label) else ""


def looks_utf16(body: bytes) -> str | None:
    """``"utf-16-le"``/``"utf-16-be"`` when the bytes have the zero bytes of UTF-16 text."""
    sample = body[:4096]
    if len(sample) < 8 or b"\x00" not in sample:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) > 0.3 * len(odd) and even.count(0) < 0.05 * len(even):
        return "utf-16-le"
    if even.count(0) > 0.3 * len(even) and odd.count(0) < 0.05 * len(odd):
        return "utf-16-be"
    return None


def http_charset(content_type: str | bytes | None) -> str | None:
    """The ``charset`` parameter of a Content-Type header value, or None."""
    if not content_type:
        return None
    if isinstance(content_type, bytes):
        content_type = content_type.decode("latin-1")
    match = re.search(r"charset\s*=\s*[\"']?([^\s;\"']+)", content_type, re.IGNORECASE)
    return match.group(1) if match else None


def detect_encoding(body: bytes) -> str:
    """Encoding of undeclared bytes: strict UTF-8, else charset-normalizer's best, else cp1252."""
    try:
        body.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # optional: Scrapy installs it
        return "cp1252"
    match = from_bytes(body[:64 * 1024]).best()
    codec = _codec(match.encoding) if match else None
    if codec is None:
        return "cp1252"
    latin_only = all(any(word in alphabet for word in ("Latin", "Punctuation", "Control"))
                     for alphabet in match.alphabets)
    if not latin_only:
        return codec
    if codec in CENTRAL_EUROPEAN_CODECS and _letters_beyond_cp1252(body, codec) >= 3:
        return codec
    return "cp1252"


def _letters_beyond_cp1252(body: bytes, codec: str) -> int:
    """Letters of ``body`` decoded as ``codec`` that windows-1252 has no byte for."""
    count = 0
    for ch in set(body.decode(codec, errors="replace")):
        if ch.isalpha() and not ch.isascii():
            try:
                ch.encode("cp1252")
            except UnicodeEncodeError:
                count += 1
    return count


@dataclass(frozen=True)
class Charset:
    """The encoding chosen for a body, where it came from, and a label not believed."""

    #: Python codec name; "" when the page is labelled and no decoding reads (see ``readable``).
    codec: str
    #: bom | header | utf16-sniffed | meta | detected | evidence (a label that did not fit)
    source: str
    #: The label (header or ``<meta>``) that the bytes contradicted, else "".
    ignored_label: str = ""

    @property
    def readable(self) -> bool:
        """False when the label does not fit the bytes and nothing else reads them either."""
        return bool(self.codec)


def decide_encoding(body: bytes, declared: str | None = None) -> Charset:
    """The charset of HTML ``body`` given the HTTP header's charset ``declared`` (or None).

    A label naming UTF-16/32 is believed only with a BOM or UTF-16 zero bytes
    (see the module docstring).
    """
    bom, _ = read_bom(body)
    if bom:
        return Charset(bom, "bom")
    head = body[:PRESCAN_BYTES]
    meta = _codec(html_body_declared_encoding(head))
    lying_meta = utf16_32_declaration(head) or (meta if is_utf16_32(meta) else "")
    if lying_meta:
        meta = None
    header_utf16_32 = is_utf16_32(declared)
    header = None if header_utf16_32 else _codec(declared)
    if header:
        return _checked(body, header, "header", meta)
    utf16 = looks_utf16(body)
    if utf16:
        return Charset(utf16, "utf16-sniffed")
    if meta:
        return _checked(body, meta, "meta", None)
    ignored = declared if header_utf16_32 and declared else lying_meta
    return Charset(detect_encoding(body), "detected", _label_name(ignored) if ignored else "")


def _checked(body: bytes, label: str, source: str, other: str | None) -> Charset:
    """The labelled charset when the bytes bear it out, else the one they show (see
    :mod:`corpuscrawl.html.charset_evidence`); codec "" when no decoding reads."""

    def candidates() -> Iterator[str]:
        if other and not is_utf16_32(other):
            yield other
        yield detect_encoding(body)

    verdict = check_label(body, label, candidates())
    if verdict.fits:
        return Charset(label, source)
    return Charset(_codec(verdict.codec) or "", "evidence", label)


def decode_body(body: bytes, declared: str | None = None) -> tuple[str, Charset]:
    """(text, charset) of HTML bytes; undecodable bytes become U+FFFD, a BOM is dropped.

    When no decoding reads the bytes (``charset.readable`` False) the text is
    the label's decoding, for callers that only look; a crawl drops such a page.
    """
    charset = decide_encoding(body, declared)
    if not charset.readable:
        return body.decode(_codec(charset.ignored_label) or "cp1252", errors="replace"), charset
    if charset.source == "bom":
        body = body[len(read_bom(body)[1]):]
    return body.decode(charset.codec, errors="replace"), charset


def has_binary_signature(body: bytes) -> bool:
    """True when ``body`` starts with the signature of a non-text format."""
    return body.startswith(BINARY_SIGNATURES)


def _sample(text: str, size: int) -> str:
    if len(text) <= 3 * size:
        return text
    middle = len(text) // 2
    return text[:size] + text[middle:middle + size] + text[-size:]


def looks_binary(text: str, sample_chars: int = SNIFF_SAMPLE_CHARS_DEFAULT) -> bool:
    """True when decoded ``text`` is mostly control/undecodable characters with little whitespace."""
    sample = _sample(text, sample_chars)
    if not sample or _BAD_CHARS_RE.search(sample) is None:
        return False
    bad = len(_BAD_CHARS_RE.findall(sample)) / len(sample)
    space = sum(sample.count(c) for c in "\t\n\x0c\r ") / len(sample)
    if len(sample) < SHORT_BODY_CHARS:
        return bad >= 0.3 and space < BINARY_MAX_SPACE_SHARE_DEFAULT
    return bad >= BINARY_BAD_SHARE_DEFAULT and space < BINARY_MAX_SPACE_SHARE_DEFAULT


def _has_non_characters(text: str) -> bool:
    """True when ``text`` holds U+FFFE, U+FFFF or a lone surrogate (a fast check)."""
    if text.isascii():
        return False
    if "\ufffe" in text or "\uffff" in text:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# Bytes that, in UTF-8, can only stand for the C0 controls of _CONTROL_RE and _BAD_CHARS_RE
# (and DEL): UTF-8 multi-byte sequences use bytes >= 0x80 only.
_CONTROL_BYTES = bytes([*range(0x09), 0x0b, 0x0c, *range(0x0e, 0x20), 0x7f])
# C1 controls (U+0080-U+009F) in UTF-8.
_C1_UTF8_RE = re.compile(rb"\xc2[\x80-\x9f]")


def plain_text_utf8(text: str) -> bytes | None:
    """``text`` as UTF-8 when it holds nothing :func:`looks_binary` or :func:`sanitize_text` acts on.

    None when ``text`` has a control character (C0 but tab, LF, CR; DEL; C1),
    U+FFFD, U+FFFE, U+FFFF or a lone surrogate: the caller then runs those two
    checks.  One UTF-8 encoding and a few C-level scans of it (each character
    class at once with ``bytes.translate``) replace the regular-expression
    scans of the whole text, which cost more than lxml's parse on typical pages;
    when this returns bytes, ``looks_binary(text)`` is False and
    ``sanitize_text(text)`` returns ``(text, 0)``.  The bytes are what the page's
    parse reads (:func:`corpuscrawl.html.page.parse_html_noted`).
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return None
    if len(data.translate(None, _CONTROL_BYTES)) != len(data):
        return None
    if not text.isascii() and ("\ufffd" in text or "\ufffe" in text or "\uffff" in text
                               or _C1_UTF8_RE.search(data) is not None):
        return None
    return data


def sanitize_text(text: str) -> tuple[str, int]:
    """``text`` without characters an XML tree cannot hold, and how many there were.

    NUL, U+FFFE/U+FFFF and lone surrogates are removed (browsers drop NUL); the
    other C0 controls and the form feed become a space, since in real pages they
    stand between words (a mangled no-break space).
    """
    if _CONTROL_RE.search(text) is None and not _has_non_characters(text):
        return text, 0
    text, dropped = _DROPPED_RE.subn("", text)
    text, spaced = _SPACED_RE.subn(" ", text)
    return text, dropped + spaced


_HTML_SIGNATURE_RE = re.compile(
    rb"\s*(?:<!DOCTYPE\s+HTML|<HTML|<HEAD|<SCRIPT|<IFRAME|<H1|<DIV|<FONT|<TABLE|<A|<STYLE|"
    rb"<TITLE|<B|<BODY|<BR|<P|<!--)[\s>]", re.IGNORECASE)
_XML_SIGNATURE_RE = re.compile(rb"\s*<\?xml[\s?]")


def sniff_markup(body: bytes) -> str | None:
    """``"html"`` or ``"xml"`` when the start of ``body`` is such markup (WHATWG's patterns)."""
    head = body[:1445]
    bom, raw = read_bom(head)
    if bom:
        head = head[len(raw):]
    if _HTML_SIGNATURE_RE.match(head):
        return "html"
    if _XML_SIGNATURE_RE.match(head):
        return "html" if re.search(rb"<html[\s>]", body[:4096], re.IGNORECASE) else "xml"
    return None
