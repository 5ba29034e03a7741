"""Paragraph normalization and fingerprints for the domain history.

Source: SPEC §6 (seed 002, end): copyright notices "do not change or change
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
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import NamedTuple

__all__ = [
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
_DIGITS_RE = re.compile(r"\d+")
# Words are runs of word characters or the copyright sign; everything else separates them.
_SEPARATORS_RE = re.compile(r"[^\w©]+")
# The same for ASCII text through str.translate (~100 times faster than the expressions on
# ASCII input): letters lower-cased, digits to "0", "_" kept, everything else a space.
_ASCII_TABLE = str.maketrans({
    chr(c): (chr(c).lower() if chr(c).isalpha() else "0" if chr(c).isdigit()
             else "_" if c == ord("_") else " ") for c in range(128)})


def _fold(text: str) -> str:
    """Case-folded, digits masked, separators as spaces (runs of spaces not yet collapsed)."""
    if text.isascii():
        folded = text.translate(_ASCII_TABLE)
        while "00" in folded:  # digit runs to one "0"; every "0" here came from a digit
            folded = folded.replace("00", "0")
        return folded
    # Most web text is NFKC already; the quick check is ~100 times cheaper than normalizing.
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    return _SEPARATORS_RE.sub(" ", _DIGITS_RE.sub("0", text.casefold()))


def normalize(paragraph: str) -> str:
    """The comparison form of a paragraph: folded, numbers/dates/months masked, spaced once."""
    words = _fold(paragraph).split()
    if _CALENDAR.keys().isdisjoint(words):
        return " ".join(words)
    return " ".join([_CALENDAR.get(w, w) for w in words])


def fingerprint(normalized: str) -> int:
    """Signed 64-bit BLAKE2b fingerprint of an already normalized paragraph."""
    digest = hashlib.blake2b(normalized.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


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
        norm = normalize(text)
        return cls(text, norm, fingerprint(norm))

    @property
    def words(self) -> int:
        """Number of words of the normalized form."""
        return self.normalized.count(" ") + 1 if self.normalized else 0


def split_paragraphs(text: str) -> list[Paragraph]:
    """The non-blank lines of a document's text (the Extractor contract's paragraphs)."""
    of = Paragraph.of
    return [of(line) for line in map(str.strip, text.split("\n")) if line]
