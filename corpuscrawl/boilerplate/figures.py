"""The figures of a sentence: what tells a story's report line from a template's line.

Sites repeat sentences that differ only in their figures ("Shares closed at 40
crowns, up 2 percent" / "... 31 crowns, up 5 percent") in many stories; the
domain history folds numbers, so they are one paragraph.  A template line is the
same on every page or comes in a few variants, and what it changes from page to
page is a date (a copyright line's years, a byline's "posted on 10/18/2012 at
12:22 pm").  :func:`figures_fingerprint` is a second fingerprint of a paragraph
that keeps its figures — its quantities, with years, dates and times masked — so
the history can count how many documents have a sentence *with the same figures*
(:mod:`corpuscrawl.boilerplate.detector`, the figures rule).

Speed: it runs for every long sentence of prose holding a digit that the export
stage counts; measured in benchmarks/results/boilerplate.md ("figures rule", cost).
"""

from __future__ import annotations

import functools
import hashlib
import re

from corpuscrawl.boilerplate.normalize import MONTH_WORDS, Paragraph

__all__ = ["figures_fingerprint"]

#: Runs of digits that are figures: not a year (1900-2099, what a template's date or
#: copyright line changes from page to page).
_FIGURES = re.compile(r"(?<!\d)(?!(?:19|20)\d\d(?!\d))\d+")
#: Dates and times, whose digits are not figures either: "10/18/2012", "2012-10-18",
#: "12:22", "14.00 EDT", "1:38 pm", and a day before a word ("29 October": a date when
#: the word is a month's name, :func:`_mask_dates`).  Every branch starts with a digit,
#: so the scan skips to the digits.
_DATES_AND_TIMES = re.compile(
    r"\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b"
    r"|\d{1,2}:\d{2}(?::\d{2})?"
    r"|\d{1,2}[.]\d{2}\s*(?:[ap]\.?m\b\.?|[A-Z]{2,4}T\b|h\b|hrs\b|uhr\b)"
    r"|\d{1,2}(?:st|nd|rd|th|\.)?(?=\s+(?:of\s+)?(?P<month>[^\W\d_]{3,}))",
    re.IGNORECASE)
#: A day after a word ("October 29th"), looked for only when the paragraph's normalized
#: form has a month name before a number ("m 0").
_MONTH_DAY = re.compile(r"\b(?P<month>[^\W\d_]{3,})\.?\s+\d{1,2}(?:st|nd|rd|th)?\b")


def _mask_dates(match: re.Match[str]) -> str:
    """The match's replacement: a space, or the match itself when its word is no month."""
    month = match.group("month")
    if month is None or month.lower() in MONTH_WORDS:
        return " "
    return match.group(0)


def figures_fingerprint(paragraph: Paragraph) -> int | None:
    """A second fingerprint of a paragraph that holds figures, one that keeps them: the
    paragraph's fingerprint (where every run of digits is folded) with its figures in
    order.  Two documents share it when they have the sentence with the same figures;
    None for a paragraph without figures.

    Dates and times are not figures here (years, "10/18/2012", "29 October", "12:22
    pm"): what a template changes from page to page is a date (the copyright line's
    "2003-2011", "2003-2012", a byline's "posted on 10/18/2012 at 12:22 pm"), so
    copies of a template line that differ in dates share this fingerprint."""
    normalized = paragraph.normalized
    if "0" not in normalized:  # folded digits: no digit at all
        return None
    text = paragraph.text
    # what a date or time leaves in the normalized form: a month beside a number, or
    # numbers joined by punctuation ("10/18/2012", "12:22", "14.00")
    dates = "m 0" in normalized or "0 m" in normalized or "0 0" in normalized
    return _figures_fingerprint(paragraph.fingerprint, text, dates, "m 0" in normalized)


@functools.lru_cache(maxsize=8192)
def _figures_fingerprint(folded: int, text: str, dates: bool, month_day: bool) -> int | None:
    """:func:`figures_fingerprint`, cached: the export stage asks for a document's twice
    (counting it, then judging it).  ``dates``: the text may hold a date or time;
    ``month_day``: one written month first."""
    if dates:
        text = _DATES_AND_TIMES.sub(_mask_dates, text)
    if month_day:
        text = _MONTH_DAY.sub(_mask_dates, text)
    digits = _FIGURES.findall(text)
    if not digits:
        return None
    key = f"{folded}:{'.'.join(digits)}".encode()  # digits of any script
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big", signed=True)
