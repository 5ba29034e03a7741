"""The local test server: placeholders, the redirect proxy, 404s."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest

from corpuscrawl.browse.localsite import LocalSite


def test_placeholders_proxy_and_errors(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text('<a href="{{ALT_ORIGIN}}/x.php?url={{ORIGIN_ENC}}%2Fb.html">'
                                     "{{ORIGIN}}</a>")
    (tmp_path / "b.html").write_text("target")
    with LocalSite(tmp_path, latency=0) as site:
        body = urllib.request.urlopen(site.url("a.html")).read().decode()
        assert f"http://localhost:{site.port}/x.php?url=http%3A%2F%2F127.0.0.1%3A{site.port}" in body
        assert f">{site.origin}<" in body
        proxied = urllib.request.urlopen(f"{site.alt_origin}/x.php?url={site.url('b.html')}")
        assert proxied.read() == b"target" and proxied.url == site.url("b.html")
        for bad in ("missing.html", "../etc/passwd"):
            with pytest.raises(urllib.error.HTTPError):
                urllib.request.urlopen(site.url(bad))
        assert site.hits["/b.html"] == 1
