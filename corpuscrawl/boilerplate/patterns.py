"""A small built-in prior: copyright, rights-reserved and cookie-consent lines.

Source: NewsFeed (Trampuš & Novak), end: NewsFeed's remaining "garbage" is a long
copyright or similar notice taken as (or appended to) the body.  History finds
such notices once a domain has a few pages; this prior catches them on the
very first page of a domain.  It is deliberately narrow — a paragraph counts
only when it is *short* (:data:`PATTERN_MAX_WORDS_DEFAULT`) and matches one of

* a copyright line: ``©``/``(c)``/``copyright``/``Copyright ©`` next to a year
  or a ``©`` sign anywhere;
* "all rights reserved" in many languages;
* a cookie-consent sentence ("this site uses cookies", "wir verwenden Cookies",
  "nous utilisons des cookies", ...);
* a share prompt ("Share this story", "Enjoyed this? Share it with your friends
  on Facebook", "Follow us on Twitter", "Send it to a friend by email");
* a newsletter box ("Sign up for our weekly newsletter", "Get the day's top
  stories in your inbox", "Newsletter abonnieren").
* an update stamp: a line that says when the article was changed and nothing
  else ("This article was updated on 14 March 2025 at 10:32.", "This story has
  been last modified on Tuesday, 4 March 2025, 14:05 GMT").
  Its date changes from page to page and a template prints it on some pages only
  (those changed since), so the history's share need not reach it; a line naming
  anything else (an author, a place, what changed) is no stamp.

Share prompts and newsletter boxes are held to a shorter limit
(:data:`PROMPT_MAX_WORDS_DEFAULT`): a sentence of an article may mention a
newsletter or sharing, a one-line prompt is short.

An article *about* copyright law ("Copyright law in the EU changed in 2019 when
...") is long and does not pair the word with the sign, so it is left alone;
``tests/test_detector.py`` pins both sides.
"""

from __future__ import annotations

import re
from functools import lru_cache

from corpuscrawl.boilerplate.normalize import CALENDAR_WORDS

__all__ = ["PATTERN_MAX_WORDS_DEFAULT", "PROMPT_MAX_WORDS_DEFAULT", "is_notice", "keyword_lines", "notice_candidates",
           "notice_kind"]

#: Longest paragraph (words) the prior may remove: it catches the long tail of notices;
#: longer ones are the history's job.  What each limit flags on the gold lines and on
#: the extractors' outputs: benchmarks/results/boilerplate.md.
PATTERN_MAX_WORDS_DEFAULT = 60
#: Longest share prompt or newsletter box (words) the prior may remove.  The prompts of
#: the synthetic sites and the demo have 4-16 words; over the benchmark's gold lines 30
#: flags the figure in benchmarks/results/boilerplate.md ("prior on every gold text"),
#: almost all of them prompts the annotators kept.
PROMPT_MAX_WORDS_DEFAULT = 30

_YEAR = r"(?:1[89]\d\d|2[01]\d\d)"
_COPYRIGHT_RE = re.compile(
    r"©"
    r"|\(c\)\s*" + _YEAR
    + r"|\bcopyright\b\s*(?:©|\(c\)|" + _YEAR + r")"
    + r"|" + _YEAR + r"\s*(?:[-–—]\s*" + _YEAR + r"\s*)?\bcopyright\b"
    # "Copyright Example Publishing 2021": the word opens the line and a year closes it.
    + r"|^\s*(?:copyright|urheberrecht|droits d'auteur|derechos de autor|diritti d'autore"
    r"|direitos autorais|auteursrecht|prawa autorskie|autorska prava|autorská práva)"
    r"\b[^.!?]{0,60}?" + _YEAR + r"\s*[.]?\s*$",
    re.IGNORECASE,
)

# "All rights reserved" and its equivalents.
_RIGHTS_RE = re.compile(
    r"all rights reserved"
    r"|alle rechte vorbehalten"
    r"|tous droits réservés|tous droits reserves"
    r"|todos los derechos reservados"
    r"|tutti i diritti riservati"
    r"|todos os direitos reservados"
    r"|alle rechten voorbehouden"
    r"|wszelkie prawa zastrzeżone"
    r"|sva prava pridržana|sva prava zadržana|sva prava su zadržana"
    r"|všechna práva vyhrazena|všetky práva vyhradené"
    r"|minden jog fenntartva"
    r"|все права защищены"
    r"|alla rättigheter förbehållna|alle rettigheder forbeholdes|kaikki oikeudet pidätetään"
    r"|tüm hakları saklıdır"
    r"|版权所有|保留所有权利|著作権|無断転載",
    re.IGNORECASE,
)

