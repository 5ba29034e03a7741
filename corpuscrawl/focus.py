"""Focused crawling: how relevant a page is, and so how soon its links are fetched.

A page scores high when its extracted text is long, in a target language and
about the configured keywords; its links inherit that score, with a bonus for
links found inside the main content (an article's references, a feed's items)
and for keywords in the anchor or URL, and a penalty for navigation-looking
anchors.  The score becomes the Scrapy request priority (higher = sooner).

Two things keep the scores from depending on how much of a listing an extractor
keeps.  A page's length counts only its own words: the words of its text that
are the anchor text of its links (a listing's headlines, dates, "Comments (3)")
do not make it longer (link density, as in Kohlschütter et al., "Boilerplate
detection using shallow text features", WSDM 2010).  And a link to another view
of the same listing (its next page, another sort order: :func:`continues`) is
never taken for navigation, whether or not the extractor kept the pager.

What a link's parent says about it is only a prior.  The crawl also learns,
per *URL shape* (host plus the path and query with numbers, slugs and words
abstracted: ``/2024/05/13/some-story/`` -> ``/D/D/D/S/``), the mean score of
the pages of that shape it fetched, and a link's score is its prior combined
with that mean, each weighed by how well it predicted the pages fetched so far
(:class:`ShapeLearning`; the online learning of link predicates of Aggarwal,
Al-Garawi and Yu, "Intelligent crawling on the World Wide Web with arbitrary
predicates", WWW 2001, reduced to one predicate with an empirical-Bayes
average).  A shape whose pages all score alike is ranked by its mean; where
they differ (full and empty months of one calendar), the prior says which is
which.  On a news site whose articles hide among link-heavy tag and
calendar pages, a few fetched articles and listings teach the crawl which
pending links are articles.  What is learned reaches requests already waiting
in the durable frontier (:data:`FOCUS_LEARNED`,
:mod:`corpuscrawl.crawlstate.scrapy_glue.frontier`).

What a page teaches is what it added: its score is scaled by its novelty
(:class:`TextNovelty`), so the print view or comment-reply view of an article
already fetched, whose text one earlier page showed, does not teach that pages
of its shape are articles.  A page also adds the pages it leads to: its score is
at least its *hub* part, which grows with the headline-like links (anchors longer
than navigation's) to its own site that no earlier page showed
(:meth:`TextNovelty.new_links`).  So a listing ranks by what it discovers whether
or not the chosen extractor keeps its teasers (an article extractor leaves a
listing next to no text), and a listing whose teasers were all shown before
teaches nothing new about its shape by its links.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlsplit

#: Words of main text at which the length part of a page's score reaches ~63%.
LENGTH_SCALE_WORDS_DEFAULT = 300  # a typical news article body is 300-800 words
#: Weight of a page in another language than the targets (1.0 = no penalty).
OFF_LANGUAGE_WEIGHT_DEFAULT = 0.2
#: Bonus for a link whose anchor text is part of the extracted main text.
IN_CONTENT_BONUS_DEFAULT = 0.3
#: Bonus for a keyword in a link's anchor text or URL.
KEYWORD_LINK_BONUS_DEFAULT = 0.4
#: Anchors with at most this many words that are not in the content look like navigation.
NAV_ANCHOR_MAX_WORDS_DEFAULT = 2
#: New headline-like links at which the hub part of a page's score reaches ~63%: a listing
#: page shows 10-20 teasers.
HUB_SCALE_LINKS_DEFAULT = 10
#: Scale from a score in [0, ~2] to an integer Scrapy priority.
PRIORITY_SCALE_DEFAULT = 100
#: Weight of a link's prior against the pages of its URL shape fetched so far, in pages:
#: after this many pages of a shape, what they scored counts as much as the prior.
SHAPE_PRIOR_PAGES_DEFAULT = 0.5
#: Priority floor (as a score) of the first link found of a URL shape the crawl has neither
#: fetched nor followed yet: one page of each kind of page is tried early, so the listing
#: kinds the crawl learns do not hang on which links its first pages hold in their content.
EXPLORE_PRIOR_DEFAULT = 0.3
#: Request meta key holding a followed link's URL shape and prior score.
FOCUS_META = "corpuscrawl_focus"
#: Scrapy signal sent when the learned score of a URL shape changed: ``shape``, ``pages``
#: and ``total`` (pages fetched and the sum of their scores), ``rank`` (prior -> priority now),
#: ``squares`` (the sum of their squared scores) and ``misses`` (:attr:`ShapeLearning.misses`).
FOCUS_LEARNED = object()


def followed_link(meta: Mapping[str, Any] | None) -> tuple[str, float | None]:
    """The URL shape and prior score the focus gave a followed link, read from its request's
    ``meta`` (:data:`FOCUS_META`); ``""`` and None for a request the focus did not rank."""
    focus = meta.get(FOCUS_META) if meta is not None else None
    if not isinstance(focus, dict):
        return "", None
    prior = focus.get("prior")
    return str(focus.get("shape") or ""), float(prior) if isinstance(prior, int | float) else None


@dataclass(frozen=True)
class FocusConfig:
    """Target languages (ISO 639-1) and keywords; both empty = prefer long text only."""

    languages: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    length_scale: int = LENGTH_SCALE_WORDS_DEFAULT

    @classmethod
    def from_values(cls, languages: Iterable[str] | str = (),
                    keywords: Iterable[str] | str = ()) -> FocusConfig:
        """Build from lists or comma-separated strings (spider arguments)."""
        return cls(languages=tuple(_split(languages, lower=True)),
                   keywords=tuple(_split(keywords, lower=True)))


def _split(values: Iterable[str] | str, lower: bool = False) -> list[str]:
    if isinstance(values, str):
        values = values.split(",")
    out = [v.strip() for v in values if v and v.strip()]
    return [v.lower() for v in out] if lower else out


@dataclass
class Focus:
    """Scores pages and links for a focused crawl."""

    config: FocusConfig = field(default_factory=FocusConfig)
    #: What the crawl learned of the URL shapes it fetched.
    learning: ShapeLearning = field(default_factory=lambda: ShapeLearning())
    #: The text lines the crawl has seen, and so how much of a page is new.
    novelty: TextNovelty = field(default_factory=lambda: TextNovelty())
    #: URL shapes this process has followed a link of (:meth:`link_rank`).
    followed_shapes: set[str] = field(default_factory=set, repr=False)

    def __post_init__(self) -> None:
        kws = [re.escape(k) for k in self.config.keywords]
        self._kw_re = re.compile(r"\b(" + "|".join(kws) + r")", re.I) if kws else None

    def keyword_hits(self, text: str) -> int:
        """Number of keyword occurrences in ``text``."""
        return len(self._kw_re.findall(text)) if self._kw_re else 0

    def language_ok(self, language: str) -> bool:
        """True when there are no target languages or ``language`` is one of them."""
        return not self.config.languages or language in self.config.languages

    def page_score(self, text: str, language: str = "", title: str = "",
                   anchors: Iterable[str] = (), novelty: float = 1.0,
                   new_links: int = 0) -> float:
        """Relevance of a page in [0, 1] from its extracted text and the links it discovered.

        ``anchors``: the anchor texts of the page's links (one per link); the words of
        ``text`` that are anchor text (:func:`anchor_words`) do not count to its length.
        ``novelty`` (:meth:`TextNovelty.observe`) scales the length part; ``new_links``
        (:meth:`TextNovelty.new_links`) gives the hub part, and the larger part counts.
        Target languages and keywords weigh both.
        """
        n_words = len(text.split())
        if anchors:
            n_words = max(0, n_words - anchor_words(anchors, text))
        length = (1.0 - math.exp(-n_words / self.config.length_scale)) * novelty
        score = max(length, 1.0 - math.exp(-new_links / HUB_SCALE_LINKS_DEFAULT))
        if self.config.languages and not self.language_ok(language):
            score *= OFF_LANGUAGE_WEIGHT_DEFAULT
        if self._kw_re is not None:
            hits = self.keyword_hits(title) * 3 + self.keyword_hits(text)
            score *= 0.25 + 0.75 * min(1.0, hits / 3)
        return score

    def link_score(self, page_score: float, anchor: str, url: str, in_content: bool,
                   page_url: str = "") -> float:
        """Relevance of a link found on a page with score ``page_score``.

        A short anchor outside the content looks like navigation and halves the score,
        unless the link :func:`continues` the page at ``page_url`` (a pager, a sort order).
        """
        score = page_score
        if in_content:
            score += IN_CONTENT_BONUS_DEFAULT
        elif navigation_like(anchor) and not (page_url and continues(page_url, url)):
            score *= 0.5
        if self._kw_re is not None and (self._kw_re.search(anchor) or self._kw_re.search(url)):
            score += KEYWORD_LINK_BONUS_DEFAULT
        return score

    @staticmethod
    def priority(score: float) -> int:
        """Integer Scrapy request priority of a score."""
        return int(round(score * PRIORITY_SCALE_DEFAULT))

    def rank(self, prior: float, shape: str) -> int:
        """Priority of a link with score ``prior`` from its page and URL shape ``shape``."""
        return self.priority(self.learning.estimate(prior, shape))

    def link_rank(self, prior: float, shape: str) -> int:
        """Priority of a link being followed: :meth:`rank`, raised to
        :data:`EXPLORE_PRIOR_DEFAULT` for the first link of a URL shape that no fetched page
        has taught and no earlier link of has been followed.  Only the priority is raised: the
        link keeps its prior, so once a page of its shape is fetched the frontier re-ranks the
        shape's waiting links by what that page scored."""
        priority = self.rank(prior, shape)
        if shape not in self.followed_shapes:
            self.followed_shapes.add(shape)
            if shape not in self.learning.shapes:
                priority = max(priority, self.priority(EXPLORE_PRIOR_DEFAULT))
        return priority


