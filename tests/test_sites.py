"""One definition of a site (corpuscrawl.net.sites): registrable domains from the bundled
Public Suffix List, host keys for per-site state, allowed-domain matching, and no network."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from corpuscrawl.net.sites import (
    domain_of,
    host_of,
    offsite_domains,
    same_site,
    site_of,
    state_key,
    under_domains,
)


@pytest.mark.parametrize(("host", "site"), [
    # multi-level public suffixes: the hand-made rule made the suffix itself the site
    ("www.example.or.jp", "example.or.jp"),
    ("shop.example.ne.jp", "example.ne.jp"),
    ("a.example.gv.at", "example.gv.at"),
    ("www.example.ltd.uk", "example.ltd.uk"),
    ("hu.euronews.com", "euronews.com"),
    ("www.bbc.co.uk", "bbc.co.uk"),
    ("index.hu", "index.hu"),
    ("deep.a.b.example.com.au", "example.com.au"),
    # hosts without a public suffix are their own site
    ("127.0.0.1", "127.0.0.1"),
    ("::1", "::1"),
    ("[2001:db8::1]", "2001:db8::1"),
    ("localhost", "localhost"),
    ("intranet.corp-not-a-tld", "intranet.corp-not-a-tld"),
    ("co.uk", "co.uk"),
    # ports, case, trailing dots, URLs
    ("localhost:8080", "localhost"),
    ("WWW.Example.CO.UK.", "example.co.uk"),
    ("http://user@shop.example.ne.jp:8443/a?b#c", "example.ne.jp"),
    ("http://127.0.0.1:8001/x", "127.0.0.1"),
    ("http://0x7f.1/", "127.0.0.1"),
    # IDNs compare in their URL spelling (punycode)
    ("www.bücher.de", "xn--bcher-kva.de"),
    ("shop.xn--bcher-kva.de", "xn--bcher-kva.de"),
    ("news.例え.jp", "xn--r8jz45g.jp"),
    # unusable hosts are nobody's site
    ("", ""), ("a b", ""), ("http://[zz]/", ""),
])
def test_site_of(host: str, site: str) -> None:
    assert site_of(host) == site


def test_sites_under_one_multilevel_suffix_are_different_sites() -> None:
    assert not same_site("http://www.example.or.jp/", "http://other.or.jp/")
    assert not same_site("https://a.ne.jp/", "https://b.ne.jp/")
    assert not same_site("http://127.0.0.1:8001/", "http://127.0.0.2:8001/")
    assert same_site("http://www.example.or.jp/a", "https://news.example.or.jp/b")
    assert same_site("http://127.0.0.1:8001/", "http://127.0.0.1:8002/")
    assert not same_site("", "") and not same_site("a b", "a b")


def test_host_of_spells_hosts_as_urls_do() -> None:
    assert host_of("http://WWW.Bücher.de:80/x") == "www.xn--bcher-kva.de"
    assert host_of("[::1]:8080") == "::1"
    assert host_of("http://2130706433/") == "127.0.0.1"
    assert host_of("not a host") == ""


def test_domain_and_state_keys_keep_the_host() -> None:
    assert domain_of("https://WWW.Example.com:8080/a") == "example.com"
    assert domain_of("http://shop.example.ne.jp/") == "shop.example.ne.jp"
    assert domain_of("not a url") == "" and domain_of("http://[::1/") == ""
    assert state_key("http://127.0.0.1:8001/x") == "127.0.0.1:8001"
    assert state_key("https://www.example.com/x") == "example.com"
    assert state_key("http://www.example.com:8080/") == "example.com:8080"
    assert state_key("") == ""


def test_allowed_domain_matching() -> None:
    assert under_domains("www.news.example.com", {"example.com"})
    assert not under_domains("example.com.evil.org", {"example.com"})
    assert under_domains("www.xn--bcher-kva.de", {"bücher.de"})
    assert under_domains("xn--bcher-kva.de", {"xn--bcher-kva.de"})
    assert not under_domains("", {"a.com"}) and not under_domains("a b", {"a.com"})
    assert offsite_domains(["www.Bücher.de", "[::1]", "a b", "example.com"]) == [
        "::1", "example.com", "xn--bcher-kva.de"]


def test_the_suffix_list_is_read_without_network_or_cache(tmp_path) -> None:
    """A fresh interpreter that may open no socket and has an empty cache directory still
    splits hosts by the bundled list, and writes nothing to the cache."""
    cache = tmp_path / "cache"
    cache.mkdir()
    code = textwrap.dedent("""
        import socket
        def refuse(*args, **kwargs):
            raise AssertionError("a socket was opened")
        socket.socket.connect = refuse
        socket.socket.connect_ex = refuse
        socket.create_connection = refuse
        socket.getaddrinfo = refuse
        from corpuscrawl.net.sites import site_of
        assert site_of("www.example.or.jp") == "example.or.jp", site_of("www.example.or.jp")
        assert site_of("a.example.gv.at") == "example.gv.at"
        print("ok")
    """)
    env = {**os.environ, "TLDEXTRACT_CACHE": str(cache), "XDG_CACHE_HOME": str(cache),
           "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
    assert list(cache.rglob("*")) == []
