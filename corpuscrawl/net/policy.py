"""Which hosts and addresses a crawl may connect to: the private-network policy.

A request may go to an address that is publicly routable
(:func:`~corpuscrawl.net.addresses.non_global_reason` is empty), or to any
address when its host is one of the crawl's seed hosts (a local demo site, an
intranet the user chose to crawl) or is allowed by
``CORPUSCRAWL_ALLOWED_NETWORKS`` (host names — a name also allows its
subdomains — and IP addresses or CIDR networks).

:class:`NetworkGuard` is one crawl's policy with its counters; the guards of
the running crawls are registered process-wide (:func:`register`), because
Scrapy builds its DNS resolver once per process without a crawler and
scrapy-playwright loads its request filter by name: both consult
:func:`lookup_refusal`.  Plain library: no Scrapy.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from corpuscrawl.config.crawl_checks import CrawlSetupError
from corpuscrawl.net.addresses import IPAddress, embedded_ipv4, ip_of_host, non_global_reason
from corpuscrawl.net.urls import canonical_host

logger = logging.getLogger("corpuscrawl.net.guard")

#: Stats key of blocked requests (``/<reason>`` appended per reason).
BLOCKED_STAT = "corpuscrawl/net/blocked"
#: The setting holding the allow-list.
ALLOWED_NETWORKS_SETTING = "CORPUSCRAWL_ALLOWED_NETWORKS"

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class NetworkPolicyError(CrawlSetupError):
    """An allow-list entry is neither a host name nor an IP address/network."""


def _host_key(host: str) -> str:
    """A host in one spelling (punycode, dotted-quad, bare IPv6), so ``0x7f.1`` is ``127.0.0.1``."""
    canonical = canonical_host(host)[0] or host.strip().lower()
    return canonical.removeprefix("[").removesuffix("]")


@dataclass(frozen=True)
class NetworkPolicy:
    """Allowed non-public destinations: seed hosts plus an allow-list of hosts and networks."""

    networks: tuple[IPNetwork, ...] = ()
    hosts: frozenset[str] = frozenset()
    seed_hosts: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def from_setting(cls, value: object, seed_hosts: Iterable[str] = ()) -> NetworkPolicy:
        """Parse ``CORPUSCRAWL_ALLOWED_NETWORKS`` (a list or a comma-separated string)."""
        if value is None or value == "":
            entries: list[str] = []
        elif isinstance(value, str):
            entries = [e for e in value.replace("\n", ",").split(",") if e.strip()]
        elif isinstance(value, Iterable):
            entries = [str(e) for e in value]
        else:
            raise NetworkPolicyError(f"{ALLOWED_NETWORKS_SETTING}={value!r}: expected a list "
                                     "of host names and IP networks")
        networks: list[IPNetwork] = []
        hosts: set[str] = set()
        for entry in entries:
            text = entry.strip()
            try:
                networks.append(ipaddress.ip_network(_host_key(text), strict=False))
                continue
            except ValueError:
                pass
            host, reason = canonical_host(text)
            if reason or ip_of_host(host) is not None or "/" in text:
                raise NetworkPolicyError(
                    f"{ALLOWED_NETWORKS_SETTING}: {entry!r} is neither a host name nor an IP "
                    "address or network (e.g. 'intranet.example', '10.0.0.0/8', 'fd00::/8')")
            hosts.add(host)
        return cls(tuple(networks), frozenset(hosts), frozenset(_host_key(h) for h in seed_hosts))

    def with_seeds(self, seed_hosts: Iterable[str]) -> NetworkPolicy:
        """This policy with more seed hosts allowed."""
        return NetworkPolicy(self.networks, self.hosts,
                             self.seed_hosts | {_host_key(h) for h in seed_hosts if h})

    def host_allowed(self, host: str) -> bool:
        """True when ``host`` may be fetched whatever it resolves to (seed or allow-listed)."""
        host = _host_key(host)
        if host in self.seed_hosts:
            return True
        return any(host == h or host.endswith("." + h) for h in self.hosts)

    def address_allowed(self, ip: IPAddress) -> bool:
        """True when ``ip`` lies in an allow-listed network (IPv4-mapped forms included)."""
        candidates: list[IPAddress] = [ip]
        if isinstance(ip, ipaddress.IPv6Address) and (inner := embedded_ipv4(ip)) is not None:
            candidates.append(inner)
        return any(c in n for c in candidates for n in self.networks if c.version == n.version)

    def blocked_reason(self, host: str, ip: IPAddress) -> str:
        """Why connecting to ``ip`` for ``host`` is refused ("" when it is allowed)."""
        if self.host_allowed(host) or self.address_allowed(ip):
            return ""
        return non_global_reason(ip)


class NetworkGuard:
    """One crawl's policy with its counters and once-per-host log."""

    def __init__(self, policy: NetworkPolicy, stats: Any = None) -> None:
        self.policy = policy
        self.stats = stats
        self._logged: set[str] = set()

    def add_seeds(self, hosts: list[str]) -> None:
        """Allow the crawl's seed hosts whatever they resolve to."""
        self.policy = self.policy.with_seeds(hosts)

    def blocked_reason(self, host: str, ip: IPAddress) -> str:
        """Why ``host`` at ``ip`` is refused ("" when allowed)."""
        return self.policy.blocked_reason(host, ip)

    def record(self, host: str, address: str, reason: str, what: str = "request") -> None:
        """Count one blocked request; log the first one per host.

        The host is logged in one spelling (:func:`_host_key`): ``2852039166``,
        ``0xa9.0xfe.0xa9.0xfe`` and ``169.254.169.254`` are one host, whether or not
        Scrapy's URL handling (w3lib, from 2.6 on) already rewrote the request's URL.
        """
        if self.stats is not None:
            self.stats.inc_value(BLOCKED_STAT)
            self.stats.inc_value(f"{BLOCKED_STAT}/{reason}")
        host = _host_key(host)
        if host not in self._logged:
            self._logged.add(host)
            if self.stats is not None:
                self.stats.inc_value(f"{BLOCKED_STAT}_hosts")
            logger.warning("blocked %s to %s: %s is a %s address, not public (allow it with "
                           "%s)", what, host, address, reason, ALLOWED_NETWORKS_SETTING)


