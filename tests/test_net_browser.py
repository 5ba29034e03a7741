"""The private-network guard when rendering: real Chromium, subresources into loopback."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpuscrawl.browse.browser import chromium_path
from tests.crawl_helpers import run_crawl, stat
from tests.local_server import LocalServer, Reply, article

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not Path(chromium_path()).exists(),
                       reason=f"Chromium not installed at {chromium_path()}"),
]

SCRIPT = "document.getElementById('out').textContent += ' INJECTED-BY-SCRIPT';"


def _crawl(tmp_path: Path, name: str, settings: dict[str, str] | None = None):
    internal = LocalServer({"/frame.html": Reply(article("Frame INTERNAL-FRAME-TEXT")),
                            "/api": Reply("INTERNAL-API-TEXT", content_type="text/plain",
                                          headers={"Access-Control-Allow-Origin": "*"})},
                           host="127.0.0.2")
    named = LocalServer({"/inject.js": Reply(SCRIPT, content_type="text/javascript"),
                         "/outer.html": Reply(article("Outer story"))})
    with internal, named:
        page = article("Rendered home").replace("</body>", f"""
            <div id="out">SEED-PAGE</div>
            <p>Read the <a href="http://localhost:{named.port}/outer.html">outer story</a>.</p>
            <iframe src="{internal.url}frame.html"></iframe>
            <script src="http://localhost:{named.port}/inject.js"></script>
            <script>fetch("{internal.url}api").then(r => r.text())
              .then(t => {{ document.getElementById('out').textContent += ' ' + t; }})
              .catch(() => {{}});</script></body>""")
        with LocalServer({"/": Reply(page)}) as seed:
            docs, log, code = run_crawl(tmp_path / f"{name}.jsonl", f"seeds={seed.url}",
                                        "render=always", "depth=1", "follow=all",
                                        "max_scrolls=0", "sitemaps=0", "feeds=0",
                                        settings=settings)
            seed_paths = seed.paths()
    assert code == 0, log[-3000:]
    return docs, log, internal.paths() + named.paths(), seed_paths


def test_browser_requests_into_private_addresses_are_aborted(tmp_path):
    docs, log, internal_paths, seed_paths = _crawl(tmp_path, "guarded")
    assert "/" in seed_paths  # the seed itself (127.0.0.1) is rendered
    assert internal_paths == []
    text = " ".join(d["text"] for d in docs)
    assert "Rendered home" in text or "rendered home" in text
    assert "INJECTED-BY-SCRIPT" not in text and "INTERNAL-API-TEXT" not in text
    # frame, api (127.0.0.2), script and the followed outer page's navigation (localhost)
    assert stat(log, "corpuscrawl/net/blocked") >= 4
    assert stat(log, "corpuscrawl/net/blocked/loopback") >= 4


def test_allowed_networks_let_the_browser_in(tmp_path):
    _, log, internal_paths, _ = _crawl(tmp_path, "allowed", {
        "CORPUSCRAWL_ALLOWED_NETWORKS": "127.0.0.2,localhost"})
    assert {"/frame.html", "/inject.js", "/outer.html"} <= set(internal_paths)
    assert stat(log, "corpuscrawl/net/blocked") == 0