_DIGITS = re.compile(r"\d+")


def _segment_shape(segment: str) -> str:
    """A path segment's class: D (number), S (slug: words joined by - or _), W (word), M (mixed)."""
    stem, dot, ext = segment.rpartition(".")
    if not dot or not ext.isalnum() or len(ext) > 5:
        stem, ext = segment, ""
    if stem.isdigit():
        shape = "D"
    elif "-" in stem or "_" in stem or "+" in stem or "%20" in stem:
        shape = "S"
    elif _DIGITS.search(stem):
        shape = "M"
    else:
        shape = "W"
    return f"{shape}.{ext.lower()}" if ext else shape


def url_shape(url: str) -> str:
    """The URL's shape: host, first path segment as written, the others and query values classed.

    ``http://x.org/2024/05/13/big-fire-12/`` -> ``x.org/D/D/D/S/``;
    ``http://x.org/tag/fire/page/2/`` -> ``x.org/tag/W/W/D/``;
    ``http://x.org/article.php?id=12`` -> ``x.org/article.php?id=D``.
    """
    parts = urlsplit(url)
    segments = parts.path.split("/")[1:]
    shaped = []
    for i, segment in enumerate(segments):
        if not segment:
            shaped.append("")
        elif i == 0 and not segment.isdigit() and not ("-" in segment and len(segment) > 20):
            shaped.append(segment.lower())
        else:
            shaped.append(_segment_shape(segment))
    query = sorted({f"{k}={_segment_shape(v) if v else ''}"
                    for k, v in parse_qsl(parts.query, keep_blank_values=True)})
    return (parts.hostname or "") + "/" + "/".join(shaped) + ("?" + "&".join(query) if query else "")


