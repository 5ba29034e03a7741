"""A generated test bed of hostile HTML pages: each with what must survive and what must not.

Every page carries the same two-paragraph article (:data:`ARTICLE`) behind or
around its hostile part, unless it cannot have text at all (empty or binary
bodies).  The tests and ``benchmarks/hostile.py`` run every extractor and the
template engine on them.  Pages are built deterministically (seeded bytes),
lazily, one at a time: some are tens of megabytes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

#: The article hidden in every hostile page that can hold text.
ARTICLE = (
    "<h1>Harbour town keeps its old ferry</h1>"
    "<p>The council of the small harbour town voted on Tuesday to keep the old ferry running "
    "for another five years, after more than two thousand residents signed a petition asking "
    "for it. The ferry, which has crossed the bay since the nineteen sixties, carries about "
    "three hundred people on a normal weekday and many more during the summer months, when "
    "visitors come to walk along the cliffs and eat at the fish restaurants near the pier.</p>"
    "<p>Repairs to the engine and the landing stage will cost the town less than building a "
    "new bridge, the mayor said, and the money will come from the regional transport fund. "
    "Several shop owners told the meeting that without the ferry their customers from the "
    "other side of the bay would simply drive to the large shopping centre on the motorway "
    "instead, and that the town would slowly lose the life that makes it worth visiting.</p>"
)
#: A phrase of the article that an extraction keeping the article contains.
MARKER = "harbour town voted on Tuesday"
#: The article with non-ASCII letters, for charset cases.
ACCENTED = ("<p>Le café du port reste ouvert: une décision naïve selon certains, mais le résumé "
            "du conseil municipal montre que les habitants tiennent à leur vieux bâteau, à la "
            "crêperie et à la fête d'été qui attire chaque année des milliers de visiteurs.</p>")
ACCENTED_MARKER = "café du port reste ouvert"


@dataclass(frozen=True)
class HostilePage:
    """One hostile page: how to build its bytes, its HTTP charset, and the text expected."""

    name: str
    what: str
    build: Callable[[], bytes]
    #: The HTTP header's charset the page is served with (None: no charset parameter).
    charset: str | None = None
    #: A phrase of the article the page's text must keep ("" when the page has no text).
    marker: str = ""
    #: A non-ASCII phrase the decoded page must contain, spelled right (charset cases).
    decoded: str = ""
    #: True when the body is not text and must be dropped, never extracted.
    binary: bool = False


def _doc(body: str, head: str = "<title>Hostile page</title>") -> str:
    return f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>"


def _random_bytes(size: int) -> bytes:
    return random.Random(2024).randbytes(size)


def _controls() -> bytes:
    rng = random.Random(7)
    noise = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x1b\x1f\x7f\ufffe\uffff"
    out = []
    for ch in ARTICLE:
        out.append(ch)
        if ch == " " or rng.random() < 0.05:
            out.append(rng.choice(noise))
    return _doc("<div>" + "".join(out) + "</div>").encode("utf-8", "surrogatepass")


def _paragraphs(target: int) -> bytes:
    block = ("<div class='post'>" + ARTICLE + "</div>\n").encode()
    head, tail = _doc("|").encode().split(b"|")
    return head + block * (target // len(block) + 1) + tail


PAGES: tuple[HostilePage, ...] = (
    HostilePage("empty", "an empty body", lambda: b""),
    HostilePage("binary", "2 MB of random bytes served as HTML", lambda: _random_bytes(2 << 20),
                binary=True),
    HostilePage("binary-latin1", "2 MB of random bytes with charset=iso-8859-1",
                lambda: _random_bytes(2 << 20), charset="iso-8859-1", binary=True),
    HostilePage("png", "a PNG image served as HTML",
                lambda: b"\x89PNG\r\n\x1a\n" + _random_bytes(50_000), binary=True),
    HostilePage("deep-nesting", "the article inside 100,000 nested <div>s",
                lambda: _doc("<div>" * 100_000 + ARTICLE + "</div>" * 100_000).encode(),
                marker=MARKER),
    HostilePage("unclosed-nesting", "5,000 unclosed <font> tags before the article",
                lambda: _doc("<font size=2>" * 5_000 + ARTICLE).encode(), marker=MARKER),
    HostilePage("siblings", "200,000 sibling <span>s, then the article",
                lambda: _doc("<div>" + "<span>x</span>" * 200_000 + "</div>" + ARTICLE).encode(),
                marker=MARKER),
    HostilePage("nul-controls", "NUL and control characters between the words",
                _controls, marker="harbour"),  # controls inside words may split them
    HostilePage("charset-utf16-on-latin1", "<meta charset=utf-16> on Latin-1 bytes",
                lambda: _doc(ACCENTED + ARTICLE, '<meta charset="utf-16"><title>t</title>'
                             ).encode("latin-1"), marker=MARKER, decoded=ACCENTED_MARKER),
    HostilePage("charset-utf16-on-utf8", "<meta charset=utf-16> on UTF-8 bytes",
                lambda: _doc(ACCENTED + ARTICLE, '<meta charset="utf-16"><title>t</title>'
                             ).encode("utf-8"), marker=MARKER, decoded=ACCENTED_MARKER),
    HostilePage("header-utf16-on-utf8", "charset=utf-16 in the HTTP header on UTF-8 bytes",
                lambda: _doc(ACCENTED + ARTICLE).encode("utf-8"), charset="utf-16",
                marker=MARKER, decoded=ACCENTED_MARKER),
    HostilePage("utf16-no-bom", "UTF-16LE without a BOM, declared by <meta>",
                lambda: _doc(ACCENTED + ARTICLE, '<meta charset="utf-16"><title>t</title>'
                             ).encode("utf-16-le"), marker=MARKER, decoded=ACCENTED_MARKER),
    HostilePage("unclosed-title", "a <title> never closed",
                lambda: ("<html><head><title>Harbour news\n</head><body>" + ARTICLE
                         + "</body></html>").encode(), marker=MARKER),
    HostilePage("frameset", "a frameset with the article in <noframes>",
                lambda: ("<html><head><title>f</title></head><frameset cols='50%,50%'>"
                         "<frame src='/a'><frame src='/b'><noframes><body>" + ARTICLE
                         + "</body></noframes></frameset></html>").encode(), marker=MARKER),
    HostilePage("huge-attribute", "a 20 MB attribute value before the article",
                lambda: _doc('<div data-blob="' + "A" * (20 << 20) + '">x</div>'
                             + ARTICLE).encode(), marker=MARKER),
    HostilePage("huge-text", "a 12 MB text node (over libxml2's 10 MB) before the article",
                lambda: _doc("<pre>" + "word " * (12 << 18) + "</pre>" + ARTICLE).encode()),
    HostilePage("50mb", "50 MB of ordinary article markup", lambda: _paragraphs(50 << 20),
                marker=MARKER),
)


def page_named(name: str) -> HostilePage:
    """The hostile page called ``name`` (KeyError listing the names otherwise)."""
    for page in PAGES:
        if page.name == name:
            return page
    raise KeyError(f"no hostile page {name!r}; known: {', '.join(p.name for p in PAGES)}")
