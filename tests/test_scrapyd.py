"""A real Scrapyd on 127.0.0.1 with authentication runs corpuscrawl deployed by scrapyd-deploy.

The configuration is deploy/scrapyd.conf with only the port and the
directories changed; the egg is built by ``scrapyd-deploy`` from a copy of the
sources; one crawl is scheduled with deploy/corpuscrawl-schedule (``--wait``,
as cron and the systemd unit do), another with a plain ``schedule.json``
request, both with ``extractor=auto``.  Both corpora and their summaries are
read back, and the job logs show that the learned model came out of the egg.
"""

from __future__ import annotations

import base64
import configparser
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.packaging_helpers import REPO, clean_env, copy_sources
from tests.small_site import ARTICLES, SmallSite
from tests.support.hostile_hosts import HostileHost

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")]

USER, PASSWORD = "crawler", "pa:ss\"word"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _script(name: str) -> str:
    path = Path(sys.executable).parent / name
    found = str(path) if path.exists() else shutil.which(name)
    if not found:
        pytest.skip(f"{name} is not installed (pip install 'corpuscrawl[server]')")
    return found


class Scrapyd:
    """A Scrapyd process in a temporary directory, with the shipped configuration."""

    def __init__(self, root: Path, python: str = sys.executable) -> None:
        self.root = root
        self.python = python
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        conf = configparser.ConfigParser()
        conf.read(REPO / "deploy" / "scrapyd.conf")
        section = conf["scrapyd"]
        assert section["bind_address"] == "127.0.0.1" and section["username"]
        section.update({"http_port": str(self.port), "username": USER,
                        "password": PASSWORD.replace("%", "%%"), "eggs_dir": str(root / "eggs"),
                        "logs_dir": str(root / "logs"), "dbs_dir": str(root / "dbs"),
                        "poll_interval": "0.5"})
        with (root / "scrapyd.conf").open("w") as fh:
            conf.write(fh)
        self.cache = root / "cache"
        self.log = (root / "scrapyd.out").open("a")
        self.start()

    def start(self) -> None:
        """Start the Scrapyd process (its eggs, logs and databases stay in ``root``)."""
        self.proc = subprocess.Popen([self.python, "-m", "scrapyd", "--pidfile="],
                                     cwd=self.root, stdout=self.log, stderr=subprocess.STDOUT,
                                     # HOME: no ~/.scrapyd.conf of the machine overrides ours
                                     env=clean_env(CORPUSCRAWL_CACHE_DIR=str(self.cache),
                                                   HOME=str(self.root)))

    def restart(self) -> None:
        """Stop Scrapyd as a service manager would (SIGTERM) and start it again."""
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.start()
        self.wait_ready()

    def request(self, endpoint: str, data: list[tuple[str, str]] | None = None,
                auth: bool = True) -> dict[str, Any]:
        """Call a JSON endpoint (POST when ``data`` is given)."""
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(self.url + endpoint, data=body)
        if auth:
            token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
            req.add_header("Authorization", f"Basic {token}")
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())

    def wait_ready(self, timeout: float = 60) -> None:
        """Until daemonstatus.json answers."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, (self.root / "scrapyd.out").read_text()
            try:
                self.request("daemonstatus.json")
                return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        raise AssertionError("Scrapyd did not start: " + (self.root / "scrapyd.out").read_text())

    def wait_finished(self, jobs: set[str], timeout: float = 240) -> None:
        """Until every job in ``jobs`` is listed as finished."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            listed = self.request("listjobs.json?project=corpuscrawl")
            if jobs <= {job["id"] for job in listed["finished"]}:
                return
            time.sleep(0.5)
        raise AssertionError(f"jobs not finished: {listed}")

    def job_log(self, job: str) -> str:
        """The log Scrapyd kept of ``job``."""
        return (self.root / "logs" / "corpuscrawl" / "corpus" / f"{job}.log").read_text()

    def stop(self) -> None:
        """Stop the process this test started."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


@pytest.fixture(scope="module")
def scrapyd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scrapyd]:
    """A running Scrapyd with the project deployed by scrapyd-deploy."""
    root = tmp_path_factory.mktemp("scrapyd")
    server = Scrapyd(root)
    try:
        server.wait_ready()
        src = copy_sources(root / "src")
        (src / "scrapy.cfg").write_text(
            "[settings]\ndefault = corpuscrawl.settings\n\n[deploy]\n"
            f"url = {server.url}\nusername = {USER}\npassword = {PASSWORD}\n"
            "project = corpuscrawl\n", encoding="utf-8")
        proc = subprocess.run([_script("scrapyd-deploy"), "--version", "r1"], cwd=src,
                              capture_output=True, text=True, timeout=300, env=clean_env())
        assert proc.returncode == 0 and '"status": "ok"' in proc.stderr + proc.stdout, \
            proc.stdout[-3000:] + proc.stderr[-3000:]
        yield server
    finally:
        server.stop()


def test_authentication_is_required(scrapyd):
    with pytest.raises(urllib.error.HTTPError) as info:
        scrapyd.request("daemonstatus.json", auth=False)
    assert info.value.code == 401
    assert scrapyd.request("listspiders.json?project=corpuscrawl")["spiders"] == ["corpus"]


def test_two_scheduled_crawls_write_their_corpora_and_summaries(scrapyd, tmp_path):
    corpus_dir, state_dir = tmp_path / "corpus", tmp_path / "state"
    env_file = tmp_path / "schedule.env"
    env_file.write_text(f"SCRAPYD_URL={scrapyd.url.rstrip('/')}\nSCRAPYD_USERNAME={USER}\n"
                        f"SCRAPYD_PASSWORD='{PASSWORD}'\nCORPUS_DIR={corpus_dir}\n"
                        f"STATE_DIR={state_dir}\nWAIT_POLL=1\nWAIT_TIMEOUT=240\n",
                        encoding="utf-8")
    with SmallSite(variant=1) as first, SmallSite(variant=2) as second:
        # 1. by hand: schedule.json with spider arguments and a FEEDS setting
        feed = corpus_dir / "by-hand.jsonl"
        job = scrapyd.request("schedule.json", [
            ("project", "corpuscrawl"), ("spider", "corpus"), ("seeds", first.url),
            ("extractor", "auto"), ("max_pages", "50"), ("collection", "first"),
            ("setting", "FEEDS=" + json.dumps({str(feed): {"format": "jsonlines"}})),
            ("setting", f"CORPUSCRAWL_STATE_DIR={state_dir}")])
        assert job["status"] == "ok"
        # 2. the shipped schedule script, waiting for the crawl like cron and systemd do
        args_file = tmp_path / "second.args"
        args_file.write_text(f"# the second site\nseeds={second.url}\nextractor=auto\n"
                             "setting=CORPUSCRAWL_BOILERPLATE_ENABLED=False\n")
        proc = subprocess.run([str(REPO / "deploy" / "corpuscrawl-schedule"), "--wait",
                               "--args-file", str(args_file), "second", "depth=3"],
                              capture_output=True, text=True, timeout=300,
                              env=clean_env(CORPUSCRAWL_SCHEDULE_ENV=str(env_file)))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        scrapyd.wait_finished({job["jobid"]})
    second_feeds = [path for path in (corpus_dir / "second").glob("second-*.jsonl")
                    if not path.name.endswith(".dropped.jsonl")]  # the feed, not its drop list
    assert len(second_feeds) == 1 and "finished; summary: " in proc.stdout
    for path, job_id, town in ((feed, job["jobid"], "Brightwater"),
                               (second_feeds[0], second_feeds[0].stem, "Coldmoor")):
        docs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert len(docs) >= ARTICLES and {d["extractor"] for d in docs} == {"auto"}
        assert sum(f"library of {town} committee met on day" in d["text"] for d in docs) == 1
        summary = json.loads(Path(f"{path}.summary.json").read_text(encoding="utf-8"))
        assert summary["job"] == job_id and summary["documents"]["exported"] == len(docs)
        assert summary["nothing_fetched"] is False
        log = (scrapyd.root / "logs" / "corpuscrawl" / "corpus" / f"{job_id}.log").read_text()
        # the learned model was loaded from the egg's shipped copy, unpacked into the cache
        assert f"loading model auto from {scrapyd.cache}" in log, log[-3000:]
        assert "Traceback" not in log
    assert summary["collection"] == "second"
    # the setting= line of the args file reached the crawl: no boilerplate was removed
    assert summary["boilerplate"]["paragraphs_removed"] == 0


def test_schedule_script_reports_a_crawl_that_fetched_nothing(scrapyd, tmp_path):
    env_file = tmp_path / "schedule.env"
    env_file.write_text(f"SCRAPYD_URL={scrapyd.url.rstrip('/')}\nSCRAPYD_USERNAME={USER}\n"
                        f"SCRAPYD_PASSWORD='{PASSWORD}'\nCORPUS_DIR={tmp_path / 'c'}\n"
                        f"STATE_DIR={tmp_path / 's'}\nWAIT_POLL=1\n", encoding="utf-8")
    proc = subprocess.run([str(REPO / "deploy" / "corpuscrawl-schedule"), "--wait", "dead",
                           f"seeds=http://127.0.0.1:{_free_port()}/"],
                          capture_output=True, text=True, timeout=300,
                          env=clean_env(CORPUSCRAWL_SCHEDULE_ENV=str(env_file)))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "nothing could be fetched" in proc.stderr
    wrong = env_file.read_text().replace(f"SCRAPYD_PASSWORD='{PASSWORD}'", "SCRAPYD_PASSWORD=x")
    env_file.write_text(wrong)
    proc = subprocess.run([str(REPO / "deploy" / "corpuscrawl-schedule"), "dead",
                           "seeds=http://127.0.0.1:9/"], capture_output=True, text=True,
                          timeout=60, env=clean_env(CORPUSCRAWL_SCHEDULE_ENV=str(env_file)))
    assert proc.returncode == 2 and "did not take the job" in proc.stderr


@pytest.mark.parametrize("name", ["crontab", "systemd/corpuscrawl-crawl@.service"])
def test_shipped_recurring_jobs_call_the_schedule_script(name):
    text = (REPO / "deploy" / name).read_text(encoding="utf-8")
    assert "corpuscrawl-schedule --wait" in text
    assert os.access(REPO / "deploy" / "corpuscrawl-schedule", os.X_OK)


def test_a_job_without_feed_or_state_dir_keeps_its_summary_in_scrapyds_working_dir(scrapyd):
    with SmallSite(variant=3) as site:
        job = scrapyd.request("schedule.json", [
            ("project", "corpuscrawl"), ("spider", "corpus"), ("seeds", site.url),
            ("collection", "bare"), ("max_pages", "2")])
        scrapyd.wait_finished({job["jobid"]})
    path = scrapyd.root / ".scrapy" / "corpuscrawl" / "bare" / "last-crawl.summary.json"
    summary = json.loads(path.read_text(encoding="utf-8"))
    assert summary["job"] == job["jobid"] and summary["outputs"] == []
    assert summary["pages"]["extracted"] >= 2


def _env_file(scrapyd: Scrapyd, tmp_path: Path, **extra: str) -> Path:
    env_file = tmp_path / "schedule.env"
    lines = [f"SCRAPYD_URL={scrapyd.url.rstrip('/')}", f"SCRAPYD_USERNAME={USER}",
             f"SCRAPYD_PASSWORD='{PASSWORD}'", f"CORPUS_DIR={tmp_path / 'file-corpus'}",
             f"STATE_DIR={tmp_path / 'state'}", "WAIT_POLL=1"]
    lines += [f"{key}={value}" for key, value in extra.items()]
    env_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return env_file


def test_wait_notices_a_job_that_scrapyd_forgot_when_restarted(scrapyd, tmp_path):
    """Scrapyd restarted mid-crawl loses its job list: --wait ends on the crawl's summary, or
    reports the vanished job, instead of polling until WAIT_TIMEOUT (a day by default)."""
    env_file = _env_file(scrapyd, tmp_path, WAIT_TIMEOUT="86400", WAIT_VANISHED="30")
    with HostileHost(stall="hang", stall_after=1) as host:  # a crawl that lasts a while
        started = time.monotonic()
        proc = subprocess.Popen(
            [str(REPO / "deploy" / "corpuscrawl-schedule"), "--wait", "restarted",
             f"seeds={host.url}", "sitemaps=0", "setting=DOWNLOAD_TIMEOUT=8",
             "setting=RETRY_TIMES=0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=clean_env(CORPUSCRAWL_SCHEDULE_ENV=str(env_file)))
        try:
            assert host.wait_for("/public/", 120), "the crawl never started"
            scrapyd.restart()
            out, err = proc.communicate(timeout=180)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    elapsed = time.monotonic() - started
    assert elapsed < 180
    assert "no longer listed by Scrapyd" in err, out + err
    if proc.returncode == 0:  # the crawl outlived Scrapyd and wrote its summary
        assert "finished; summary: " in out
    else:
        assert proc.returncode == 4 and "vanished from Scrapyd" in err, out + err


def test_the_environment_overrides_the_settings_file(scrapyd, tmp_path):
    env_file = _env_file(scrapyd, tmp_path, WAIT_TIMEOUT="240")
    corpus = tmp_path / "env-corpus"
    with SmallSite(variant=3) as site:
        proc = subprocess.run([str(REPO / "deploy" / "corpuscrawl-schedule"), "--wait",
                               "overridden", f"seeds={site.url}", "max_pages=2"],
                              capture_output=True, text=True, timeout=300,
                              env=clean_env(CORPUSCRAWL_SCHEDULE_ENV=str(env_file),
                                            CORPUS_DIR=str(corpus)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert list((corpus / "overridden").glob("overridden-*.jsonl"))
    assert not (tmp_path / "file-corpus").exists()
