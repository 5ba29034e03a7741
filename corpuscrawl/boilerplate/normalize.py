"""Paragraph normalization and fingerprints for the domain history.

Source: NewsFeed (Trampuš & Novak), end: copyright notices "do not change or change
very infrequently" — what changes is the year ("© 2019" → "© 2024"), a date
("Updated 3 March 2021") or a counter ("12 comments").  A paragraph is
therefore compared in a normalized form where

* Unicode is NFKC-folded and case-folded;
* every run of digits becomes ``0`` (so years, dates, times, counts match);
* month and weekday names of several languages become ``m`` / ``d``;
* punctuation other than ``©`` separates words; words are joined by one space.

The fingerprint of a paragraph is the first 8 bytes of BLAKE2b over the
normalized form, read as a signed 64-bit integer (what SQLite stores natively);
:func:`fingerprint_hex` gives the 16-digit hex form written to exported
documents.  64 bits make an accidental collision within one domain's history
vanishingly unlikely (birthday bound ~4·10⁹ distinct paragraphs).

Speed (the export stage must stay under 10 % of the extraction time,
benchmarks/results/boilerplate.md): a line that is ASCII once its non-ASCII
punctuation and symbols (curly quotes, dashes, ellipses, no-break spaces ...)
are made spaces is folded by one ``bytes.translate``; only lines with other
non-ASCII characters (letters, digits of other scripts) take the Unicode
path.  :func:`split_paragraphs` folds all such lines of a document as one
block (a few C calls per document instead of per line).  Both are exact:
``tests/test_boilerplate_normalize.py`` compares them with the plain rules
above.
(A cache of recently seen lines was measured and dropped: the lines that repeat
within a domain are short, and the look-ups cost what they saved;
benchmarks/results/boilerplate.md.)
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from itertools import repeat
from typing import NamedTuple

__all__ = [
    "CALENDAR_WORDS",
    "MONTH_WORDS",
    "Paragraph",
    "fingerprint",
    "fingerprint_hex",
    "normalize",
    "split_paragraphs",
]

# Month names (full and common abbreviations) in English, German, French, Spanish,
# Italian, Portuguese, Dutch, Polish, Croatian, Czech and Hungarian: dates in notices
# and bylines are written with them ("Updated March 5, 2019").
_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec "
    "januar februar märz maerz juni juli oktober dezember mär okt dez "
    "janvier février fevrier mars avril mai juin juillet août aout septembre octobre "
    "novembre décembre decembre "
    "enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre "
    "noviembre diciembre "
    "gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre "
    "janeiro fevereiro março marco maio junho julho setembro outubro novembro dezembro "
    "januari februari maart mei augustus "
    "stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października "
    "listopada grudnia styczeń luty marzec kwiecień czerwiec lipiec sierpień wrzesień "
    "październik listopad grudzień "
    "siječanj veljača ožujak travanj svibanj lipanj srpanj kolovoz rujan listopad "
    "studeni prosinac siječnja veljače ožujka travnja svibnja lipnja srpnja kolovoza "
    "rujna studenoga prosinca "
    "leden únor březen duben květen červen červenec srpen září říjen prosinec "
    "ledna února března dubna května června července srpna října listopadu prosince "
    "január február március április május június július augusztus szeptember "
    "október december"
)
_WEEKDAYS = (
    "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur "
    "thurs fri sat sun montag dienstag mittwoch donnerstag freitag samstag sonntag "
    "lundi mardi mercredi jeudi vendredi samedi dimanche lunes martes miércoles jueves "
    "viernes sábado domingo lunedì martedì mercoledì giovedì venerdì sabato "
    "poniedziałek wtorek środa czwartek piątek sobota niedziela ponedjeljak utorak "
    "srijeda četvrtak petak subota nedjelja"
)


#: Calendar words and what they become: month names "m", weekday names "d".
_CALENDAR = {**dict.fromkeys(_WEEKDAYS.split(), "d"), **dict.fromkeys(_MONTHS.split(), "m")}
#: Month and weekday names (lower case) of the languages above.
CALENDAR_WORDS = frozenset(_CALENDAR)
#: Month names alone.
MONTH_WORDS = frozenset(k for k, v in _CALENDAR.items() if v == "m")
_DIGITS_RE = re.compile(r"\d+")
# Words are runs of word characters or the copyright sign; everything else separates them.
_SEPARATORS_RE = re.compile(r"[^\w©]+")
# The same for ASCII text through bytes.translate (a 256-byte table, far faster than
# the expressions): letters lower-cased, digits to "0", "_" kept, anything else a space.
_ASCII_TABLE = bytes(
    c + 32 if 65 <= c <= 90 else c if 97 <= c <= 122 or c == 95 else 48 if 48 <= c <= 57
    else 32 for c in range(256))
# Calendar word -> its mask, for the calendar words an ASCII line can hold (bytes).
_ASCII_MASKS = {k.encode("ascii"): v.encode("ascii") for k, v in _CALENDAR.items() if k.isascii()}


def _separator_chars() -> str:
    """Non-ASCII punctuation, symbols and spaces that the rules turn into a separator.

    Drawn from the blocks web text uses (Latin-1 punctuation, General Punctuation,
    currency, arrows, box drawing, shapes, dingbats, the replacement character);
    a character qualifies when its general category is punctuation, symbol,
    separator or format (so it cannot combine with a neighbouring ASCII
    character under NFKC) and the Unicode rules alone fold it to nothing but
    separators: "…" (NFKC "...") does; "₨" (NFKC "Rs"), "²" (NFKC "2") and "©" do not.
    """
    blocks = ((0x80, 0x100), (0x2000, 0x2070), (0x20A0, 0x20D0), (0x2190, 0x2200),
              (0x2500, 0x2800), (0xFFFD, 0xFFFE))
    chars = []
    for start, end in blocks:
        for c in map(chr, range(start, end)):
            category = unicodedata.category(c)
            if (category[0] in "PSZ" or category == "Cf") and not _unicode_form(c):
                chars.append(c)
    return "".join(chars)


def _unicode_form(text: str) -> str:
    """The normalized form by the plain Unicode rules (NFKC, casefold, masks, one space)."""
    # Most web text is NFKC already; the quick check is ~100 times cheaper than normalizing.
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    words = _SEPARATORS_RE.sub(" ", _DIGITS_RE.sub("0", text.casefold())).split()
    if _CALENDAR.keys().isdisjoint(words):
        return " ".join(words)
    return " ".join([_CALENDAR.get(w, w) for w in words])


#: Non-ASCII characters that fold to a separator whatever surrounds them (see above);
#: on the benchmark pages they make 16.5 of the average 17 non-ASCII lines ASCII.
_SEPARATOR_CHARS = _separator_chars()
_SEPARATOR_CHARS_RE = re.compile("[" + re.escape(_SEPARATOR_CHARS) + "]")


def _ascii_form(text: str) -> bytes | None:
    """The normalized form as ASCII bytes, or None when ``text`` needs the Unicode rules.

    Exact for every text it accepts: ASCII after the separator characters are
    made spaces, where NFKC and case folding reduce to ASCII lower-casing.
    """
    if not text.isascii():
        text = _SEPARATOR_CHARS_RE.sub(" ", text)
        if not text.isascii():
            return None
    folded = text.encode("ascii").translate(_ASCII_TABLE)
    while b"00" in folded:  # digit runs to one "0"; every "0" here came from a digit
        folded = folded.replace(b"00", b"0")
    words = folded.split()
    return b" ".join(map(_ASCII_MASKS.get, words, words))  # calendar words masked


def normalize(paragraph: str) -> str:
    """The comparison form of a paragraph: folded, numbers/dates/months masked, spaced once."""
    form = _ascii_form(paragraph)
    return _unicode_form(paragraph) if form is None else form.decode("ascii")


def _digest(data: bytes) -> int:
    """The fingerprint of a folded paragraph: BLAKE2b-64 as a big-endian signed integer."""
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big", signed=True)


def fingerprint(normalized: str) -> int:
    """Signed 64-bit BLAKE2b fingerprint of an already normalized paragraph."""
    return _digest(normalized.encode("utf-8"))


def fingerprint_hex(value: int) -> str:
    """The 16-digit hex form of a fingerprint (as written to ``boilerplate_hashes``)."""
    return (value & 0xFFFF_FFFF_FFFF_FFFF).to_bytes(8, "big").hex()


class Paragraph(NamedTuple):
    """One paragraph of a document: its text as written, normalized form and fingerprint.

    A named tuple rather than a dataclass: documents have dozens of lines and
    creating a tuple is several times cheaper (the export stage's time budget).
    """

    text: str
    normalized: str
    fingerprint: int

    @classmethod
    def of(cls, text: str) -> Paragraph:
        """Normalize and fingerprint ``text``."""
        form = _ascii_form(text)
        if form is None:
            norm = _unicode_form(text)
            return cls(text, norm, fingerprint(norm))
        return cls(text, form.decode("ascii"), _digest(form))

    @property
    def words(self) -> int:
        """Number of words of the normalized form."""
        return self.normalized.count(" ") + 1 if self.normalized else 0


# The line separator inside a block of lines folded at once: put in as a word of its own
# after the folding, which has turned every control character of the text into a space.
_MARK = b"\x01"
# Digit runs, already "0"s (on a whole block one pass of this beats repeated halving).
_ZEROS_RE = re.compile(rb"00+")
# _ASCII_TABLE keeping the line breaks of a block.
_BLOCK_TABLE = _ASCII_TABLE[:10] + b"\n" + _ASCII_TABLE[11:]


def _ascii_block(lines: list[str]) -> list[bytes]:
    """:func:`_ascii_form` of many ASCII lines at once (a few C calls per block, not per line).

    The same steps on the lines joined by line breaks: fold, collapse digit
    runs, split into words (a line break becomes a marker word), mask calendar
    words (one dictionary look-up per word, in C), join, cut at the markers.
    """
    folded = _ZEROS_RE.sub(b"0", "\n".join(lines).encode("ascii").translate(_BLOCK_TABLE))
    words = folded.replace(b"\n", b" \x01 ").split()
    masked = b" ".join(map(_ASCII_MASKS.get, words, words))
    return [form.strip() for form in masked.split(_MARK)]


def _split_fold_py(text: str) -> tuple[list[str], list[str | None], list[int | None]]:
    """The stripped non-blank lines of ``text`` with each one's ASCII form and fingerprint.

    ``None`` (twice) for a line that needs the Unicode rules.  The ASCII-able
    lines are folded as one block (:func:`_ascii_block`).
    """
    lines = [line for line in map(str.strip, text.split("\n")) if line]
    spaced = [line if line.isascii() else _SEPARATOR_CHARS_RE.sub(" ", line) for line in lines]
    ascii_lines = [line for line in spaced if line.isascii()]
    forms = iter(_ascii_block(ascii_lines) if ascii_lines else [])
    folded = [next(forms) if line.isascii() else None for line in spaced]
    return (lines, [None if form is None else form.decode("ascii") for form in folded],
            [None if form is None else _digest(form) for form in folded])


_NEW_TUPLE = tuple.__new__


def _split_paragraphs(text: str) -> tuple[list[Paragraph], list[int]]:
    """The stripped non-blank lines of ``text`` as Paragraphs, and the indices of those
    that still need the Unicode rules (normalized form and fingerprint None)."""
    lines, normalized, fingerprints = _split_fold_py(text)
    pending = [index for index, form in enumerate(normalized) if form is None]
    return list(map(_NEW_TUPLE, repeat(Paragraph), zip(lines, normalized, fingerprints,
                                                        strict=True))), pending


def split_paragraphs(text: str) -> list[Paragraph]:
    """The non-blank lines of a document's text (the Extractor contract's paragraphs).

    Equal to ``[Paragraph.of(line.strip()) for line in text.split("\\n") if
    line.strip()]``, computed for the whole text at once: lines, ASCII forms,
    fingerprints and the tuples by :func:`_split_paragraphs`,
    then the rare lines needing the Unicode rules one by one.
    """
    paragraphs, pending = _split_paragraphs(text)
    for index in pending:
        line = paragraphs[index].text
        form = _unicode_form(line)
        paragraphs[index] = Paragraph(line, form, fingerprint(form))
    return paragraphs
