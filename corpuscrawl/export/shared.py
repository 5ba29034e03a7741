"""A near-duplicate index shared by the workers of one crawl, found through the crawler.

By default the export stage keeps its own index on disk
(:class:`~corpuscrawl.export.dedup_store.SQLiteNearDuplicateIndex`).  Cluster mode
(:mod:`corpuscrawl.cluster.scrapy_glue.cluster_addon`) registers a factory of its Redis index for the
crawler, so every worker drops the near-duplicates of every other one; the stage asks
for it here instead of importing the cluster room, which builds on the export room.
Registering opens nothing: the factory connects when the stage calls it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["IndexFactory", "share_index", "shared_index"]

#: ``factory(threshold, num_perm, shingle_words)`` -> an index with
#: :class:`~corpuscrawl.export.dedup.NearDuplicateIndex`'s methods, or None.
IndexFactory = Callable[[float, int, int], Any]

_FACTORIES: weakref.WeakKeyDictionary[Any, IndexFactory] = weakref.WeakKeyDictionary()


def share_index(crawler: Any, factory: IndexFactory) -> None:
    """Make ``factory`` build the near-duplicate index of ``crawler``'s export stage."""
    _FACTORIES[crawler] = factory


def shared_index(crawler: Any, threshold: float, num_perm: int, shingle_words: int) -> Any:
    """The shared index of ``crawler`` (None when nothing registered one)."""
    factory = _FACTORIES.get(crawler) if crawler is not None else None
    return factory(threshold, num_perm, shingle_words) if factory is not None else None
