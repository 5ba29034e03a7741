"""What the spider hands to the pipeline for each fetched page."""

from __future__ import annotations

from dataclasses import dataclass, field

from corpuscrawl.extraction import ExtractionResult


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
