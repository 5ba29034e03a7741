"""Leases on scrapy-redis requests, so a worker that dies loses no URL.

scrapy-redis pops a request from the shared queue and forgets it.  Here a pop
is one Lua script that moves the request into the worker's in-flight hash
``inflight:<worker>`` (lease id -> score and encoded request).  Each pop carries a
token recorded in ``popped`` (worker -> token and lease): a pop retried because
the connection broke after Redis ran it hands out the same lease instead of
leaving it orphaned.  Likewise a request is pushed and its fingerprint added to
the seen-set in one script, so no fingerprint is ever recorded without its
request in the queue.  A lease is
*acknowledged* (removed) once the request is done in the sense of the durable
frontier (:mod:`corpuscrawl.crawlstate.completion`): the engine let go of it
and the export stage holds none of its documents.

Each worker refreshes ``alive:<worker>`` (expiring after
``CORPUSCRAWL_CLUSTER_LEASE_TIMEOUT``) every ``CORPUSCRAWL_CLUSTER_COMMIT_INTERVAL``
seconds, in the same round that flushes its feeds, commits its de-duplication
claims and acknowledges its finished leases.  At start and every half lease
timeout, each worker *recovers* the workers listed in ``workers`` whose
``alive`` key expired: their uncommitted document claims are released
(:func:`corpuscrawl.cluster.redis_dedup.release_claims`) and their leased requests
are pushed back into the queue.  A worker restarted under the same
``CORPUSCRAWL_CLUSTER_WORKER`` recovers its previous life's leases at once.

A worker stays open while the queue has requests or another live worker has
requests in its engine (they may still yield links); an idle worker wakes its
engine when others queued requests and collects garbage (at most every
:data:`GC_INTERVAL` seconds) so the request objects it let go of release their
leases.  All these keys are the run generation's (``corpuscrawl:<collection>:gen<N>:``,
:mod:`corpuscrawl.cluster.generation`); a crawl ending ``finished`` or
``max_pages`` finishes the generation.  Queue classes other than
scrapy-redis's Priority/Fifo/Lifo queues are used without leases (a warning
says so).
"""

from __future__ import annotations

import gc
import logging
import pickle
import time
import uuid
import weakref
from collections import deque
from typing import Any

from scrapy import signals
from scrapy_redis.scheduler import Scheduler as RedisScheduler
from twisted.internet.task import LoopingCall

from corpuscrawl.cluster.config import ClusterConfig, logging_retry, redis_retry
from corpuscrawl.cluster.feeds import feed_sizes, feeds_key
from corpuscrawl.cluster.focus_rank import ClusterFocusRanking
from corpuscrawl.cluster.generation import active_config, cluster_run, finish_generation
from corpuscrawl.cluster.limit import shared_document_count
from corpuscrawl.cluster.redis_dedup import release_claims
from corpuscrawl.crawlstate.completion import CompletionTracker
from corpuscrawl.crawlstate.export_state import existing_state
from corpuscrawl.crawlstate.scrapy_glue.output_failure import failure_of, output_failed
from corpuscrawl.crawlstate.scrapy_glue.recrawl import existing_recrawl_state
from corpuscrawl.items import Document

__all__ = ["LEASE_META", "LeasingScheduler"]

logger = logging.getLogger("corpuscrawl.cluster")

#: Request meta key holding the lease id of a handed-out request.
LEASE_META = "corpuscrawl_lease"
#: Meta keys never stored: per-process objects (scrapy-playwright's page, Scrapy's slot).
TRANSIENT_META = (LEASE_META, "playwright_page", "download_slot", "_slot_proxy")

#: This worker's stats added up over all workers of a generation (hash ``stats``), and the
#: prefix of the totals set in each worker's stats when it closes.
SHARED_STATS = {"responses": "response_received_count",
                "exported": "corpuscrawl/export/exported",
                "not_modified": "corpuscrawl/recrawl/not_modified"}
SHARED_STATS_PREFIX = "corpuscrawl/cluster/all/"
#: Least seconds between two garbage collections of an idle worker (a full collection of a
#: crawler's heap takes tens of milliseconds).
GC_INTERVAL = 2.0

