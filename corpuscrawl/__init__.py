"""corpuscrawl: a Scrapy-based focused crawler that builds clean text corpora from the web.

The names other code imports from ``corpuscrawl`` (``from corpuscrawl import Page,
get_extractor``) are listed in ``__all__``; ``corpuscrawl.Addon`` is the Scrapy add-on
that installs a corpus crawl in any Scrapy project (``ADDONS = {"corpuscrawl.Addon": 0}``).  Each is imported on first use (PEP 562
``__getattr__``), so ``import corpuscrawl`` stays cheap for the command line and for
Scrapy's settings lookup, which would otherwise load the page parser and the extractor
registry (their import times are measured in ``benchmarks/results/house.md``).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_EXPORTS = {
    "Addon": "corpuscrawl.addon",
    "Document": "corpuscrawl.items",
    "Extractor": "corpuscrawl.extract.base",
    "ExtractorError": "corpuscrawl.extract.base",
    "Page": "corpuscrawl.html.page",
    "PageError": "corpuscrawl.html.page",
    "domain_of": "corpuscrawl.net.sites",
    "get_extractor": "corpuscrawl.extract",
    "same_site": "corpuscrawl.net.sites",
    "site_of": "corpuscrawl.net.sites",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'corpuscrawl' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names with the public ones not imported yet."""
    return sorted({*globals(), *_EXPORTS})
