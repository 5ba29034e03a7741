"""What the spider hands to the pipeline for each fetched page."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from corpuscrawl.pagetext.extraction import ExtractionResult


@dataclass
class CrawledPage:
    """A fetched HTML page with its extraction result, before it becomes a Document.

    ``html`` is kept so that a page whose extraction failed can be stored and
    nothing is lost; the pipeline drops it from the Document.
    """

    url: str
    status: int
    html: str
    result: ExtractionResult
    depth: int = 0
    fetched_at: str = ""
    rendered: bool = False
    alternates: dict[str, str] = field(default_factory=dict)
    #: Position and kind of this coherent text within its page (split mode), else (0, "").
    unit: tuple[int, str] = (0, "")
    #: Why the page was rendered (or kept plain despite evidence); "" for a plain page.
    render_reason: str = ""


def crawled_pages(url: str, status: int, html: str, result: ExtractionResult, depth: int,
                  fetched_at: str, **extra: Any) -> Iterator[CrawledPage]:
    """The page's item, or in split mode one per coherent text (``result.units``), each
    with its own text; the page's reader comments go with its first unit only."""
    if not result.units:
        yield CrawledPage(url=url, status=status, html=html, result=result, depth=depth,
                          fetched_at=fetched_at, **extra)
        return
    for i, (kind, text) in enumerate(result.units):
        structure = result.unit_structures[i] if i < len(result.unit_structures) else []
        unit_result = replace(result, text=text, units=[], unit_structures=[],
                              structure=structure + (result.structure if i == 0 else []),
                              comments=result.comments if i == 0 else "")
        yield CrawledPage(url=url, status=status, html=html, result=unit_result, depth=depth,
                          fetched_at=fetched_at, unit=(i, kind), **extra)
