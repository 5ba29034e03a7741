"""Real crawls of the dynamic-pattern test bed (tests/dynamic_bed.py) in headless Chromium.

The fast subset runs by default; the whole generator, the runs under CPU load
and the cost check are marked slow (they still run in CI).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import re
import sqlite3
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from corpuscrawl.browse.browser import chromium_path
from tests.crawl_helpers import REPO, crawl_command, crawl_env, read_docs, run_crawl, stat
from tests.dynamic_bed import PATTERN_SPECS, TestBed, score
from tests.support.crawl_forks import popen_command

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(chromium_path()).exists(),
                       reason=f"Chromium not installed at {chromium_path()}"),
]

FAST = [name for name, (_, _, fast) in PATTERN_SPECS.items() if fast]


def bed_args(bed: TestBed, mode: str, names: list[str]) -> list[str]:
    """The spider arguments of a crawl of the bed's pages ``names`` with ``render=mode``."""
    return [f"seeds={','.join(bed.url(name) for name in names)}", f"render={mode}", "depth=1",
            "sitemaps=0"]


def crawl(tmp_path: Path, bed: TestBed, mode: str, names: list[str], tag: str,
          settings: dict[str, str] | None = None) -> tuple[list[dict], str]:
    docs, log, code = run_crawl(tmp_path / f"{tag}.jsonl", *bed_args(bed, mode, names),
                                settings=settings, timeout=600)
    assert code == 0, log[-3000:]
    return docs, log


def assert_harvest(bed: TestBed, docs: list[dict], names: list[str],
                   comments: str = "field") -> None:
    """Every ``must`` marker harvested, reader comments where ``comments`` (the crawl's
    CORPUSCRAWL_COMMENTS) puts them, no ``must_not`` marker."""
    scores = score(bed, docs, comments)
    problems = {n: (scores[n].missing, scores[n].leaked, scores[n].misplaced) for n in names
                if scores[n].missing or scores[n].leaked or scores[n].misplaced}
    assert not problems, problems


def assert_auto_decisions(bed: TestBed, docs: list[dict], names: list[str]) -> None:
    for name, s in score(bed, docs).items():
        if name in names:
            assert s.rendered == s.needs_browser, (name, s.render_reason)
            assert bool(s.render_reason) == s.rendered, name
    urls = Counter(d["url"] for d in docs)
    assert max(urls.values()) == 1, urls.most_common(3)  # never a plain and a rendered copy


def test_fast_patterns_with_render_auto(tmp_path: Path) -> None:
    with TestBed(seed=11, names=FAST) as bed:
        docs, log = crawl(tmp_path, bed, "auto", FAST, "auto")
    assert_harvest(bed, docs, FAST)
    revealed = [m for n in FAST for m in bed.patterns[n].comments]
    assert revealed and all(any(m in d["comments"] for d in docs) for m in revealed)
    assert_auto_decisions(bed, docs, FAST)
    reveal = next(d for d in docs if d["url"].endswith("/bed/reveal-fetch/"))
    assert "reveal control" in reveal["render_reason"]
    assert stat(log, "corpuscrawl/render/reason/reveal-controls") >= 2
    assert stat(log, "corpuscrawl/render/auto_rerender") >= 6


COMMENT_PATTERNS = ["reveal-fetch", "load-more", "news-combo"]


@pytest.mark.slow
def test_revealed_comments_in_the_text_with_comments_text(tmp_path: Path) -> None:
    """``CORPUSCRAWL_COMMENTS = "text"``: the comments each click reveals end the text (the
    default ``field`` puts them in ``comments``: the tests above)."""
    with TestBed(seed=14, names=COMMENT_PATTERNS) as bed:
        docs, _ = crawl(tmp_path, bed, "auto", COMMENT_PATTERNS, "text",
                        {"CORPUSCRAWL_COMMENTS": "text"})
    assert_harvest(bed, docs, COMMENT_PATTERNS, comments="text")
    assert all(d["comments"] == "" for d in docs)
    assert sum(len(bed.patterns[n].comments) for n in COMMENT_PATTERNS) == 13


def test_overlays_of_plain_pages_are_not_exported(tmp_path: Path) -> None:
    names = ["consent-static", "paywall-blur", "static-complete"]
    with TestBed(seed=12, names=names) as bed:
        docs, log = crawl(tmp_path, bed, "never", names, "never")
    assert_harvest(bed, docs, names)
    assert not any("We value your privacy" in d["text"] for d in docs)
    assert stat(log, "corpuscrawl/fetch/rendered") == 0


