"""jusText (Pomikálek 2011) through the ``justext`` package, on the Page's own tree.

Source: Komporday's thesis §5.4.3.  The package's classification is used as is
(MAX_LINK_DENSITY 0.2, LENGTH_LOW 70, LENGTH_HIGH 200, STOPWORDS_LOW 0.30,
STOPWORDS_HIGH 0.32, context-sensitive revision of short/near-good blocks).

Deviations: the HTML is not parsed again (jusText's preprocessor runs on a copy
of the Page's tree); ``language="auto"`` picks the stoplist from the language
identified in the page text (English when unknown); paragraphs containing ``©``
are bad, as Komporday's description of jusText says.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import justext
from justext.core import (
    ParagraphMaker,
    classify_paragraphs,
    preprocessor,
    revise_paragraph_classification,
)

from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.html.dom import join_lines, normalize_space
from corpuscrawl.html.language import detect, stoplist_name
from corpuscrawl.html.page import Page

#: Stoplist used when the language is "auto" and cannot be identified.
FALLBACK_LANGUAGE_DEFAULT = "English"


@lru_cache(maxsize=128)
def _stoplist(name: str) -> frozenset[str]:
    return frozenset(justext.get_stoplist(name))


class JusTextExtractor:
    """jusText paragraph classification with a per-language stoplist."""

    name = "justext"

    def __init__(self, language: str = "auto", length_low: int = justext.core.LENGTH_LOW_DEFAULT,
                 length_high: int = justext.core.LENGTH_HIGH_DEFAULT,
                 stopwords_low: float = justext.core.STOPWORDS_LOW_DEFAULT,
                 stopwords_high: float = justext.core.STOPWORDS_HIGH_DEFAULT,
                 max_link_density: float = justext.core.MAX_LINK_DENSITY_DEFAULT,
                 no_headings: bool = False):
        self.language = language
        if language != "auto":
            try:
                self.stoplist_name = stoplist_name(language)
            except ValueError as exc:
                raise ExtractorError(str(exc)) from exc
        self.options = dict(length_low=length_low, length_high=length_high,
                            stopwords_low=stopwords_low, stopwords_high=stopwords_high,
                            max_link_density=max_link_density, no_headings=no_headings)

    def stoplist_for(self, page: Page) -> frozenset[str]:
        """The stoplist configured, or for "auto" the one of the page's identified language."""
        if self.language != "auto":
            return _stoplist(self.stoplist_name)
        code, _ = detect(normalize_space(page.body.text_content()))
        try:
            return _stoplist(stoplist_name(code)) if code else _stoplist(FALLBACK_LANGUAGE_DEFAULT)
        except ValueError:
            return _stoplist(FALLBACK_LANGUAGE_DEFAULT)

    def paragraphs(self, page: Page) -> list:  # list[justext.paragraph.Paragraph]
        """jusText's classified paragraphs of the page (each has ``class_type`` and ``text``)."""
        dom = preprocessor(page.tree)  # the Cleaner works on a deep copy
        paragraphs = ParagraphMaker.make_paragraphs(dom)
        classify_paragraphs(paragraphs, self.stoplist_for(page), **self.options)
        for p in paragraphs:
            if "©" in p.text:
                p.cf_class = "bad"
        revise_paragraph_classification(paragraphs)
        return paragraphs

    def extract(self, page: Page) -> str:
        """Text of the paragraphs jusText classifies as good, one per line."""
        return "\n".join(
            text for text in (paragraph_text(p) for p in self.paragraphs(page)
                              if p.class_type == "good") if text
        )


def paragraph_text(paragraph: Any) -> str:
    """A jusText paragraph's text, its single ``<br>`` line breaks kept as line breaks.

    jusText starts a new paragraph at ``<br><br>`` and turns a single ``<br>``
    into a space; its paragraph maker never stores blank text otherwise, so a
    text node that is exactly one space is such a ``<br>``.  A line break
    between two lines of text (an address, a poem, a sign-off) stays one.
    """
    nodes = getattr(paragraph, "text_nodes", None)
    if not nodes:
        return normalize_space(paragraph.text)
    return join_lines("".join("\n" if node == " " else node for node in nodes).split("\n"))
