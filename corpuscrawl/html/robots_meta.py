"""Page-level crawler directives: ``<meta name="robots">`` and the ``X-Robots-Tag`` header.

A page may ask not to be indexed (``noindex``: it is not exported), not to have
its links followed (``nofollow``) or both (``none``).  The rules are the ones
of the Robots Exclusion Protocol's page-level extension as the big crawlers
read it (Google Search Central, "Robots meta tag, data-nosnippet, and
X-Robots-Tag specifications"):

* ``<meta name="robots" content="...">`` applies to every crawler,
  ``<meta name="TOKEN" content="...">`` to the crawler whose product token is
  ``TOKEN`` only (ours: :func:`agent_token`; ``googlebot`` is not ours);
* an ``X-Robots-Tag`` value may start with ``TOKEN:`` to address one crawler;
* directives are comma-separated, case-insensitive, and add up: the most
  restrictive one wins whatever tag or header it comes from; ``all`` and
  ``index``/``follow`` restrict nothing.  Pages also separate them with spaces or
  semicolons (``"noindex nofollow"``, ``"noindex;nofollow"``); those separate them
  here too, as no directive's name holds one.

Directives this crawler has no use for (``noarchive``, ``nosnippet``,
``max-snippet:``, ``unavailable_after:``, ...) are ignored.  Plain code: no Scrapy.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from corpuscrawl.html.page import Page

__all__ = ["RobotsDirectives", "agent_token", "header_directives", "page_directives"]

#: Directives of the form ``name: value`` (so ``name:`` is not a crawler's token).
VALUED_DIRECTIVES = frozenset({"unavailable_after", "max-snippet", "max-image-preview",
                               "max-video-preview"})
#: What separates directives in a list: commas, and the spaces and semicolons some pages use.
_SEPARATORS = re.compile(r"[\s,;]+")
#: The meta name that addresses every crawler.
ALL_CRAWLERS = "robots"


@dataclass(frozen=True)
class RobotsDirectives:
    """What a page allows: exporting its text (``noindex``) and following its links (``nofollow``)."""

    noindex: bool = False
    nofollow: bool = False

    def __or__(self, other: RobotsDirectives) -> RobotsDirectives:
        return RobotsDirectives(self.noindex or other.noindex, self.nofollow or other.nofollow)

    @classmethod
    def parse(cls, content: str) -> RobotsDirectives:
        """The directives of one list (``"noindex, nofollow"``, ``"none"``, ``"noindex nofollow"``)."""
        words = set(_SEPARATORS.split(content.lower()))
        none = "none" in words
        return cls(noindex=none or "noindex" in words, nofollow=none or "nofollow" in words)

    def as_list(self) -> list[str]:
        """The restricting directives by name (for logs and request meta)."""
        return [name for name, on in (("noindex", self.noindex), ("nofollow", self.nofollow)) if on]


def agent_token(user_agent: str) -> str:
    """Our product token, lower-cased: ``corpuscrawl/1.2 (+https://...)`` -> ``corpuscrawl``."""
    match = re.match(r"\s*([^\s/;()]+)", user_agent or "")
    return match.group(1).lower() if match else ""


def header_directives(values: Iterable[str | bytes], token: str) -> RobotsDirectives:
    """The directives for crawler ``token`` in the ``X-Robots-Tag`` header values."""
    found = RobotsDirectives()
    for raw in values:
        value = raw.decode("latin-1") if isinstance(raw, bytes) else raw
        head, colon, rest = value.partition(":")
        addressed = head.strip().lower()
        if colon and addressed not in VALUED_DIRECTIVES and "," not in head:
            if addressed != token:
                continue  # addressed to another crawler
            value = rest
        found |= RobotsDirectives.parse(value)
    return found


def page_directives(page: Page, token: str) -> RobotsDirectives:
    """The directives of a page's ``<meta name="robots">`` and ``<meta name="TOKEN">`` tags."""
    found = RobotsDirectives()
    names = {ALL_CRAWLERS, token} if token else {ALL_CRAWLERS}
    for meta in page.tree.iter("meta"):
        name = (meta.get("name") or "").strip().lower()
        if name in names:
            found |= RobotsDirectives.parse(meta.get("content") or "")
    return found
