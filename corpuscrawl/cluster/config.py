"""The cluster settings, read once, and Redis calls that survive a lost connection.

``CORPUSCRAWL_REDIS_URL`` switches a crawl to cluster mode; the other keys are
documented in corpuscrawl/settings.py next to their defaults.  Every key of a
collection lives under ``corpuscrawl:<collection>:`` so several corpora can
share one Redis.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from corpuscrawl.config.crawl_checks import CrawlSetupError

__all__ = ["WORKER_PLACEHOLDER", "ClusterConfig", "ClusterConfigError", "expand_worker",
           "logging_retry", "redis_retry", "unreachable", "worker_name"]

logger = logging.getLogger("corpuscrawl.cluster")

URL_SETTING = "CORPUSCRAWL_REDIS_URL"
#: Seconds a worker may go without a heartbeat before its leases go back into the queue.
LEASE_TIMEOUT_DEFAULT = 120.0
#: Seconds between two acknowledgement rounds (feeds flushed, claims committed, leases acked).
COMMIT_INTERVAL_DEFAULT = 0.5
#: Longest wait between two attempts while Redis cannot be reached.
BACKOFF_MAX = 30.0

T = TypeVar("T")


class ClusterConfigError(CrawlSetupError):
    """A CORPUSCRAWL_REDIS_* / CORPUSCRAWL_CLUSTER_* setting is invalid."""


@dataclass(frozen=True)
class ClusterConfig:
    """Cluster-mode settings (see corpuscrawl/settings.py)."""

    url: str
    collection: str
    worker: str
    lease_timeout: float = LEASE_TIMEOUT_DEFAULT
    commit_interval: float = COMMIT_INTERVAL_DEFAULT
    #: The run generation this worker crawls (set by the add-on once it joined one;
    #: :mod:`corpuscrawl.cluster.generation`), 0 before.
    generation: int = 0

    @property
    def prefix(self) -> str:
        """Key prefix of the collection: ``corpuscrawl:<collection>:``."""
        return f"corpuscrawl:{self.collection}:"

    @property
    def run_prefix(self) -> str:
        """Key prefix of the generation: ``corpuscrawl:<collection>:gen<N>:``."""
        return f"{self.prefix}gen{self.generation}:"

    @classmethod
    def from_settings(cls, settings: Any) -> ClusterConfig | None:
        """The config, or None when ``CORPUSCRAWL_REDIS_URL`` is unset (no cluster mode)."""
        url = str(settings.get(URL_SETTING) or "").strip()
        if not url:
            return None
        if not url.startswith(("redis://", "rediss://", "unix://")):
            raise ClusterConfigError(f"{URL_SETTING} must be a redis:// URL, got {url!r}")
        collection = str(settings.get("CORPUSCRAWL_COLLECTION") or "default")
        worker = worker_name(settings)

        def seconds(key: str, default: float) -> float:
            raw = settings.get(key, default)
            try:
                value = float(raw)
            except (TypeError, ValueError):
                value = -1.0
            if not 0 < value <= 86400:
                raise ClusterConfigError(f"{key} must be a number of seconds in (0, 86400], "
                                         f"got {raw!r}")
            return value

        lease = seconds("CORPUSCRAWL_CLUSTER_LEASE_TIMEOUT", LEASE_TIMEOUT_DEFAULT)
        commit = seconds("CORPUSCRAWL_CLUSTER_COMMIT_INTERVAL", COMMIT_INTERVAL_DEFAULT)
        if commit * 4 > lease:
            raise ClusterConfigError("CORPUSCRAWL_CLUSTER_LEASE_TIMEOUT must be at least 4 times "
                                     "CORPUSCRAWL_CLUSTER_COMMIT_INTERVAL")
        return cls(url=url, collection=collection, worker=worker, lease_timeout=lease,
                   commit_interval=commit)


def worker_name(settings: Any) -> str:
    """This worker's name: ``CORPUSCRAWL_CLUSTER_WORKER``, by default ``HOSTNAME-PID``."""
    worker = str(settings.get("CORPUSCRAWL_CLUSTER_WORKER") or
                 f"{socket.gethostname()}-{os.getpid()}")
    if any(c in worker for c in " \n:"):
        raise ClusterConfigError(
            f"CORPUSCRAWL_CLUSTER_WORKER must not contain spaces or ':', got {worker!r}")
    return worker


