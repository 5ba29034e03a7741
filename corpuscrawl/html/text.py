"""Normalisation of extracted text: one written form for the same text, whatever the page's markup.

Every extractor's and template's output passes through :func:`normalize_text`
once, in the extractor registry (:class:`corpuscrawl.extract.base.NormalizedExtractor`),
so the crawl, ``corpuscrawl extract``, the WARC replay and the evaluation runner
all give the same text.  The rules, each a function one can call alone:

1. :func:`remove_invisible` — characters that are invisible in running text and
   only get in the way of search and tokenisation are removed: the soft hyphen
   (U+00AD, a hyphenation hint: ``Ver&shy;sicherung`` is one word), the word
   joiner (U+2060) and the byte-order mark / zero-width no-break space (U+FEFF).
   Other format characters stay: the Mongolian vowel separator (U+180E) shapes
   the vowel after it, bidirectional marks (LRM, RLM, isolates) change how a
   right-to-left text displays.
2. :func:`resolve_zero_width` — the zero-width space (U+200B), zero-width
   non-joiner (U+200C) and zero-width joiner (U+200D) are kept only where they
   carry meaning, and removed elsewhere:

   * ZWNJ and ZWJ between two letters or marks of a script whose shaping they
     control — Arabic and Persian (``می`` U+200C ``خواهم``: the ZWNJ keeps the prefix
     unjoined; writing it without is a spelling error), Syriac, Thaana, N'Ko,
     Mongolian and the Brahmic scripts of South and South-East Asia (Devanagari
     to Sinhala, Myanmar, Khmer, Balinese, Javanese: half forms and explicit
     viramas).  Between Latin, Greek or Cyrillic letters they are only ligature
     hints (``Auf`` U+200C ``lage``) and go.
   * ZWJ inside an emoji sequence (a pictograph, with its skin-tone modifier or
     variation selector, followed by another pictograph: woman U+200D laptop is
     one emoji, a woman technologist, not two).
   * ZWSP between two letters of Thai, Lao, Khmer or Myanmar, scripts written
     without spaces where the ZWSP is the only word-boundary mark a page gives.
     Anywhere else (CMS editors scatter it in URLs and between Latin words) it
     goes.
3. :func:`nfc` — Unicode canonical composition (NFC): a decomposed ``u`` +
   U+0308 becomes ``ü``, so the same word has one spelling in the corpus
   (macOS and some CMSs write NFD).  Compatibility forms (NFKC: full-width
   letters, ligatures, superscripts) are not folded: they can be the text.
4. :func:`normalize_lines` — line breaks of every kind (CR LF, CR, VT, FF,
   NEL, U+2028, U+2029) become ``\\n``; within a line every run of white
   space, including the no-break space and the other Unicode spaces (category
   Zs) and tabs, becomes one space; lines are trimmed and empty lines dropped,
   so a text is its paragraphs, one per line, without leading or trailing space
   (the extractor contract of :mod:`corpuscrawl.extract.base`).

:func:`normalize_text` applies them in the order 1, 3, 2, 3, 4: removal first,
so that a combining mark after a removed soft hyphen composes with its base;
zero-width characters are judged on composed text in canonical order (NFC
reorders combining marks, and with them the neighbours of a joiner); NFC again
when one was removed.  The result is idempotent.  ASCII text skips the Unicode
rules.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "INVISIBLE_CHARS",
    "JOINER_SCRIPT_RANGES",
    "UNSPACED_SCRIPT_RANGES",
    "nfc",
    "normalize_line",
    "normalize_lines",
    "normalize_text",
    "remove_invisible",
    "resolve_zero_width",
]

#: Characters removed wherever they are (see rule 1 of the module docstring).
INVISIBLE_CHARS = "\u00ad\u2060\ufeff"

ZWSP, ZWNJ, ZWJ = "\u200b", "\u200c", "\u200d"
_ZERO_WIDTH_RE = re.compile("[\u200b\u200c\u200d]")

#: Code point ranges of the scripts whose shaping ZWNJ/ZWJ control (Unicode Standard §23.2):
#: Arabic (with Supplement, Extended-A/B and presentation forms), Syriac, Thaana, N'Ko,
#: Mandaic, the Indic block run Devanagari…Sinhala, Tibetan, Myanmar, Khmer, Mongolian,
#: Balinese, Javanese.
JOINER_SCRIPT_RANGES: tuple[tuple[int, int], ...] = (
    (0x0600, 0x08FF), (0x0900, 0x0DFF), (0x0F00, 0x0FFF), (0x1000, 0x109F),
    (0x1780, 0x18AF), (0x1B00, 0x1B7F), (0xA980, 0xA9DF), (0xAA60, 0xAA7F),
    (0xFB50, 0xFDFF), (0xFE70, 0xFEFC),
)
#: Scripts written without spaces between words, where a ZWSP marks a word boundary:
#: Thai, Lao, Myanmar, Khmer.
UNSPACED_SCRIPT_RANGES: tuple[tuple[int, int], ...] = (
    (0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF),
)
#: Emoji skin-tone modifiers and the emoji variation selector, which may stand between a
#: pictograph and the ZWJ of an emoji sequence.
_EMOJI_LINKS = frozenset(chr(c) for c in range(0x1F3FB, 0x1F400)) | {"\ufe0f"}


def _in_ranges(ch: str, ranges: tuple[tuple[int, int], ...]) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in ranges)


def _is_letter_or_mark(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LM"


def _is_pictograph(ch: str) -> bool:
    return ord(ch) >= 0x2000 and unicodedata.category(ch) == "So"


def _keep_zero_width(zw: str, before: str, after: str) -> bool:
    """True when the zero-width character ``zw`` between ``before`` and ``after`` is meaningful."""
    if not before or not after:
        return False
    if zw == ZWSP:
        return (_is_letter_or_mark(before) and _is_letter_or_mark(after)
                and _in_ranges(before, UNSPACED_SCRIPT_RANGES)
                and _in_ranges(after, UNSPACED_SCRIPT_RANGES))
    if zw == ZWJ and (_is_pictograph(before) or before in _EMOJI_LINKS) and _is_pictograph(after):
        return True
    return (_is_letter_or_mark(before) and _is_letter_or_mark(after)
            and (_in_ranges(before, JOINER_SCRIPT_RANGES) or _in_ranges(after, JOINER_SCRIPT_RANGES)))


def remove_invisible(text: str) -> str:
    """``text`` without soft hyphens, word joiners and byte-order marks (rule 1)."""
    for ch in INVISIBLE_CHARS:  # str.replace is a C loop; translate() with a dict is far slower
        if ch in text:
            text = text.replace(ch, "")
    return text


def resolve_zero_width(text: str) -> str:
    """``text`` with ZWSP/ZWNJ/ZWJ kept where meaningful and removed elsewhere (rule 2)."""
    if ZWSP not in text and ZWNJ not in text and ZWJ not in text:
        return text
    out: list[str] = []
    last = 0
    for m in _ZERO_WIDTH_RE.finditer(text):
        start = m.start()
        before = text[start - 1] if start else ""
        after = text[start + 1] if start + 1 < len(text) else ""
        if not _keep_zero_width(m.group(), before, after):
            out.append(text[last:start])
            last = start + 1
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def nfc(text: str) -> str:
    """``text`` in Unicode Normalization Form C (canonical composition)."""
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def normalize_line(line: str) -> str:
    """One line with every run of white space (Unicode spaces, tabs) as one space, trimmed."""
    return " ".join(line.split())


#: Every white-space character of ``str.split`` but the space and the line feed.
_ODD_SPACE_RE = re.compile("[\t\r\x0b\x0c\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


def _lines_normal(text: str) -> bool:
    """True when :func:`normalize_lines` would not change ``text`` (substring tests run in C)."""
    return not ("  " in text or "\n\n" in text or " \n" in text or "\n " in text
                or text[0] in " \n" or text[-1] in " \n" or _ODD_SPACE_RE.search(text))


def normalize_lines(text: str) -> str:
    """Every kind of line break as ``\\n``, each line's white space collapsed, empty lines dropped."""
    if not text or _lines_normal(text):  # most extractors already join normalised lines
        return text
    return "\n".join(line for line in map(normalize_line, text.splitlines()) if line)


def normalize_text(text: str) -> str:
    """The normal form of an extracted text (all rules of the module docstring, in order)."""
    if not text:
        return ""
    if not text.isascii():
        text = nfc(remove_invisible(text))
        resolved = resolve_zero_width(text)  # on composed, canonically ordered text: final neighbours
        text = resolved if resolved is text else nfc(resolved)
    return normalize_lines(text)
