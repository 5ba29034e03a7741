"""The private-network guard: no request of the crawl reaches a non-public address.

A page on the open web may link to ``http://169.254.169.254/latest/meta-data/``
(a cloud's metadata service), to ``http://10.0.0.1/admin`` or to a name whose
DNS answer is ``127.0.0.1``; a crawler running on a server must not become the
way into that server's network.  The decision is taken where the address that
will be connected to is known:

* :class:`GuardedResolver` (``TWISTED_DNS_RESOLVER``) answers every name
  lookup of Scrapy's downloader — pages, robots.txt, sitemaps, feeds,
  redirects, error-page probes, proxies — and refuses an answer that is not a
  public address, so the connection can only go to an address that was
  checked (no second lookup, no DNS-rebinding window).  It is Scrapy's
  default IPv4 resolver with that check; :class:`GuardedHostnameResolver` is
  the same for Scrapy's IPv4+IPv6 resolver.
* :class:`NetworkGuardMiddleware` (a downloader middleware) checks hosts that
  are IP literals in any spelling (``http://2130706433/``, ``http://0x7f.1/``,
  ``http://[::ffff:10.0.0.1]/``) before the request is sent, turns a refused
  lookup into an ignored request (not retried), counts every blocked request
  in ``corpuscrawl/net/blocked`` and ``corpuscrawl/net/blocked/<reason>``, and
  logs each blocked host once.

Seed hosts and ``CORPUSCRAWL_ALLOWED_NETWORKS`` are allowed
(:class:`~corpuscrawl.net.policy.NetworkPolicy`).  Scrapy builds the resolver
once per process, without a crawler, so the crawls' guards are registered
process-wide (:func:`~corpuscrawl.net.policy.register`); with no guard registered (``scrapy
shell``, another project's spider) the resolvers behave like Scrapy's own.
Rendering is guarded by :mod:`corpuscrawl.net.browser_guard`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.exceptions import CannotResolveHostError, IgnoreRequest, NotConfigured
from scrapy.resolver import CachingHostnameResolver, CachingThreadedResolver
from scrapy.utils.misc import load_object
from twisted.internet.error import DNSLookupError
from twisted.internet.interfaces import IResolutionReceiver
from zope.interface import implementer

from corpuscrawl.config.crawl_checks import CrawlSetupError
from corpuscrawl.net.addresses import ip_of_host
from corpuscrawl.net.policy import (
    ALLOWED_NETWORKS_SETTING,
    NetworkGuard,
    NetworkPolicy,
    NetworkPolicyError,
    lookup_refusal,
    note_lookup,
    refused_lookup,
    register,
    unregister,
)

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request

logger = logging.getLogger("corpuscrawl.net.guard")

#: How a failed name lookup reaches downloader middlewares (Scrapy wraps Twisted's error).
LOOKUP_ERRORS = (CannotResolveHostError, DNSLookupError)
#: The setting switching the guard on or off.
GUARD_SETTING = "CORPUSCRAWL_NETWORK_GUARD"


class NetworkGuardConfigError(CrawlSetupError):
    """A guard setting is invalid; the message names it."""


@dataclass(frozen=True)
class GuardConfig:
    """The guard's settings, read and validated once."""

    enabled: bool
    policy: NetworkPolicy

    @classmethod
    def from_settings(cls, settings: Any) -> GuardConfig:
        """``CORPUSCRAWL_NETWORK_GUARD`` and ``CORPUSCRAWL_ALLOWED_NETWORKS``."""
        try:
            enabled = settings.getbool(GUARD_SETTING, True)
        except ValueError:
            raise NetworkGuardConfigError(
                f"{GUARD_SETTING}={settings.get(GUARD_SETTING)!r}: expected True/False") from None
        try:
            policy = NetworkPolicy.from_setting(settings.get(ALLOWED_NETWORKS_SETTING))
        except NetworkPolicyError as exc:
            raise NetworkGuardConfigError(str(exc)) from None
        return cls(enabled, policy)


class BlockedAddressError(DNSLookupError):
    """A name resolved to an address the guard refuses (a lookup failure for Twisted)."""


def _checked_answer(address: str, name: str) -> str:
    reason = lookup_refusal(name, address)
    note_lookup(name, address, reason)
    if reason:
        raise BlockedAddressError(f"{name} resolves to {address} ({reason}): refused")
    return address


