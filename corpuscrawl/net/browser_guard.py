"""The private-network guard for the requests Chromium makes when rendering.

Chromium resolves names and connects by itself, so Scrapy's resolver never
sees its requests.  scrapy-playwright routes every request of a page — the
navigation, frames, scripts, XHR/fetch — through one handler that first asks
``PLAYWRIGHT_ABORT_REQUEST``; :func:`guarded` wraps such a predicate so that a
request is aborted when its host is a non-public IP literal (any spelling) or
a name that resolves, here and now, to any non-public address — unless the
host is a seed host or allowed by ``CORPUSCRAWL_ALLOWED_NETWORKS`` (the same
:class:`~corpuscrawl.net.policy.NetworkPolicy` as for plain requests).

What this cannot see (the residual risk of rendering, documented in the README):

* redirects followed inside the browser: Playwright calls route handlers
  for the first URL of a redirect chain only;
* DNS rebinding: Chromium looks the name up again; an attacker's DNS server
  answering a public address to us and a private one to Chromium a moment
  later wins (answers are cached here for :data:`CACHE_SECONDS` to keep the
  window short and the lookups few);
* WebSocket connections, service-worker fetches, and DNS prefetch/preconnect,
  which do not go through page routes.

Plain (non-rendered) fetching has none of these gaps: its connections use
only addresses the guarded resolver checked.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from corpuscrawl.net.addresses import ip_of_host
from corpuscrawl.net.policy import active_guards, lookup_refusal

#: Seconds a browser-side lookup verdict is reused for the same host.
CACHE_SECONDS = 30.0
#: Schemes of browser requests that reach the network.
NETWORK_SCHEMES = frozenset(("http", "https", "ws", "wss"))
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}

_verdicts: dict[str, tuple[float, str, str]] = {}  # host -> (time, address, reason)


async def blocked_reason(url: str) -> tuple[str, str]:
    """``(address, reason)`` when the guard refuses a browser request to ``url``, else ``("", "")``."""
    if not active_guards():
        return "", ""
    parts = urlsplit(url)
    if parts.scheme.lower() not in NETWORK_SCHEMES:
        return "", ""  # data:, blob:, about: and the like never leave the browser
    host = (parts.hostname or "").lower()
    if not host:
        return "", ""
    ip = ip_of_host(host)
    if ip is not None:
        return str(ip), lookup_refusal(host, str(ip))
    cached = _verdicts.get(host)
    if cached is not None and time.monotonic() - cached[0] < CACHE_SECONDS:
        return cached[1], cached[2]
    address, reason = await _resolve_and_check(host, parts.scheme.lower())
    _verdicts[host] = (time.monotonic(), address, reason)
    return address, reason


async def _resolve_and_check(host: str, scheme: str) -> tuple[str, str]:
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(
            host, _DEFAULT_PORTS.get(scheme, 80), type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return "", "unresolvable"  # Chromium would fail too; nothing is lost by aborting
    for info in infos:
        address = str(info[4][0])
        reason = lookup_refusal(host, address)
        if reason:  # Chromium may pick any of the answers
            return address, reason
    return "", ""


Predicate = Callable[[Any], "bool | Awaitable[bool]"]


def guarded(predicate: Predicate | None = None) -> Callable[[Any], Awaitable[bool]]:
    """A ``PLAYWRIGHT_ABORT_REQUEST`` predicate: abort what the guard refuses, then ``predicate``."""

    async def abort_request(request: Any) -> bool:
        address, reason = await blocked_reason(request.url)
        if reason:
            host = urlsplit(request.url).hostname or ""
            if reason != "unresolvable":
                for guard in active_guards():
                    guard.record(host, address, reason, what="browser request")
            return True
        if predicate is None:
            return False
        result = predicate(request)
        return bool(await result) if isinstance(result, Awaitable) else bool(result)

    abort_request.__doc__ = guarded.__doc__
    return abort_request
