"""Run crawls inside a private network namespace with "private" and "public" servers.

Used by tests/test_net_guard.py as ``unshare -n -m python -m tests.net_sandbox
RESULT.json RUNS.json``: nothing can leave the machine (the namespace has only
its own loopback device).  On it the script adds the addresses of a small
"internal network" — 10.0.0.1, 169.254.169.254 (cloud metadata), 192.168.1.1,
127.0.0.2, fd00::1 — and one stand-in public address (93.184.216.34), mounts a
hosts file naming some of them (``intranet.test`` -> 10.0.0.1,
``metadata.test`` -> 169.254.169.254, ``public.test`` -> 93.184.216.34), serves
a page on each, and crawls a seed site on 127.0.0.1 that points at all of them
through links, redirects (with a decimal IP spelling), robots.txt ``Sitemap:``
lines, a sitemap and a feed.  The result file lists, per run, what every server
received and the crawl log.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.crawl_helpers import run_crawl
from tests.local_server import LocalServer, Reply, article

PRIVATE = {"10.0.0.1": "private", "169.254.169.254": "link_local", "192.168.1.1": "private",
           "127.0.0.2": "loopback", "fd00::1": "private"}
PUBLIC = "93.184.216.34"
HOSTS = {"intranet.test": "10.0.0.1", "metadata.test": "169.254.169.254", "public.test": PUBLIC}
METADATA_DECIMAL = "2852039166"  # 169.254.169.254 spelled as one number


def setup_network(tmp: Path) -> None:
    """Loopback up, the sandbox's addresses on it, and a hosts file naming them."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    for address in [*PRIVATE, PUBLIC]:
        if address != "127.0.0.2":  # all of 127/8 is local already
            prefix = "128" if ":" in address else "32"
            subprocess.run(["ip", "addr", "add", f"{address}/{prefix}", "dev", "lo"], check=True)
    hosts = tmp / "hosts"
    hosts.write_text("127.0.0.1 localhost\n::1 localhost\n"
                     + "".join(f"{ip} {name}\n" for name, ip in HOSTS.items()))
    subprocess.run(["mount", "--bind", str(hosts), "/etc/hosts"], check=True)


def url(server: LocalServer, host: str, path: str) -> str:
    """``path`` on ``server`` reached through ``host`` (a name or another spelling)."""
    return f"http://{host}:{server.port}{path}"


def seed_routes(servers: dict[str, LocalServer]) -> dict[str, Reply]:
    """The seed site: every way a crawl can be pointed into the internal network."""
    s10, meta, s192 = servers["10.0.0.1"], servers["169.254.169.254"], servers["192.168.1.1"]
    links = [url(s10, "10.0.0.1", "/private"), url(meta, "169.254.169.254", "/latest/meta-data/"),
             url(s192, "192.168.1.1", "/router"), url(servers["127.0.0.2"], "127.0.0.2", "/admin"),
             url(servers["fd00::1"], "[fd00::1]", "/v6"), url(s10, "intranet.test", "/named"),
             url(meta, "0xa9.0xfe.0xa9.0xfe", "/hex"),
             url(servers[PUBLIC], "public.test", "/public"),
             url(servers[PUBLIC], PUBLIC, "/public-ip"), "/redirect-meta", "/redirect-name"]
    home = article("Home", links).replace(
        "</head>", f'<link rel="alternate" type="application/rss+xml" '
                   f'href="{url(meta, "metadata.test", "/feed.xml")}"></head>')
    sitemap = ('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
               f'<url><loc>{url(s192, "192.168.1.1", "/from-sitemap")}</loc></url>'
               f'<url><loc>{url(servers[PUBLIC], "public.test", "/from-sitemap")}</loc></url>'
               "</urlset>")
    robots = (f"User-agent: *\nAllow: /\nSitemap: {url(s10, '10.0.0.1', '/sitemap.xml')}\n"
              "Sitemap: /sitemap.xml\n")
    return {
        "/": Reply(home),
        "/robots.txt": Reply(robots, content_type="text/plain"),
        "/sitemap.xml": Reply(sitemap, content_type="application/xml"),
        "/redirect-meta": Reply("", 302, headers={
            "Location": url(meta, METADATA_DECIMAL, "/latest/meta-data/iam")}),
        "/redirect-name": Reply("", 302, headers={
            "Location": url(s10, "intranet.test", "/redirected")}),
    }


def target_routes(name: str) -> dict[str, Reply]:
    """Any path of an internal or public server answers with a page (and a feed / sitemap)."""
    feed = ('<?xml version="1.0"?><rss version="2.0"><channel><title>f</title><item>'
            '<link>/from-feed</link></item></channel></rss>')
    return {"*": Reply(article(f"Page on {name}")),
            "/feed.xml": Reply(feed, content_type="application/rss+xml"),
            "/sitemap.xml": Reply('<?xml version="1.0"?><urlset '
                                  'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>',
                                  content_type="application/xml")}


def main(result_path: str, runs_path: str) -> None:
    """Set up the sandbox, run every crawl of ``runs_path``, write ``result_path``."""
    runs = json.loads(Path(runs_path).read_text())
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        setup_network(tmp)
        servers = {host: LocalServer(target_routes(host), host=host).__enter__()
                   for host in [*PRIVATE, PUBLIC]}
        seed = LocalServer(seed_routes(servers)).__enter__()
        results = {}
        for run in runs:
            for server in [*servers.values(), seed]:
                server.log.clear()
            docs, log, code = run_crawl(tmp / f"{run['name']}.jsonl", f"seeds={seed.url}",
                                        "any_domain=1", "depth=2", *run.get("args", []),
                                        settings=run.get("settings"), timeout=120)
            results[run["name"]] = {
                "code": code, "log": log, "docs": [d["url"] for d in docs],
                "received": {host: s.paths() for host, s in servers.items()},
                "seed": seed.url}
        Path(result_path).write_text(json.dumps(results))


if __name__ == "__main__":
    main(*sys.argv[1:3])
