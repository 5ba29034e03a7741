"""``corpuscrawl extract`` of one page: an HTML file, standard input, a URL (through the guard)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpuscrawl.cli import main
from tests.crawl_helpers import REPO
from tests.local_server import LocalServer, Reply
from tests.support.crawl_forks import run_command

ARTICLE = Path(__file__).parent / "data" / "structure" / "article.html"


def cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run ``corpuscrawl`` as a user does (a process of its own: the URL fetch runs a reactor)."""
    return run_command([sys.executable, "-m", "corpuscrawl.cli", *args], cwd=REPO,
                       input=stdin, timeout=180, text=False,
                       env=dict(os.environ, PYTHONPATH=str(REPO)))


def test_html_file_prints_its_main_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", "-e", "bte", str(ARTICLE)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Building a rain garden\nWhen the storm drains")
    assert "Home\n" not in out


def test_gzipped_file_and_output_file(tmp_path: Path) -> None:
    zipped = tmp_path / "page.html.gz"
    zipped.write_bytes(gzip.compress(ARTICLE.read_bytes()))
    assert main(["extract", "-e", "bte", str(zipped), "--format", "markdown",
                 "-o", str(tmp_path / "page.md")]) == 0
    assert "## How to build it\n\n1. Mark the outline" in (tmp_path / "page.md").read_text()


def test_json_carries_the_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    url = "https://greenstreets.example/2024/rain-garden"
    assert main(["extract", "-e", "bte", str(ARTICLE), "--format", "json", "--url", url]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["url"] == url and doc["domain"] == "greenstreets.example"
    assert (doc["title"], doc["author"], doc["date"]) == \
        ("Building a rain garden", "Mara Lindqvist", "2024-05-01")
    assert doc["site_name"] == "Green Streets Weekly"
    assert doc["categories"] == ["Environment"] and doc["tags"] == ["gardens", "water"]
    assert doc["image"] == "https://greenstreets.example/img/rain-garden.jpg"
    assert doc["modified"] == "2024-05-03T09:30:00+02:00"
    assert doc["canonical_url"] == url
    assert doc["license"] == "https://creativecommons.org/licenses/by-sa/4.0/"


def test_standard_input_and_tei() -> None:
    proc = cli("extract", "-", "-e", "bte", "--format", "tei", stdin=ARTICLE.read_bytes())
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<TEI xmlns="http://www.tei-c.org/ns/1.0">')
    assert "<head rend=\"h2\">What you need</head>" in out


@pytest.mark.parametrize("content, message", [
    (b"", "is empty"),
    (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8, "not an HTML page"),
])
def test_bad_files_give_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 content: bytes, message: str) -> None:
    path = tmp_path / "page.html"
    path.write_bytes(content)
    assert main(["extract", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "WARC" not in err


def test_missing_file_and_bad_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", str(tmp_path / "nope.html")]) == 2
    assert "no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["extract", str(ARTICLE), "--format", "docx"])
    assert exit_info.value.code == 2


def test_empty_standard_input() -> None:
    proc = cli("extract", "-", stdin=b"")
    assert proc.returncode == 2 and b"standard input is empty" in proc.stderr


def test_dataset_and_warc_inputs_still_need_an_extractor(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    warc = tmp_path / "crawl.warc.gz"
    warc.write_bytes(b"")
    assert main(["extract", str(warc), "-o", str(tmp_path / "out.jsonl")]) == 2
    assert "-e NAME is required" in capsys.readouterr().err
    # a file whose first line is a WARC version line is WARC input whatever its name
    renamed = tmp_path / "records.dat"
    renamed.write_bytes(b"WARC/1.1\r\nWARC-Type: warcinfo\r\n")
    assert main(["extract", "-e", "bte", str(renamed)]) == 2
    assert "WARC input needs -o OUT" in capsys.readouterr().err


@pytest.fixture
def site() -> LocalServer:
    page = ARTICLE.read_bytes()
    return LocalServer({
        "/robots.txt": Reply("User-agent: *\nDisallow: /private/\n", content_type="text/plain"),
        "/rain-garden": Reply(page),
        "/latin1": Reply(("<html><body><p>" + "Caf\u00e9 cr\u00e8me au lait pour le d\u00e9jeuner. " * 5
                          + "</p></body></html>").encode("iso-8859-1"),
                         content_type="text/html; charset=iso-8859-1"),
        "/private/page": Reply(page),
        "/report.pdf": Reply(b"%PDF-1.4 not html", content_type="application/pdf"),
        "/to-private": Reply("", 302, headers={"Location": "http://127.0.0.2:9/admin"}),
    })


def test_url_is_fetched_and_extracted(site: LocalServer) -> None:
    with site:
        proc = cli("extract", site.url + "rain-garden", "-e", "bte", "--format", "json")
        latin = cli("extract", site.url + "latin1", "-e", "bte")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["url"] == site.url + "rain-garden" and doc["site_name"] == "Green Streets Weekly"
    assert "Plant densely" in doc["text"]
    assert proc.stderr == b""  # no Scrapy log on the terminal
    assert latin.returncode == 0 and "Café crème" in latin.stdout.decode()


@pytest.mark.parametrize("path, code, message", [
    ("missing", 1, "HTTP 404"),
    ("private/page", 1, "Forbidden by robots.txt"),
    ("report.pdf", 2, "not an HTML page"),
    ("to-private", 1, "127.0.0.2 is a loopback address"),
])
def test_url_failures_give_one_line(site: LocalServer, path: str, code: int, message: str) -> None:
    with site:
        proc = cli("extract", site.url + path)
    err = proc.stderr.decode().strip()
    assert proc.returncode == code, err
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert "/admin" not in "".join(site.paths())  # the guard refused the redirect's target


def test_unreachable_url() -> None:
    proc = cli("extract", "http://127.0.0.1:1/page")
    err = proc.stderr.decode().strip()
    assert proc.returncode == 1 and "cannot fetch" in err and len(err.splitlines()) == 1
