"""Interaction time of four test-bed pages rendered at once in one browser context, under load.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/dynamic_concurrent.py --seed 1
    PYTHONPATH=/tmp/old:$PWD .venv/bin/python benchmarks/dynamic_concurrent.py --seed 1

As the crawl does (4 concurrent pages, scrapy-playwright's default context limit), the
cost page (10 reveals, 5 scroll batches), the JS news article, the scroll-event feed and
the accordion of ``tests/dynamic_bed.py`` are opened in one context and driven by the
interaction loop at the same time, with ``--load`` CPU-bound processes beside.  Prints
each page's interaction seconds (from after navigation to the final snapshot), reveals
and scrolls, labelled with the checkout whose ``corpuscrawl`` ran.  Another checkout first
on ``PYTHONPATH`` (e.g. an older commit unpacked with ``git archive``; this repository after
it, for the test bed) measures that code against the same bed, for side-by-side ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import sys
import time
from pathlib import Path

import corpuscrawl

NAMES = ("cost-10-reveals", "news-combo", "scroll-events", "accordion")


def burn() -> None:
    """A CPU-bound process (the load beside the browser)."""
    x = 0
    while True:
        x = (x * 31 + 7) % 1_000_003


async def _one(context: object, url: str, classify: object, interaction: object,
               prepare: object) -> tuple[float, int, int]:
    page = await context.new_page()  # type: ignore[attr-defined]
    await prepare(page)  # type: ignore[operator]
    await page.goto(url, wait_until="load")
    start = time.monotonic()
    result = await interaction.interact(  # type: ignore[attr-defined]
        page, classify, interaction.InteractionOptions(max_scrolls=5))  # type: ignore[attr-defined]
    await page.close()
    return time.monotonic() - start, result.reveals, result.scrolls


async def _run(urls: list[str]) -> list[tuple[float, int, int]]:
    from playwright.async_api import async_playwright

    from corpuscrawl.browse import interaction
    from corpuscrawl.browse.browser import launch_chromium
    from corpuscrawl.browse.classifier import load_classifier

    prepare = interaction.prepare_page
    classify = load_classifier().predict
    async with async_playwright() as pw:
        browser = await launch_chromium(pw)
        try:
            context = await browser.new_context()
            return await asyncio.gather(*(_one(context, url, classify, interaction, prepare)
                                          for url in urls))
        finally:
            await browser.close()


def main(argv: list[str] | None = None) -> int:
    """Run once and print one line per page."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--load", type=int, default=2, help="CPU-bound processes beside")
    args = parser.parse_args(argv)
    from tests.dynamic_bed import TestBed  # the bed of the checkout on PYTHONPATH

    code = Path(corpuscrawl.__file__).resolve().parent.parent
    burners = [multiprocessing.Process(target=burn, daemon=True) for _ in range(args.load)]
    for b in burners:
        b.start()
    try:
        with TestBed(seed=args.seed, names=NAMES) as bed:
            results = asyncio.run(_run([bed.url(n) for n in NAMES]))
    finally:
        for b in burners:
            b.terminate()
    for name, (seconds, reveals, scrolls) in zip(NAMES, results, strict=True):
        print(f"{code.name}\tseed {args.seed}\t{name}\t{seconds:.2f} s\t"
              f"{reveals} reveals\t{scrolls} scrolls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
