"""The one extractor contract every extraction method follows.

An extractor is any object with a ``name`` and ``extract(page) -> str``; it
returns the main text with paragraphs separated by newlines, or ``""`` when the
page has no real content (a valid answer: paywalls, picture pages).  It never
modifies ``page.tree`` or ``page.clean_tree``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from corpuscrawl.html.page import Page


@runtime_checkable
class Extractor(Protocol):
    """Main-content extractor: HTML page in, plain text out."""

    name: str

    def extract(self, page: Page) -> str:
        """Return the page's main text (paragraphs separated by newlines) or ""."""
        ...


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