_MODES = {"scrapy_redis.queue.PriorityQueue": "zset", "scrapy_redis.queue.FifoQueue": "fifo",
          "scrapy_redis.queue.LifoQueue": "lifo"}

_POP_LUA = """
local last = redis.call('HGET', KEYS[5], ARGV[2])
if last then
  local sp = string.find(last, ' ', 1, true)
  if string.sub(last, 1, sp - 1) == ARGV[3] then
    local lease = string.sub(last, sp + 1)
    local v = redis.call('HGET', KEYS[2], lease)
    if not v then return false end
    local nl = string.find(v, '\\n', 1, true)
    return {tonumber(lease), string.sub(v, nl + 1)}
  end
end
local data, score
if ARGV[1] == 'zset' then
  local r = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if #r == 0 then return false end
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, 0)
  data, score = r[1], r[2]
else
  if ARGV[1] == 'lifo' then data = redis.call('LPOP', KEYS[1])
  else data = redis.call('RPOP', KEYS[1]) end
  if not data then return false end
  score = '0'
end
local lease = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[2], lease, score .. '\\n' .. data)
redis.call('HINCRBY', KEYS[4], ARGV[2], 1)
redis.call('HSET', KEYS[5], ARGV[2], ARGV[3] .. ' ' .. lease)
return {lease, data}
"""

#: Push a request unless its fingerprint is in the seen-set, in one step: a seen-set entry
#: never exists without its request in the queue, whenever the connection breaks.
_ENQUEUE_LUA = """
if ARGV[1] ~= '' and redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
if ARGV[2] == 'zset' then redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
else redis.call('LPUSH', KEYS[1], ARGV[4]) end
return 1
"""

_REQUEUE_LUA = """
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  local v = all[i + 1]
  local nl = string.find(v, '\\n', 1, true)
  local score, data = string.sub(v, 1, nl - 1), string.sub(v, nl + 1)
  if ARGV[1] == 'zset' then redis.call('ZADD', KEYS[1], score, data)
  elseif ARGV[1] == 'lifo' then redis.call('LPUSH', KEYS[1], data)
  else redis.call('RPUSH', KEYS[1], data) end
end
redis.call('DEL', KEYS[2])
return #all / 2
"""


