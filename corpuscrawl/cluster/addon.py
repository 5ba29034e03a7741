"""The cluster add-on: ``CORPUSCRAWL_REDIS_URL`` switches the crawl to scrapy-redis.

When the URL is set, before Scrapy freezes the settings, the add-on sets
(with ``setdefault`` semantics: a scrapy-redis setting the user gave wins):

* ``SCHEDULER`` — :class:`corpuscrawl.cluster.lease.LeasingScheduler`
  (scrapy-redis's scheduler with leases), ``DUPEFILTER_CLASS`` —
  scrapy-redis's ``RFPDupeFilter``, ``SCHEDULER_PERSIST`` — True;
* ``REDIS_URL`` — the URL; ``SCHEDULER_QUEUE_KEY`` /
  ``SCHEDULER_DUPEFILTER_KEY`` — ``corpuscrawl:<collection>:requests`` /
  ``:dupefilter``, so every worker of a collection shares one frontier and
  one seen-set (the seeds are therefore fetched once, by whichever worker
  pushes them first: the others' copies are filtered as seen);
* ``CORPUSCRAWL_BOILERPLATE_HISTORY`` — the Redis history under
  ``corpuscrawl:<collection>:bp:``;
* the export's de-duplication — :class:`corpuscrawl.cluster.dedup.RedisNearDuplicateIndex`
  (see :func:`cluster_index`).

The single-machine crawl state (:mod:`corpuscrawl.crawlstate`: SQLite
frontier, export ledger, recrawl page store) steps aside in this mode: Redis
holds the frontier, and the committed document claims play the ledger's part.
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy.exceptions import NotConfigured
from scrapy.settings import SETTINGS_PRIORITIES

from corpuscrawl.cluster.config import ClusterConfig, unreachable

__all__ = ["ClusterAddon", "cluster_config", "cluster_index"]

logger = logging.getLogger("corpuscrawl.cluster")

SCHEDULER = "corpuscrawl.cluster.lease.LeasingScheduler"
DUPEFILTER = "scrapy_redis.dupefilter.RFPDupeFilter"


def cluster_config(settings: Any) -> ClusterConfig | None:
    """The cluster config of these settings (None outside cluster mode)."""
    return ClusterConfig.from_settings(settings)


class ClusterAddon:
    """Scrapy add-on wiring cluster mode (see the module docstring)."""

    def update_settings(self, settings: Any) -> None:
        """Plug scrapy-redis and the shared Redis state when CORPUSCRAWL_REDIS_URL is set."""
        config = cluster_config(settings)
        if config is None:
            raise NotConfigured("CORPUSCRAWL_REDIS_URL is not set")
        try:
            import scrapy_redis  # noqa: F401
        except ImportError as exc:
            raise NotConfigured("cluster mode needs scrapy-redis (pip install "
                                "'corpuscrawl[cluster]')") from exc
        problem = unreachable(config.url)
        if problem:
            raise RuntimeError(problem)
        # The prefix is %-formatted by scrapy-redis (%(spider)s): escape the collection.
        prefix = config.prefix.replace("%", "%%")

        def default(key: str, value: Any) -> None:
            if settings.getpriority(key) is None:  # scrapy-redis's keys: not Scrapy defaults
                settings.set(key, value, priority="addon")

        settings.set("SCHEDULER", SCHEDULER, priority="addon")
        if not str(settings.get("DUPEFILTER_CLASS") or "").startswith("scrapy_redis"):
            settings.set("DUPEFILTER_CLASS", DUPEFILTER, priority="addon")
        default("SCHEDULER_PERSIST", True)
        default("REDIS_URL", config.url)
        default("SCHEDULER_QUEUE_KEY", prefix + "requests")
        default("SCHEDULER_DUPEFILTER_KEY", prefix + "dupefilter")
        # corpuscrawl's own keys have project-priority defaults: replace those (a -s wins).
        project = SETTINGS_PRIORITIES["project"]

        def replace(key: str, value: Any) -> None:
            if (settings.getpriority(key) or 0) <= project:
                settings.set(key, value, priority="project")

        replace("CORPUSCRAWL_BOILERPLATE_HISTORY", config.url)
        replace("CORPUSCRAWL_BOILERPLATE_REDIS_PREFIX", config.prefix + "bp:")
        # The recrawl page store is per machine: the cluster crawls one generation.
        replace("CORPUSCRAWL_RECRAWL", "off")
        import redis

        from corpuscrawl.cluster.feeds import prepare_feeds

        prepare_feeds(settings, config, redis.Redis.from_url(config.url))
        logger.info("cluster mode: worker %s, collection %s on %s", config.worker,
                    config.collection, config.url)


def cluster_index(crawler: Any, threshold: float, num_perm: int, shingle_words: int) -> Any:
    """The Redis de-duplication index in cluster mode, else None."""
    config = cluster_config(crawler.settings)
    if config is None:
        return None
    import redis

    from corpuscrawl.cluster.dedup import RedisNearDuplicateIndex

    client = redis.Redis.from_url(config.url)
    return RedisNearDuplicateIndex(client, config.prefix + "dedup:", config.worker, threshold,
                                   num_perm, shingle_words)
