"""The worker's committed feed sizes in Redis, so a killed worker's restart writes no twice.

A document reaches a worker's feed file before its de-duplication claim is
committed (the feed is flushed, then the claims are committed in the same
Redis transaction that records the feed files' sizes, ``feeds:<worker>``).
When the worker is killed in between, the tail of its file holds documents
whose claims are released and exported again by whoever refetches them.
Restarted under the same ``CORPUSCRAWL_CLUSTER_WORKER`` with the same output,
the worker cuts each local feed file back to its committed size first (and
appends to it, ``-O`` included); a worker that is never restarted leaves a
file whose valid part is the size recorded in ``feeds:<worker>``.  The record
outlives the run and the generation (field ``generation``): within one run
generation a worker's feed files are continued (appended, ``-O`` included),
since their documents are claimed and would not be exported again; a worker
starting in a later generation (a recrawl) still cuts a file back to what its
last life committed, then honours ``-O`` / ``-o`` as usual.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from corpuscrawl.cluster.config import ClusterConfig
from corpuscrawl.crawlstate.feed_paths import local_feed_path

__all__ = ["feed_sizes", "feeds_key", "prepare_feeds"]

logger = logging.getLogger("corpuscrawl.cluster")

#: Field of ``feeds:<worker>`` naming the generation its sizes belong to.
GENERATION_FIELD = "generation"


def feeds_key(config: ClusterConfig) -> str:
    """The hash of committed feed sizes (path -> bytes) of this worker."""
    return f"{config.prefix}feeds:{config.worker}"


def prepare_feeds(settings: Any, config: ClusterConfig, client: Any) -> None:
    """Cut the local feeds back to their committed sizes after a kill; record the start sizes.

    Rewrites FEEDS to append when a committed size of this generation exists (a
    restart after a kill or a stop), so ``-O`` does not wipe what the previous
    life exported.
    """
    key = feeds_key(config)
    committed = {k.decode(): int(v) for k, v in client.hgetall(key).items()}
    same_generation = committed.pop(GENERATION_FIELD, None) == config.generation
    feeds = dict(settings.getdict("FEEDS"))
    sizes: dict[str, int] = {}
    rewritten = False
    for uri, options in list(feeds.items()):
        path = local_feed_path(str(uri))
        if path is None:
            continue
        options = dict(options or {})
        name = str(path)
        if name in committed:
            size = committed[name]
            if path.is_file() and path.stat().st_size > size:
                with path.open("r+b") as fh:
                    fh.truncate(size)
                logger.warning("cluster: %s cut back to its %d committed bytes (the previous "
                               "run of worker %s was killed)", path, size, config.worker)
        if name in committed and same_generation:
            options["overwrite"] = False
            feeds[uri] = options
            rewritten = True
            sizes[name] = committed[name]
        else:
            overwrite = bool(options.get("overwrite", False))
            sizes[name] = 0 if overwrite or not path.is_file() else path.stat().st_size
    if rewritten:
        settings.set("FEEDS", feeds, priority=settings.getpriority("FEEDS"))
    if sizes:
        client.hset(key, mapping={**sizes, GENERATION_FIELD: config.generation})


def feed_sizes(files: list[Any]) -> dict[str, int]:
    """Current sizes of the given (flushed) local feed files, by absolute path."""
    sizes = {}
    for file in files:
        name = getattr(file, "name", None)
        if isinstance(name, str) and os.path.isfile(name):
            sizes[str(Path(name).resolve())] = os.path.getsize(name)
    return sizes
