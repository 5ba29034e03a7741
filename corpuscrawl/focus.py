"""Focused crawling: how relevant a page is, and so how soon its links are fetched.

A page scores high when its extracted text is long, in a target language and
about the configured keywords; its links inherit that score, with a bonus for
links found inside the main content (an article's references, a feed's items)
and for keywords in the anchor or URL, and a penalty for navigation-looking
anchors.  The score becomes the Scrapy request priority (higher = sooner).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

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
#: Scale from a score in [0, ~2] to an integer Scrapy priority.
PRIORITY_SCALE_DEFAULT = 100


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

    def __post_init__(self) -> None:
        kws = [re.escape(k) for k in self.config.keywords]
        self._kw_re = re.compile(r"\b(" + "|".join(kws) + r")", re.I) if kws else None

    def keyword_hits(self, text: str) -> int:
        """Number of keyword occurrences in ``text``."""
        return len(self._kw_re.findall(text)) if self._kw_re else 0

    def language_ok(self, language: str) -> bool:
        """True when there are no target languages or ``language`` is one of them."""
        return not self.config.languages or language in self.config.languages

    def page_score(self, text: str, language: str = "", title: str = "") -> float:
        """Relevance of a page in [0, 1] from its extracted text."""
        n_words = len(text.split())
        score = 1.0 - math.exp(-n_words / self.config.length_scale)
        if self.config.languages and not self.language_ok(language):
            score *= OFF_LANGUAGE_WEIGHT_DEFAULT
        if self._kw_re is not None:
            hits = self.keyword_hits(title) * 3 + self.keyword_hits(text)
            score *= 0.25 + 0.75 * min(1.0, hits / 3)
        return score

    def link_score(self, page_score: float, anchor: str, url: str, in_content: bool) -> float:
        """Relevance of a link found on a page with score ``page_score``."""
        score = page_score
        if in_content:
            score += IN_CONTENT_BONUS_DEFAULT
        elif len(anchor.split()) <= NAV_ANCHOR_MAX_WORDS_DEFAULT:
            score *= 0.5
        if self._kw_re is not None and (self._kw_re.search(anchor) or self._kw_re.search(url)):
            score += KEYWORD_LINK_BONUS_DEFAULT
        return score

    @staticmethod
    def priority(score: float) -> int:
        """Integer Scrapy request priority of a score."""
        return int(round(score * PRIORITY_SCALE_DEFAULT))


def anchors_in_content(anchors: Iterable[str], text: str, min_chars: int = 4) -> set[str]:
    """The anchors (of at least ``min_chars`` characters) that occur inside the main text."""
    if not text:
        return set()
    return {a for a in anchors if len(a) >= min_chars and a in text}