@dataclass
class ShapeLearning:
    """What the pages of each URL shape scored; a link's prior combined with it.

    Two predictions of a linked page's score are combined, each weighed by how
    reliable the crawl found it (precision weighting, the normal-normal model of
    empirical Bayes): the link's *prior* (its score from the page it is on), off
    by ``tau2`` on average (the mean squared error of the priors of the pages
    fetched so far), and its *shape's mean*, off by the shape's variance
    ``sigma2 * (1 + 1 / pages)`` (the spread of its pages' scores, one
    pseudo-page of the variance pooled over all shapes, plus the mean's own
    uncertainty).  A shape whose pages all score alike (articles, the pages of
    a tag) is ranked by its mean; one whose pages differ (a calendar whose
    months are full or empty) leaves more to the prior, so the month after an
    empty month is not ranked like the full ones.  Before any prior was checked
    against a fetched page, the prior counts as ``weight`` pages (a Bayesian
    average).  ``estimate`` is ``a * prior + b`` (:meth:`coefficients`): linear
    and monotonic in the prior, so requests of one shape keep their order among
    themselves and queued requests can be re-ranked away from this object.
    """

    weight: float = SHAPE_PRIOR_PAGES_DEFAULT
    #: shape -> (pages fetched, sum of their scores)
    shapes: dict[str, tuple[int, float]] = field(default_factory=dict)
    #: shape -> sum of its pages' squared scores
    squares: dict[str, float] = field(default_factory=dict)
    #: (pages whose prior was known, sum of the priors' squared errors)
    misses: tuple[int, float] = (0, 0.0)
    _pooled: tuple[float, int] = field(default=(0.0, 0), repr=False)  # within-shape SS, dof

    def load(self, shapes: Mapping[str, tuple[int, float]],
             squares: Mapping[str, float] | None = None,
             misses: tuple[int, float] | None = None) -> None:
        """Start from what an earlier run of the crawl learned."""
        self.shapes.update({k: (int(n), float(t)) for k, (n, t) in shapes.items()})
        if squares is not None:
            self.squares.update({k: float(v) for k, v in squares.items()})
        if misses is not None:
            self.misses = (int(misses[0]), float(misses[1]))
        self.repool()

    def _within(self, shape: str) -> tuple[float, int]:
        """The sum of squared deviations from the mean of ``shape``'s pages, and its dof."""
        pages, total = self.shapes.get(shape, (0, 0.0))
        if pages < 2 or shape not in self.squares:
            return 0.0, 0
        return max(0.0, self.squares[shape] - total * total / pages), pages - 1

    def repool(self) -> None:
        """Recompute the variance pooled over shapes (after ``shapes`` or ``squares`` were set)."""
        within = [self._within(shape) for shape in self.shapes]
        self._pooled = (sum(ss for ss, _ in within), sum(dof for _, dof in within))

    def observe(self, shape: str, score: float, prior: float | None = None) -> tuple[int, float]:
        """Count a fetched page of ``shape`` that scored ``score``, reached by a link whose
        prior was ``prior`` (None: not a followed link); return (pages, total)."""
        ss, dof = self._within(shape)
        pages, total = self.shapes.get(shape, (0, 0.0))
        self.shapes[shape] = learned = (pages + 1, total + score)
        if pages == 0 or shape in self.squares:  # not for a shape learned before squares were kept
            self.squares[shape] = self.squares.get(shape, 0.0) + score * score
        new_ss, new_dof = self._within(shape)
        self._pooled = (self._pooled[0] - ss + new_ss, self._pooled[1] - dof + new_dof)
        if prior is not None:
            self.misses = (self.misses[0] + 1, self.misses[1] + (prior - score) ** 2)
        return learned

    def coefficients(self, shape: str) -> tuple[float, float]:
        """``(a, b)`` with ``estimate(prior, shape) == a * prior + b``, for re-ranking queued
        requests where the estimate is computed away from this object (a Redis script)."""
        pages, total = self.shapes.get(shape, (0, 0.0))
        if pages == 0:
            return 1.0, 0.0
        mean = total / pages
        checked, errors = self.misses
        pooled_ss, pooled_dof = self._pooled
        if checked == 0 or pooled_dof == 0 or shape not in self.squares:
            return self.weight / (self.weight + pages), total / (self.weight + pages)
        ss, _ = self._within(shape)
        sigma2 = (ss + pooled_ss / pooled_dof) / pages
        spread = sigma2 * (1 + 1 / pages)
        tau2 = errors / checked
        if spread + tau2 <= 0:
            return 0.0, mean
        return spread / (spread + tau2), tau2 * mean / (spread + tau2)

    def estimate(self, prior: float, shape: str) -> float:
        """A link's score: its ``prior`` combined with what pages of its ``shape`` scored."""
        a, b = self.coefficients(shape)
        return a * prior + b


