"""The cluster's Redis queue is re-ranked by what the focused crawl learns (real redis-server).

What one worker learns of a URL shape is summed in the generation's Redis hashes, ranks
the shape's queued requests anew (the sorted set scrapy-redis pops from) and is where a
joining or restarted worker starts from (:mod:`corpuscrawl.cluster.focus_rank`).
"""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import pytest

from corpuscrawl.cluster.focus_rank import ClusterFocusRanking
from corpuscrawl.focus import FOCUS_META, Focus
from tests.redis_server import redis_url  # noqa: F401 (fixture)

redis = pytest.importorskip("redis")

DAY, TAG = "x.test/D/D/D/", "x.test/tag/W/"


def _queued(server, queue: str, ranking: ClusterFocusRanking, member: bytes, shape: str,
            prior: float) -> None:
    server.zadd(queue, {member: -Focus.priority(prior)})  # as scrapy-redis's PriorityQueue
    ranking.remember(member, _link(member, shape, prior))


def _shared_queue(url: str) -> tuple[redis.Redis, str, str]:
    """A Redis client, a fresh generation's key prefix and its request queue."""
    prefix = f"corpuscrawl:focus-{uuid.uuid4().hex[:8]}:gen1:"
    return redis.Redis.from_url(url), prefix, prefix + "requests"


def _joined(server: redis.Redis, prefix: str,
            queue: str) -> tuple[SimpleNamespace, ClusterFocusRanking]:
    """A worker's spider with a focus, and its ranking, joined to the generation."""
    worker = SimpleNamespace(focus=Focus())
    ranking = ClusterFocusRanking(server, prefix, queue)
    ranking.load(worker)
    return worker, ranking


def _link(member: bytes, shape: str, prior: float) -> SimpleNamespace:
    """A followed link's request as the scheduler sees it (URL and focus meta)."""
    return SimpleNamespace(url=f"http://x.test/{member.decode()}", priority=Focus.priority(prior),
                           meta={FOCUS_META: {"shape": shape, "prior": prior}})


@pytest.mark.redis
def test_a_learned_priority_reranks_the_shared_queue_and_reaches_other_workers(
        redis_url: str) -> None:  # noqa: F811
    server, prefix, queue = _shared_queue(redis_url)
    worker = SimpleNamespace(focus=Focus())
    ranking = ClusterFocusRanking(server, prefix, queue)
    assert ranking.load(worker) == 0
    for i in range(3):  # calendar days linked from a long article: a high prior
        _queued(server, queue, ranking, f"day{i}".encode(), DAY, 0.44)
    _queued(server, queue, ranking, b"tag0", TAG, 0.31)
    _queued(server, queue, ranking, b"other", "", 0.9)  # no shape: never re-ranked
    server.zrem(queue, b"other")
    assert server.zrange(queue, 0, 0) == [b"day0"]  # the lowest score is popped first

    server.zrem(queue, b"day0")  # popped by a worker: the day turns out empty
    pages, total = worker.focus.learning.observe(DAY, 0.02)
    ranking.learned(DAY, pages, total)

    assert server.zrange(queue, 0, 0) == [b"tag0"], "the empty days still come first"
    assert server.zscore(queue, b"day1") == -worker.focus.rank(0.44, DAY) == -16
    assert server.hkeys(ranking.shape_key(DAY)) and b"day0" not in server.hkeys(
        ranking.shape_key(DAY)), "a popped request is forgotten by the shape's hash"

    # Another worker (or this one restarted) starts from what the cluster learned, adds to it,
    # and both rank alike.
    joined = SimpleNamespace(focus=Focus())
    other = ClusterFocusRanking(server, prefix, queue)
    assert other.load(joined) == 1
    assert joined.focus.learning.shapes[DAY] == (1, pytest.approx(0.02))
    pages, total = joined.focus.learning.observe(DAY, 0.04)
    other.learned(DAY, pages, total)
    pages, total = worker.focus.learning.observe(DAY, 0.0)
    ranking.learned(DAY, pages, total)
    assert worker.focus.learning.shapes[DAY] == (3, pytest.approx(0.06))
    assert server.hget(prefix + "focus_pages", DAY) == b"3"
    assert server.zscore(queue, b"day2") == -worker.focus.rank(0.44, DAY)


@pytest.mark.redis
def test_the_spread_of_a_shape_and_the_priors_misses_are_shared_too(redis_url: str) -> None:  # noqa: F811
    server, prefix, queue = _shared_queue(redis_url)
    workers = [SimpleNamespace(focus=Focus()) for _ in range(2)]
    rankings = [ClusterFocusRanking(server, prefix, queue) for _ in workers]
    for worker, ranking in zip(workers, rankings, strict=True):
        ranking.load(worker)

    def fetched(i: int, shape: str, score: float, prior: float) -> None:
        learning = workers[i].focus.learning
        pages, total = learning.observe(shape, score, prior)
        rankings[i].learned(shape, pages, total, squares=learning.squares[shape],
                            misses=learning.misses)

    for i, (shape, score) in enumerate([(DAY, 0.5), (DAY, 0.01), (TAG, 0.5), (TAG, 0.52),
                                        (DAY, 0.5), (TAG, 0.49)]):
        fetched(i % 2, shape, score, 0.42)  # the two workers take turns
    whole = Focus().learning
    for shape, score in [(DAY, 0.5), (DAY, 0.01), (TAG, 0.5), (TAG, 0.52), (DAY, 0.5), (TAG, 0.49)]:
        whole.observe(shape, score, 0.42)  # one process fetching all six

    joined = SimpleNamespace(focus=Focus())
    ClusterFocusRanking(server, prefix, queue).load(joined)
    learning = joined.focus.learning
    assert learning.misses == (6, pytest.approx(whole.misses[1]))
    for shape in (DAY, TAG):  # a joining worker starts from the whole cluster's sums
        assert learning.squares[shape] == pytest.approx(whole.squares[shape])
        assert learning.coefficients(shape) == pytest.approx(whole.coefficients(shape))
    # the worker that fetched the last tag page sees the cluster's sums of that shape
    assert workers[1].focus.learning.squares[TAG] == pytest.approx(whole.squares[TAG])
    assert workers[1].focus.learning.misses == (6, pytest.approx(whole.misses[1]))


@pytest.mark.redis
def test_the_text_lines_one_worker_saw_make_a_copy_another_fetches_a_copy(
        redis_url: str) -> None:  # noqa: F811
    server, prefix, queue = _shared_queue(redis_url)
    worker, _ = _joined(server, prefix, queue)
    story = "A first paragraph of the story.\nA second paragraph, as long as the first."
    assert worker.focus.novelty.observe(story, "http://x.test/?p=1") == 1.0
    other, _ = _joined(server, prefix, queue)
    assert other.focus.novelty.observe(story + "\nPrint", "http://x.test/?p=1&print=1") < 0.2
    assert other.focus.novelty.observe(story, "http://x.test/?p=1") == 1.0, "fetched again"
