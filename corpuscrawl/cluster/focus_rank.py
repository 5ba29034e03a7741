"""What the focused crawl learns, shared by a cluster generation's workers and applied to
the shared Redis queue.

The durable frontier re-ranks its pending rows when the focus learns more about a URL
shape (:mod:`corpuscrawl.crawlstate.frontier`); this is the same for the cluster's
scrapy-redis priority queue (a sorted set of encoded requests, score = -priority):

* every request followed with a focus prior is also recorded in the hash
  ``focus:<shape>`` (encoded request -> prior) of the generation;
* what the workers learn per shape is summed in the hashes ``focus_pages``,
  ``focus_total`` and ``focus_squares`` (pages fetched, sum of their scores and of their
  squares), and how far the link priors missed in ``focus_priors`` (``checked``,
  ``errors``), so every worker ranks by what the whole cluster learned, and a worker
  that joins or restarts starts from it;
* per text line the workers saw (a hash), the page that showed it first is in the hash
  ``focus_lines``, so a page copying one another worker fetched is known as a copy
  (:class:`corpuscrawl.focus.TextNovelty`);
* when a shape's rank moves by a priority unit, one Lua script gives the shape's
  requests still queued their new score (``ZADD XX``) and forgets those already popped.

:class:`corpuscrawl.focus.ShapeLearning`'s estimate is linear in the prior:
``rank(prior) = round(scale * (a * prior + b))`` with ``(a, b)`` from
:meth:`~corpuscrawl.focus.ShapeLearning.coefficients`, which the script applies without
decoding a request.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from corpuscrawl.crawlstate.frontier import RERANK_HIGH_PRIOR
from corpuscrawl.focus import FOCUS_LEARNED, PRIORITY_SCALE_DEFAULT, followed_link

__all__ = ["ClusterFocusRanking"]

logger = logging.getLogger("corpuscrawl.cluster")

_RERANK_LUA = """
local all = redis.call('HGETALL', KEYS[2])
local a, b, scale = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local changed = 0
for i = 1, #all, 2 do
  local member, prior = all[i], tonumber(all[i + 1])
  local score = redis.call('ZSCORE', KEYS[1], member)
  if score then
    local new = -math.floor(scale * (a * prior + b) + 0.5)
    if tonumber(score) ~= new then
      redis.call('ZADD', KEYS[1], 'XX', new, member)
      changed = changed + 1
    end
  else
    redis.call('HDEL', KEYS[2], member)
  end
