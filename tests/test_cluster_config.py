"""Cluster-mode settings: validation naming the key, and scrapy-redis's own settings winning."""

from __future__ import annotations

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.settings import Settings

from corpuscrawl.cluster.addon import ClusterAddon
from corpuscrawl.cluster.config import ClusterConfig, ClusterConfigError
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
    ClusterAddon().update_settings(settings)
    assert settings["SCHEDULER"] == "corpuscrawl.cluster.lease.LeasingScheduler"
    assert settings["DUPEFILTER_CLASS"] == "scrapy_redis.dupefilter.RFPDupeFilter"
    assert settings.getbool("SCHEDULER_PERSIST")
    assert settings["REDIS_URL"] == redis_url
    assert settings["SCHEDULER_QUEUE_KEY"] == "mine:requests"  # the user's own
    assert settings["SCHEDULER_QUEUE_CLASS"] == "scrapy_redis.queue.FifoQueue"
    assert settings["SCHEDULER_DUPEFILTER_KEY"] == "corpuscrawl:news:dupefilter"
    assert settings["CORPUSCRAWL_BOILERPLATE_HISTORY"] == redis_url
    assert settings["CORPUSCRAWL_BOILERPLATE_REDIS_PREFIX"] == "corpuscrawl:news:bp:"
    assert settings["CORPUSCRAWL_RECRAWL"] == "off"
