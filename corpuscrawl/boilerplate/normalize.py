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
from dataclasses import dataclass

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


_MONTH_WORDS = frozenset(_MONTHS.split())
_WEEKDAY_WORDS = frozenset(_WEEKDAYS.split())
_DIGITS_RE = re.compile(r"\d+")
# Words are runs of word characters or the copyright sign; everything else separates them.
_WORD_RE = re.compile(r"[\w©]+")


def _mask(word: str) -> str:
    if word in _MONTH_WORDS:
        return "m"
    if word in _WEEKDAY_WORDS:
        return "d"
    return word if word.isalpha() else _DIGITS_RE.sub("0", word)


def normalize(paragraph: str) -> str:
    """The comparison form of a paragraph: folded, numbers/dates/months masked, spaced once."""
    text = unicodedata.normalize("NFKC", paragraph).casefold()
    return " ".join(map(_mask, _WORD_RE.findall(text)))


def fingerprint(normalized: str) -> int:
    """Signed 64-bit BLAKE2b fingerprint of an already normalized paragraph."""
    digest = hashlib.blake2b(normalized.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def fingerprint_hex(value: int) -> str:
    """The 16-digit hex form of a fingerprint (as written to ``boilerplate_hashes``)."""
    return (value & 0xFFFF_FFFF_FFFF_FFFF).to_bytes(8, "big").hex()


@dataclass(frozen=True, slots=True)
class Paragraph:
    """One paragraph of a document: its text as written, normalized form and fingerprint."""

    text: str
    normalized: str
    fingerprint: int

    @classmethod
    def of(cls, text: str) -> Paragraph:
        """Normalize and fingerprint ``text``."""
        norm = normalize(text)
        return cls(text=text, normalized=norm, fingerprint=fingerprint(norm))

    @property
    def words(self) -> int:
        """Number of words of the normalized form."""
        return self.normalized.count(" ") + 1 if self.normalized else 0


def split_paragraphs(text: str) -> list[Paragraph]:
    """The non-blank lines of a document's text (the Extractor contract's paragraphs)."""
    return [Paragraph.of(line.strip()) for line in text.split("\n") if line.strip()]
