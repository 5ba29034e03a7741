"""The cluster add-on: ``CORPUSCRAWL_REDIS_URL`` switches the crawl to scrapy-redis.

When the URL is set, before Scrapy freezes the settings, the add-on sets
(with ``setdefault`` semantics: a scrapy-redis setting the user gave wins):

* ``SCHEDULER`` — :class:`corpuscrawl.cluster.lease.LeasingScheduler`
  (scrapy-redis's scheduler with leases), ``DUPEFILTER_CLASS`` —
  scrapy-redis's ``RFPDupeFilter``, ``SCHEDULER_PERSIST`` — True;
* ``REDIS_URL`` — the URL; ``SCHEDULER_QUEUE_KEY`` /
  ``SCHEDULER_DUPEFILTER_KEY`` — ``corpuscrawl:<collection>:gen<N>:requests`` /
  ``:dupefilter``, so every worker of a collection shares one frontier and
  one seen-set per run generation (the seeds are therefore fetched once per
  generation, by whichever worker pushes them first: the others' copies are
  filtered as seen);
* ``CORPUSCRAWL_BOILERPLATE_HISTORY`` — the Redis history under
  ``corpuscrawl:<collection>:bp:``;
* ``CORPUSCRAWL_PAGE_STORE_CLASS`` — the recrawl page store in Redis
  (:class:`corpuscrawl.cluster.pages.RedisPageStore`, ``:pages``);
* the export's de-duplication — :class:`corpuscrawl.cluster.dedup.RedisNearDuplicateIndex`
  (see :func:`cluster_index`).

Before that it joins the collection's running generation or starts the next
one (:mod:`corpuscrawl.cluster.generation`): a cluster crawl of a collection
crawled before to the end is a recrawl, with conditional requests and only
new or changed documents exported, as on one machine.

The single-machine crawl state (:mod:`corpuscrawl.crawlstate`: SQLite
frontier, export ledger) steps aside in this mode: Redis holds the frontier
and the run generation, and the committed document claims play the ledger's
part.
"""

from __future__ import annotations

import logging
from dataclasses import replace as replace_field
from functools import partial
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import NotConfigured
from scrapy.settings import SETTINGS_PRIORITIES

from corpuscrawl.cluster.config import ClusterConfig, unreachable
from corpuscrawl.export.shared import share_index

if TYPE_CHECKING:
    from corpuscrawl.cluster.generation import ClusterRun

__all__ = ["ClusterAddon", "active_config", "cluster_config", "cluster_index", "cluster_run"]

logger = logging.getLogger("corpuscrawl.cluster")

SCHEDULER = "corpuscrawl.cluster.lease.LeasingScheduler"
DUPEFILTER = "scrapy_redis.dupefilter.RFPDupeFilter"
PAGE_STORE = "corpuscrawl.cluster.pages.RedisPageStore"


def cluster_config(settings: Any) -> ClusterConfig | None:
    """The cluster config of these settings (None outside cluster mode)."""
    return ClusterConfig.from_settings(settings)


class ClusterAddon:
    """Scrapy add-on wiring cluster mode (see the module docstring)."""

    def __init__(self, crawler: Any = None) -> None:
        self.crawler = crawler
        #: The worker's config, with the generation it joined (None outside cluster mode).
        self.config: ClusterConfig | None = None
        self.run: ClusterRun | None = None

    @property
    def run_record(self) -> ClusterRun | None:
        """The run generation, for the recrawl state (``crawlstate.recrawl``'s protocol)."""
        return self.run

    @classmethod
    def from_crawler(cls, crawler: Any) -> ClusterAddon:
        """Build for ``crawler`` (Scrapy passes it to add-ons)."""
        return cls(crawler)

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
        import redis

        from corpuscrawl.cluster.generation import begin_generation

        client = redis.Redis.from_url(config.url)
        self.run = begin_generation(client, config, self._user_keys(settings))
        config = self.config = replace_field(config, generation=self.run.generation)
        self.run.config = config
        if self.crawler is not None:  # the export stage's near-duplicate index, in Redis
            share_index(self.crawler, partial(cluster_index, self.crawler))
        # The prefix is %-formatted by scrapy-redis (%(spider)s): escape the collection.
        prefix = config.run_prefix.replace("%", "%%")

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
        replace("CORPUSCRAWL_PAGE_STORE_CLASS", PAGE_STORE)
        from corpuscrawl.cluster.feeds import prepare_feeds

        prepare_feeds(settings, config, client)
        logger.info("cluster mode: worker %s, collection %s, generation %d on %s", config.worker,
                    config.collection, config.generation, config.url)

    def _user_keys(self, settings: Any) -> list[str]:
        """Scheduler keys the user gave (emptied when a new generation starts)."""
        name = getattr(getattr(self.crawler, "spider", None), "name", "") or ""
        keys = []
        for key in ("SCHEDULER_QUEUE_KEY", "SCHEDULER_DUPEFILTER_KEY"):
            if settings.getpriority(key) is not None and settings.get(key):
                try:
                    keys.append(str(settings.get(key)) % {"spider": name})
                except (KeyError, ValueError, TypeError):
                    keys.append(str(settings.get(key)))
        return keys


def active_config(crawler: Any) -> ClusterConfig | None:
    """The running worker's config, with its generation (None outside cluster mode)."""
    addon = crawler.get_addon(ClusterAddon) if crawler is not None else None
    return addon.config if addon is not None else None


def cluster_run(crawler: Any) -> ClusterRun | None:
    """The generation this worker crawls (None outside cluster mode)."""
    addon = crawler.get_addon(ClusterAddon) if crawler is not None else None
    return addon.run if addon is not None else None


def cluster_index(crawler: Any, threshold: float, num_perm: int, shingle_words: int) -> Any:
    """The Redis de-duplication index of this generation in cluster mode, else None."""
    config = active_config(crawler)
    if config is None:
        return None
    import redis

    from corpuscrawl.cluster.dedup import RedisNearDuplicateIndex

    client = redis.Redis.from_url(config.url)
    return RedisNearDuplicateIndex(client, config.run_prefix + "dedup:", config.worker, threshold,
                                   num_perm, shingle_words)
