"""IP addresses a crawler may connect to, and the IP a URL host spells.

Pure functions on :mod:`ipaddress` (no Scrapy): the guard in
:mod:`corpuscrawl.net.scrapy_glue.guard` and the URL normalizer in :mod:`corpuscrawl.net.urls`
both use them.

* :func:`ip_of_host` reads a URL host the way browsers do (WHATWG URL
  Standard, "IPv4 parser"): besides dotted quads it accepts the numeric
  spellings that reach the same machine — ``2130706433``, ``0177.0.0.1``,
  ``0x7f.1`` are all ``127.0.0.1`` — and bracketed or bare IPv6.
* :func:`non_global_reason` says why an address is not one to fetch from the
  open web: anything :attr:`ipaddress.IPv4Address.is_global` rejects
  (private, loopback, link-local incl. the cloud metadata address
  169.254.169.254, shared CGNAT space, reserved, unspecified), multicast, and
  IPv6 addresses that embed such an IPv4 address (IPv4-mapped ``::ffff:a.b.c.d``,
  6to4 ``2002::/16``, NAT64 ``64:ff9b::/96``, Teredo).
"""

from __future__ import annotations

import ipaddress
import re

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: The NAT64 well-known prefix (RFC 6052): the last 32 bits are an IPv4 address.
NAT64_PREFIX = ipaddress.IPv6Network("64:ff9b::/96")

_NUMBER_RE = re.compile(r"^(0[xX][0-9a-fA-F]*|[0-9]+)$")


def _ipv4_number(part: str) -> int | None:
    """One WHATWG IPv4 number: decimal, ``0x`` hex or leading-zero octal."""
    if not _NUMBER_RE.match(part):
        return None
    if part[:2].lower() == "0x":
        return int(part[2:] or "0", 16)
    if len(part) > 1 and part[0] == "0":
        return int(part, 8) if all(c in "01234567" for c in part) else None
    return int(part)


def parse_ipv4_host(host: str) -> ipaddress.IPv4Address | None | bool:
    """The IPv4 address a host spells (WHATWG "IPv4 parser").

    ``None``: the host is a name, not a number.  ``False``: it ends in a number
    but is no valid address (browsers reject such a URL).
    """
    parts = host.split(".")
    if parts and parts[-1] == "":
        parts.pop()  # one trailing dot is allowed
    if not parts or not _NUMBER_RE.match(parts[-1]):
        return None
    if len(parts) > 4:
        return False
    numbers = [_ipv4_number(p) for p in parts]
    if any(n is None for n in numbers):
        return False
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):  # type: ignore[operator]
        return False
    value = last
    for i, n in enumerate(head):
        value += n * 256 ** (3 - i)  # type: ignore[operator]
    return ipaddress.IPv4Address(value)


def ip_of_host(host: str) -> IPAddress | None:
    """The IP address a URL host names literally (any spelling), or ``None`` for a name."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if ":" in host:
        try:
            return ipaddress.IPv6Address(host)
        except ValueError:
            return None
    ip = parse_ipv4_host(host)
    return ip if isinstance(ip, ipaddress.IPv4Address) else None


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, NAT64, Teredo client)."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in NAT64_PREFIX:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.teredo is not None:
        return ip.teredo[1]
    return None


def non_global_reason(ip: IPAddress) -> str:
    """Why ``ip`` is not a public internet address ("" when it is one).

    The reason is a short stats-friendly word: ``loopback``, ``private``,
    ``link_local``, ``multicast``, ``unspecified``, ``reserved`` or ``non_global``.
    """
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:  # the IPv4 address itself, spelled in IPv6
            return non_global_reason(ip.ipv4_mapped)
        inner = embedded_ipv4(ip)
        if inner is not None:
            reason = non_global_reason(inner)
            if reason:
                return reason
    for name in ("loopback", "link_local", "multicast", "unspecified", "reserved", "private"):
        if getattr(ip, f"is_{name}"):
            return name
    return "" if ip.is_global else "non_global"
