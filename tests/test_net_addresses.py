"""Which addresses are public, and the address a URL host spells."""

from __future__ import annotations

import ipaddress

import pytest

from corpuscrawl.net.addresses import ip_of_host, non_global_reason, parse_ipv4_host


@pytest.mark.parametrize(("host", "ip"), [
    ("127.0.0.1", "127.0.0.1"), ("2130706433", "127.0.0.1"), ("0177.0.0.1", "127.0.0.1"),
    ("0x7f.1", "127.0.0.1"), ("0x7F.0.0.1", "127.0.0.1"), ("127.1", "127.0.0.1"),
    ("10.0.0.1.", "10.0.0.1"), ("0xa9fea9fe", "169.254.169.254"), ("[::1]", "::1"),
    ("::ffff:10.0.0.1", "::ffff:a00:1"), ("example.com", None), ("1.example", None),
])
def test_hosts_are_read_as_browsers_read_them(host, ip):
    assert ip_of_host(host) == (ipaddress.ip_address(ip) if ip else None)


def test_invalid_numeric_hosts_are_rejected():
    assert parse_ipv4_host("1.2.3.4.5") is False
    assert parse_ipv4_host("256.1.1.1") is False
    assert parse_ipv4_host("09.1.1.1") is False  # not octal, not decimal
    assert parse_ipv4_host("1.16777216") is False


@pytest.mark.parametrize(("ip", "reason"), [
    ("127.0.0.2", "loopback"), ("10.0.0.1", "private"), ("192.168.1.1", "private"),
    ("172.16.5.4", "private"), ("169.254.169.254", "link_local"), ("100.64.0.1", "non_global"),
    ("0.0.0.0", "unspecified"), ("224.0.0.1", "multicast"), ("240.0.0.1", "reserved"),
    ("::1", "loopback"), ("fe80::1", "link_local"), ("fd00::1", "private"),
    ("::ffff:127.0.0.1", "loopback"), ("::ffff:169.254.169.254", "link_local"),
    ("2002:a00:1::", "private"),  # 6to4 of 10.0.0.1
    ("64:ff9b::a9fe:a9fe", "link_local"),  # NAT64 of 169.254.169.254
    ("93.184.216.34", ""), ("2606:2800:220:1::1", ""), ("::ffff:93.184.216.34", ""),
])
def test_non_public_addresses_and_why(ip, reason):
    assert non_global_reason(ipaddress.ip_address(ip)) == reason
