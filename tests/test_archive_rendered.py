"""WARC of rendered pages, in real headless Chromium: the HTML as sent in the ``response``
record, the DOM after the interaction loop in a ``conversion`` record referring to it, and
``corpuscrawl extract`` taking the conversion (``render=always`` and ``render=auto``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from urllib.request import urlopen

import pytest

from corpuscrawl import settings as project_settings
from corpuscrawl.archive.reader import read_records
from corpuscrawl.browse.browser import chromium_path
from corpuscrawl.browse.localsite import LocalSite
from corpuscrawl.cli import main
from tests.crawl_helpers import run_crawl

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not Path(chromium_path()).exists(),
                       reason=f"Chromium not installed at {chromium_path()}"),
]

SITE = Path(__file__).parent / "data" / "dynamic"


#: Fields that depend on the fetch and on the collection's page store, not on the archive.
FETCH_TIME_FIELDS = {"fetched_at", "change"}
#: The replay extracts as the crawl did: with the crawl's default extractor.
EXTRACTOR = project_settings.CORPUSCRAWL_EXTRACTOR


def _without_fetch_time(docs: list[dict]) -> dict[str, dict]:
    return {d["url"]: {k: v for k, v in d.items() if k not in FETCH_TIME_FIELDS} for d in docs}


def _replayed(files: list[Path], out: Path, extractor: str = EXTRACTOR) -> list[dict]:
    assert main(["extract", "-e", extractor, *map(str, files), "-o", str(out)]) == 0
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_rendered_page_has_its_conversion_record(tmp_path: Path) -> None:
    """Pinned to ``bte``: a reveal snapshot is archived when its text differs from the final
    page's, and on this page only the Hungarian reader comments that each "previous replies"
    click adds change between snapshots; ``bte`` keeps them in the text, ``auto`` keeps reader
    comments out of the text, so its snapshots' texts all equal the final text."""
    warc_dir = tmp_path / "warc"
    with LocalSite(SITE) as site:
        url = site.url("news/article.html")
        target = site.url("news/hidden-article.html")
        proxy = site.url(f"news/x.php?url={target}")             # 302 to the hidden article
        docs, log, code = run_crawl(tmp_path / "out.jsonl", f"seeds={url},{proxy}",
                                    "render=always", "depth=0", "max_scrolls=1",
                                    "extract_continuously=1", "extractor=bte",
                                    settings={"CORPUSCRAWL_WARC_DIR": str(warc_dir)})
        with urlopen(url) as answer:
            sent = answer.read()
    assert code == 0, log[-3000:]
    files = sorted(warc_dir.glob("*.warc.gz"))
    records = [r for f in files for r in read_records(f)]
    responses = {r.target: r for r in records if r.type == "response"}
    page = responses[url]
    assert page.body == sent                                            # as sent, not the DOM
    assert page.header("WARC-IP-Address") == "127.0.0.1"
    assert page.http.get_header("Content-Length") == str(len(page.body))
    conversions = [r for r in records if r.type == "conversion"]
    final = next(r for r in conversions if r.target == url)
    assert final.header("WARC-Refers-To") == page.id
    assert final.header("WARC-Payload-Digest").startswith("sha1:")
    assert b"CLICK-REVEALED-ARTICLE" in final.body                      # after the click
    assert b"CLICK-REVEALED-ARTICLE" not in page.body
    snapshots = [r for r in conversions if r.target.startswith(url + "#corpuscrawl-reveal-")]
    assert snapshots and all(r.header("WARC-Refers-To") == page.id for r in snapshots)
    fields = next(r for r in records if r.type == "metadata"
                  and r.header("WARC-Concurrent-To") == page.id).fields()
    assert fields["fetcher"] == "browser" and fields["callback"] == "parse_rendered"
    [hop] = [r for r in responses.values() if "/x.php" in r.target]
    assert hop.status == 302 and responses[target].status == 200        # the redirect chain
    assert next(r for r in conversions if r.target == target).header("WARC-Refers-To") == \
        responses[target].id
    check = subprocess.run([str(Path(sys.executable).parent / "warcio"), "check",
                            *map(str, files)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    replayed = _replayed(files, tmp_path / "replayed.jsonl", "bte")
    assert _without_fetch_time(replayed) == _without_fetch_time(docs)
    # the export stage keeps the richest version of a page: reveal snapshots that the final
    # page contains are archived (above) but not exported, in the crawl as in the replay
    assert len(replayed) >= 2 and all(d["rendered"] for d in replayed)


def test_render_auto_replay_uses_the_conversion_not_the_plain_shell(tmp_path: Path) -> None:
    warc_dir = tmp_path / "warc"
    with LocalSite(SITE) as site:
        seeds = ",".join(site.url(p) for p in ("app/index.html", "news/hidden-article.html"))
        docs, log, code = run_crawl(tmp_path / "auto.jsonl", f"seeds={seeds}", "render=auto",
                                    "depth=0", settings={"CORPUSCRAWL_WARC_DIR": str(warc_dir)})
    assert code == 0, log[-3000:]
    files = sorted(warc_dir.glob("*.warc.gz"))
    records = [r for f in files for r in read_records(f)]
    app = site.url("app/index.html")
    assert sum(r.type == "response" and r.target == app for r in records) == 2  # plain + browser
    assert sum(r.type == "conversion" for r in records) == 1
    replayed = _replayed(files, tmp_path / "replayed.jsonl")
    assert _without_fetch_time(replayed) == _without_fetch_time(docs)
    assert next(d for d in replayed if d["url"] == app)["rendered"] is True