def unreachable(url: str) -> str | None:
    """None when the Redis at ``url`` answers PING; otherwise why not (one line)."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
        client.ping()
        client.close()
    except (redis.RedisError, OSError, ValueError) as exc:
        return f"cannot reach Redis at {url} ({URL_SETTING}): {exc}"
    return None


def redis_retry(call: Callable[[], T], what: str) -> T:
    """Run ``call``; while Redis cannot be reached, log and retry with exponential back-off.

    The crawl waits (it cannot go on without its frontier) and continues as soon
    as Redis answers again.  Errors other than lost connections propagate.
    """
    import redis

    delay, failures = 0.5, 0
    while True:
        try:
            result = call()
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            failures += 1
            logger.warning("Redis unreachable during %s (attempt %d): %s; retrying in %.1f s",
                           what, failures, exc, delay)
            time.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)
            continue
        except redis.RedisError:
            if failures:  # Redis answered, with an error for the caller
                logger.warning("Redis reachable again after %d failed attempts (%s)", failures,
                               what)
            raise
        if failures:
            logger.warning("Redis reachable again after %d failed attempts (%s)", failures, what)
        return result


def logging_retry(what: str) -> Any:
    """A redis-py ``Retry`` for clients built elsewhere (the boilerplate history): lost
    connections are retried for ever with the same back-off as :func:`redis_retry`, and
    every failed attempt is logged."""
    from redis.backoff import ExponentialBackoff
    from redis.retry import Retry

    class LoggingRetry(Retry):
        def call_with_retry(self, do: Any, fail: Any, is_retryable: Any = None,
                            with_failure_count: bool = False) -> Any:
            failed = [0]

            def logged(error: Exception, failures: int = 0) -> Any:
                failed[0] = failures
                logger.warning("Redis unreachable during %s (attempt %d): %s; retrying",
                               what, failures, error)
                return fail(error, failures) if with_failure_count else fail(error)

            answered = True  # also when Redis answers with an error the caller handles
            try:
                return super().call_with_retry(do, logged, is_retryable,
                                               with_failure_count=True)
            except self._supported_errors:
                answered = False
                raise
            finally:
                if answered and failed[0]:
                    logger.warning("Redis reachable again after %d failed attempts (%s)",
                                   failed[0], what)

    return LoggingRetry(ExponentialBackoff(cap=BACKOFF_MAX, base=0.5), retries=-1)


#: Placeholder of the cluster worker's name in output names: ``-o 'news-%(worker)s.jsonl'``
#: gives every worker its own file from one command line.
WORKER_PLACEHOLDER = "%(worker)s"
_SUMMARY_SETTING = "CORPUSCRAWL_SUMMARY_FILE"


def expand_worker(settings: Any) -> None:
    """Replace ``%(worker)s`` in the FEEDS URIs and ``CORPUSCRAWL_SUMMARY_FILE`` by the
    cluster worker's name; outside cluster mode it is an error (there is no worker)."""
    feeds = settings.getdict("FEEDS")
    summary = str(settings.get(_SUMMARY_SETTING) or "")
    if not any(WORKER_PLACEHOLDER in str(uri) for uri in feeds) and \
            WORKER_PLACEHOLDER not in summary:
        return
    if not settings.get("CORPUSCRAWL_REDIS_URL"):
        raise CrawlSetupError(f"{WORKER_PLACEHOLDER} in an output name is the cluster worker's "
                              "name: it needs cluster mode (CORPUSCRAWL_REDIS_URL)")
    worker = worker_name(settings)
    if any(WORKER_PLACEHOLDER in str(uri) for uri in feeds):
        expanded = {str(uri).replace(WORKER_PLACEHOLDER, worker): options
                    for uri, options in feeds.items()}
        settings.set("FEEDS", expanded, priority=settings.getpriority("FEEDS"))
    if WORKER_PLACEHOLDER in summary:
        settings.set(_SUMMARY_SETTING, summary.replace(WORKER_PLACEHOLDER, worker),
                     priority=settings.getpriority(_SUMMARY_SETTING))