class GuardedResolver(CachingThreadedResolver):
    """Scrapy's default resolver (IPv4, cached, DNS_TIMEOUT) refusing non-public answers."""

    def getHostByName(self, name: str, timeout: Any = ()) -> Any:  # noqa: N802 (Twisted API)
        """Resolve ``name``; the answer fails as a lookup error when the guard refuses it."""
        return super().getHostByName(name, timeout).addCallback(_checked_answer, name)


@implementer(IResolutionReceiver)
class _GuardedReceiver:
    """Passes on only the addresses the guard accepts."""

    def __init__(self, receiver: Any, name: str) -> None:
        self.receiver, self.name = receiver, name

    def resolutionBegan(self, resolution: Any) -> None:  # noqa: N802 (Twisted API)
        self.receiver.resolutionBegan(resolution)

    def addressResolved(self, address: Any) -> None:  # noqa: N802
        host = getattr(address, "host", "")
        reason = lookup_refusal(self.name, host)
        if reason:
            note_lookup(self.name, host, reason)
        else:
            self.receiver.addressResolved(address)

    def resolutionComplete(self) -> None:  # noqa: N802
        self.receiver.resolutionComplete()


class GuardedHostnameResolver(CachingHostnameResolver):
    """Scrapy's IPv4+IPv6 resolver passing on only the public answers (or allowed ones)."""

    def resolveHostName(self, resolutionReceiver: Any, hostName: str,  # noqa: N802, N803
                        *args: Any, **kwargs: Any) -> Any:
        """Resolve ``hostName``; refused addresses never reach the connection attempt."""
        return super().resolveHostName(_GuardedReceiver(resolutionReceiver, hostName),
                                       hostName, *args, **kwargs)


GUARDED_RESOLVERS = (GuardedResolver, GuardedHostnameResolver)


class NetworkGuardMiddleware:
    """Downloader middleware: IP-literal hosts checked, refused lookups ignored and counted.

    Sits after RetryMiddleware (``DOWNLOADER_MIDDLEWARES`` 560) so that a
    refused lookup is turned into ``IgnoreRequest`` before it would be retried.
    """

    def __init__(self, crawler: Crawler, config: GuardConfig) -> None:
        self.crawler = crawler
        self.guard = NetworkGuard(config.policy, crawler.stats)
        register(self.guard)
        crawler.signals.connect(self._spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)
        resolver = crawler.settings.get("TWISTED_DNS_RESOLVER")
        self.resolver_guarded = _is_guarded_resolver(resolver)
        if not self.resolver_guarded:
            logger.warning("TWISTED_DNS_RESOLVER is %s: names that resolve to private "
                           "addresses are not blocked (use corpuscrawl.net.scrapy_glue.guard.GuardedResolver)",
                           resolver)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> NetworkGuardMiddleware:
        """Build from settings; ``NotConfigured`` when ``CORPUSCRAWL_NETWORK_GUARD`` is off."""
        config = GuardConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured(f"{GUARD_SETTING} is off")
        return cls(crawler, config)

    def _spider_opened(self, spider: Any) -> None:
        seeds = getattr(spider, "seed_urls", None) or getattr(spider, "start_urls", None) or []
        hosts = [urlsplit(url).hostname or "" for url in seeds]
        self.guard.add_seeds([h for h in hosts if h])

    def _spider_closed(self) -> None:
        unregister(self.guard)

    def process_request(self, request: Request) -> None:
        """Refuse a request whose host is a non-public IP literal (any spelling)."""
        host = urlsplit(request.url).hostname or ""
        ip = ip_of_host(host)
        if ip is None:
            return
        reason = self.guard.blocked_reason(host, ip)
        if reason:
            self.guard.record(host, str(ip), reason)
            raise IgnoreRequest(f"{request.url}: {ip} is a {reason} address")

    def process_exception(self, request: Request, exception: Exception) -> None:
        """A lookup the resolver refused becomes an ignored (not retried) request."""
        if not isinstance(exception, LOOKUP_ERRORS):
            return
        for url in (request.url, request.meta.get("proxy") or ""):
            host = (urlsplit(url).hostname or "").lower() if url else ""
            refused = refused_lookup(host)
            if refused is not None:
                address, reason = refused
                self.guard.record(host, address, reason)
                raise IgnoreRequest(f"{request.url}: {host} resolves to {address}, a {reason} "
                                    "address")


def _is_guarded_resolver(path: Any) -> bool:
    try:
        resolver = load_object(path) if isinstance(path, str) else path
    except (ImportError, NameError, ValueError):
        return False
    return isinstance(resolver, type) and issubclass(resolver, GUARDED_RESOLVERS)