end
return changed
"""


class ClusterFocusRanking:
    """Shares the focus's learning through Redis and re-ranks the queued requests of a shape.

    ``server``: the scheduler's Redis client; ``prefix``: the generation's key prefix;
    ``queue_key``: the scrapy-redis priority queue; ``retry(fn, what)``: how Redis calls
    are retried (the cluster's :func:`~corpuscrawl.cluster.config.redis_retry`).
    """

    def __init__(self, server: Any, prefix: str, queue_key: str,
                 retry: Callable[[Callable[[], Any], str], Any] = lambda fn, what: fn()) -> None:
        self.server = server
        self.prefix = prefix
        self.queue_key = queue_key
        self.retry = retry
        self.k_pages, self.k_total = prefix + "focus_pages", prefix + "focus_total"
        self.k_squares, self.k_priors = prefix + "focus_squares", prefix + "focus_priors"
        self.k_lines = prefix + "focus_lines"
        self._rerank = server.register_script(_RERANK_LUA)
        #: shape -> (pages, total) of the cluster as this worker last saw it
        self._synced: dict[str, tuple[int, float]] = {}
        #: shape -> sum of squared scores, and the priors' misses, as this worker last saw them
        self._synced_squares: dict[str, float] = {}
        self._synced_misses: tuple[int, float] = (0, 0.0)
        #: shape -> ranks (at prior 0 and a high prior) last applied to the queue
        self._ranked: dict[str, tuple[int, int]] = {}
        self.focus: Any = None
        self.stats: Any = None

    def connect(self, crawler: Any) -> None:
        """Listen to what the crawl's focus learns."""
        self.stats = crawler.stats
        crawler.signals.connect(self.learned, signal=FOCUS_LEARNED)

    def shape_key(self, shape: str) -> str:
        """The hash of the queued requests of URL shape ``shape`` (encoded request -> prior)."""
        return f"{self.prefix}focus:{shape}"

    def load(self, spider: Any) -> int:
        """Give the spider's focus what the generation's workers learned; the number of shapes."""
        self.focus = getattr(spider, "focus", None)
        if self.focus is None:
            return 0
        self.focus.novelty.memory = self
        pages = self.retry(lambda: self.server.hgetall(self.k_pages), "reading the focus")
        totals = self.retry(lambda: self.server.hgetall(self.k_total), "reading the focus")
        squares = self.retry(lambda: self.server.hgetall(self.k_squares), "reading the focus")
        priors = self.retry(lambda: self.server.hgetall(self.k_priors), "reading the focus")
        learned = {k.decode(): (int(v), float(totals.get(k, 0.0))) for k, v in pages.items()}
        learned_squares = {k.decode(): float(v) for k, v in squares.items()}
        misses = (int(priors.get(b"checked", 0)), float(priors.get(b"errors", 0.0)))
        self.focus.learning.load(learned, learned_squares, misses)
        self._synced.update(learned)
        self._synced_squares.update(learned_squares)
        self._synced_misses = misses
        if learned:
            logger.info("the cluster's focus knows %d URL shapes", len(learned))
        return len(learned)

    def first_pages(self, hashes: list[int], page: int) -> dict[int, int]:
        """Per text-line hash, the page that showed it first to any worker (``page`` for the
        lines no worker recorded before, now recorded)."""
        def record() -> list[Any]:
            pipe = self.server.pipeline(transaction=True)
            for h in hashes:
                pipe.hsetnx(self.k_lines, h, page)
            pipe.hmget(self.k_lines, hashes)
            return pipe.execute()

        if not hashes:
            return {}
        firsts = self.retry(record, "recording the text lines seen")[-1]
        return {h: int(first) for h, first in zip(hashes, firsts, strict=True)}

    def remember(self, data: bytes | str, request: Any) -> None:
        """Record a queued request's shape and prior (links the focus ranked), for re-ranking."""
        shape, prior = followed_link(request.meta)
        if not shape or prior is None:
            return
        key = self.shape_key(shape)
        self.retry(lambda: self.server.hset(key, data, prior), "recording a request's shape")

    def learned(self, shape: str, pages: int, total: float,
                rank: Callable[[float], int] | None = None, squares: float | None = None,
                misses: tuple[int, float] | None = None) -> None:
        """The focus of this worker fetched a page of ``shape``: add it to the cluster's sums,
        rank by those, and re-rank the shape's queued requests when its ranks moved."""
        if self.focus is None:
            return
        before_pages, before_total = self._synced.get(shape, (0, 0.0))
        add_pages, add_total = pages - before_pages, total - before_total
        add_squares = None if squares is None else squares - self._synced_squares.get(shape, 0.0)
        add_misses = None if misses is None else (misses[0] - self._synced_misses[0],
                                                  misses[1] - self._synced_misses[1])

        def add() -> list[Any]:
            pipe = self.server.pipeline(transaction=True)
            pipe.hincrby(self.k_pages, shape, add_pages)
            pipe.hincrbyfloat(self.k_total, shape, add_total)
            if add_squares is not None:
                pipe.hincrbyfloat(self.k_squares, shape, add_squares)
            if add_misses is not None:
                pipe.hincrby(self.k_priors, "checked", add_misses[0])
                pipe.hincrbyfloat(self.k_priors, "errors", add_misses[1])
            return pipe.execute()

        replies = self.retry(add, "sharing what the focus learned")
        shared = (int(replies[0]), float(replies[1]))
        self._synced[shape] = shared
        learning = self.focus.learning
        learning.shapes[shape] = shared  # new links are ranked by the cluster's view
        if add_squares is not None:
            self._synced_squares[shape] = learning.squares[shape] = float(replies[2])
        else:
            learning.squares.pop(shape, None)  # sums without squares: ranked by the average
        if add_misses is not None:
            self._synced_misses = learning.misses = (int(replies[-2]), float(replies[-1]))
        learning.repool()
        ranks = (self.focus.rank(0.0, shape), self.focus.rank(RERANK_HIGH_PRIOR, shape))
        if self._ranked.get(shape) == ranks:
            return
        self._ranked[shape] = ranks
        a, b = self.focus.learning.coefficients(shape)
        changed = int(self.retry(lambda: self._rerank(
            keys=[self.queue_key, self.shape_key(shape)], args=[a, b, PRIORITY_SCALE_DEFAULT]),
            "re-ranking queued requests"))
        if changed and self.stats is not None:
            self.stats.inc_value("corpuscrawl/cluster/reranked", changed)
