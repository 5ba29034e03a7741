"""The one extractor contract every extraction method follows.

An extractor is any object with a ``name`` and ``extract(page) -> str``; it
returns the main text with paragraphs separated by newlines, or ``""`` when the
page has no real content (a valid answer: paywalls, picture pages).  It never
modifies ``page.tree`` or ``page.clean_tree``.

Every extractor built through the registry is wrapped in
:class:`NormalizedExtractor`, the one place where all outputs pass: its text
is in the normal form of :func:`corpuscrawl.html.text.normalize_text` (NFC, no
soft hyphens or stray zero-width characters, white space collapsed, one
paragraph per line), without the page-furniture lines of
:mod:`corpuscrawl.extract.furniture` (reading-time badges, related-content lists).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from corpuscrawl.extract.furniture import drop_furniture
from corpuscrawl.html.page import Page
from corpuscrawl.html.text import normalize_text


@runtime_checkable
class Extractor(Protocol):
    """Main-content extractor: HTML page in, plain text out."""

    name: str

    def extract(self, page: Page) -> str:
        """Return the page's main text (paragraphs separated by newlines) or ""."""
        ...


class NormalizedExtractor:
    """An extractor whose output is normalised text without page-furniture lines.

    Attributes other than ``extract`` are the wrapped extractor's (``name``,
    ``method_name``, a hybrid's ``choose`` ...); ``inner`` is the extractor itself.
    """

    __slots__ = ("inner",)

    def __init__(self, inner: Extractor):
        self.inner = inner

    @property
    def name(self) -> str:
        """The wrapped extractor's name."""
        return self.inner.name

    def extract(self, page: Page) -> str:
        """The wrapped extractor's text of ``page``, normalised, without page-furniture lines."""
        return drop_furniture(normalize_text(self.inner.extract(page) or ""))

    def __getattr__(self, attr: str) -> Any:
        if attr == "inner":  # not yet set (unpickling): never recurse
            raise AttributeError(attr)
        return getattr(self.inner, attr)

    def __repr__(self) -> str:
        return f"NormalizedExtractor({self.inner!r})"


def normalized(extractor: Extractor) -> NormalizedExtractor:
    """``extractor`` with normalised output (an already normalised one is returned as is)."""
    return extractor if isinstance(extractor, NormalizedExtractor) else NormalizedExtractor(extractor)


class ExtractorError(Exception):
    """An extractor cannot be built or configured (bad name, bad option, bad model file)."""


class UnknownExtractorError(ExtractorError, KeyError):
    """No extractor is registered under the requested name."""

    def __init__(self, name: str, known: list[str]):
        self.name = name
        self.known = known
        super().__init__(f"unknown extractor {name!r}; known extractors: {', '.join(known)}")

    def __str__(self) -> str:
        return self.args[0]