class LineMemory(Protocol):
    """Where a crawl keeps, per text line it has seen, the page that showed it first
    (:class:`TextNovelty`)."""

    def first_pages(self, hashes: list[int], page: int) -> dict[int, int]:
        """Record ``page`` as the first page of the lines ``hashes`` not recorded before;
        return, per hash, the page that showed it first."""
        ...


@dataclass
class SeenLines:
    """A :class:`LineMemory` in this process (a crawl without a durable state)."""

    first: dict[int, int] = field(default_factory=dict)

    def first_pages(self, hashes: list[int], page: int) -> dict[int, int]:
        """Record ``page`` as the first page of the lines ``hashes`` not recorded before;
        return, per hash, the page that showed it first."""
        return {h: self.first.setdefault(h, page) for h in hashes}


def stable_hash(text: str) -> int:
    """A signed 64-bit hash of ``text``, the same in every process and run (SQLite's
    INTEGER, a Redis hash field)."""
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


@dataclass
class TextNovelty:
    """How much of a fetched page's text is not a copy of one page fetched before.

    A page's extracted text is cut into its lines (an extractor's paragraphs, a listing's
    teasers), each hashed (:func:`stable_hash`, whitespace collapsed and case folded), and
    ``memory`` keeps the page that showed each line first.  The novelty is one minus the
    largest share of the page's words that one earlier page showed first (the containment
    of Broder, "On the resemblance and containment of documents", 1997, over lines): the
    print view or comment-reply view of an article already fetched is near 0, so it does
    not teach the crawl that pages like it are worth fetching, while a listing whose
    teasers appeared on several other listings, or a page fetched again, stays new.
    Which documents are exported as duplicates is the export's decision; this is only
    what the focus learns from.
    """

    memory: LineMemory = field(default_factory=SeenLines)

    def observe(self, text: str, url: str) -> float:
        """``text``'s novelty in [0, 1] (1.0 for no text); its lines are known from now on
        as first shown by the page at ``url`` where no earlier page showed them."""
        words: Counter[int] = Counter()
        for line in text.splitlines():
            n = len(line.split())
            if n:
                words[stable_hash(" ".join(line.casefold().split()))] += n
        total = sum(words.values())
        if not total:
            return 1.0
        page = stable_hash(url)
        shown: Counter[int] = Counter()
        for h, first in self.memory.first_pages(list(words), page).items():
            if first != page:
                shown[first] += words[h]
        return 1.0 - max(shown.values(), default=0) / total

    def new_links(self, links: Iterable[tuple[str, str]], url: str) -> int:
        """How many of a page's headline-like links no earlier page showed: distinct URLs on
        the page's own host (fragment dropped) whose anchor is longer than navigation's
        (not :func:`navigation_like`).  ``links``: (URL, anchor text) pairs of
        the page at ``url``; from now on they are known as shown by it (a page fetched again
        still shows them)."""
        try:
            host = urlsplit(url).hostname
        except ValueError:
            return 0
        keys = set()
        for link, anchor in links:
            if navigation_like(anchor):
                continue
            try:
                if urlsplit(link).hostname != host:
                    continue
            except ValueError:
                continue
            keys.add(stable_hash("link " + link.partition("#")[0]))
        if not keys:
            return 0
        page = stable_hash(url)
        return sum(first == page for first in self.memory.first_pages(sorted(keys), page).values())


