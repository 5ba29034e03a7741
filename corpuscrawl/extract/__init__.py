"""The extractor registry: every extraction method by name.

The CLI, the crawl pipeline and the benchmarks all build extractors through
:func:`get_extractor`.  Like Scrapy's ``*_BASE`` settings, the built-in table
:data:`EXTRACTORS_BASE` is merged with a user mapping (the
``CORPUSCRAWL_EXTRACTORS`` setting): a user entry adds or replaces a name, and
``None`` removes one.  Entries are ``"module:Class"`` import paths, imported
only when used.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from corpuscrawl.extract.base import (
    Extractor,
    ExtractorError,
    NormalizedExtractor,
    UnknownExtractorError,
    normalized,
)

#: Built-in extractors: registry name -> "module:attribute" of a class or factory.
EXTRACTORS_BASE: dict[str, str] = {
    "bte": "corpuscrawl.extract.classic.bte:BTEExtractor",
    "justext": "corpuscrawl.extract.classic.jt:JusTextExtractor",
    "template": "corpuscrawl.extract.classic.template:TemplateExtractor",
    "boilerpipe-default": "corpuscrawl.extract.classic.boilerpipe:BoilerpipeDefaultExtractor",
    "boilerpipe-article": "corpuscrawl.extract.classic.boilerpipe:BoilerpipeArticleExtractor",
    "readability": "corpuscrawl.extract.classic.readability:ReadabilityExtractor",
    "newsfeed": "corpuscrawl.extract.classic.newsfeed:NewsFeedExtractor",
    "energy": "corpuscrawl.extract.classic.energy:EnergyExtractor",
    "linkblocks": "corpuscrawl.extract.classic.linkblocks:LinkBlocksExtractor",
    # Learned extractors (models under models/, trained with `corpuscrawl train NAME`).
    "hybrid-a": "corpuscrawl.extract.learned.hybrid:HybridAExtractor",
    "hybrid-b": "corpuscrawl.extract.learned.hybrid:HybridBExtractor",
    "segment-svm": "corpuscrawl.extract.learned.hybrid:SegmentSVMExtractor",
    "sequence": "corpuscrawl.extract.learned.sequence:SequenceExtractor",
    "auto": "corpuscrawl.extract.learned.auto:AutoExtractor",
}


def registry(overrides: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """The built-in table merged with ``overrides`` (``None`` values remove a name)."""
    table = dict(EXTRACTORS_BASE)
    for name, path in (overrides or {}).items():
        if path is None:
            table.pop(name, None)
        else:
            table[name] = path
    return table


def names(overrides: Mapping[str, str | None] | None = None) -> list[str]:
    """Sorted names of every registered extractor."""
    return sorted(registry(overrides))


def load_factory(path: str) -> Any:
    """Import ``"module:attribute"`` and return the attribute."""
    module_name, _, attr = path.partition(":")
    if not attr:
        raise ExtractorError(f"extractor path {path!r} must look like 'package.module:Class'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ExtractorError(f"cannot import extractor module {module_name!r}: {exc}") from exc
    try:
        return getattr(module, attr)
    except AttributeError as exc:
        raise ExtractorError(f"module {module_name!r} has no attribute {attr!r}") from exc


def get_extractor(name: str, overrides: Mapping[str, str | None] | None = None,
                  **options: Any) -> Extractor:
    """Build the extractor registered as ``name`` with keyword ``options``.

    Its output is normalised text (:class:`NormalizedExtractor`), whoever calls it.
    Raises :class:`UnknownExtractorError` (listing the known names) for an
    unknown name and :class:`ExtractorError` for bad options.
    """
    table = registry(overrides)
    if name not in table:
        raise UnknownExtractorError(name, sorted(table))
    factory = load_factory(table[name])
    try:
        extractor = factory(**options)
    except TypeError as exc:
        raise ExtractorError(f"extractor {name!r} does not accept options {options}: {exc}") from exc
    if not isinstance(extractor, Extractor):
        raise ExtractorError(f"{table[name]} did not build an extractor (needs name and extract())")
    return normalized(extractor)


__all__ = [
    "EXTRACTORS_BASE",
    "Extractor",
    "ExtractorError",
    "NormalizedExtractor",
    "UnknownExtractorError",
    "get_extractor",
    "load_factory",
    "names",
    "registry",
]
