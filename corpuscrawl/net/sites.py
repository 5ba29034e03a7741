"""What a "site" is: the one definition used by focus, politeness, history and browsing.

Three keys, from the narrowest to the widest:

* :func:`domain_of` — the host without ``www.`` (``news.example.co.uk``): a document's
  ``domain`` field, per-domain templates, rules and caps.
* :func:`state_key` — :func:`domain_of` plus ``:port`` when the URL names one: the key of
  per-site state (boilerplate history, render experience), so two servers on one host
  never mix.
* :func:`site_of` — the registrable domain (``example.co.uk``, ``example.or.jp``,
  ``example.gv.at``) from the Public Suffix List: what "the same site" means when a link
  is judged inner or outer.

The suffix list is the snapshot bundled with tldextract (the library Scrapy's cookie
middleware uses): no download, no cache directory, no socket.  IP addresses,
``localhost`` and other hosts without a known public suffix are their own site.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

from tldextract import TLDExtract

from corpuscrawl.net.urls import canonical_host

#: The Public Suffix List from the snapshot bundled with tldextract: no URL to fetch and
#: no cache directory, so it never opens a socket nor writes a file.  Private suffixes
#: (``blogspot.com``, ``github.io``) are not suffixes here: each is one site, as for
#: Scrapy's cookie domains.
_SUFFIXES = TLDExtract(suffix_list_urls=(), cache_dir=None, fallback_to_snapshot=True)

__all__ = ["domain_of", "host_of", "offsite_domains", "same_site", "site_of", "state_key",
           "under_domains"]


def host_of(url_or_host: str) -> str:
    """The host of a URL (or a bare host, with or without ``:port``) in its URL spelling:
    lower-case punycode, dotted-quad IPv4, IPv6 without brackets; "" when there is none
    or it is unusable."""
    value = (url_or_host or "").strip()
    if not value:
        return ""
    if "//" not in value:
        if value.count(":") > 1 and not value.startswith("["):
            value = f"[{value}]"  # a bare IPv6 address
        value = "//" + value
    try:
        parts = urlsplit(value)
        host = parts.hostname or ""
        bracketed = "[" in parts.netloc
    except ValueError:
        return ""
    return canonical_host(host, bracketed=bracketed)[0].strip("[]") if host else ""


def _without_www(host: str) -> str:
    return host[4:] if host.startswith("www.") else host


def domain_of(url: str) -> str:
    """Host of ``url`` lower-cased with any ``www.`` prefix dropped ("" when there is none).

    A Unicode host is kept as written (lower case), as it appears in the documents'
    ``domain`` field and the template file names.
    """
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""
    return _without_www(host)


def state_key(url: str) -> str:
    """Key of per-site state: :func:`domain_of`, with ``:port`` when the URL names a port.

    Two sites on one host but different ports (``127.0.0.1:8001`` and ``:8002``)
    are different sites: their boilerplate history and render experience must not mix.
    """
    host = domain_of(url)
    try:
        port = urlsplit(url).port
    except ValueError:
        port = None
    return f"{host}:{port}" if host and port is not None else host


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def site_of(url_or_host: str) -> str:
    """The registrable domain of a URL or host: the label under its public suffix.

    ``hu.euronews.com`` -> ``euronews.com``; ``shop.example.ne.jp`` -> ``example.ne.jp``;
    ``www.example.ltd.uk`` -> ``example.ltd.uk``.  IP addresses, single-label hosts
    (``localhost``) and hosts whose suffix is not on the list are returned whole; a
    bare public suffix (``co.uk``) is its own site.  Ports are ignored; "" when there
    is no usable host.
    """
    return _registrable(host_of(url_or_host))


@functools.lru_cache(maxsize=8192)
def _registrable(host: str) -> str:
    """:func:`site_of` of a host in its URL spelling.  Cached by host: a page's links name
    a few hosts many times, and the suffix-list lookup is most of what an uncached
    ``site_of`` costs (``same_site`` asks it twice per link; figures in
    ``benchmarks/results/url_check.md``)."""
    if not host or _is_ip(host) or "." not in host:
        return host
    parts = _SUFFIXES.extract_str(host)
    if not parts.suffix:
        return host
    return parts.top_domain_under_public_suffix or host


def same_site(url_a: str, url_b: str) -> bool:
    """True when two URLs (or hosts) have one registrable domain (:func:`site_of`)."""
    site = site_of(url_a)
    return bool(site) and site == site_of(url_b)


def under_domains(host: str, domains: Iterable[str]) -> bool:
    """True when ``host`` is one of ``domains`` or a subdomain of one (``www.`` ignored).

    Both sides are compared in their URL spelling (punycode, lower case), so an
    IDN domain given in Unicode matches its links; an unusable host matches nothing.
    """
    host = _without_www(host_of(host))
    if not host:
        return False
    return any(host == d or host.endswith("." + d)
               for d in (_without_www(host_of(x)) for x in domains) if d)


def offsite_domains(domains: Iterable[str]) -> list[str]:
    """``domains`` spelled for Scrapy's ``allowed_domains`` (its OffsiteMiddleware allows each
    and its subdomains): punycode, lower case, ``www.`` and IPv6 brackets dropped, sorted."""
    hosts = {_without_www(host_of(d)) for d in domains}
    return sorted(h for h in hosts if h)