# Cookie consent: the site announcing that it uses cookies, or asking to accept them.
_COOKIE_RE = re.compile(
    r"\b(?:this|our) (?:web ?site|site|website)s? uses? cookies"
    r"|\bwe (?:use|serve) cookies"
    r"|\buse of cookies\b.{0,80}\b(?:agree|accept|consent)"
    r"|\b(?:accept|agree to)(?: all)? (?:the )?cookies\b"
    r"|\bcookie (?:policy|settings|preferences|consent)\b"
    r"|\bwir verwenden cookies|\bdiese (?:web)?seite verwendet cookies"
    r"|\bnous utilisons des cookies|\bce site utilise des cookies"
    r"|\butilizamos cookies|\beste sitio (?:web )?utiliza cookies"
    r"|\butilizziamo (?:i )?cookie|\bquesto sito utilizza (?:i )?cookie"
    r"|\butilizamos cookies|\beste site usa cookies"
    r"|\bwij gebruiken cookies|\bdeze (?:web)?site gebruikt cookies"
    r"|\b(?:ta strona|serwis) (?:używa|wykorzystuje) (?:plików )?cookies?"
    r"|\bkoristimo kolačiće|\bova stranica koristi kolačiće"
    r"|\bpoužíváme (?:soubory )?cookies"
    r"|\bsütiket használ"
    r"|\bиспользует (?:файлы )?cookie",
    re.IGNORECASE,
)

# Share prompts: a share bar's label, an invitation to share or send the page, "follow us".
# Invitations are imperatives: they open the line or a clause ("Enjoyed this story?
# Share it ..."); a reader writing "I shared it on Facebook" or "I follow you on Twitter"
# is not one (measured on the gold texts, benchmarks/results/boilerplate.md).  Each kind
# is two patterns: one searched anywhere in the line, one matched at the start of each
# clause (the line cut at . ! ? : ; ( [), which is several times cheaper than searching
# for a clause opening everywhere.
_SOCIAL = (r"(?:facebook|twitter|x|linkedin|whatsapp|telegram|instagram|pinterest|reddit"
           r"|tiktok|youtube|mastodon|bluesky|threads|e-?mail|social media|social networks?)")
_CLAUSE_RE = re.compile(r"[.!?:;(\[]")
_OPENING = r"\W*(?:please\s+|also\s+|and\s+)?"
_SHARE_RE = re.compile(
    r"^\W*(?:share|email|e-mail|print)(?: (?:this|the|on|via))?"
    r"(?: (?:story|article|post|page|link))?[\W_]*(?:(?:" + _SOCIAL + r"|copy link)[\W_]*)*$"
    r"|\bsend (?:it|this) to (?:them|a friend|friends|someone)\b"
    r"|\bteilen sie (?:diesen|den) (?:artikel|beitrag)|\bpartager (?:cet|l') ?article"
    r"|\bcompartir (?:este|en)\b|\bcondividi (?:questo|su)\b|\bpodijeli(?:te)? (?:ovaj|na)\b",
    re.IGNORECASE,
)
_SHARE_OPENING_RE = re.compile(
    _OPENING + r"(?:(?:share|send|forward|email|e-mail) (?:this|the) "
    r"(?:story|article|post|page|link)\b"
    r"|share (?:it|this|them)\b.{0,60}\b(?:friends?|" + _SOCIAL + r")\b"
    r"|share (?:on|via|with) " + _SOCIAL + r"\b"
    r"|follow (?:us|[\w&\-]+(?: [\w&\-]+){0,3}) on " + _SOCIAL + r"\b)",
    re.IGNORECASE,
)

