"""Title heuristic of NewsFeed (Trampuš & Novak, §2 "a separate heuristic for extracting the title").

Take the first of: a single ``<title>`` element, ``<meta name="title">``,
``og:title``; then strip the site name that sites put before or after the
headline ("First medal for Tanzania in Sochi | BBC Sports").

Deviation: ``og:title`` is an extra fallback (it rarely carries the site name).
The site name is recognized as the shorter side of a separator when it is
short, or as the side that matches the host name.  The page's own headline
(``og:title``, the first ``<h1>``) is evidence too: a side equal to it is the
headline whatever its length ("Budget approved | The Harbour Gazette Daily"),
and a title that is nothing but the site name (``<title>The Harbour
Gazette</title>`` on a story page) gives way to it.

Once the page's text is extracted, :func:`own_title` goes one step further: a
title of several parts ("Headline | Section | Site") is the part ``og:title`` states
or the text starts with as a heading of the page, and a title that is still the site's name (or empty)
gives way to the text's leading heading, the first of its top lines that the page marks up as a heading
(``<h1>``-``<h6>``, ``itemprop="headline"``, a ``*-title`` / ``*headline*`` class):
a story whose only statement of its headline is ``<h2 class="story-title">``
is titled by it, not by the site.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from corpuscrawl.boilerplate.normalize import CALENDAR_WORDS
from corpuscrawl.extract.meta.lookups import first_text, meta_contents, metas_and_link_texts
from corpuscrawl.html.dom import normalize_space
from corpuscrawl.html.page import Page

#: Separators sites put between headline and site name, most specific first.
SEPARATORS = (" | ", " || ", " – ", " — ", " - ", " :: ", " » ", " « ", " · ", " • ", " / ")
#: A side with at most this many words can be a site name (NewsFeed's example: "BBC Sports").
SITE_NAME_MAX_WORDS_DEFAULT = 4
#: ``<meta>`` tags naming the page's title, in the order they are tried after ``<title>``.
TITLE_METAS = (("name", "title"), ("property", "og:title"), ("name", "og:title"))
#: ``<meta>`` tags stating the page's headline apart from ``<title>``.
HEADLINE_METAS = (("property", "og:title"), ("name", "twitter:title"))
#: ``<meta>`` tags naming the site.
SITE_NAME_METAS = (("property", "og:site_name"), ("name", "application-name"))
#: Top lines of an extracted text searched for its leading heading (a kicker, a date and
#: a byline can come before the headline).
LEADING_LINES = 5
#: Longest leading heading taken as a title, in words (a longer line is a paragraph).
HEADING_MAX_WORDS = 30
#: Elements that mark up a heading besides ``<h1>``-``<h6>``: the headline's microdata and
#: the class names themes give it (``entry-title``, ``story-title``, ``article-headline``).
HEADING_XPATH = ('//h1 | //h2 | //h3 | //h4 | //h5 | //h6 | //*[@itemprop="headline"]'
                 ' | //*[contains(@class, "title") or contains(@class, "headline")]')
#: Class or id words that mark an element as the site's logo or brand, in any case, a ``-``
#: in them optional (``siteName``): its text or image's alt names the site, and a heading
#: inside it is the logo, not a headline.
LOGO_MARKERS = ("logo", "brand", "site-name", "site-title", "masthead")
_LOGO_RE = re.compile("|".join(marker.replace("-", "-?") for marker in LOGO_MARKERS),
                      re.IGNORECASE)
#: Link targets that lead to the site's home page (besides the page's own URL).
HOME_HREFS = frozenset(("/", "./", "index.html", "/index.html"))


def raw_title(page: Page) -> str:
    """The first non-empty of ``<title>``, ``<meta name=title>``, ``og:title``."""
    first = first_text(page.tree, "title")  # the first in document order
    if first is not None:
        text = normalize_space(first)
        if text:
            return text
    for values in meta_contents(page.tree, TITLE_METAS):
        if values and normalize_space(values[0]):
            return normalize_space(values[0])
    return ""


def site_names(page: Page) -> set[str]:
    """Names the site calls itself: og:site_name, application-name, home-link texts."""
    names: set[str] = set()
    url = page.url.rstrip("/")

    def home(href: str) -> bool:
        href = href.strip()
        return href in HOME_HREFS or href.rstrip("/") == url

    metas, links = metas_and_link_texts(page.tree, SITE_NAME_METAS, page.body, home)
    for values in metas:
        names.update(normalize_space(v).lower() for v in values)
    for link in links:
        text = normalize_space(link).lower()
        if text and len(text.split()) <= 8:
            names.add(text)
    names.discard("")
    return names


def headline_hints(page: Page) -> tuple[set[str], set[str]]:
    """The page's own headline as it states it elsewhere, lower-cased, spaces normalized:
    ``og:title`` / ``twitter:title`` (strong) and the first ``<h1>`` (weak: on many sites
    the ``<h1>`` is the logo, the site's name)."""
    strong = {normalize_space(v).lower() for values in meta_contents(page.tree, HEADLINE_METAS)
              for v in values[:1]}
    h1 = first_text(page.body, "h1") if page.body is not None else None
    weak = {normalize_space(h1).lower()} if h1 else set()
    strong.discard("")
    weak.discard("")
    return strong, weak - strong


def _looks_like_site(part: str, host_words: set[str], names: set[str],
                     hints: set[str] = frozenset()) -> bool:  # type: ignore[assignment]
    if part.lower() in hints:
        return False
    if part.lower() in names:
        return True
    tokens = re.findall(r"\w+", part.lower())
    return not tokens or any(t in host_words for t in tokens if len(t) > 2)


def strip_site_name(title: str, host: str = "", names: set[str] | None = None,
                    max_words: int = SITE_NAME_MAX_WORDS_DEFAULT,
                    hints: set[str] | None = None, weak_hints: set[str] | None = None) -> str:
    """Remove a leading or trailing site name from a title, when one is recognizable.

    Evidence, strongest first: a side equal to the page's own headline as
    ``og:title`` states it (``hints``) is kept, a side equal to a known site name
    (``names``) goes, a side containing a word of the host name goes, and failing
    those, a short side goes (suffixes are the common case: "Headline | Site").
    The ``<h1>`` (``weak_hints``) only keeps the first of two short sides ("Story 0 |
    Small Site News", where length alone would strip "Story 0"): measured on the
    benchmark pages, it is the logo (the site's name, usually the suffix) about as
    often as the headline, so it may not overrule anything else.
    """
    names = names or set()
    hints = hints or set()
    weak_hints = weak_hints or set()
    host_words = _host_words(host)
    for sep in SEPARATORS:
        if sep not in title:
            continue
        parts = [p.strip() for p in title.split(sep)]
        first, last = parts[0], parts[-1]
        after_first, before_last = sep.join(parts[1:]), sep.join(parts[:-1])
        if before_last.lower() in hints:
            return before_last
        if after_first.lower() in hints:
            return after_first
        if _looks_like_site(last, host_words, names, hints) and \
                not _looks_like_site(before_last, host_words, names, hints):
            return before_last
        if _looks_like_site(first, host_words, names, hints) and \
                not _looks_like_site(after_first, host_words, names, hints):
            return after_first
        if (len(last.split()) <= max_words and len(first.split()) <= max_words
                and before_last.lower() in weak_hints):
            return before_last
        if len(last.split()) <= max_words and len(last.split()) <= len(before_last.split()):
            return before_last
        if len(first.split()) <= max_words and len(first.split()) < len(after_first.split()):
            return after_first
    return title


def extract_title(page: Page) -> str:
    """The page's headline: its title stripped of the site name ("" if it has none).

    A title that is only the site name gives way to the page's own headline
    (:func:`headline_hints`: ``og:title``, else an ``<h1>`` that is not a site
    name) when the page states one.
    """
    title = raw_title(page)
    strong, weak = headline_hints(page)
    hints = strong | weak
    separated = any(sep in title for sep in SEPARATORS)
    if not separated and (not title or not hints or hints == {title.lower()}):
        return title  # nothing to strip, nothing to replace: skip the link walk
    names = site_names(page)
    weak -= names  # a logo <h1>; og:title is believed even when a link repeats it
    if not separated:
        if not _looks_like_site(title, _host_words(page.domain), names, strong):
            return title
        return _best_hint(page, strong | weak, names) or title
    stripped = strip_site_name(title, page.domain, names, hints=strong, weak_hints=weak)
    if stripped.lower() in names and stripped.lower() not in strong:
        return _best_hint(page, strong | weak, names) or stripped
    return stripped


def _host_words(host: str) -> set[str]:
    return {w for w in re.split(r"[.\-]", host.lower()) if w and w not in ("www", "com", "org", "net")}


def _best_hint(page: Page, hints: set[str], names: set[str]) -> str:
    """The page's own headline as written (og:title first, then ``<h1>``), stripped of a site
    name; "" when it has none that is not the site's name."""
    candidates = [normalize_space(v) for values in meta_contents(page.tree, HEADLINE_METAS)
                  for v in values[:1]]
    h1 = first_text(page.body, "h1") if page.body is not None else None
    if h1:
        candidates.append(normalize_space(h1))
    for candidate in candidates:
        stripped = strip_site_name(candidate, page.domain, names)
        if stripped and stripped.lower() not in names and stripped.lower() in hints | {
                c.lower() for c in candidates}:
            return stripped
    return ""


def own_title(page: Page, title: str, text: str) -> str:
    """The document's title given its extracted ``text``: ``title`` (as :func:`find_title
    <corpuscrawl.extract.meta.metadata.find_title>` chose it), unless that is empty or the
    site's name and the text starts with a heading of its own, which then is the title.

    The site's name, by the page's evidence: a name the page gives the site
    (:func:`home_names`: ``og:site_name``, the texts of links to the site's root), its
    logo's or brand's text or ``alt``, or a title made of the host name's words.  On the
    home page itself the site's name is the page's own title and stays.
    """
    lines = [line for line in text.split("\n", LEADING_LINES)[:LEADING_LINES] if line.strip()]
    if not lines or (title and title in lines[:1]) or (title and _is_home(page.url)):
        return title
    names = home_names(page) | logo_texts(page)
    part = _stated_part(page, names) or _leading_part(page, title, lines, names)
    if part:
        return part
    if title and title.lower() not in names and not _spells_host(title, page.domain) and (
            len(title.split()) > SITE_NAME_MAX_WORDS_DEFAULT
            or not _looks_like_site(title, _host_words(page.domain), names)):
        return title
    headings = heading_texts(page)
    for line in lines:
        key = normalize_space(line)
        if (key in headings and key.lower() not in names and _wordy(key)
                and len(key.split()) <= HEADING_MAX_WORDS and key.lower() != title.lower()):
            return key
    return title


def _stated_part(page: Page, names: set[str]) -> str:
    """The part of a ``<title>`` of three parts or more ("Headline | Section | Site") that
    the page states as its headline in ``og:title`` / ``twitter:title``; "" when none is.

    Kept out of :func:`extract_title`, whose title is an input of the learned extractors'
    features: the document's title follows the page's evidence without changing what the
    shipped models were trained on."""
    raw = raw_title(page)
    parts = next((raw.split(sep) for sep in SEPARATORS if sep in raw), [])
    if len(parts) < 3:
        return ""
    strong, _ = headline_hints(page)
    stated = [part.strip() for part in parts
              if part.strip().lower() in strong and part.strip().lower() not in names]
    return stated[0] if stated else ""


def _leading_part(page: Page, title: str, lines: list[str], names: set[str]) -> str:
    """The part of a title of several parts ("Headline | Section | Site") that the text's
    top lines start with as a heading of the page; "" when there is none."""
    parts = next((title.split(sep) for sep in SEPARATORS if sep in title), [])
    leading = {normalize_space(line) for line in lines}
    candidates = [part.strip() for part in parts if part.strip() in leading]
    if not candidates:
        return ""
    headings = heading_texts(page)
    for part in candidates:
        if part in headings and part.lower() not in names and _wordy(part):
            return part
    return ""


def _wordy(line: str) -> bool:
    """A line with a word of three letters or more that is not a month or weekday name (a
    dateline, "23 July 2012", is no headline)."""
    return any(len(w) >= 3 and w not in CALENDAR_WORDS for w in re.findall(r"[^\W\d_]+",
                                                                            line.lower()))


def home_names(page: Page) -> set[str]:
    """:func:`site_names` without the page's links to itself (a headline is often a link
    to its own permalink): ``og:site_name``, ``application-name``, the texts of links to
    the site's root."""
    def home(href: str) -> bool:
        return href.strip() in HOME_HREFS or href.strip().rstrip("/") == root

    parts = page.url.split("/", 3)
    root = "/".join(parts[:3]) if len(parts) >= 3 else ""
    metas, links = metas_and_link_texts(page.tree, SITE_NAME_METAS, page.body, home)
    names = {normalize_space(v).lower() for values in metas for v in values}
    names.update(t for t in (normalize_space(link).lower() for link in links)
                 if t and len(t.split()) <= 8)
    names.discard("")
    return names


def _is_home(url: str) -> bool:
    """The site's home page, whose own title the site's name is."""
    path = urlsplit(url).path
    return path in ("", "/") or path.lstrip("/") in HOME_HREFS


def _spells_host(title: str, host: str) -> bool:
    """True when the title's words run together are a label of the host name, with or
    without a leading article ("The Harbour Courier" on harbourcourier.example)."""
    joined = "".join(re.findall(r"\w+", title.lower()))
    labels = set(host.lower().split(".")) - {"www", "com", "org", "net"}
    return bool(joined) and (joined in labels or joined.removeprefix("the") in labels)


def with_headline(page: Page, title: str, text: str) -> str:
    """``text`` opening with the document's headline ``title`` when the extractor left it out.

    Why: what an extractor keeps of a story's headline follows the gold set it was fitted
    on (some keep the ``<h1>``, most of the whole-web gold leaves it out), so one story of a
    site would start with its headline and the next one not.  A corpus document is the
    page's own text, headline first: the title goes in front of the text when the page
    shows it as an ``<h1>``-``<h6>`` of its own, not its logo (:func:`_shows_heading`,
    compared case-blind), it is no name of the site (:func:`home_names`) and no line of the
    text already holds it (a leading line or any whole line).  The site's home page, an
    empty text and a title without a word (a date) are left as they are.
    """
    key = title.lower()
    if (not text.strip() or not _wordy(title) or len(title.split()) > HEADING_MAX_WORDS
            or _is_home(page.url)):
        return text
    lines = [normalize_space(line).lower() for line in text.split("\n") if line.strip()]
    if key in lines or any(key in line for line in lines[:LEADING_LINES]):
        return text
    if not _shows_heading(page, key):
        return text
    if key in home_names(page):
        return text
    return f"{title}\n{text}"


def _shows_heading(page: Page, key: str) -> bool:
    """Whether the page has an ``<h1>``-``<h6>`` whose text, case folded, is ``key`` and that
    is not the site's logo (no class or id of it or its ancestors names a logo, a brand or
    the site's name).

    Only the heading tags: finding the class-marked headings of :data:`HEADING_XPATH` means
    a search over every element, several times the cost of this tag walk on large pages
    (``benchmarks/results/history_quality.md``)."""
    if page.body is None:
        return False
    for el in page.body.iter("h1", "h2", "h3", "h4", "h5", "h6"):
        if normalize_space(el.text_content()).lower() != key:
            continue
        marks = " ".join(f"{a.get('class') or ''} {a.get('id') or ''}"
                         for a in (el, *el.iterancestors()))
        if not _LOGO_RE.search(marks):
            return True
    return False


def heading_texts(page: Page) -> set[str]:
    """Texts (spaces normalized) of the page's headings: ``<h1>``-``<h6>`` and the elements
    :data:`HEADING_XPATH` names."""
    if page.body is None:
        return set()
    texts = {normalize_space(el.text_content()) for el in page.body.xpath(HEADING_XPATH)}
    texts.discard("")
    return texts


def logo_texts(page: Page) -> set[str]:
    """Lower-cased texts of the page's logo and brand elements (:data:`LOGO_MARKERS`) and of
    their images' ``alt`` (at most 8 words each: a whole masthead is not a name)."""
    if page.body is None:
        return set()
    out = set()
    for el in page.body.xpath("//*[@class or @id]"):
        if _LOGO_RE.search(f"{el.get('class') or ''} {el.get('id') or ''}") is None:
            continue
        for value in (el.text_content(), *el.xpath(".//img/@alt"), el.get("alt") or ""):
            value = normalize_space(value).lower()
            if value and len(value.split()) <= 8:
                out.add(value)
    return out