@pytest.mark.slow
def test_every_pattern_with_render_auto(tmp_path: Path) -> None:
    with TestBed(seed=13) as bed:
        docs, log = crawl(tmp_path, bed, "auto", list(bed.patterns), "all")
    names = list(bed.patterns)
    assert_harvest(bed, docs, names)
    assert_auto_decisions(bed, docs, names)
    needless = [n for n, p in bed.patterns.items() if not p.needs_browser]
    assert stat(log, "corpuscrawl/fetch/plain") >= len(needless)


def _burn() -> None:
    x = 0
    while True:
        x = (x * 31 + 7) % 1_000_003


def _signature(docs: list[dict]) -> list[tuple[str, str]]:
    return sorted((re.sub(r":\d+/", ":PORT/", d["url"]), d["text"]) for d in docs)


@pytest.mark.slow
def test_same_documents_every_run_under_cpu_load(tmp_path: Path) -> None:
    """Scrolls and reveals wait for the page to settle: 3 runs at once (each run's Chromium
    loads the others'), beside 2 CPU-bound processes that spin from their start to the
    end of the last."""
    names = ["scroll-events", "scroll-observer", "load-more", "news-combo"]
    burners = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(2)]
    with contextlib.ExitStack() as stack:
        beds = [stack.enter_context(TestBed(seed=21, names=names)) for _ in range(3)]
        logs = [stack.enter_context((tmp_path / f"run{run}.log").open("w")) for run in range(3)]
        outs = [tmp_path / f"run{run}.jsonl" for run in range(3)]
        procs = []
        try:
            for bed, out, log in zip(beds, outs, logs, strict=True):
                cmd = crawl_command(out, *bed_args(bed, "always", names))
                procs.append(popen_command(cmd, cwd=REPO, env=crawl_env(), stdout=log,
                                           stderr=subprocess.STDOUT))
            for b in burners:  # the runs have only just started: all of each is under load
                b.start()
            codes = [proc.wait(timeout=600) for proc in procs]
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
            for b in burners:
                if b.is_alive():
                    b.terminate()
    for run, code in enumerate(codes):
        assert code == 0, (tmp_path / f"run{run}.log").read_text()[-3000:]
    signatures = []
    for bed, out in zip(beds, outs, strict=True):
        docs = read_docs(out)
        assert_harvest(bed, docs, names)
        signatures.append(_signature(docs))
    assert signatures[0] == signatures[1] == signatures[2]


@pytest.mark.slow
def test_sites_on_other_ports_do_not_share_state(tmp_path: Path) -> None:
    """A mirror of a site on another port of the same host must not change its export."""
    history = tmp_path / "shared.sqlite3"
    names = ["static-complete", "consent-static", "scripts-throw", "language-switcher"]
    shared = {"CORPUSCRAWL_BOILERPLATE_HISTORY": str(history)}
    with TestBed(seed=31, names=names) as mirror:
        crawl(tmp_path, mirror, "never", names, "mirror", shared)
        mirror_port = mirror.port
    with TestBed(seed=31, names=names) as site:
        after, _ = crawl(tmp_path, site, "never", names, "after", shared)
        fresh, _ = crawl(tmp_path, site, "never", names, "fresh")
        port = site.port
    assert _signature(after) == _signature(fresh) and after
    with sqlite3.connect(history) as db:
        keys = {row[0] for row in db.execute("SELECT name FROM domains")}
    assert {f"127.0.0.1:{mirror_port}", f"127.0.0.1:{port}"} <= keys


@pytest.mark.slow
def test_ten_reveals_and_five_scrolls_are_all_made() -> None:
    """The cost page's ten revealers and five scroll loads are all used, and no more.

    How long they take is measured by ``benchmarks/dynamic.py`` (results in
    ``benchmarks/results/dynamic.md``), not asserted here: a wall-clock bound in a test
    fails on a loaded machine and passes on a regression that a quiet one hides.
    """
    import asyncio

    from playwright.async_api import async_playwright

    from corpuscrawl.browse.browser import launch_chromium
    from corpuscrawl.browse.classifier import load_classifier
    from corpuscrawl.browse.interaction import InteractionOptions, interact, prepare_page

    async def main(url: str) -> tuple[int, int]:
        async with async_playwright() as pw:
            browser = await launch_chromium(pw)
            try:
                page = await browser.new_page()
                await prepare_page(page)
                await page.goto(url, wait_until="load")
                result = await interact(page, load_classifier().predict,
                                        InteractionOptions(max_reveals=10, max_scrolls=5))
                return result.reveals, result.scrolls
            finally:
                await browser.close()

    with TestBed(seed=41, names=["cost-10-reveals"]) as bed:
        reveals, scrolls = asyncio.run(main(bed.url("cost-10-reveals")))
    assert (reveals, scrolls) == (10, 5)
