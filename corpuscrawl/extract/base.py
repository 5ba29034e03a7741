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
:mod:`corpuscrawl.extract.lines.furniture` (reading-time badges, related-content lists).

An extractor that finds a page's reader comments (``auto``, whose comment cut
finds the section: :mod:`corpuscrawl.extract.segment.sections`) may also have
``extract_parts(page) -> Extracted``: the main text and the comments apart, as
trafilatura gives ``text`` and ``comments``.  It is optional: :func:`extract_parts`
calls it when there is one and takes ``extract`` as the text, with no comments,
when there is not, so every extractor, template and plug-in keeps working as is.
``extract(page)`` is always the main text alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from corpuscrawl.extract.lines.furniture import drop_furniture
from corpuscrawl.html.page import Page
from corpuscrawl.html.text import normalize_text


@runtime_checkable
class Extractor(Protocol):
    """Main-content extractor: HTML page in, plain text out."""

    name: str

    def extract(self, page: Page) -> str:
        """Return the page's main text (paragraphs separated by newlines) or ""."""
        ...


@dataclass(frozen=True)
class Extracted:
    """A page's main ``text`` and its reader ``comments`` (each paragraphs separated by
    newlines, "" when none), extracted apart: comments are never part of ``text``."""

    text: str
    comments: str = ""


@runtime_checkable
class PartsExtractor(Extractor, Protocol):
    """An extractor that can give a page's reader comments apart from its main text."""

    def extract_parts(self, page: Page) -> Extracted:
        """The page's main text and its reader comments."""
        ...


def extract_parts(extractor: Extractor, page: Page) -> Extracted:
    """``extractor``'s text and comments of ``page``: its ``extract_parts`` when it has one,
    else its ``extract`` as the text and no comments."""
    parts = getattr(extractor, "extract_parts", None)
    if parts is None:
        return Extracted(extractor.extract(page) or "")
    return parts(page)


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
        return clean_output(self.inner.extract(page))

    def extract_parts(self, page: Page) -> Extracted:
        """The wrapped extractor's text and comments of ``page`` (:func:`extract_parts`),
        each normalised and without page-furniture lines as :meth:`extract`'s text is."""
        parts = extract_parts(self.inner, page)
        return Extracted(clean_output(parts.text), clean_output(parts.comments))

    def __getattr__(self, attr: str) -> Any:
        if attr == "inner":  # not yet set (unpickling): never recurse
            raise AttributeError(attr)
        return getattr(self.inner, attr)

    def __repr__(self) -> str:
        return f"NormalizedExtractor({self.inner!r})"


def clean_output(text: str | None) -> str:
    """An extractor's output in the normal form every output has: normalised text
    (:func:`~corpuscrawl.html.text.normalize_text`) without page-furniture lines."""
    return drop_furniture(normalize_text(text or ""))


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
