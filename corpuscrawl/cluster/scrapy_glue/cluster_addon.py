"""The cluster add-on: ``CORPUSCRAWL_REDIS_URL`` switches the crawl to scrapy-redis.

Installed by :class:`corpuscrawl.Addon`.  When the URL is set, the add-on's
``update_settings`` sets (with ``setdefault`` semantics: a scrapy-redis setting
the user gave wins), without contacting Redis:

* ``SCHEDULER`` — :class:`corpuscrawl.cluster.scrapy_glue.lease.LeasingScheduler`
  (scrapy-redis's scheduler with leases), ``DUPEFILTER_CLASS`` —
  scrapy-redis's ``RFPDupeFilter``, ``SCHEDULER_PERSIST`` — True;
* ``REDIS_URL`` — the URL;
* ``CORPUSCRAWL_BOILERPLATE_HISTORY`` — the Redis history under
  ``corpuscrawl:<collection>:bp:``;
* ``CORPUSCRAWL_PAGE_STORE_CLASS`` — the recrawl page store in Redis
  (:class:`corpuscrawl.cluster.redis_pages.RedisPageStore`, ``:pages``);
* the :class:`ClusterJoiner` extension.

The joiner, the first extension Scrapy builds, connects: it sets
``SCHEDULER_QUEUE_KEY`` / ``SCHEDULER_DUPEFILTER_KEY`` —
``corpuscrawl:<collection>:gen<N>:requests`` / ``:dupefilter``, so every worker of
a collection shares one frontier and one seen-set per run generation (the seeds are
therefore fetched once per generation, by whichever worker pushes them first: the
others' copies are filtered as seen) — and registers the export's de-duplication,
:class:`corpuscrawl.cluster.redis_dedup.RedisNearDuplicateIndex` (see :func:`cluster_index`),
and the generation's host records (robots.txt copies and error-page probes shared by the
workers, :class:`corpuscrawl.crawlstate.hosts.RedisHostRecords`).

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
from typing import Any

from scrapy.exceptions import NotConfigured
from scrapy.settings import SETTINGS_PRIORITIES

from corpuscrawl.cluster.config import ClusterConfig, unreachable
from corpuscrawl.cluster.feeds import prepare_feeds
from corpuscrawl.cluster.generation import ClusterRun, active_config, begin_generation
from corpuscrawl.crawlstate.hosts import RedisHostRecords
from corpuscrawl.crawlstate.lookup import attach_host_records, attach_run_record
from corpuscrawl.export.shared import share_index

__all__ = ["ClusterAddon", "ClusterJoiner", "cluster_config", "cluster_index"]

logger = logging.getLogger("corpuscrawl.cluster")

SCHEDULER = "corpuscrawl.cluster.scrapy_glue.lease.LeasingScheduler"
DUPEFILTER = "scrapy_redis.dupefilter.RFPDupeFilter"
PAGE_STORE = "corpuscrawl.cluster.redis_pages.RedisPageStore"
JOINER = "corpuscrawl.cluster.scrapy_glue.cluster_addon.ClusterJoiner"
#: Among the first extensions built (Scrapy's own start at 0): the generation is joined
#: before the feed exporter reads FEEDS and the scheduler reads its keys.
JOINER_ORDER = -1000


def cluster_config(settings: Any) -> ClusterConfig | None:
    """The cluster config of these settings (None outside cluster mode)."""
    return ClusterConfig.from_settings(settings)


class ClusterAddon:
    """Scrapy add-on wiring cluster mode (see the module docstring).

    ``update_settings`` only sets settings and adds :class:`ClusterJoiner`, which
    connects to Redis when the crawl's extensions are built.
    """

    def __init__(self, crawler: Any = None) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Any) -> ClusterAddon:
        """Build for ``crawler`` (Scrapy passes it to add-ons)."""
        return cls(crawler)

    def update_settings(self, settings: Any) -> None:
        """Plug scrapy-redis and the shared Redis state when CORPUSCRAWL_REDIS_URL is set
        (Redis is not contacted here)."""
        config = cluster_config(settings)
        if config is None:
            raise NotConfigured("CORPUSCRAWL_REDIS_URL is not set")
        try:
            import scrapy_redis  # noqa: F401
        except ImportError as exc:
            raise NotConfigured("cluster mode needs scrapy-redis (pip install "
                                "'corpuscrawl[cluster]')") from exc
        settings.set("SCHEDULER", SCHEDULER, priority="addon")
        if not str(settings.get("DUPEFILTER_CLASS") or "").startswith("scrapy_redis"):
            settings.set("DUPEFILTER_CLASS", DUPEFILTER, priority="addon")
        _default(settings, "SCHEDULER_PERSIST", True)
        _default(settings, "REDIS_URL", config.url)
        _replace(settings, "CORPUSCRAWL_BOILERPLATE_HISTORY", config.url)
        _replace(settings, "CORPUSCRAWL_BOILERPLATE_REDIS_PREFIX", config.prefix + "bp:")
        _replace(settings, "CORPUSCRAWL_PAGE_STORE_CLASS", PAGE_STORE)
        extensions = dict(settings.getdict("EXTENSIONS"))
        if JOINER not in extensions:
            extensions[JOINER] = JOINER_ORDER
            settings.set("EXTENSIONS", extensions, priority=settings.getpriority("EXTENSIONS") or 0)


def _default(settings: Any, key: str, value: Any) -> None:
    """Set a scrapy-redis key nobody gave (they are not Scrapy settings: no default exists)."""
    if settings.getpriority(key) is None:
        settings.set(key, value, priority="addon")


def _replace(settings: Any, key: str, value: Any) -> None:
    """Replace one of corpuscrawl's keys unless it was given above project level (a -s,
    a spider's setting): the project's value is its single-machine default."""
    if (settings.getpriority(key) or 0) <= SETTINGS_PRIORITIES["project"]:
        settings.set(key, value, priority="project")


class ClusterJoiner:
    """Extension: joins the collection's run generation in Redis when the crawl is built.

    Extensions are built after every add-on's ``update_settings`` and before the
    settings freeze; this one comes first (``EXTENSIONS`` order :data:`JOINER_ORDER`).
    It checks Redis answers (a clear error naming the URL otherwise), joins the running
    generation or starts the next one (:mod:`corpuscrawl.cluster.generation`), names the
    generation's scheduler keys, registers the Redis near-duplicate index and prepares
    the worker's feed files (:mod:`corpuscrawl.cluster.feeds`), so the feed exporter and
    the scheduler built after it see all of that.
    """

    def __init__(self, crawler: Any, config: ClusterConfig, run: ClusterRun) -> None:
        self.crawler = crawler
        #: The worker's config, with the generation it joined.
        self.config = config
        self.run = run

    @classmethod
    def from_crawler(cls, crawler: Any) -> ClusterJoiner:
        """Join the generation of ``crawler``'s collection (NotConfigured outside cluster mode)."""
        settings = crawler.settings
        config = cluster_config(settings)
        if config is None:
            raise NotConfigured("CORPUSCRAWL_REDIS_URL is not set")
        if settings.frozen:
            raise RuntimeError(f"{JOINER} must be built before the settings freeze: keep it "
                               "in EXTENSIONS (the cluster add-on puts it there)")
        problem = unreachable(config.url)
        if problem:
            raise RuntimeError(problem)
        import redis

        client = redis.Redis.from_url(config.url)
        run = begin_generation(client, config, _user_keys(crawler, settings))
        config = replace_field(config, generation=run.generation)
        run.config = config
        joiner = cls(crawler, config, run)
        attach_run_record(crawler, run)  # the worker's generation and config, by crawler
        attach_host_records(crawler, RedisHostRecords(client, config.run_prefix))
        share_index(crawler, partial(cluster_index, crawler))  # the export's index, in Redis
        # The prefix is %-formatted by scrapy-redis (%(spider)s): escape the collection.
        prefix = config.run_prefix.replace("%", "%%")
        _default(settings, "SCHEDULER_QUEUE_KEY", prefix + "requests")
        _default(settings, "SCHEDULER_DUPEFILTER_KEY", prefix + "dupefilter")
        prepare_feeds(settings, config, client)
        logger.info("cluster mode: worker %s, collection %s, generation %d on %s", config.worker,
                    config.collection, config.generation, config.url)
        return joiner


def _user_keys(crawler: Any, settings: Any) -> list[str]:
    """Scheduler keys the user gave (emptied when a new generation starts)."""
    name = getattr(getattr(crawler, "spider", None), "name", "") or ""
    keys = []
    for key in ("SCHEDULER_QUEUE_KEY", "SCHEDULER_DUPEFILTER_KEY"):
        if settings.getpriority(key) is not None and settings.get(key):
            try:
                keys.append(str(settings.get(key)) % {"spider": name})
            except (KeyError, ValueError, TypeError):
                keys.append(str(settings.get(key)))
    return keys


def cluster_index(crawler: Any, threshold: float, num_perm: int, shingle_words: int) -> Any:
    """The Redis de-duplication index of this generation in cluster mode, else None."""
    config = active_config(crawler)
    if config is None:
        return None
    import redis

    from corpuscrawl.cluster.redis_dedup import RedisNearDuplicateIndex

    client = redis.Redis.from_url(config.url)
    return RedisNearDuplicateIndex(client, config.run_prefix + "dedup:", config.worker, threshold,
                                   num_perm, shingle_words)