class LeasingScheduler(RedisScheduler):
    """scrapy-redis's scheduler with leases, heartbeat and recovery (see the module docstring)."""

    cluster: ClusterConfig

    @classmethod
    def from_crawler(cls, crawler: Any) -> LeasingScheduler:
        """Build as scrapy-redis does (its settings apply), then attach the worker."""
        config = active_config(crawler)
        if config is None:
            raise ValueError("LeasingScheduler needs CORPUSCRAWL_REDIS_URL and the cluster "
                             "add-on (corpuscrawl.Addon in ADDONS)")
        instance = redis_retry(lambda: super(LeasingScheduler, cls).from_crawler(crawler),
                               "connecting the scheduler")
        instance._attach(crawler, config)
        return instance

    def _attach(self, crawler: Any, config: ClusterConfig) -> None:
        self.crawler = crawler
        self.cluster = config
        self.mode = _MODES.get(self.queue_cls if isinstance(self.queue_cls, str)
                               else f"{self.queue_cls.__module__}.{self.queue_cls.__name__}")
        if self.mode is None:
            logger.warning("SCHEDULER_QUEUE_CLASS %s has no leases: requests in flight when a "
                           "worker dies are lost", self.queue_cls)
        p = config.run_prefix
        self.k_workers, self.k_seq = p + "workers", p + "lease_seq"
        self.k_inflight, self.k_alive = p + "inflight:", p + "alive:"
        self.k_busy = p + "busy"
        self.k_popped = p + "popped"
        self.k_stats = p + "stats"
        self._pop = self.server.register_script(_POP_LUA)
        self._push = self.server.register_script(_ENQUEUE_LUA)
        self._requeue = self.server.register_script(_REQUEUE_LUA)
        self.tracker = CompletionTracker(self._acks_append)
        self._acks: list[int] = []
        self._active = 0  # handed-out request objects still alive
        self._others_busy = 0
        self._others_checked = 0.0
        self._last_recovery = 0.0
        self._loop: LoopingCall | None = None
        self._feed_files: dict[int, Any] = {}
        self._memory: deque[Any] = deque()
        self._beaten = False
        self._reason = ""
        self._collected = 0.0
        #: Counters of this worker already added to the generation's totals (``stats``).
        self._shared: dict[str, int] = {}
        self._limit_reached = False
        #: What the focus learns, shared through Redis and applied to the queue (zset mode;
        #: made in :meth:`open`, where scrapy-redis names the queue).
        self.focus_ranking: ClusterFocusRanking | None = None
        crawler.signals.connect(self._spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self._engine_stopped, signal=signals.engine_stopped)

    # --- Scrapy scheduler interface -------------------------------------------------------
    def open(self, spider: Any) -> Any:
        """Open scrapy-redis's queue, register this worker and recover dead ones."""
        redis_retry(lambda: super(LeasingScheduler, self).open(spider), "opening the queue")
        self._recover(self.cluster.worker, "restarted")  # a previous life under this id
        self._heartbeat()
        self._recover_dead()
        if self.mode == "zset" and self.focus_ranking is None:
            self.focus_ranking = ClusterFocusRanking(self.server, self.cluster.run_prefix,
                                                     self.queue.key, redis_retry)
            self.focus_ranking.connect(self.crawler)
            self.focus_ranking.load(spider)
        if self.stats:
            run = cluster_run(self.crawler)
            self.stats.set_value("corpuscrawl/cluster/generation", self.cluster.generation)
            self.stats.set_value("corpuscrawl/cluster/joined", int(bool(run and run.resumed)))
        logger.info("cluster worker %s on %s: %d requests queued", self.cluster.worker,
                    self.cluster.url, len(self))
        return None

    def close(self, reason: str) -> Any:
        """Close scrapy-redis's scheduler (the worker leaves the cluster when the engine stops,
        after the feeds wrote the export stage's last documents; a ``finished`` or
        ``max_pages`` crawl then completes the generation)."""
        self._reason = reason
        self._share_counts()
        if self.stats:  # the generation's totals over all workers, for the crawl summary
            totals = redis_retry(lambda: self.server.hgetall(self.k_stats), "reading totals")
            for name, value in totals.items():
                self.stats.set_value(f"{SHARED_STATS_PREFIX}{name.decode()}", int(value))
        return super().close(reason)

    def _share_counts(self) -> None:
        """Add this worker's new responses and exported documents to the generation's totals."""
        if not self.stats:
            return
        deltas = {}
        for name, key in SHARED_STATS.items():
            value = int(self.stats.get_value(key, 0) or 0)
            if value != self._shared.get(name, 0):
                deltas[name] = value - self._shared.get(name, 0)
                self._shared[name] = value
        if deltas:
            def add() -> None:
                pipe = self.server.pipeline(transaction=True)
                for name, delta in deltas.items():
                    pipe.hincrby(self.k_stats, name, delta)
                pipe.execute()

            redis_retry(add, "adding to the generation's totals")

    def __len__(self) -> int:
        return redis_retry(lambda: len(self.queue), "reading the queue length")

    def enqueue_request(self, request: Any) -> bool:
        """Push to the shared queue (unless seen); retried while Redis is away.

        Per-process meta (scrapy-playwright's page, the download slot) is not
        stored; a request that cannot be serialized at all stays in this
        process's memory (``corpuscrawl/cluster/unserializable``: lost if it dies).
        """
        if any(key in request.meta for key in TRANSIENT_META):
            request = request.replace(meta={k: v for k, v in request.meta.items()
                                            if k not in TRANSIENT_META})
        try:
            if self.mode is None or not hasattr(self.df, "request_fingerprint"):
                return redis_retry(
                    lambda: super(LeasingScheduler, self).enqueue_request(request),
                    "enqueueing a request")
            data = self.queue._encode_request(request)
        except (TypeError, ValueError, AttributeError, pickle.PicklingError) as exc:
            if not request.dont_filter and redis_retry(lambda: self.df.request_seen(request),
                                                       "enqueueing a request"):
                self.df.log(request, self.spider)
                return False
            logger.warning("%s kept in this worker's memory only (cannot be serialized: %s)",
                           request, exc)
            if self.stats:
                self.stats.inc_value("corpuscrawl/cluster/unserializable")
            self._memory.append(request)
            return True
        fingerprint = "" if request.dont_filter else self.df.request_fingerprint(request)
        pushed = redis_retry(lambda: self._push(
            keys=[self.queue.key, self.df.key],
            args=[fingerprint, self.mode, -request.priority, data]),
            "enqueueing a request")
        if not int(pushed):
            self.df.log(request, self.spider)
            return False
        if self.focus_ranking is not None:
            self.focus_ranking.remember(data, request)
        if self.stats:
            self.stats.inc_value("scheduler/enqueued/redis")
        return True

    def next_request(self) -> Any:
        """Pop the best request into this worker's in-flight hash (a lease)."""
        self.tracker.settle()
        if self._memory:
            return self._memory.popleft()
        if self._limit_reached:  # max_pages reached by the cluster: nothing more is fetched
            return None
        if self.mode is None:
            return redis_retry(lambda: super(LeasingScheduler, self).next_request(),
                               "popping a request")
        token = uuid.uuid4().hex  # the same in every attempt: a retried pop is not a second pop
        got = redis_retry(lambda: self._pop(
            keys=[self.queue.key, self._inflight_key(), self.k_seq, self.k_busy, self.k_popped],
            args=[self.mode, self.cluster.worker, token]),
            "popping a request")
        if not got:
            return None
        lease, data = int(got[0]), got[1]
        request = self.queue._decode_request(data)
        request.meta[LEASE_META] = lease
        self.tracker.handed_out(lease, request)
        self._active += 1
        weakref.finalize(request, self._request_gone)
        if self.stats:
            self.stats.inc_value("scheduler/dequeued/redis")
        return request

    def has_pending_requests(self) -> bool:
        """True while the queue has requests or another live worker's engine has some."""
        if self._memory or len(self) > 0:
            return True
        now = time.monotonic()
        if now - self._others_checked >= self.cluster.commit_interval:
            self._others_checked = now
            busy = redis_retry(lambda: self.server.hgetall(self.k_busy), "reading workers")
            me = self.cluster.worker.encode()
            self._others_busy = sum(int(v) for k, v in busy.items() if k != me)
            if self._others_busy and now - self._last_recovery >= self.cluster.commit_interval:
                self._recover_dead()
                if len(self) > 0:
                    return True
        return self._others_busy > 0

    # --- leases -----------------------------------------------------------------------------
    def _acks_append(self, lease: int) -> None:
        self._acks.append(lease)

    def _request_gone(self) -> None:
        self._active -= 1

    def _inflight_key(self, worker: str | None = None) -> str:
        return self.k_inflight + (worker or self.cluster.worker)

    def _spider_opened(self, spider: Any) -> None:
        from corpuscrawl.boilerplate.redis_history import RedisHistory

        export = existing_state(self.crawler)
        history = export.history if export is not None else None
        if isinstance(history, RedisHistory):  # its client: retried and logged like ours
            history._redis.set_retry(logging_retry("the boilerplate history"))
        self.crawler.signals.connect(self._item_scraped, signal=signals.item_scraped)
        self.crawler.signals.connect(self._response_received, signal=signals.response_received)
        self._loop = LoopingCall(self._round)
        self._loop.start(self.cluster.commit_interval, now=False)

    def _response_received(self, response: Any, request: Any, spider: Any) -> None:
        self.tracker.reached(request, LEASE_META)

    def _item_scraped(self, item: Any, response: Any, spider: Any) -> None:
        """Hold a lease while the export stage holds its documents; mark final documents
        (nothing once an output failed: its documents stay pending)."""
        if not isinstance(item, Document) or failure_of(self.crawler):
            return

        export = existing_state(self.crawler)
        outcomes = export.released_with(item) if export is not None else None
        if outcomes is None:
            return
        index = getattr(export.stage, "dedup", None)
        if hasattr(index, "final"):
            index.final(o.document.url for o in outcomes)
        self.tracker.account_released(item, outcomes, response, LEASE_META)

    def _flush_feeds(self) -> list[Any]:
        """Flush the feed files (to the OS: a killed process loses nothing written); return them."""
        from scrapy.extensions.feedexport import FeedExporter

        files = []
        for ext in getattr(self.crawler.extensions, "middlewares", ()):
            if isinstance(ext, FeedExporter):
                for slot in getattr(ext, "slots", ()):
                    file = getattr(slot, "file", None)
                    if file is None:
                        continue
                    if not getattr(file, "closed", False):
                        try:
                            file.flush()
                        except OSError as exc:
                            output_failed(self.crawler, str(getattr(file, "name", file)), exc)
                            return []
                    files.append(file)
        self._feed_files.update({id(f): f for f in files})
        return list(self._feed_files.values())

    def _collect_if_idle(self) -> None:
        """When nothing is downloading or being scraped, collect garbage so the request objects
        the engine let go of (a failure's traceback keeps them in a reference cycle) are
        finalized: their leases are acknowledged and this worker stops counting as busy."""
        engine = getattr(self.crawler, "engine", None)
        scraper_slot = getattr(getattr(engine, "scraper", None), "slot", None)
        now = time.monotonic()
        if (self._active > 0 and now - self._collected >= GC_INTERVAL and engine is not None
                and not engine.downloader.active
                and (scraper_slot is None or scraper_slot.is_idle())):
            self._collected = now
            gc.collect()

    def _round(self) -> None:
        """Flush feeds, commit claims, acknowledge done leases, beat; recover now and then.

        Nothing is committed once an output failed (its leases go back to the queue)."""
        if failure_of(self.crawler):
            return
        self._collect_if_idle()
        self.tracker.settle()
        files = self._flush_feeds()

        export = existing_state(self.crawler)
        index = getattr(export.stage, "dedup", None) if export is not None else None
        sizes = feed_sizes(files)
        if hasattr(index, "commit"):
            index.commit(feeds_key(self.cluster), sizes)
        elif sizes:
            redis_retry(lambda: self.server.hset(feeds_key(self.cluster), mapping=sizes),
                        "recording feed sizes")

        recrawl = existing_recrawl_state(self.crawler)
        if recrawl is not None:
            recrawl.flush()
        if self._acks:
            acks = list(self._acks)
            redis_retry(lambda: self.server.hdel(self._inflight_key(), *acks), "acknowledging")
            del self._acks[:len(acks)]
            if self.stats:
                self.stats.inc_value("corpuscrawl/cluster/acknowledged", len(acks))
        self._heartbeat()
        self._share_counts()
        if self._loop is not None and self._loop.running:
            self._wake_engine()
            self._check_limit()
            if time.monotonic() - self._last_recovery >= self.cluster.lease_timeout / 2:
                self._recover_dead()

    def _wake_engine(self) -> None:
        """Let an idle engine take requests other workers queued now, not at its next
        heartbeat (Scrapy polls an idle scheduler every 5 s)."""
        if self._active > 0 or self._limit_reached or len(self) == 0:
            return
        slot = getattr(self.crawler.engine, "_slot", None)
        nextcall = getattr(slot, "nextcall", None)
        if nextcall is not None:
            nextcall.schedule()

    def _check_limit(self) -> None:
        """Close this worker when the cluster's documents reached ``max_pages``."""
        limit = getattr(self.crawler.spider, "max_pages", None)
        if limit is None or self._limit_reached:
            return

        count = shared_document_count(self.crawler)
        if count is None or count.total() < limit:
            return
        self._limit_reached = True
        logger.info("cluster: max_pages (%d) reached over all workers (%d documents)", limit,
                    count.latest)
        from scrapy.utils.defer import deferred_from_coro

        deferred_from_coro(self.crawler.engine.close_spider_async(reason="max_pages"))

    def _heartbeat(self) -> None:
        worker = self.cluster.worker
        ttl = int(self.cluster.lease_timeout * 1000)

        def beat() -> Any:
            pipe = self.server.pipeline()
            pipe.sadd(self.k_workers, worker)
            pipe.set(self.k_alive + worker, "1", px=ttl, get=True)
            pipe.hset(self.k_busy, worker, max(self._active, 0))
            return pipe.execute()[1]

        previous = redis_retry(beat, "heartbeat")
        if previous is None and self._beaten:
            logger.error("cluster worker %s went without a heartbeat for more than "
                         "CORPUSCRAWL_CLUSTER_LEASE_TIMEOUT (%.0f s): its leases may have gone "
                         "to other workers, so some pages may be fetched and exported twice",
                         worker, self.cluster.lease_timeout)
            if self.stats:
                self.stats.inc_value("corpuscrawl/cluster/heartbeat_lost")
        self._beaten = True

    def _leave(self) -> None:
        worker = self.cluster.worker
        pipe = self.server.pipeline()
        pipe.srem(self.k_workers, worker)
        pipe.delete(self.k_alive + worker)
        pipe.hdel(self.k_busy, worker)
        pipe.hdel(self.k_popped, worker)
        pipe.execute()

    def _recover_dead(self) -> None:
        """Recover every registered worker whose heartbeat expired."""
        self._last_recovery = time.monotonic()
        workers = redis_retry(lambda: self.server.smembers(self.k_workers), "reading workers")
        for raw in workers:
            worker = raw.decode() if isinstance(raw, bytes) else str(raw)
            if worker == self.cluster.worker:
                continue
            if not redis_retry(lambda w=worker: self.server.exists(self.k_alive + w),
                               "reading workers"):
                self._recover(worker, "dead")

    def _recover(self, worker: str, why: str) -> None:
        """Release ``worker``'s uncommitted claims and requeue its leases (one recoverer)."""
        prefix = self.cluster.run_prefix
        lock = f"{prefix}recovering:{worker}"

        def recover() -> tuple[int, int]:
            me = self.cluster.worker
            if not self.server.set(lock, me, nx=True, px=30000):
                holder = self.server.get(lock)
                if (holder.decode() if isinstance(holder, bytes) else holder) != me:
                    return 0, 0  # another worker is recovering it
                # This worker's own lock: a retry after the connection broke mid-recovery.
            try:
                claims = release_claims(self.server, prefix + "dedup:", worker)
                leases = int(self._requeue(keys=[self.queue.key, self._inflight_key(worker)],
                                           args=[self.mode or "fifo"]))
                if worker != self.cluster.worker:
                    pipe = self.server.pipeline()
                    pipe.srem(self.k_workers, worker)
                    pipe.hdel(self.k_busy, worker)
                    pipe.hdel(self.k_popped, worker)
                    pipe.execute()
                return claims, leases
            finally:
                self.server.delete(lock)

        claims, leases = redis_retry(recover, "recovering a worker")
        if claims or leases:
            logger.warning("cluster: recovered %s worker %s: %d leased requests back into the "
                           "queue, %d unwritten document claims released", why, worker, leases,
                           claims)
            if self.stats:
                self.stats.inc_value("corpuscrawl/cluster/recovered_requests", leases)

    def _engine_stopped(self) -> None:
        """Every document is written now: commit, acknowledge, requeue what is unfinished, leave."""
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        gc.collect()  # finalize the request objects the engine let go of
        self.tracker.settle()
        self.tracker.release_all()

        export = existing_state(self.crawler)
        index = getattr(export.stage, "dedup", None) if export is not None else None
        if not failure_of(self.crawler):
            if hasattr(index, "all_final"):
                index.all_final()
            self._round()
        # Leases still open now were never finished (a stop by signal cancels downloads):
        # back into the queue at once, for the other workers or the next run.
        self._recover(self.cluster.worker, "stopping")
        redis_retry(self._leave, "leaving the cluster")

        finish_generation(self.server, self.cluster, self.cluster.generation, self._reason)
