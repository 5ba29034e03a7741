"""After the README's server install (the wheel in Scrapyd's environment), a redeployed egg's
code is what the next job runs: deploy, run a job, change the code, redeploy, run again."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.packaging_helpers import clean_env, copy_sources
from tests.small_site import SmallSite
from tests.test_scrapyd import PASSWORD, USER, Scrapyd, _script

# ``installed`` (tests/conftest.py) is shared with tests/test_install.py, on one worker
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("installed_package")]


def deploy(src, scrapyd: Scrapyd, version: str) -> None:
    (src / "scrapy.cfg").write_text(
        "[settings]\ndefault = corpuscrawl.settings\n\n[deploy]\n"
        f"url = {scrapyd.url}\nusername = {USER}\npassword = {PASSWORD}\n"
        "project = corpuscrawl\n", encoding="utf-8")
    proc = subprocess.run([_script("scrapyd-deploy"), "--version", version], cwd=src,
                          capture_output=True, text=True, timeout=300, env=clean_env())
    assert proc.returncode == 0 and '"status": "ok"' in proc.stderr + proc.stdout, \
        proc.stdout[-3000:] + proc.stderr[-3000:]


def crawl(scrapyd: Scrapyd, url: str) -> str:
    job = scrapyd.request("schedule.json", [
        ("project", "corpuscrawl"), ("spider", "corpus"), ("seeds", url),
        ("max_pages", "2"), ("extractor", "bte")])
    scrapyd.wait_finished({job["jobid"]})
    return scrapyd.job_log(job["jobid"])


def user_agent_version(log: str) -> str:
    match = re.search(r"'USER_AGENT': 'corpuscrawl/([^ '(]+)", log)
    assert match, log[-3000:]
    return match.group(1)


def test_a_redeployed_change_is_what_the_next_job_runs(tmp_path, installed):
    src = copy_sources(tmp_path / "src")  # what is deployed, then changed and redeployed
    # the README's install: the built wheel in Scrapyd's venv
    (tmp_path / "scrapyd").mkdir()
    scrapyd = Scrapyd(tmp_path / "scrapyd", python=str(installed["python"]))
    try:
        scrapyd.wait_ready()
        deploy(src, scrapyd, "r1")
        with SmallSite(variant=1) as site:
            first = crawl(scrapyd, site.url)
            assert user_agent_version(first) == "0.1.0"
            assert "Traceback" not in first
            init = src / "corpuscrawl" / "__init__.py"
            init.write_text(init.read_text().replace('__version__ = "0.1.0"',
                                                     '__version__ = "0.1.0.post1"'))
            deploy(src, scrapyd, "r2")
            second = crawl(scrapyd, site.url)
    finally:
        scrapyd.stop()
    assert user_agent_version(second) == "0.1.0.post1", second[-3000:]
    assert "Traceback" not in second
