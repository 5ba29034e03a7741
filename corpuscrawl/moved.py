"""Modules that moved when the package was laid out in rooms, and the error an old path gets.

User settings name corpuscrawl classes by import path (``CORPUSCRAWL_EXTRACTORS`` entries
such as ``"corpuscrawl.extract.bte:BTEExtractor"``, ``ITEM_PIPELINES`` and ``EXTENSIONS``
keys), and templates or plugins import them.  An old path fails with
:class:`ModuleMovedError` naming the new module, wherever it is imported (Scrapy's
``load_object``, the extractor registry, a user's own ``import``): the path is to be
updated, nothing is silently redirected.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

#: Old module path -> the module that holds its contents now.
MOVED_MODULES: dict[str, str] = {
    "corpuscrawl.boilerplate.scrapy_glue": "corpuscrawl.export_glue",
    "corpuscrawl.browse.labeling": "corpuscrawl.learn.labeling",
    "corpuscrawl.browse.training": "corpuscrawl.learn.elements",
    "corpuscrawl.extract.alignment": "corpuscrawl.learn.alignment",
    "corpuscrawl.extract.auto": "corpuscrawl.extract.learned.auto",
    "corpuscrawl.extract.block_features": "corpuscrawl.extract.learned.block_features",
    "corpuscrawl.extract.blocks": "corpuscrawl.extract.segment.blocks",
    "corpuscrawl.extract.boilerpipe": "corpuscrawl.extract.classic.boilerpipe",
    "corpuscrawl.extract.bte": "corpuscrawl.extract.classic.bte",
    "corpuscrawl.extract.cdom": "corpuscrawl.extract.segment.cdom",
    "corpuscrawl.extract.dom": "corpuscrawl.html.dom",
    "corpuscrawl.extract.energy": "corpuscrawl.extract.classic.energy",
    "corpuscrawl.extract.features": "corpuscrawl.extract.learned.features",
    "corpuscrawl.extract.forest": "corpuscrawl.extract.learned.forest",
    "corpuscrawl.extract.hybrid": "corpuscrawl.extract.learned.hybrid",
    "corpuscrawl.extract.jt": "corpuscrawl.extract.classic.jt",
    "corpuscrawl.extract.linkblocks": "corpuscrawl.extract.classic.linkblocks",
    "corpuscrawl.extract.metadata": "corpuscrawl.extract.meta.metadata",
    "corpuscrawl.extract.newsfeed": "corpuscrawl.extract.classic.newsfeed",
    "corpuscrawl.extract.readability": "corpuscrawl.extract.classic.readability",
    "corpuscrawl.extract.sections": "corpuscrawl.extract.segment.sections",
    "corpuscrawl.extract.segments": "corpuscrawl.extract.segment.segments",
    "corpuscrawl.extract.sequence": "corpuscrawl.extract.learned.sequence",
    "corpuscrawl.extract.stacking": "corpuscrawl.extract.learned.stacking",
    "corpuscrawl.extract.template": "corpuscrawl.extract.classic.template",
    "corpuscrawl.extract.title": "corpuscrawl.extract.meta.title",
    "corpuscrawl.extract.title_features": "corpuscrawl.extract.learned.title_features",
    "corpuscrawl.extract.training": "corpuscrawl.learn.training",
    "corpuscrawl.extract.trainset": "corpuscrawl.learn.trainset",
    "corpuscrawl.models": "corpuscrawl.extract.learned.models",
    "corpuscrawl.page": "corpuscrawl.html.page",
    "corpuscrawl.urls": "corpuscrawl.net.urls",
}


class ModuleMovedError(ModuleNotFoundError):
    """An import of a module path that moved; the message names the new module."""

    def __init__(self, old: str, new: str):
        super().__init__(f"{old} moved to {new}: update the path (in CORPUSCRAWL_EXTRACTORS, "
                         f"ITEM_PIPELINES, EXTENSIONS or an import) to {new}", name=old)
        self.old, self.new = old, new


def moved_path(path: str) -> str | None:
    """``path`` (``"module:attr"`` or a dotted ``"module.attr"``) with its moved module
    replaced by the new one, or ``None`` if no part of it moved."""
    module, sep, attr = path.partition(":")
    parts = module.split(".")
    for end in range(len(parts), 1, -1):
        new = MOVED_MODULES.get(".".join(parts[:end]))
        if new is not None:
            return ".".join([new, *parts[end:]]) + sep + attr
    return None


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Last on ``sys.meta_path``: an old module path that nothing else finds raises
    :class:`ModuleMovedError` instead of a bare "No module named"."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> Any:
        """Raise for a moved module; ``None`` (not ours) for every other name."""
        new = MOVED_MODULES.get(fullname)
        if new is not None:
            raise ModuleMovedError(fullname, new)
        return None


def install() -> None:
    """Put :class:`MovedModuleFinder` on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())
