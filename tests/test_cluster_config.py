"""Cluster-mode settings: validation naming the key, and scrapy-redis's own settings winning."""

from __future__ import annotations

import pytest
from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import Settings

from corpuscrawl.cluster.config import ClusterConfig, ClusterConfigError
from corpuscrawl.cluster.generation import active_config, cluster_run
from corpuscrawl.cluster.scrapy_glue.cluster_addon import ClusterAddon, ClusterJoiner
from tests.redis_server import redis_url  # noqa: F401 (fixture)


def test_no_url_no_cluster():
    assert ClusterConfig.from_settings(Settings()) is None
    with pytest.raises(NotConfigured):
        ClusterAddon().update_settings(Settings({"CORPUSCRAWL_COLLECTION": "x"}))


@pytest.mark.parametrize(("key", "value"), [
    ("CORPUSCRAWL_REDIS_URL", "http://127.0.0.1:6379"),
    ("CORPUSCRAWL_CLUSTER_LEASE_TIMEOUT", "soon"),
    ("CORPUSCRAWL_CLUSTER_COMMIT_INTERVAL", "-1"),
    ("CORPUSCRAWL_CLUSTER_WORKER", "a:b"),
])
def test_invalid_settings_name_the_key(key, value):
    settings = Settings({"CORPUSCRAWL_REDIS_URL": "redis://127.0.0.1:1/0", key: value})
    with pytest.raises(ClusterConfigError, match=key):
        ClusterConfig.from_settings(settings)


@pytest.mark.redis
def test_addon_plugs_scrapy_redis_and_keeps_the_users_own_settings(redis_url, tmp_path):  # noqa: F811
    from corpuscrawl import settings as project

    settings = Settings()
    settings.setmodule(project, priority="project")
    settings.set("CORPUSCRAWL_COLLECTION", "news", priority="spider")
    settings.set("CORPUSCRAWL_REDIS_URL", redis_url, priority="cmdline")
    settings.set("SCHEDULER_QUEUE_CLASS", "scrapy_redis.queue.FifoQueue", priority="cmdline")
    settings.set("SCHEDULER_QUEUE_KEY", "mine:requests", priority="cmdline")
    settings.set("FEEDS", {str(tmp_path / "out.jsonl"): {"format": "jsonl"}}, priority="cmdline")
    crawler = Crawler(Spider, settings)
    ClusterAddon(crawler).update_settings(crawler.settings)
    settings = crawler.settings
    assert settings.getpriority("SCHEDULER_DUPEFILTER_KEY") is None  # named once Redis is joined
    joiner = ClusterJoiner.from_crawler(crawler)  # connects: when the crawl is built
    generation = joiner.config.generation
    assert generation >= 1 and joiner.run.generation == generation
    assert active_config(crawler) is joiner.config and cluster_run(crawler) is joiner.run
    assert settings["SCHEDULER"] == "corpuscrawl.cluster.scrapy_glue.lease.LeasingScheduler"
    assert settings["DUPEFILTER_CLASS"] == "scrapy_redis.dupefilter.RFPDupeFilter"
    assert settings.getbool("SCHEDULER_PERSIST")
    assert settings["REDIS_URL"] == redis_url
    assert settings["SCHEDULER_QUEUE_KEY"] == "mine:requests"  # the user's own
    assert settings["SCHEDULER_QUEUE_CLASS"] == "scrapy_redis.queue.FifoQueue"
    assert settings["SCHEDULER_DUPEFILTER_KEY"] == f"corpuscrawl:news:gen{generation}:dupefilter"
    assert settings["CORPUSCRAWL_BOILERPLATE_HISTORY"] == redis_url
    assert settings["CORPUSCRAWL_BOILERPLATE_REDIS_PREFIX"] == "corpuscrawl:news:bp:"
    assert settings["CORPUSCRAWL_PAGE_STORE_CLASS"] == \
        "corpuscrawl.cluster.redis_pages.RedisPageStore"
    assert settings["CORPUSCRAWL_RECRAWL"] == "changed"  # recrawls work in cluster mode


@pytest.mark.redis
def test_workers_agree_on_the_generation_and_a_finished_one_starts_the_next(redis_url):  # noqa: F811
    """Workers starting together join one generation; once it is finished the next start
    begins the next one, empties the user's own scheduler keys and removes the old keys."""
    import redis

    from corpuscrawl.cluster.generation import begin_generation, finish_generation

    client = redis.Redis.from_url(redis_url)

    def config(worker: str) -> ClusterConfig:
        return ClusterConfig.from_settings(Settings({
            "CORPUSCRAWL_REDIS_URL": redis_url, "CORPUSCRAWL_COLLECTION": "gens",
            "CORPUSCRAWL_CLUSTER_WORKER": worker}))

    first = begin_generation(client, config("a"), ["mine:q"])
    second = begin_generation(client, config("b"), ["mine:q"])
    assert (first.generation, first.resumed, second.generation, second.resumed) == \
        (1, False, 1, True)
    client.set("corpuscrawl:gens:gen1:requests", "x")
    client.rpush("mine:q", "request")
    assert first.revisit_needed()
    first.revisited()
    assert not second.revisit_needed()
    assert not finish_generation(client, config("a"), 1, "shutdown")  # Ctrl-C: continues
    assert begin_generation(client, config("c"), ["mine:q"]).generation == 1
    assert client.exists("mine:q")
    assert finish_generation(client, config("a"), 1, "finished")
    assert not finish_generation(client, config("b"), 1, "finished")  # once
    third = begin_generation(client, config("c"), ["mine:q"])
    assert (third.generation, third.resumed, third.revisit_needed()) == (2, False, True)
    assert not client.exists("mine:q") and not client.exists("corpuscrawl:gens:gen1:requests")
    assert client.hget("corpuscrawl:gens:generation", "state") == b"running"