def navigation_like(anchor: str) -> bool:
    """Whether a link's anchor is as short as navigation's (at most
    :data:`NAV_ANCHOR_MAX_WORDS_DEFAULT` words): a menu entry, a tag, a calendar day or
    "Continue reading", not a headline."""
    return len(anchor.split()) <= NAV_ANCHOR_MAX_WORDS_DEFAULT


def anchor_words(anchors: Iterable[str], text: str, min_chars: int = 4) -> int:
    """Words of ``text`` that are anchor text: per distinct anchor (of at least ``min_chars``
    characters) its words times its occurrences in ``text``, at most as many occurrences as
    links carry it (a tag named like a common word is not counted wherever the word is)."""
    if not text:
        return 0
    links = Counter(anchors)
    return sum(min(text.count(a), n) * len(a.split()) for a, n in links.items()
               if len(a) >= min_chars and a in text)


#: A pager tail of a path: a word then a number (``/page/2/``, ``/seite/3``).
_PAGER_TAIL = re.compile(r"/([^\W\d_]+)/\d+/?$")


def _pager_split(path: str) -> tuple[str, str]:
    """``path`` without its pager tail, and the tail's word ("" when it has none)."""
    found = _PAGER_TAIL.search(path)
    if found is None:
        return path.rstrip("/"), ""
    return path[:found.start()].rstrip("/"), found.group(1)


