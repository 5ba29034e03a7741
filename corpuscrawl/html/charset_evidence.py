"""Whether a declared charset fits the bytes it labels, and the evidence for another one.

Browsers believe a page's charset label (HTTP header, then ``<meta>``) and show
whatever it decodes to.  A corpus cannot: a server that labels UTF-8 Cyrillic
``iso-8859-1``, or windows-1251 ``utf-8``, would put mojibake or U+FFFD into
the exported text.  So a label is believed only when the bytes bear it out:

* **Valid UTF-8 with multi-byte sequences under another label** is UTF-8.
  Legacy single- and double-byte text almost never forms valid UTF-8 sequences
  across a page (the reason the WHATWG detectors and charset-normalizer try
  UTF-8 first); the one legacy page it could be is one that already holds
  mojibake such as ``Ã©``, which UTF-8 then reads as intended.
* **Undecodable bytes**: when the label leaves at least
  :data:`MIN_REPLACEMENTS_DEFAULT` bytes undecodable and they outnumber the
  non-ASCII characters it decodes, the label is wrong (windows-1251 or
  Shift_JIS under ``utf-8``).  Stray bytes in a real UTF-8 page stay U+FFFD,
  as in a browser.
* **Implausible text**: when the label decodes the bytes but the text is the
  kind of mess a wrong single-byte table gives (Cyrillic windows-1251 read as
  windows-1252 is all accented Latin letters, GB18030 read as Latin-1 is
  symbol soup), charset-normalizer's mess detector
  (``charset_normalizer.md.mess_ratio``, the measure behind its own detection)
  scores it over :data:`MAX_MESS_DEFAULT` (labels other than UTF-8: text that
  is valid UTF-8 is its own evidence).

A label that does not fit is replaced by the first candidate that decodes
cleanly and reads plausibly: UTF-8 when valid, the page's other label (the
``<meta>`` under a wrong header), then charset-normalizer's best guess.  When
none does, the body has no readable decoding and the page is dropped (the
caller counts it): exporting it would export mojibake.

Measured on the benchmark pages, where every label that fits is kept as it is:
``benchmarks/results/hostile.md``, "Lying charsets".  Plain library code: no Scrapy.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

#: A label leaving at least this many bytes undecodable, more than the non-ASCII characters it
#: decodes, does not fit; a candidate leaving this many does not read cleanly.
MIN_REPLACEMENTS_DEFAULT = 3
#: charset-normalizer's mess ratio over which decoded text is taken for a wrong table.  Its
#: own detection rejects a decoding at 0.2; correctly labelled pages of the benchmark score
#: well under it, a Cyrillic or CJK page under a Western table far over it
#: (benchmarks/results/hostile.md, "Lying charsets").
MAX_MESS_DEFAULT = 0.3
#: Chunks of text around non-ASCII characters whose mess ratios are averaged ...
MESS_CHUNKS = 8
#: ... of this many characters (charset-normalizer's own chunk size).
MESS_CHUNK_CHARS = 512
_UTF8 = "utf-8"


@dataclass(frozen=True)
class Verdict:
    """What the bytes say about a label: ``fits``, else the codec to use ("" = none reads)."""

    fits: bool
    codec: str = ""
    #: Why the label does not fit: "utf-8" | "undecodable" | "implausible" ("" when it fits).
    reason: str = ""


def _replacements(text: str, body: bytes, codec: str) -> int:
    """U+FFFD characters the decoding made (not those the page spells as U+FFFD itself)."""
    made = text.count("\ufffd")
    if made and codec == _UTF8:
        made -= body.count(b"\xef\xbf\xbd")
    return made


def _non_ascii(text: str) -> int:
    return len(text) - len(text.encode("ascii", "ignore"))


def mostly_undecodable(text: str, body: bytes, codec: str) -> bool:
    """True when ``codec`` left at least :data:`MIN_REPLACEMENTS_DEFAULT` bytes undecodable and
    they outnumber the non-ASCII characters it did decode.

    A UTF-8 page with stray bytes of another encoding (a pasted quote, an old
    include) decodes mostly well and keeps its label; windows-1251 or Shift_JIS
    under ``utf-8`` is nearly all undecodable.
    """
    bad = _replacements(text, body, codec)
    return bad >= MIN_REPLACEMENTS_DEFAULT and bad > _non_ascii(text) - bad


_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]")


def mess(text: str) -> float:
    """charset-normalizer's mess ratio of the text around ``text``'s non-ASCII characters.

    As charset-normalizer does in its own detection, the ratio is the mean over
    chunks (:data:`MESS_CHUNKS` of :data:`MESS_CHUNK_CHARS` characters, here each
    centred on a non-ASCII character, spread over the page): over a whole page
    the measure is not meaningful (valid UTF-8 pages scored 1.0).  0.0 when the
    library is missing.
    """
    try:
        from charset_normalizer.md import mess_ratio
    except ImportError:  # optional: Scrapy installs it
        return 0.0
    positions = [m.start() for m in _NON_ASCII_RE.finditer(text)]
    if not positions:
        return 0.0
    step = max(1, len(positions) // MESS_CHUNKS)
    half = MESS_CHUNK_CHARS // 2
    ratios = [mess_ratio(text[max(0, at - half):at + half], 1.0)
              for at in positions[::step][:MESS_CHUNKS]]
    return sum(ratios) / len(ratios)


def is_utf8_with_multibyte(body: bytes) -> bool:
    """True when ``body`` is valid UTF-8 and not plain ASCII."""
    if body.isascii():
        return False
    try:
        body.decode(_UTF8)
    except UnicodeDecodeError:
        return False
    return True


def reads_cleanly(body: bytes, codec: str) -> bool:
    """True when ``codec`` decodes ``body`` with (almost) no undecodable bytes into text
    that is not mess."""
    try:
        text = body.decode(codec, errors="replace")
    except LookupError:
        return False
    if _replacements(text, body, codec) >= MIN_REPLACEMENTS_DEFAULT:
        return False
    if codec == _UTF8:
        return True  # valid UTF-8 is its own evidence
    return mess(text) <= MAX_MESS_DEFAULT


def check_label(body: bytes, codec: str, candidates: Iterable[str] = ()) -> Verdict:
    """Whether the label ``codec`` (a Python codec name) fits ``body``; see the module docstring.

    ``candidates``: codecs to try, in order, when it does not (the page's
    other label, then detection); a generator, so detection runs only then.
    """
    if body.isascii():
        return Verdict(True)
    if codec != _UTF8 and is_utf8_with_multibyte(body):
        return Verdict(False, _UTF8, "utf-8")
    text = body.decode(codec, errors="replace")
    if mostly_undecodable(text, body, codec):
        reason = "undecodable"
    elif codec != _UTF8 and mess(text) > MAX_MESS_DEFAULT:
        reason = "implausible"
    else:
        return Verdict(True)
    for candidate in candidates:
        if candidate and candidate != codec and reads_cleanly(body, candidate):
            return Verdict(False, candidate, reason)
    return Verdict(False, "", reason)
