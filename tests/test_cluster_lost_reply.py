"""Redis calls whose effect went through while the connection broke before the reply.

When Redis goes away (a restart, a failover, a dropped connection), a command
may have been executed and persisted while its reply never reached the worker;
the worker retries it.  Each test here runs the real call against a real
redis-server, then raises ``ConnectionError`` instead of returning its reply,
once: what the retry does must lose no request and no document.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest
import redis
from scrapy import Request
from scrapy.utils.test import get_crawler

from corpuscrawl.cluster.redis_dedup import RedisNearDuplicateIndex
from corpuscrawl.cluster.scrapy_glue.lease import LEASE_META, LeasingScheduler
from tests.redis_server import redis_url  # noqa: F401 (fixture)
from tests.resume_site import article_text

pytestmark = pytest.mark.redis

_collections = itertools.count()


def reply_lost_once(call: Any) -> Any:
    """``call`` whose first use runs against Redis, then fails as a broken connection would."""
    state = {"lost": False}

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        result = call(*args, **kwargs)
        if not state["lost"]:
            state["lost"] = True
            raise redis.ConnectionError("Connection closed by server.")
        return result

    return wrapped


def scheduler(url: str, queue: str = "scrapy_redis.queue.PriorityQueue") -> LeasingScheduler:
    """An opened leasing scheduler of a fresh collection, worker ``w``."""
    from corpuscrawl import settings as project

    names = {k: getattr(project, k) for k in dir(project) if k.isupper()}
    crawler = get_crawler(settings_dict={
        **names, "CORPUSCRAWL_REDIS_URL": url, "CORPUSCRAWL_CLUSTER_WORKER": "w",
        "CORPUSCRAWL_COLLECTION": f"lost{next(_collections)}", "SCHEDULER_QUEUE_CLASS": queue,
        "FEEDS": {}})
    crawler.spider = crawler._create_spider("lost")
    sched = LeasingScheduler.from_crawler(crawler)
    sched.open(crawler.spider)
    return sched


@pytest.mark.parametrize("queue", ["scrapy_redis.queue.PriorityQueue",
                                   "scrapy_redis.queue.FifoQueue"])
def test_a_pop_whose_reply_was_lost_hands_out_the_same_request(redis_url, queue):  # noqa: F811
    sched = scheduler(redis_url, queue)
    for n in range(3):
        assert sched.enqueue_request(Request(f"http://127.0.0.1:9/article/{n}"))
    sched._pop = reply_lost_once(sched._pop)
    first = sched.next_request()
    leased = sched.server.hgetall(sched._inflight_key())
    assert list(leased) == [str(first.meta[LEASE_META]).encode()], "a second lease was taken"
    got = {first.url} | {sched.next_request().url for _ in range(2)}
    assert got == {f"http://127.0.0.1:9/article/{n}" for n in range(3)}
    assert sched.next_request() is None
    assert len(sched.server.hgetall(sched._inflight_key())) == 3


def test_an_enqueue_whose_reply_was_lost_keeps_the_request(redis_url):  # noqa: F811
    sched = scheduler(redis_url)
    sched._push = reply_lost_once(sched._push)
    url = "http://127.0.0.1:9/article/lost"
    sched.enqueue_request(Request(url))
    assert not sched.enqueue_request(Request(url)), "a request seen twice was queued twice"
    assert len(sched) == 1
    assert sched.next_request().url == url


def test_a_seen_set_entry_never_exists_without_its_request(redis_url):  # noqa: F811
    """The connection breaks after the seen-set entry is written: the request is queued
    too (one step), not filtered as seen by the retry."""
    sched = scheduler(redis_url)
    url = "http://127.0.0.1:9/article/between"
    clients = {id(c): c for c in (sched.server, sched.df.server)}.values()
    real = {id(c): c.execute_command for c in clients}

    def broken_after_sadd(client: Any) -> Any:
        def execute(*args: Any, **kwargs: Any) -> Any:
            result = real[id(client)](*args, **kwargs)
            if args and args[0] == "SADD" and not state:
                state.append(1)
                raise redis.ConnectionError("Connection closed by server.")
            return result
        return execute

    state: list[int] = []
    for client in clients:
        client.execute_command = broken_after_sadd(client)
    try:
        sched.enqueue_request(Request(url))
    finally:
        for client in clients:
            del client.execute_command
    assert len(sched) == 1
    assert sched.next_request().url == url


def test_a_claim_whose_reply_was_lost_is_still_this_workers_own(redis_url):  # noqa: F811
    index = RedisNearDuplicateIndex(redis.Redis.from_url(redis_url), "lostclaim:", "w", 0.8,
                                    128, 5)
    index._claim = reply_lost_once(index._claim)
    text = " ".join(article_text(7)[1])
    assert index.add("http://127.0.0.1:9/article/7", text) is None, \
        "the document was taken for a duplicate of itself"
    other = RedisNearDuplicateIndex(redis.Redis.from_url(redis_url), "lostclaim:", "o", 0.8,
                                    128, 5)
    assert other.add("http://127.0.0.1:9/copy", text) == "http://127.0.0.1:9/article/7"


def test_a_recovery_retried_after_its_lock_was_taken_still_requeues(redis_url):  # noqa: F811
    """The connection broke after the recovery lock was set: the retry, finding this
    worker's own lock, recovers the dead worker's leases instead of skipping them."""
    sched = scheduler(redis_url)
    sched.enqueue_request(Request("http://127.0.0.1:9/article/orphan"))
    sched.cluster = dataclasses.replace(sched.cluster, worker="dead")
    assert sched.next_request() is not None  # leased by "dead"
    sched.cluster = dataclasses.replace(sched.cluster, worker="w")
    assert len(sched) == 0
    sched.server.set(f"{sched.cluster.run_prefix}recovering:dead", "w", px=30000)
    sched._recover("dead", "dead")
    assert len(sched) == 1
    assert not sched.server.exists(f"{sched.cluster.run_prefix}recovering:dead")


@pytest.mark.parametrize("kind", ["logging_retry", "redis_retry"])
def test_an_error_answer_after_an_outage_is_logged_as_reachable_again(kind, caplog):
    """A restarted Redis has no scripts: the first answer is NOSCRIPT (redis-py's Script
    loads the script and calls again, outside this retry); Redis is reachable all the same."""
    from corpuscrawl.cluster.config import logging_retry, redis_retry

    answers = [redis.ConnectionError("Connection closed by server."),
               redis.exceptions.NoScriptError("No matching script.")]

    def do() -> None:
        raise answers.pop(0)

    caplog.set_level("WARNING", logger="corpuscrawl.cluster")
    with pytest.raises(redis.exceptions.NoScriptError):
        if kind == "logging_retry":
            logging_retry("the boilerplate history").call_with_retry(do, lambda error: None)
        else:
            redis_retry(do, "a script")
    assert "Redis unreachable during" in caplog.text
    assert "Redis reachable again after 1 failed attempts" in caplog.text
