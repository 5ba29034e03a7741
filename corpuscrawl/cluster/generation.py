"""Run generations of a cluster crawl: which crawl of the collection the workers are doing.

A *generation* is one complete crawl of a collection (as on one machine,
:mod:`corpuscrawl.crawlstate.runs`).  In cluster mode the workers agree on it
through one Redis hash, ``corpuscrawl:<collection>:generation`` (``number``,
``state``, ``started_at``, ``started_by``, ``finished_at``, ``reason``,
``revisited``):

* a worker starting while the generation is ``running`` *joins* it — the
  other workers are crawling it, or all of them were stopped or killed and
  this start continues it (the frontier in Redis is kept);
* a worker starting when the collection has no generation yet, or when the
  last one is ``finished``, *starts* the next one, in the same Lua script
  that reads the state (so workers started together agree on one number);
* a worker whose crawl ends because the frontier is exhausted (close reason
  ``finished``: the shared queue is empty and no live worker has a request in
  flight) or because the cluster-wide ``max_pages`` was reached, marks the
  generation ``finished``.  Other endings (Ctrl-C, SIGTERM, a kill, a
  per-worker ``CLOSESPIDER_*`` limit) leave it ``running``: the next start
  continues it.

Everything a generation owns lives under ``corpuscrawl:<collection>:gen<N>:``
(frontier, seen-set, leases, workers' heartbeats, de-duplication claims, the
``max_pages`` counter), so a new generation starts from an empty frontier and
an empty claim index while the collection-wide state — the recrawl page store
(``pages``), the domain boilerplate history (``bp:``) and the workers'
committed feed sizes (``feeds:<worker>``) — carries over.  The worker starting
a generation removes the keys of the earlier ones (SCAN + UNLINK).
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any

from corpuscrawl.cluster.config import ClusterConfig, redis_retry
from corpuscrawl.crawlstate.lookup import run_record

__all__ = ["FINISHING_REASONS", "ClusterRun", "active_config", "cluster_run", "begin_generation", "finish_generation",
           "remove_old_generations"]

logger = logging.getLogger("corpuscrawl.cluster")

#: Close reasons that complete a generation (the next start begins a new one).
FINISHING_REASONS = frozenset({"finished", "max_pages"})
#: Keys removed per UNLINK call when old generations are cleaned up.
UNLINK_BATCH = 500

_BEGIN_LUA = """
local number = tonumber(redis.call('HGET', KEYS[1], 'number') or '0')
if number > 0 and redis.call('HGET', KEYS[1], 'state') == 'running' then
  return {number, 0}
end
number = number + 1
redis.call('HSET', KEYS[1], 'number', number, 'state', 'running', 'started_at', ARGV[1],
           'started_by', ARGV[2], 'revisited', 0)
redis.call('HDEL', KEYS[1], 'finished_at', 'reason')
for i = 2, #KEYS do redis.call('UNLINK', KEYS[i]) end
return {number, 1}
"""

_FINISH_LUA = """
if tonumber(redis.call('HGET', KEYS[1], 'number') or '0') == tonumber(ARGV[1])
    and redis.call('HGET', KEYS[1], 'state') == 'running' then
  redis.call('HSET', KEYS[1], 'state', 'finished', 'reason', ARGV[2], 'finished_at', ARGV[3])
  return 1
end
return 0
"""


@dataclass
class ClusterRun:
    """The generation this worker crawls, and whether it started it.

    Has the attributes the recrawl state reads from a run record
    (``generation``, ``resumed``, ``state_dir``) plus the revisit handshake:
    the known pages of a recrawl are queued by the workers that start before
    one of them has queued them all (:meth:`revisit_needed`, :meth:`revisited`).
    """

    config: ClusterConfig
    client: Any = field(repr=False)
    generation: int
    #: True when this worker joined a running generation (another worker started it, or
    #: a stopped or killed cluster crawl continues).
    resumed: bool
    state_dir: str = ""

    @property
    def key(self) -> str:
        """The collection's generation hash."""
        return self.config.prefix + "generation"

    def revisit_needed(self) -> bool:
        """False once a worker of this generation queued every known page of the collection."""
        raw = redis_retry(lambda: self.client.hget(self.key, "revisited"), "reading the generation")
        return raw in (None, b"0", "0")

    def revisited(self) -> None:
        """This worker queued every known page (the next workers to start need not)."""
        redis_retry(lambda: self.client.hset(self.key, "revisited", 1), "recording the revisit")


def cluster_run(crawler: Any) -> ClusterRun | None:
    """The generation this worker crawls, as the cluster's joiner attached it to the
    crawler (:func:`corpuscrawl.crawlstate.lookup.attach_run_record`); None outside
    cluster mode."""
    record = run_record(crawler)
    return record if isinstance(record, ClusterRun) else None


def active_config(crawler: Any) -> ClusterConfig | None:
    """The running worker's config, with its generation (None outside cluster mode)."""
    run = cluster_run(crawler)
    return run.config if run is not None else None


def begin_generation(client: Any, config: ClusterConfig, user_keys: list[str]) -> ClusterRun:
    """Join the running generation of the collection or start the next one (one Lua script).

    ``user_keys`` are scheduler keys given by the user (not under the generation's
    prefix): they are emptied when a new generation starts.
    """
    script = client.register_script(_BEGIN_LUA)
    number, started = redis_retry(
        lambda: script(keys=[config.prefix + "generation", *user_keys],
                       args=[f"{time.time():.3f}", config.worker]), "starting a generation")
    run = ClusterRun(config=config, client=client, generation=int(number),
                     resumed=not int(started))
    if int(started) and run.generation > 1:
        removed = remove_old_generations(client, config.prefix, run.generation)
        logger.info("cluster: generation %d of collection %s started by %s (a recrawl); %d keys "
                    "of earlier generations removed", run.generation, config.collection,
                    config.worker, removed)
    elif int(started):
        logger.info("cluster: generation 1 of collection %s started by %s", config.collection,
                    config.worker)
    else:
        logger.info("cluster: %s joins generation %d of collection %s", config.worker,
                    run.generation, config.collection)
    return run


def finish_generation(client: Any, config: ClusterConfig, generation: int, reason: str) -> bool:
    """Mark ``generation`` finished when ``reason`` completes it; True when this call did."""
    if reason not in FINISHING_REASONS:
        return False
    script = client.register_script(_FINISH_LUA)
    done = redis_retry(lambda: script(keys=[config.prefix + "generation"],
                                      args=[generation, reason, f"{time.time():.3f}"]),
                       "finishing the generation")
    if int(done):
        logger.info("cluster: generation %d of collection %s finished (%s); the next start "
                    "is a recrawl", generation, config.collection, reason)
    return bool(int(done))


def remove_old_generations(client: Any, prefix: str, current: int) -> int:
    """UNLINK every key of the collection's generations before ``current``; how many."""
    pattern = re.compile(re.escape(prefix) + r"gen(\d+):")
    removed, batch = 0, []
    for raw in client.scan_iter(match=prefix + "gen*:*", count=1000):
        name = raw.decode() if isinstance(raw, bytes) else str(raw)
        found = pattern.match(name)
        if found and int(found.group(1)) < current:
            batch.append(raw)
            if len(batch) >= UNLINK_BATCH:
                removed += client.unlink(*batch)
                batch = []
    if batch:
        removed += client.unlink(*batch)
    return removed
