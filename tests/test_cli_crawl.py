"""``corpuscrawl crawl`` works from any directory; bad arguments are clear errors."""

import json
import subprocess
import sys

import pytest

from corpuscrawl.cli import main

pytestmark = pytest.mark.slow


def test_crawl_command_from_another_directory_writes_the_feed(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "corpuscrawl.cli", "crawl", "-o", "out.jsonl",
                           "-a", "max_pages=2", "-s", "LOG_LEVEL=WARNING"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    docs = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert 1 <= len(docs) <= 2 and all(d["text"] for d in docs)


def test_bad_pairs_are_rejected(capsys):
    with pytest.raises(SystemExit, match="must look like NAME=VALUE"):
        main(["crawl", "-a", "depth"])
