"""The shared de-duplication index of cluster mode against a real redis-server."""

from __future__ import annotations

import threading

import pytest
import redis

from corpuscrawl.cluster.redis_dedup import RedisNearDuplicateIndex, release_claims
from tests.redis_server import redis_url  # noqa: F401 (fixture)
from tests.resume_site import article_text

pytestmark = pytest.mark.redis


def text(n: int) -> str:
    """A distinct article text."""
    return " ".join(article_text(n)[1])


def index(url: str, prefix: str, worker: str) -> RedisNearDuplicateIndex:
    """A worker's index (the defaults of the export stage)."""
    return RedisNearDuplicateIndex(redis.Redis.from_url(url), prefix, worker, 0.8, 128, 5)


def test_workers_see_each_others_documents_and_near_duplicates(redis_url):  # noqa: F811
    a, b = index(redis_url, "t1:", "a"), index(redis_url, "t1:", "b")
    assert a.add("u1", text(1)) is None
    assert a.add("u1", text(1)) is None  # another unit of the same page in the same process
    assert b.add("u2", text(1)) == "u1"  # exact copy
    words = text(2).split()
    assert b.add("u3", " ".join(words)) is None
    edited = words[:]
    edited[10] = "zeppelin"
    assert a.add("u4", " ".join(edited)) == "u3"  # near-duplicate claimed by the other worker
    assert a.add("u5", text(3)) is None


def test_committed_claims_survive_a_dead_worker_and_pending_ones_are_released(redis_url):  # noqa: F811
    client = redis.Redis.from_url(redis_url)
    dead = index(redis_url, "t2:", "dead")
    assert dead.add("written", text(10)) is None
    assert dead.add("unwritten", text(11)) is None
    dead.final(["written"])
    dead.commit()
    assert release_claims(client, "t2:", "dead") == 1
    other = index(redis_url, "t2:", "other")
    assert other.add("written", text(10)) == "written"  # fetched again: not exported twice
    assert other.add("unwritten", text(11)) is None  # never written: exported now


def test_two_workers_racing_on_one_text_export_it_once(redis_url):  # noqa: F811
    workers = [index(redis_url, "t3:", f"w{i}") for i in range(4)]
    results: list[object] = []
    barrier = threading.Barrier(len(workers))

    def run(i: int) -> None:
        barrier.wait()
        for n in range(30):
            results.append(workers[i].add(f"w{i}-{n}", text(100 + n)))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(workers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(1 for r in results if r is None) == 30  # each text claimed by exactly one
