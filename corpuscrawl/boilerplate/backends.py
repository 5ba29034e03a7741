"""Which domain-history backend a location names: Redis for a ``redis://`` URL, else SQLite.

The backends (:mod:`.sqlite_history`, :mod:`.redis_history`) implement
:class:`~corpuscrawl.boilerplate.history.DomainHistory`; this module is the one
place that chooses between them, so the interface never imports its backends.
"""

from __future__ import annotations

from pathlib import Path

from corpuscrawl.boilerplate.history import DomainHistory


def open_history(location: str | Path, commit_every: int | None = None,
                 redis_prefix: str = "corpuscrawl:bp:") -> DomainHistory:
    """Open the store at ``location``: a ``redis://``/``rediss://``/``unix://`` URL, else a SQLite path.

    ``":memory:"`` gives a throwaway in-memory SQLite history; ``commit_every``
    (SQLite only) defaults to its ``COMMIT_EVERY_DEFAULT``.
    """
    text = str(location)
    if text.startswith(("redis://", "rediss://", "unix://")):
        from corpuscrawl.boilerplate.redis_history import RedisHistory

        return RedisHistory(text, prefix=redis_prefix)
    from corpuscrawl.boilerplate.sqlite_history import COMMIT_EVERY_DEFAULT, SQLiteHistory

    return SQLiteHistory(text, commit_every=commit_every or COMMIT_EVERY_DEFAULT)


__all__ = ["open_history"]
