"""The private-network policy: seeds and the allow-list open non-public destinations."""

from __future__ import annotations

import ipaddress

import pytest

from corpuscrawl.net.policy import NetworkGuard, NetworkPolicy, NetworkPolicyError

ip = ipaddress.ip_address


def test_public_addresses_are_allowed_and_private_ones_refused():
    policy = NetworkPolicy.from_setting([])
    assert policy.blocked_reason("example.com", ip("93.184.216.34")) == ""
    assert policy.blocked_reason("evil.example", ip("10.0.0.1")) == "private"
    assert policy.blocked_reason("169.254.169.254", ip("169.254.169.254")) == "link_local"


def test_seed_hosts_are_allowed_in_any_spelling():
    policy = NetworkPolicy.from_setting("").with_seeds(["127.0.0.1", "intranet.example"])
    assert policy.blocked_reason("127.0.0.1", ip("127.0.0.1")) == ""
    assert policy.blocked_reason("0x7f.1", ip("127.0.0.1")) == ""
    assert policy.blocked_reason("INTRANET.example.", ip("10.1.2.3")) == ""
    assert policy.blocked_reason("127.0.0.2", ip("127.0.0.2")) == "loopback"
    assert policy.blocked_reason("sub.intranet.example", ip("10.1.2.3")) == "private"


def test_allow_list_of_hosts_and_networks():
    policy = NetworkPolicy.from_setting("10.0.0.0/8, wiki.corp.example,fd00::/8\n192.168.1.1")
    assert policy.blocked_reason("x", ip("10.200.0.1")) == ""
    assert policy.blocked_reason("x", ip("::ffff:10.0.0.1")) == ""  # IPv4-mapped
    assert policy.blocked_reason("x", ip("fd12::1")) == ""
    assert policy.blocked_reason("x", ip("192.168.1.1")) == ""
    assert policy.blocked_reason("x", ip("192.168.1.2")) == "private"
    assert policy.blocked_reason("a.wiki.corp.example", ip("172.16.0.1")) == ""
    assert policy.blocked_reason("corp.example", ip("172.16.0.1")) == "private"
    assert NetworkPolicy.from_setting(["bücher.example"]).host_allowed("xn--bcher-kva.example")


@pytest.mark.parametrize("bad", ["10.0.0.0/33", "not a host", "http://x/", 42])
def test_a_bad_allow_list_entry_names_the_setting(bad):
    with pytest.raises(NetworkPolicyError, match="CORPUSCRAWL_ALLOWED_NETWORKS"):
        NetworkPolicy.from_setting([bad] if bad != 42 else bad)


def test_a_blocked_host_is_logged_once_in_any_spelling(caplog):
    guard = NetworkGuard(NetworkPolicy())
    with caplog.at_level("WARNING", logger="corpuscrawl.net.guard"):
        for host in ("2852039166", "0xa9.0xfe.0xa9.0xfe", "169.254.169.254", "Metadata.Test",
                     "metadata.test"):
            guard.record(host, "169.254.169.254", "link_local")
    lines = [r.getMessage() for r in caplog.records]
    assert [line.split("blocked request to ", 1)[1].split(": ", 1)[0] for line in lines] == [
        "169.254.169.254", "metadata.test"]
