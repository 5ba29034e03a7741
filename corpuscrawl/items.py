"""Items the crawl produces: one :class:`Document` per page with extracted content.

Documents are dataclasses, so Scrapy's feed exporters (through itemadapter)
write them as they are; every field has a default so partial documents can be
built in tests and by later stages.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field


def content_hash(text: str) -> str:
    """SHA-1 hex digest of the UTF-8 text: the identity of a document's content."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


@dataclass
class Document:
    """A cleaned document of the corpus.

    ``text`` holds paragraphs separated by newlines; ``comments`` the page's reader
    comments, apart from the text, in the same form ("" when the extractor found none or
    ``CORPUSCRAWL_COMMENTS`` puts them in the text or drops them; ``content_hash`` and the
    recrawl's change decision are over ``text`` alone).  ``extractor`` names the
    method (or ``template-<name>``) that produced it.  With
    ``CORPUSCRAWL_SPLIT_COHERENT`` a page yields one document per coherent text
    (Dorosz's coherent-text paper), numbered by ``unit_index`` with its ``unit_kind`` (body, teaser,
    text).  ``removed_boilerplate``
    and ``boilerplate_hashes`` are filled by the export stage when it removes
    paragraphs that repeat across the domain's history.
    """

    url: str = ""
    domain: str = ""
    title: str = ""
    text: str = ""
    comments: str = ""
    language: str = ""
    extractor: str = ""
    fetched_at: str = ""
    status: int = 0
    content_hash: str = ""
    date: str = ""
    author: str = ""
    depth: int = 0
    rendered: bool = False
    #: Why the page was rendered in a browser (``render=auto`` evidence, domain experience,
    #: ``render=always``), or kept plain despite evidence; "" for a plain page.
    render_reason: str = ""
    alternates: dict[str, str] = field(default_factory=dict)
    unit_index: int = 0
    unit_kind: str = ""
    removed_boilerplate: int = 0
    boilerplate_hashes: list[str] = field(default_factory=list)
    #: ``new`` or ``changed`` since the collection's last crawl (``unchanged`` with recrawl=full).
    change: str = ""
    #: What the page says about itself (corpuscrawl.extract.meta.page_info), "" / [] when not.
    site_name: str = ""
    description: str = ""
    categories: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    license: str = ""
    image: str = ""
    modified: str = ""
    canonical_url: str = ""
    #: The role of each line of ``text`` and ``comments`` (corpuscrawl.extract.lines.structure),
    #: kept for Markdown and TEI output; never written to a feed as it is.
    structure: list[str] = field(default_factory=list)
    #: What kind of page the text comes from (article, forum, documentation, service,
    #: product, listing, collection, other; :mod:`corpuscrawl.extract.page_typing.page_type`).
    page_type: str = ""


@dataclass
class FailedPage:
    """A page whose extraction failed: kept (not lost) with a reference to its raw HTML.

    It is not a corpus document; the pipeline stores the HTML under
    ``CORPUSCRAWL_FAILED_DIR`` and drops the item after counting it.
    """

    url: str
    status: int
    error: str
    html_path: str = ""
