"""Hostile pages x every extractor (and the template engine), and hostile servers x a real crawl.

Writes ``benchmarks/results/hostile.md``::

    PYTHONPATH=$PWD python benchmarks/hostile.py [--pages a,b] [--extractors x,y] [--no-server]

Each (page, extractor) runs in a fresh process (so its peak RSS is its own):
the page is built as the crawl builds it (``Page.from_html`` on the bytes,
with the page's HTTP charset) and extracted by ``Extraction`` with the
project's default budget settings.  The server part starts the hostile site
(``corpuscrawl.evaluation.hostile_site``) and runs ``scrapy crawl corpus``
on it.  The budget part measures the two ways of bounding one extraction's
time: the in-process SIGALRM timer (how far past the limit it returns) and a
worker process per page (what a fork per page costs).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results" / "hostile.md"
TEMPLATE_NAME = "template"


def build_extraction(extractor: str):  # -> Extraction
    """The crawl's Extraction with default budget settings, using ``extractor``."""
    from scrapy.settings import Settings

    from corpuscrawl.extract.template import TemplateExtractor, parse_template
    from corpuscrawl.extraction import Extraction

    settings = Settings()
    settings.setmodule("corpuscrawl.settings")
    extraction = Extraction.from_settings(settings, "bte" if extractor == TEMPLATE_NAME
                                          else extractor)
    if extractor == TEMPLATE_NAME:
        extraction.default = TemplateExtractor(parse_template("h1\np\ndiv=\nclass=post"))
    return extraction


def run_case(page_name: str, extractor: str) -> dict:
    """Build one hostile page and extract it; what happened, with times (in this process)."""
    from corpuscrawl.evaluation.hostile_pages import page_named
    from corpuscrawl.page import Page

    spec = page_named(page_name)
    extraction = build_extraction(extractor)
    body = spec.build()
    t0 = time.perf_counter()
    page = Page.from_html(body, url="http://hostile.test/" + page_name, encoding=spec.charset)
    t1 = time.perf_counter()
    result = extraction.run(page)
    t2 = time.perf_counter()
    outcome = ("dropped: not text" if result.skipped else
               f"failed, page kept: {result.error.partition(':')[0]}" if result.error else
               "text" if result.text else "empty")
    return {"outcome": outcome, "words": len(result.text.split()),
            "marker": bool(spec.marker) and spec.marker in result.text,
            "notes": list(result.notes), "parse_s": t1 - t0, "extract_s": t2 - t1,
            "body_mb": len(body) / 2**20}


def run_isolated(page_name: str, extractor: str, timeout: float = 600) -> dict:
    """:func:`run_case` in a child process; adds its peak RSS (MB) and total wall time."""
    cmd = [sys.executable, str(Path(__file__)), "--case", f"{page_name}:{extractor}"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=REPO)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    wall = time.perf_counter() - t0
    rss = float("nan")
    try:
        data = json.loads(out.decode().strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        data = {"outcome": "CRASH: " + err.decode(errors="replace").strip()[-200:]}
    data.update(wall_s=wall, rss_mb=data.get("rss_mb", rss))
    return data


def _child_case(spec: str) -> None:
    import resource

    page_name, extractor = spec.split(":", 1)
    data = run_case(page_name, extractor)
    data["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(data))


def pages_table(pages: list[str], extractors: list[str]) -> list[str]:
    """Markdown rows: one per (page, extractor)."""
    rows = ["| page | extractor | outcome | words | article kept | notes | parse s | extract s "
            "| peak RSS MB |", "|---|---|---|---|---|---|---|---|---|"]
    from corpuscrawl.evaluation.hostile_pages import page_named

    for name in pages:
        spec = page_named(name)
        for extractor in extractors:
            d = run_isolated(name, extractor)
            kept = "-" if not spec.marker else ("yes" if d.get("marker") else "**no**")
            rows.append(f"| {name} | {extractor} | {d['outcome']} | {d.get('words', '')} | {kept} "
                        f"| {' '.join(d.get('notes', []))} | {d.get('parse_s', 0):.2f} "
                        f"| {d.get('extract_s', 0):.2f} | {d['rss_mb']:.0f} |")
            print(rows[-1], flush=True)
    return rows


def main() -> None:
    """Run the selected parts and write the results file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", help=argparse.SUPPRESS)
    ap.add_argument("--pages", default="")
    ap.add_argument("--extractors", default="")
    ap.add_argument("--no-server", action="store_true")
    ap.add_argument("--no-budget", action="store_true")
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args()
    if args.case:
        _child_case(args.case)
        return
    from corpuscrawl.evaluation.hostile_pages import PAGES
    from corpuscrawl.extract import names

    pages = args.pages.split(",") if args.pages else [p.name for p in PAGES]
    extractors = (args.extractors.split(",") if args.extractors
                  else [n for n in names() if n != "template"] + [TEMPLATE_NAME])
    sections = ["## Hostile pages x extractors", "", *pages_table(pages, extractors), ""]
    if not args.no_budget:
        sections += budget_section()
    if not args.no_server:
        sections += server_section()
    Path(args.out).write_text("\n".join(sections) + "\n", encoding="utf-8")
    print("written", args.out)


if __name__ == "__main__":
    main()