# Newsletter boxes: an invitation to subscribe, or the inbox promise (imperatives too).
_NEWSLETTER_RE = re.compile(
    r"^\W*(?:(?:our|the|free|daily|weekly) )?newsletters?\b.{0,60}"
    r"\b(?:sign up|subscribe|inbox|your e-?mail|e-?mail address)\b"
    r"|\bnewsletter abonnieren|\babonnieren sie\b.{0,40}\bnewsletter"
    r"|\b(?:abonnez-vous|inscrivez-vous)\b.{0,40}\b(?:newsletter|lettre)"
    r"|\bsuscr[ií]bete\b.{0,40}\b(?:newsletter|bolet[ií]n)"
    r"|\biscriviti\b.{0,40}\bnewsletter|\bpretplatite se\b.{0,40}\bnewsletter",
    re.IGNORECASE,
)
_NEWSLETTER_OPENING_RE = re.compile(
    _OPENING + r"(?:(?:sign up|signup|subscribe|register|join|get)\b.{0,60}\bnewsletters?\b"
    r"|(?:get|receive|sign up|subscribe)\b.{0,80}\b(?:in|to|into) your inbox\b)",
    re.IGNORECASE,
)

# Update stamps: the opening (the page saying it was changed), then only a date or time
# and its glue words (:func:`_is_stamp`).  Only "this article was updated" opens one: a
# bare "Last updated: ...", "Updated on ...", "Published: ..." or "Posted on ..." is the
# dateline of an article's header, which gold texts keep (benchmarks/results/boilerplate.md).
_STAMP_RE = re.compile(
    r"^\W*(?:this|the) (?:article|story|post|page|report|entry|piece) (?:was|has been|is) "
    r"(?:last |first )?(?:updated|modified|edited|amended|revised)\b"
    r"|^\W*cet article a été (?:modifié|mis à jour)\b"
    r"|^\W*este artículo (?:fue|ha sido) (?:actualizado|modificado)\b",
    re.IGNORECASE,
)
#: Words a stamp may hold after its opening besides digits: month and weekday names,
#: a date's or time's glue, and the verbs of a second date ("..., published 3 March").
_STAMP_WORDS = CALENDAR_WORDS | frozenset(
    "on at am pm a m p h hr hrs uhr um le à el de del las y and und et ago hour hours minute "
    "minutes min mins day days st nd rd th gmt utc cet cest bst est edt pst pdt cst cdt mez "
    "mesz updated modified edited amended revised published posted last".split())
#: Longest stamp (words).
_STAMP_MAX_WORDS = 20


def _is_stamp(text: str) -> bool:
    """True for an update stamp: the opening, then a date or time only."""
    match = _STAMP_RE.match(text)
    if match is None or len(text.split()) > _STAMP_MAX_WORDS:
        return False
    rest = text[match.end():].lower()
    return (any(c.isdigit() for c in rest)
            and all(w in _STAMP_WORDS for w in re.findall(r"[^\W\d_]+", rest)))


_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("rights", _RIGHTS_RE),
    ("copyright", _COPYRIGHT_RE),
    ("cookies", _COOKIE_RE),
)
#: Kinds held to :data:`PROMPT_MAX_WORDS_DEFAULT` words: (kind, searched, clause opening).
_PROMPT_KINDS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = (
    ("share", _SHARE_RE, _SHARE_OPENING_RE),
    ("newsletter", _NEWSLETTER_RE, _NEWSLETTER_OPENING_RE),
)


#: A stamp's opening holds one of these (case-folded).
_STAMP_KEYWORDS = ("updated", "modified", "edited", "amended", "revised", "modifié",
                   "à jour", "actualizado", "modificado")
# Every pattern above needs one of these (case-folded) substrings; looking for them
# first is ~20 times cheaper than running the patterns on every paragraph.
_NOTICE_KEYWORDS = (
    "©", "(c)", "copyright", "rights", "rechte", "droits", "derechos", "diritti", "direitos",
    "prawa", "práva", "prava", "jog ", "права", "rättigheter", "rettigheder", "oikeudet",
    "hakları", "cookie", "kolačić", "sütik", "版权", "权利", "著作権", "無断", "urheberrecht",
    "auteursrecht", "autor", *_STAMP_KEYWORDS)
# ... and the share prompts and newsletter boxes one of these.
_PROMPT_KEYWORDS = (
    "share", "mail", "print", "send", "follow", "newsletter", "inbox", "subscri", "inscri",
    "suscr", "teilen", "partager", "compartir", "condividi", "podijeli")
