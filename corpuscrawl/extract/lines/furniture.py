"""Page-furniture lines that no extractor should return: reading-time badges, related-content lists.

Every extractor built through the registry passes its normalised text through
:func:`drop_furniture` (see :class:`corpuscrawl.extract.base.NormalizedExtractor`).
Two kinds of lines are never part of an article, whatever the page:

* **reading-time badges** — a short line (at most
  :data:`BADGE_MAX_WORDS_DEFAULT` words, not ending like a sentence) holding "5 min read", "12 minute
  read", "Reading time: 3 minutes", "Lesezeit: 2 Minuten", "7 min Lesezeit",
  "4 min de lecture" ..., often together with the byline and date
  ("By Jane Doe · 5 min read");
* **related-content lists** — a heading line such as "Related posts",
  "Related Stories:", "You might also like", "Recommended for you", "More
  stories", "Das könnte dich auch interessieren", "Lesen Sie auch", and
  the short lines that follow it (the link titles, at most
  :data:`RELATED_ITEM_MAX_WORDS_DEFAULT` words each, without the final
  punctuation of a sentence).  The first line that reads like running text
  ends the list: what follows is kept.

Both rules look at whole lines of normalised text only, so they cannot cut a
sentence that happens to contain the same words.
"""

from __future__ import annotations

import re

__all__ = [
    "BADGE_MAX_WORDS_DEFAULT",
    "HEADING_MAX_WORDS_DEFAULT",
    "RELATED_ITEM_MAX_WORDS_DEFAULT",
    "drop_furniture",
    "is_reading_time_badge",
    "is_related_heading",
]

#: A line with a reading-time expression and at most this many words is a badge (a byline with
#: date and reading time is about 10 words; a sentence mentioning "a 5 min read" is longer).
BADGE_MAX_WORDS_DEFAULT = 12
#: Link titles under a related-content heading are short; a longer line is running text again.
RELATED_ITEM_MAX_WORDS_DEFAULT = 16

_READING_TIME_RE = re.compile(
    r"\b\d+\s*(?:-\s*\d+\s*)?(?:min(?:ute)?s?\.?|minuten?)\s*(?:read|reading|to read|lesezeit|"
    r"lesedauer|de lecture|di lettura|de lectura|czytania)\b"
    r"|\b(?:reading time|read time|lesezeit|lesedauer|temps de lecture|tiempo de lectura)\s*:?\s*"
    r"(?:ca\.\s*)?\d+\s*(?:min|minute|minuten)",
    re.IGNORECASE,
)
_RELATED_HEADING_RE = re.compile(
    r"(?:related(?: posts?| articles?| stories| story| news| content| coverage| reading| links| videos?)?"
    r"|more (?:related )?(?:posts|articles|stories|news)|more on this (?:story|topic)"
    r"|you (?:may|might) also (?:like|enjoy|be interested in)|recommended(?: for you| articles| stories| reading)?"
    r"|read (?:more|next|also)|(?:most )?popular (?:posts|stories|articles)|trending(?: now| stories)?"
    r"|das könnte dich auch interessieren|das könnte sie auch interessieren|lesen sie auch|auch interessant"
    r"|mehr zum thema|weitere artikel|ähnliche artikel|verwandte artikel|à lire aussi|lire aussi"
    r"|sur le même sujet|articles similaires|te puede interesar|artículos relacionados|leggi anche)"
    r"\s*[:.…]*",
    re.IGNORECASE,
)
_SENTENCE_END_RE = re.compile(r"[.!?…:;\"”»)]$")
#: A line ending like a sentence is one ("The shot clock after the 20 minutes read 16-5."), not a badge.
_SENTENCE_RE = re.compile(r"\w[.!?]$")


def is_reading_time_badge(line: str, max_words: int = BADGE_MAX_WORDS_DEFAULT) -> bool:
    """True for a short line with a reading-time expression ("By Jane Doe · 5 min read")."""
    return ("min" in line.lower()  # every reading-time expression has "min" (min, minute, Minuten)
            and len(line.split()) <= max_words and not _SENTENCE_RE.search(line)
            and _READING_TIME_RE.search(line) is not None)


#: A related-content heading is short ("You might also like"); a longer line is a sentence.
#: ("More from <section>" is not one: news sites put it over the date and byline of the article.)
HEADING_MAX_WORDS_DEFAULT = 6


def is_related_heading(line: str) -> bool:
    """True for a line that is only a related-content heading ("Related posts", "Read more:")."""
    return (len(line.split()) <= HEADING_MAX_WORDS_DEFAULT
            and _RELATED_HEADING_RE.fullmatch(line.strip()) is not None)


def _is_list_item(line: str, max_words: int) -> bool:
    return len(line.split()) <= max_words and not _SENTENCE_END_RE.search(line)


#: Lines longer than this many characters are never a heading or a badge (a cheap first test:
#: running text is most of an extraction, and its lines are long).
_SHORT_LINE_CHARS = 160


def drop_furniture(text: str, item_max_words: int = RELATED_ITEM_MAX_WORDS_DEFAULT) -> str:
    """``text`` (normalised, one paragraph per line) without badges and related-content lists."""
    if not text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    in_list = False
    dropped = False
    for line in lines:
        if len(line) > _SHORT_LINE_CHARS:
            in_list = False
            out.append(line)
            continue
        if is_related_heading(line) or (in_list and _is_list_item(line, item_max_words)):
            in_list = dropped = True
            continue
        in_list = False
        if is_reading_time_badge(line):
            dropped = True
            continue
        out.append(line)
    return "\n".join(out) if dropped else text