_ACTIVE: list[NetworkGuard] = []
#: host -> (address, reason) of the latest DNS answer a resolver refused.
_REFUSED_LOOKUPS: dict[str, tuple[str, str]] = {}


def register(guard: NetworkGuard) -> None:
    """Make ``guard`` enforced by the process-wide resolver and browser filter."""
    _ACTIVE.append(guard)


def unregister(guard: NetworkGuard) -> None:
    """Stop enforcing ``guard`` (its crawl is over)."""
    if guard in _ACTIVE:
        _ACTIVE.remove(guard)


def active_guards() -> list[NetworkGuard]:
    """Guards of the crawls running in this process (empty: nothing is enforced)."""
    return list(_ACTIVE)


def lookup_refusal(host: str, address: str) -> str:
    """Reason to refuse connecting to ``address`` for ``host`` ("" = go ahead).

    With several crawls in one process an address allowed by any of them is
    used (a resolver cannot tell which crawl asked).
    """
    guards = active_guards()
    if not guards:
        return ""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "unparsable"
    reasons = [guard.blocked_reason(host, ip) for guard in guards]
    return reasons[0] if all(reasons) else ""


def note_lookup(host: str, address: str, reason: str) -> None:
    """Remember the verdict on the latest DNS answer for ``host`` (reason "" = accepted)."""
    if reason:
        _REFUSED_LOOKUPS[host.lower()] = (address, reason)
    else:
        _REFUSED_LOOKUPS.pop(host.lower(), None)


def refused_lookup(host: str) -> tuple[str, str] | None:
    """``(address, reason)`` when the latest DNS answer for ``host`` was refused."""
    return _REFUSED_LOOKUPS.get(host.lower())