def continues(page_url: str, url: str) -> bool:
    """True when ``url`` is another view of the page at ``page_url``: the same host and
    path with query parameters added or numbers changed or dropped (``?page=2``,
    ``&sort=oldest``, ``&p=3`` from ``&p=2``), but not a parameter dropped for another
    with none of the page's kept (``/?cat=3`` from ``/?p=12``: another page), or the same path with a pager tail added or changed
    (``/tag/x/`` -> ``/tag/x/page/2/``).  A changed word or slug names another listing
    (``?t=sport`` from ``?t=politics``), and dated paths are not pagers
    (``/2024/05/13/`` is not a page of ``/2024/05/``).  A link that does not parse
    (``http://[::1``) continues nothing."""
    try:
        page, link = urlsplit(page_url), urlsplit(url)
        hosts = page.hostname, link.hostname
    except ValueError:
        return False
    if hosts[0] != hosts[1] or (page.path, page.query) == (link.path, link.query):
        return False
    if page.path != link.path:
        (stem, word), (link_stem, link_word) = _pager_split(page.path), _pager_split(link.path)
        return page.query == link.query and stem == link_stem \
            and (word == link_word or not word or not link_word)
    own = dict(parse_qsl(page.query, keep_blank_values=True))
    linked = dict(parse_qsl(link.query, keep_blank_values=True))
    for key, value in own.items():
        other = linked.get(key)
        if other != value and not (value.isdigit() and (other is None or other.isdigit())):
            return False
    # a link that drops a parameter and sets another is a view only while it keeps another
    # of the page's parameters as it is: ``?tag=x&order=asc`` from ``?tag=x&paged=2``, but
    # ``?cat=3`` from ``?p=12`` names another page
    if own.keys() - linked.keys() and linked.keys() - own.keys():
        return any(linked.get(key) == value for key, value in own.items())
    return True


def anchors_in_content(anchors: Iterable[str], text: str, min_chars: int = 4) -> set[str]:
    """The anchors (of at least ``min_chars`` characters) that occur inside the main text."""
    if not text:
        return set()
    return {a for a in anchors if len(a) >= min_chars and a in text}