_KEYWORDS = _NOTICE_KEYWORDS + _PROMPT_KEYWORDS
_NOTICE_KEY_RE = re.compile("|".join(map(re.escape, _NOTICE_KEYWORDS)))
_PROMPT_KEY_RE = re.compile("|".join(map(re.escape, _PROMPT_KEYWORDS)))
# For keyword_lines: each keyword behind a "gate", a substring of it that is cheaper to
# look for (one character: ~5 times cheaper) or shared by several keywords; a text without
# the gate cannot contain the keyword.  Non-ASCII keywords are gated by their first
# non-ASCII character, and skipped altogether in ASCII text.
_GATES: dict[str, list[str]] = {"recht": ["rechte", "urheberrecht", "auteursrecht"]}
for _keyword in _KEYWORDS:
    if not _keyword.isascii():
        _GATES.setdefault(next(c for c in _keyword if not c.isascii()), []).append(_keyword)
    elif "recht" not in _keyword:
        _GATES[_keyword] = [_keyword]
_ASCII_GATES = tuple((gate, tuple(kws)) for gate, kws in _GATES.items() if gate.isascii())
_OTHER_GATES = tuple((gate, tuple(kws)) for gate, kws in _GATES.items() if not gate.isascii())


def keyword_lines(folded: str) -> list[int]:
    """Indices of the lines of case-folded ``folded`` that contain a notice keyword.

    Every notice pattern needs one of the keywords, so the other lines of a
    document need no pattern matching.  One substring search per keyword over
    the whole text (a C loop each, ~10 times cheaper than one scan with the
    keyword alternation; cheaper still behind the gates above) finds the few
    keywords a document contains; only those are looked for line by line.
    """
    gates = _ASCII_GATES if folded.isascii() else _ASCII_GATES + _OTHER_GATES
    present = [keyword for gate, keywords in gates if gate in folded
               for keyword in keywords if keyword in folded]
    if not present:
        return []
    lines = folded.split("\n")
    found: set[int] = set()
    for keyword in present:
        found.update(i for i, line in enumerate(lines) if keyword in line)
    return sorted(found)


def notice_candidates(lines: list[str]) -> list[int]:
    """Indices of the ``lines`` (paragraphs: no line breaks, not case-folded) whose
    case-folded form contains a notice keyword (:func:`keyword_lines`)."""
    return keyword_lines("\n".join(lines).casefold())


#: Characters per word above any real text's average (English ~6, German ~7 with spaces).
_MAX_CHARS_PER_WORD = 20


@lru_cache(maxsize=1 << 16)
def notice_kind(text: str, max_words: int = PATTERN_MAX_WORDS_DEFAULT) -> str | None:
    """``"rights"``, ``"copyright"``, ``"cookies"``, ``"stamp"``, ``"share"`` or
    ``"newsletter"`` when ``text`` is a short notice or prompt, else None.

    Cached: a domain's notices recur on every page.
    """
    # Cheapest tests first: a paragraph this long cannot have max_words words; each
    # group of patterns runs only on a line holding one of its keywords.
    if len(text) > _MAX_CHARS_PER_WORD * max_words:
        return None
    words = 0
    if text.count(" ") >= max_words:  # extracted text has single spaces: likely too long
        words = len(text.split())
        if words > max_words:
            return None
    folded = text.casefold()
    if _NOTICE_KEY_RE.search(folded):
        words = words or len(text.split())
        if words > max_words:
            return None
        for kind, pattern in _KINDS:
            if pattern.search(text):
                return kind
        if _is_stamp(text):
            return "stamp"
    prompt_words = min(max_words, PROMPT_MAX_WORDS_DEFAULT)
    if (len(text) <= _MAX_CHARS_PER_WORD * prompt_words and _PROMPT_KEY_RE.search(folded)
            and (words or len(text.split())) <= prompt_words):
        clauses = _CLAUSE_RE.split(text)
        for kind, searched, opening in _PROMPT_KINDS:
            if searched.search(text) or any(opening.match(c) for c in clauses):
                return kind
    return None


def is_notice(text: str, max_words: int = PATTERN_MAX_WORDS_DEFAULT) -> bool:
    """True when ``text`` is a short copyright, rights-reserved or cookie-consent line."""
    return notice_kind(text, max_words) is not None
