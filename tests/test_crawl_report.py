"""``corpuscrawl report CORPUS.jsonl``: one HTML page of plots of a real crawl, checked in Chromium."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from corpuscrawl.browse.browser import chromium_path, launch_options
from corpuscrawl.cli import main
from tests.crawl_helpers import run_crawl
from tests.local_server import LocalServer, Reply, article

TOPICS = ["Harbour", "Orchard", "Glacier", "Lantern", "Meadow", "Quarry", "Violin", "Canyon"]
PLOTS = ["Documents per domain", "Documents per language", "Text length",
         "Boilerplate removed per domain", "Duplicates dropped per domain",
         "Errors by type", "Fetch rate over time"]


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A crawl of a local site with a broken link, a repeated footer (boilerplate) and a copy
    of a page under another URL (a near-duplicate)."""
    tmp = tmp_path_factory.mktemp("crawl")
    footer = "<footer><p>Copyright Harbour Town Gazette, all rights reserved worldwide.</p></footer>"
    paths = [f"/p/{t.lower()}" for t in TOPICS] + ["/copy-of-harbour", "/missing"]
    routes = {"/": Reply(article("Front page", paths))}
    for path, topic in zip(paths, TOPICS, strict=False):
        page = article(f"{topic} {topic.lower()}s and {topic.lower()}keepers")
        routes[path] = Reply(page.replace("</body>", footer + "</body>"))
    routes["/copy-of-harbour"] = routes["/p/harbour"]
    out = tmp / "corpus.jsonl"
    with LocalServer(routes) as site:
        docs, log, code = run_crawl(out, f"seeds={site.url}",
                                    settings={"DOWNLOAD_DELAY": "0.3", "CONCURRENT_REQUESTS": "1",
                                              "CORPUSCRAWL_EXTRACTOR": "bte",
                                              "CORPUSCRAWL_BOILERPLATE_MIN_DOCUMENTS": "2"})
    assert code == 0 and docs, log[-2000:]
    return out


def test_report_page_has_every_plot(crawled: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(crawled), "-o", str(tmp_path / "report")]) == 0
    index = tmp_path / "report" / "index.html"
    assert capsys.readouterr().out.strip() == str(index)
    page = index.read_text(encoding="utf-8")
    summary = json.loads(Path(f"{crawled}.summary.json").read_text())
    assert f"<td>{summary['pages']['fetched']:,}</td>" in page
    for title in PLOTS[:3] + ["Errors by type", "Fetch rate over time"]:
        assert f"<img alt='{title}' src='data:image/png;base64," in page, title
    assert "http 404" not in page  # figures are images, not text
    domain = summary["domains"]["127.0.0.1"]
    assert domain["duplicates_dropped"] == 1  # the copy of /p/harbour
    assert domain["boilerplate_paragraphs"] >= 1  # the repeated footer


def test_summary_alone_and_bad_inputs(crawled: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", f"{crawled}.summary.json", "-o", str(tmp_path / "s")]) == 0
    page = (tmp_path / "s" / "index.html").read_text(encoding="utf-8")
    assert "<img alt='Errors by type'" in page and "<img alt='Fetch rate over time'" in page
    assert "needs the corpus" in page  # per-document plots say what they need
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"url": "x"}\nnot json\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["report", str(bad), "-o", str(tmp_path / "b")]) == 2
    assert "bad.jsonl line 2: not JSON" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "none.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


@pytest.mark.browser
@pytest.mark.skipif(not Path(chromium_path()).exists(),
                    reason=f"Chromium not installed at {chromium_path()}")
def test_report_renders_in_chromium(crawled: Path, tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    assert main(["report", str(crawled), "-o", str(tmp_path / "report")]) == 0
    index = tmp_path / "report" / "index.html"

    async def look() -> tuple[list[dict], list[str], bytes]:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(**launch_options())
            page = await browser.new_page(viewport={"width": 1100, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            await page.goto(index.as_uri())
            images = await page.evaluate(
                "Array.from(document.images).map(i => ({alt: i.alt, complete: i.complete,"
                " width: i.naturalWidth, height: i.naturalHeight,"
                " shown: i.getBoundingClientRect().width}))")
            shot = await page.screenshot(full_page=True)
            await browser.close()
            return images, errors, shot

    images, errors, shot = asyncio.run(look())
    assert not errors
    assert [i["alt"] for i in images] == PLOTS  # the crawl had boilerplate, drops and a 404
    for image in images:
        assert image["complete"] and image["width"] > 300 and image["height"] > 100, image
        assert 0 < image["shown"] <= 1100
    (tmp_path / "report.png").write_bytes(shot)
    assert shot[:8] == b"\x89PNG\r\n\x1a\n" and len(shot) > 50_000
