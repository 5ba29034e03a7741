"""Cluster mode: several crawler processes share one frontier and one export through Redis.

* ``config`` — :class:`ClusterConfig` (``CORPUSCRAWL_REDIS_URL`` and friends) and the Redis
  connection with retries;
* ``redis_dedup`` — :class:`RedisNearDuplicateIndex`, the export's document-level
  de-duplication shared by all workers;
* ``feeds`` — each worker's committed feed sizes, to cut a killed worker's output back;
* ``generation`` — the run generation the workers agree on (a finished one makes the next
  start a recrawl), the removal of earlier generations' keys, and the worker's generation
  and config found through the crawler;
* ``limit`` — ``max_pages`` counted over all workers of a generation;
* ``redis_pages`` — :class:`RedisPageStore`, the recrawl page store shared by the workers;
* ``focus_rank`` — the focused crawl's ranking of the shared frontier;
* ``scrapy_glue`` — the Scrapy side: ``cluster_addon`` (the add-on that switches a crawl to
  scrapy-redis when the URL is set, and the joiner extension) and ``lease``
  (:class:`LeasingScheduler`, scrapy-redis's scheduler with leases, the worker's heartbeat,
  acknowledgements and recovery of dead workers).
"""
