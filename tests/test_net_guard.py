"""The private-network guard in real crawls, inside a network namespace the test makes.

(The last two tests need no namespace: they use addresses of the host's own loopback.)

Nothing can leave the machine: the crawls run under ``unshare -n -m`` (see
tests/net_sandbox.py) where the "internal network" and the stand-in public
server are addresses on the namespace's own loopback device.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.crawl_helpers import REPO, run_crawl, stat
from tests.local_server import LocalServer, Reply, article
from tests.net_sandbox import PRIVATE, PUBLIC

pytestmark = pytest.mark.slow


def _sandbox_available() -> str:
    if not (shutil.which("unshare") and shutil.which("ip")):
        return "unshare or ip (util-linux, iproute2) not installed"
    probe = subprocess.run(["unshare", "-n", "-m", "ip", "link", "set", "lo", "up"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return f"cannot create a network namespace here: {probe.stderr.strip()}"
    return ""


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    reason = _sandbox_available()
    if reason:
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("sandbox")
    allow = "10.0.0.0/8,169.254.169.254,192.168.1.0/24,127.0.0.2,fd00::/8"
    v6 = {"TWISTED_DNS_RESOLVER": "corpuscrawl.net.scrapy_glue.guard.GuardedHostnameResolver"}
    runs = [{"name": "guarded"},
            {"name": "allowed", "settings": {"CORPUSCRAWL_ALLOWED_NETWORKS": allow}},
            {"name": "guarded_v6", "settings": v6},
            {"name": "allowed_v6", "settings": {**v6, "CORPUSCRAWL_ALLOWED_NETWORKS": allow}}]
    (tmp / "runs.json").write_text(json.dumps(runs))
    proc = subprocess.run(["unshare", "-n", "-m", sys.executable, "-m", "tests.net_sandbox",
                           str(tmp / "result.json"), str(tmp / "runs.json")],
                          cwd=REPO, capture_output=True, text=True, timeout=400)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((tmp / "result.json").read_text())


@pytest.mark.parametrize("name", ["guarded", "guarded_v6"])
def test_nothing_on_the_internal_network_is_requested(sandbox, name):
    run = sandbox[name]
    assert run["code"] == 0, run["log"][-3000:]
    for host in PRIVATE:
        assert run["received"][host] == [], f"{host} was requested: {run['received'][host]}"
    # public addresses stay reachable, by IP and by name, also through the sitemap
    assert {"/public", "/public-ip", "/from-sitemap"} <= set(run["received"][PUBLIC])
    assert any(PUBLIC in u or "public.test" in u for u in run["docs"])  # near-duplicates: one
    log = run["log"]
    assert stat(log, "corpuscrawl/net/blocked/private") >= 4  # 10/8, 192.168/16, names, fd00::
    assert stat(log, "corpuscrawl/net/blocked/link_local") >= 3  # metadata: IP, hex, redirect, feed
    assert stat(log, "corpuscrawl/net/blocked/loopback") >= 1
    assert "Gave up retrying" not in log  # refused lookups are not retried


def test_each_blocked_host_is_logged_once(sandbox):
    log = sandbox["guarded"]["log"]
    warnings = [line for line in log.splitlines() if "[corpuscrawl.net.guard] WARNING" in line]
    hosts = [line.split("blocked request to ", 1)[1].split(": ", 1)[0] for line in warnings]
    assert len(hosts) == len(set(hosts))
    # one line per host in its canonical spelling: METADATA_DECIMAL and the hex spelling are
    # 169.254.169.254, whichever w3lib wrote the request's URL
    assert set(hosts) == {"10.0.0.1", "intranet.test", "169.254.169.254", "metadata.test",
                          "192.168.1.1", "127.0.0.2", "fd00::1"}


@pytest.mark.parametrize("name", ["allowed", "allowed_v6"])
def test_the_allow_list_opens_the_internal_network(sandbox, name):
    run = sandbox[name]
    assert run["code"] == 0, run["log"][-3000:]
    received = run["received"]
    assert {"/private", "/named", "/redirected"} <= set(received["10.0.0.1"])
    assert {"/latest/meta-data/", "/latest/meta-data/iam", "/hex", "/feed.xml"} <= set(
        received["169.254.169.254"])
    assert {"/router", "/from-sitemap"} <= set(received["192.168.1.1"])
    assert "/admin" in received["127.0.0.2"]
    assert stat(run["log"], "corpuscrawl/net/blocked") == 0


def test_the_ipv6_resolver_reaches_allowed_ipv6_hosts(sandbox):
    assert "/v6" in sandbox["allowed_v6"]["received"]["fd00::1"]


# --- the same on the host's own loopback (no namespace needed): 127.0.0.2 is not the seed ---

def _loopback_crawl(tmp_path, settings=None):
    with LocalServer({"*": Reply(article("Secret admin page"))}, host="127.0.0.2") as admin:
        port = admin.port
        links = [f"http://127.0.0.2:{port}/admin", f"http://localhost:{port}/by-name",
                 f"http://2130706434:{port}/decimal", f"http://0x7f.0.0.2:{port}/hex",
                 f"http://[::ffff:127.0.0.2]:{port}/mapped", "/go-admin"]
        routes = {"/": Reply(article("Home", links)),
                  "/go-admin": Reply("", 302, headers={"Location": f"http://0177.0.0.2:{port}/r"})}
        with LocalServer(routes) as seed:
            docs, log, code = run_crawl(tmp_path / "loop.jsonl", f"seeds={seed.url}",
                                        "any_domain=1", "sitemaps=0", settings=settings)
        assert code == 0, log[-3000:]
        return docs, log, admin.paths()


def test_loopback_addresses_other_than_the_seed_are_not_requested(tmp_path):
    docs, log, admin_paths = _loopback_crawl(tmp_path)
    assert admin_paths == []
    assert not any("Secret" in d["text"] for d in docs)
    assert stat(log, "corpuscrawl/net/blocked/loopback") >= 4
    assert "Traceback" not in log


def test_loopback_addresses_can_be_allowed(tmp_path):
    _, log, admin_paths = _loopback_crawl(
        tmp_path, {"CORPUSCRAWL_ALLOWED_NETWORKS": "127.0.0.2,localhost"})
    assert {"/admin", "/decimal", "/hex", "/r"} <= set(admin_paths)  # localhost is 127.0.0.1
    assert stat(log, "corpuscrawl/net/blocked") == 0
