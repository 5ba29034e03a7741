"""``corpuscrawl crawl`` works from any directory; bad arguments are clear errors."""

import json
import os
import sys

import pytest

from corpuscrawl.cli import main
from tests.support.crawl_forks import run_command

pytestmark = pytest.mark.slow


def test_crawl_command_from_another_directory_writes_the_feed(tmp_path):
    proc = run_command([sys.executable, "-m", "corpuscrawl.cli", "crawl", "-o", "out.jsonl",
                        "-a", "max_pages=2", "-s", "LOG_LEVEL=WARNING"],
                       cwd=tmp_path, timeout=180, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr[-2000:]
    docs = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert 1 <= len(docs) <= 2 and all(d["text"] for d in docs)


def test_bad_pairs_are_rejected(capsys):
    with pytest.raises(SystemExit, match="must look like NAME=VALUE"):
        main(["crawl", "-a", "depth"])


@pytest.mark.parametrize(("arg", "message"), [
    ("extractor=nosuch", "spider argument extractor: unknown extractor 'nosuch'; known extractors:"),
    ("depth=abc", "argument depth='abc': expected a whole number"),
])
def test_bad_spider_argument_is_one_clear_line(tmp_path, arg, message):
    proc = run_command([sys.executable, "-m", "corpuscrawl.cli", "crawl", "--seeds",
                        "http://127.0.0.1:9/", "-o", "out.jsonl", "-a", arg,
                        "-s", "LOG_LEVEL=WARNING"],
                       cwd=tmp_path, timeout=120, env=dict(os.environ))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith(f"corpuscrawl crawl: error: {message}")
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out.jsonl").exists() or not (tmp_path / "out.jsonl").read_text()
