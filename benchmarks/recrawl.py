"""Incremental recrawl benchmark: a local news site crawled, changed by 5 %, crawled again.

Three real ``scrapy crawl corpus`` runs of one collection against
tests/recrawl_site.py on 127.0.0.1 (ETag / Last-Modified, 304 answers):

1. the first crawl (empty page store);
2. the incremental recrawl after ``--change`` of the articles changed
   (new, edited, deleted in the proportions 3 : 5 : 2);
3. ``recrawl=full`` of the same site, i.e. what a recrawl costs without the page
   store (every body downloaded, every document exported).

For each: bytes downloaded (Scrapy's ``downloader/response_bytes``, headers
included, and the body bytes the server sent), responses, elapsed time,
responses per second, documents exported, and the recrawl stats.  The
incremental recrawl's export is checked against the changes made.

    PYTHONPATH=. /work/main/.venv/bin/python benchmarks/recrawl.py --out benchmarks/results/recrawl.md
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.tables import markdown_table
from tests.recrawl_site import ChangingSite, SiteServer
from tests.support.processes import crawl_stat

REPO = Path(__file__).resolve().parent.parent

#: The crawler measured, not a polite guest: one local host, no delays.
SETTINGS = {"CONCURRENT_REQUESTS": "16", "CONCURRENT_REQUESTS_PER_DOMAIN": "16",
            "DOWNLOAD_DELAY": "0", "AUTOTHROTTLE_ENABLED": "False",
            "CORPUSCRAWL_MIN_TEXT_CHARS": "500", "LOG_LEVEL": "INFO"}
STATS = ("corpuscrawl/recrawl/new", "corpuscrawl/recrawl/changed",
         "corpuscrawl/recrawl/unchanged", "corpuscrawl/recrawl/not_modified",
         "corpuscrawl/recrawl/gone", "corpuscrawl/recrawl/conditional",
         "corpuscrawl/recrawl/revisited", "corpuscrawl/recrawl/revisited_hubs",
         "downloader/response_bytes", "downloader/response_count", "elapsed_time_seconds")


def crawl(server: SiteServer, work: Path, name: str, *args: str) -> dict:
    """One crawl of the collection; its measures."""
    out = work / f"{name}.jsonl"
    cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", "-O", f"{out}:jsonlines",
           "-a", f"seeds={server.url}", "-a", "collection=bench"]
    for arg in args:
        cmd += ["-a", arg]
    settings = dict(SETTINGS, CORPUSCRAWL_STATE_DIR=str(work / "state"),
                    CORPUSCRAWL_BOILERPLATE_HISTORY=str(work / "history.sqlite3"))
    for key, value in settings.items():
        cmd += ["-s", f"{key}={value}"]
    server.reset_counts()
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=3600,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    wall = time.perf_counter() - started
    log = proc.stderr + proc.stdout
    if proc.returncode != 0:
        raise SystemExit(f"crawl {name} failed:\n{log[-3000:]}")
    docs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line]
    measures = {key.rsplit("/", 1)[-1]: crawl_stat(log, key) for key in STATS}
    measures.update(name=name, wall=wall, documents=len(docs), body_bytes=server.body_bytes,
                    bodies=sum(server.bodies.values()),
                    urls={d["url"] for d in docs}, changes={d.get("change") for d in docs})
    return measures


def change_site(site: ChangingSite, share: float, seed: int = 7) -> dict[str, set[str]]:
    """Change ``share`` of the articles: new : edited : deleted = 3 : 5 : 2."""
    rng = random.Random(seed)
    total = round(len(site.articles) * share)
    new, edited = round(total * 0.3), round(total * 0.5)
    deleted = total - new - edited
    numbers = sorted(site.articles)
    chosen = rng.sample(numbers, edited + deleted)
    for number in chosen[:edited]:
        site.edit(number)
    gone = {site.articles[n].path for n in chosen[edited:]}
    for number in chosen[edited:]:
        site.delete(number)
    top = max(numbers)
    added = {site.add(top + i + 1).path for i in range(new)}
    return {"new": added, "edited": {site.articles[n].path for n in chosen[:edited]},
            "deleted": gone}


def _paths(urls: set[str]) -> set[str]:
    return {"/" + url.split("/", 3)[3] for url in urls}


def report(rows: list[dict], changed: dict[str, set[str]], args: argparse.Namespace,
           pages: int, page_bytes: int) -> list[str]:
    """The results as Markdown: the command, the site, the table of the three crawls."""
    command = (f"PYTHONPATH=. python benchmarks/recrawl.py --articles {args.articles} "
               f"--sections {args.sections} --change {args.change} --padding {args.padding}")
    lines = ["# Incremental recrawls: first crawl vs recrawl of a changed site", "",
             f"Command: `{command}` ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             "2 shared cores).", "",
             f"Site: {args.articles} articles in {args.sections} sections ({pages} pages with "
             f"the section pages; ~{page_bytes // 1000} kB per article page); change: "
             f"{len(changed['new'])} new, {len(changed['edited'])} edited, "
             f"{len(changed['deleted'])} deleted articles.", ""]
    cells = []
    for row in rows:
        elapsed = row["elapsed_time_seconds"] or row["wall"]
        cells.append([row["name"], f"{row['response_count']:.0f}", row["bodies"],
                      f"{row['response_bytes'] / 1e6:.2f} MB", f"{elapsed:.1f}",
                      f"{row['response_count'] / elapsed:.0f}", row["documents"],
                      *(f"{row[key]:.0f}" for key in ("new", "changed", "unchanged",
                                                      "not_modified", "gone"))])
    lines += markdown_table(["crawl", "responses", "bodies sent", "bytes downloaded",
                             "elapsed s", "responses/s", "documents exported", "new", "changed",
                             "unchanged", "not modified (304)", "gone"], cells, right_from=1)
    first, incremental = rows[0], rows[1]
    expected = changed["new"] | changed["edited"]
    paths = _paths(incremental["urls"])
    got = {p for p in paths if p.startswith("/news/")}
    lines += ["", f"Incremental recrawl vs first crawl: bytes downloaded "
              f"{incremental['response_bytes'] / first['response_bytes']:.3f}x, documents "
              f"exported {incremental['documents']}: the {len(expected)} new and edited "
              f"articles {'exactly' if got == expected else 'NOT exactly'} (missing "
              f"{len(expected - got)}, extra {len(got - expected)}) and {len(paths - got)} "
              f"section pages whose list of stories changed; hubs refetched in full: "
              f"{incremental['revisited_hubs']:.0f}, conditional requests: "
              f"{incremental['conditional']:.0f}.", "",
             "\"bytes downloaded\" is Scrapy's `downloader/response_bytes` (bodies and "
             "headers); \"bodies sent\" counts the server's full 200 answers.", ""]
    return lines


def main() -> None:
    """Run the three crawls and print (or write) the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, default=2000)
    parser.add_argument("--sections", type=int, default=20)
    parser.add_argument("--change", type=float, default=0.05)
    parser.add_argument("--padding", type=int, default=40_000,
                        help="bytes of inline script per page (real pages are mostly markup)")
    parser.add_argument("--out", type=Path,
                        help="also write the results to this Markdown file (an existing "
                             "file gets them as a dated section, the rest kept)")
    args = parser.parse_args()
    site = ChangingSite.build(args.articles, sections=args.sections, per_section=25,
                              padding=args.padding)
    page_bytes = len(site.page(next(iter(site.articles.values())).path)[0])
    sections = sum(len(site._section_lists(s)) for s in range(args.sections))
    with tempfile.TemporaryDirectory() as tmp, SiteServer(site) as server:
        work = Path(tmp)
        rows = [crawl(server, work, "first crawl")]
        changed = change_site(site, args.change)
        rows.append(crawl(server, work, "incremental recrawl"))
        rows.append(crawl(server, work, "recrawl=full", "recrawl=full"))
    lines = report(rows, changed, args, args.articles + sections + 1, page_bytes)
    print("\n".join(lines))
    if args.out:
        write_run(args.out, lines)


if __name__ == "__main__":
    main()
