"""Hostile pages x every extractor (and the template engine), and hostile servers x a real crawl.

Writes ``benchmarks/results/hostile.md``::

    PYTHONPATH=$PWD python benchmarks/hostile.py [--pages a,b] [--extractors x,y] [--no-server]

Each page is built as the crawl builds it (``Page.from_html`` on the bytes,
with the page's HTTP charset) and extracted by ``Extraction`` with the
project's default budget settings, each extraction in a forked child so its
memory growth is its own.  The server part starts the hostile site
(``tests.support.hostile_site``) and runs ``scrapy crawl corpus``
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

from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.tables import markdown_table
from tests.support.processes import crawl_stat

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results" / "hostile.md"
TEMPLATE_NAME = "template"
#: Columns of the hostile pages x extractors table.
PAGES_HEADER = ["page", "MB", "parse s", "extractor", "outcome", "words", "article kept", "notes",
                "extract s", "RSS growth MB"]
#: A small page extracted once before any measurement (models and caches loaded).
WARM_UP = "<html><body><h1>Warm up</h1><p>" + "A short warm up paragraph of text. " * 20 + "</p></body></html>"


def build_extraction(extractor: str, overrides: dict | None = None):  # -> Extraction
    """The crawl's Extraction with default budget settings (or ``overrides``), using ``extractor``."""
    from scrapy.settings import Settings

    from corpuscrawl.extract.classic.template import TemplateExtractor, parse_template
    from corpuscrawl.pagetext.extraction import Extraction

    settings = Settings()
    settings.setmodule("corpuscrawl.settings")
    for key, value in (overrides or {}).items():
        settings.set(key, value)
    extraction = Extraction.from_settings(settings, "bte" if extractor == TEMPLATE_NAME
                                          else extractor)
    if extractor == TEMPLATE_NAME:
        extraction.default = TemplateExtractor(parse_template("h1\np\ndiv=\nclass=post"))
    return extraction


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def forked(task, timeout: float = 600) -> dict:
    """Run ``task()`` (returning a dict) in a forked child; adds the child's peak RSS growth.

    The child starts with the parent's pages (models loaded, page parsed);
    ``rss_growth_mb`` is the child's peak RSS minus its RSS when the task
    started: the memory the task itself needed.
    """
    import resource

    read, write = os.pipe()
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read)
        start = _rss_mb()
        try:
            data = task()
        except BaseException as exc:  # noqa: BLE001 - reported as the outcome
            data = {"outcome": f"CRASH: {type(exc).__name__}: {exc}"[:200]}
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        data["rss_growth_mb"] = max(peak - start, 0.0)
        os.write(write, json.dumps(data).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        raw = fh.read()  # the child writes once, at its end
    _, status = os.waitpid(pid, 0)
    data = json.loads(raw) if raw else {"outcome": f"CRASH: exit status {status}",
                                        "rss_growth_mb": float("nan")}
    data["wall_s"] = time.perf_counter() - t0
    return data


def pages_table(pages: list[str], extractors: list[str]) -> list[str]:
    """Markdown rows: one per (page, extractor), each extraction in a forked child."""
    from corpuscrawl.html.page import Page
    from tests.support.hostile_pages import page_named

    built = {}
    for name in extractors:
        built[name] = build_extraction(name)
        built[name].run(Page.from_html(WARM_UP, url="http://warm.test/"))
    cells: list[list[str]] = []
    for name in pages:
        spec = page_named(name)
        body = spec.build()
        t0 = time.perf_counter()
        page = Page.from_html(body, url=f"http://hostile.test/{name}", encoding=spec.charset)
        parse_s = time.perf_counter() - t0
        for extractor in extractors:
            def task(extraction=built[extractor], page=page, spec=spec) -> dict:
                t1 = time.perf_counter()
                result = extraction.run(page)
                outcome = ("dropped: not text" if result.skipped else
                           f"failed, page kept: {result.error.partition(':')[0]}" if result.error
                           else "text" if result.text else "empty")
                return {"outcome": outcome, "words": len(result.text.split()),
                        "marker": bool(spec.marker) and spec.marker in result.text,
                        "notes": list(result.notes), "extract_s": time.perf_counter() - t1}
            d = forked(task)
            kept = ("-" if not spec.marker else "yes" if d.get("marker") else
                    "(failed store)" if d["outcome"].startswith("failed") else "**no**")
            cells.append([name, f"{len(body) / 2**20:.1f}", f"{parse_s:.2f}", extractor,
                          d["outcome"], str(d.get("words", "")), kept,
                          " ".join(d.get("notes", [])), f"{d.get('extract_s', float('nan')):.2f}",
                          f"{d['rss_growth_mb']:.0f}"])
            print(markdown_table(PAGES_HEADER, cells[-1:])[-1], flush=True)
    return markdown_table(PAGES_HEADER, cells)


def scaling_table() -> list[str]:
    """Time and memory of unbudgeted extractions of 1-8 MB pages: why the size cap."""
    from corpuscrawl.html.page import Page
    from tests.support.hostile_pages import _paragraphs

    header = ["page MB", "extractor", "extract s", "RSS growth MB"]
    cells: list[list[str]] = []
    off = {"CORPUSCRAWL_EXTRACTION_MAX_BYTES": 0, "CORPUSCRAWL_EXTRACTION_TIMEOUT": 0}
    built = {name: build_extraction(name, off) for name in ("justext", "auto", "bte")}
    for extraction in built.values():
        extraction.run(Page.from_html(WARM_UP, url="http://warm.test/"))
    for size in (1, 2, 4, 8):
        page = Page.from_html(_paragraphs(size << 20), url="http://a.test/")
        for name, extraction in built.items():
            def task(extraction=extraction, page=page) -> dict:
                t0 = time.perf_counter()
                extraction.run(page)
                return {"extract_s": time.perf_counter() - t0}
            d = forked(task)
            cells.append([str(size), name, f"{d.get('extract_s', float('nan')):.2f}",
                          f"{d['rss_growth_mb']:.0f}"])
            print(markdown_table(header, cells[-1:])[-1], flush=True)
    return markdown_table(header, cells)


def _fixture_pages() -> list[str]:
    return [p.read_text(encoding="utf-8", errors="replace")
            for p in sorted((REPO / "tests" / "data" / "extractors").glob("*.html"))]


def fork_cost(extractor: str, repeat: int = 3) -> tuple[float, float, float]:
    """Median ms per page: in process; a forked child per page; a persistent worker process
    (the page's HTML sent over a pipe and parsed again there)."""
    import multiprocessing
    import statistics

    from corpuscrawl.html.page import Page

    extraction = build_extraction(extractor)
    htmls = _fixture_pages()
    pages = [Page.from_html(h, url="http://a.test/") for h in htmls]
    for page in pages:
        extraction.run(page)  # warm: models loaded before forking
    inproc: list[float] = []
    forked: list[float] = []
    worker: list[float] = []
    for _ in range(repeat):
        for page in pages:
            t0 = time.perf_counter()
            extraction.run(page)
            inproc.append(time.perf_counter() - t0)
    for _ in range(repeat):
        for page in pages:
            t0 = time.perf_counter()
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # child: extract, report, exit without cleanup
                os.close(read)
                os.write(write, extraction.run(page).text[:100].encode())
                os._exit(0)
            os.close(write)
            with os.fdopen(read, "rb") as fh:
                fh.read()
            os.waitpid(pid, 0)
            forked.append(time.perf_counter() - t0)
    ctx = multiprocessing.get_context("forkserver")
    with ctx.Pool(1, initializer=_worker_init, initargs=(extractor,)) as pool:
        pool.apply(_worker_extract, (WARM_UP,))
        for _ in range(repeat):
            for html in htmls:
                t0 = time.perf_counter()
                pool.apply(_worker_extract, (html,))
                worker.append(time.perf_counter() - t0)
    med = statistics.median
    return med(inproc) * 1000, med(forked) * 1000, med(worker) * 1000


_WORKER: dict = {}


def _worker_init(extractor: str) -> None:
    _WORKER["extraction"] = build_extraction(extractor)


def _worker_extract(html: str) -> str:
    from corpuscrawl.html.page import Page

    result = _WORKER["extraction"].run(Page.from_html(html, url="http://a.test/"))
    if result.error:
        raise RuntimeError(result.error)
    return result.text


def alarm_overshoot(extractor: str, page_name: str, limit: float) -> tuple[float, str]:
    """Seconds the SIGALRM budget returned after ``limit`` on a page, and the outcome."""
    from corpuscrawl.html.page import Page
    from tests.support.hostile_pages import MARKER, HostilePage, _paragraphs, page_named

    spec = (HostilePage(page_name, "", lambda: _paragraphs(3 << 20), marker=MARKER)
            if page_name == "paragraphs-3" else page_named(page_name))
    page = Page.from_html(spec.build(), url="http://a.test/", encoding=spec.charset)
    extraction = build_extraction(extractor, {"CORPUSCRAWL_EXTRACTION_TIMEOUT": limit})
    extraction.run(Page.from_html(WARM_UP, url="http://warm.test/"))
    t0 = time.perf_counter()
    result = extraction.run(page)
    return time.perf_counter() - t0 - limit, result.error.partition(":")[0] or "finished"


def budget_section() -> list[str]:
    """The measurements behind the budget design (size scaling, fork cost, alarm overshoot)."""
    rows = ["## Why a size cap: unbudgeted extraction of ordinary pages by size", "",
            *scaling_table(), "", "## Bounding time: in process vs a process per page", ""]
    fork_header = ["extractor", "in process ms/page", "fork per page ms/page",
                   "persistent worker ms/page"]
    fork_rows: list[list[str]] = []
    for extractor in ("bte", "auto", "justext"):
        a, b, c = fork_cost(extractor)  # the persistent worker parses each page again
        fork_rows.append([extractor, f"{a:.1f}", f"{b:.1f}", f"{c:.1f}"])
        print(markdown_table(fork_header, fork_rows[-1:])[-1], flush=True)
    rows += [*markdown_table(fork_header, fork_rows), "",
             "SIGALRM budget: how long after the limit the extraction returned", ""]
    alarm_header = ["extractor", "page", "limit s", "returned after the limit, s", "outcome"]
    alarm_rows: list[list[str]] = []
    for extractor, page, limit in (("justext", "paragraphs-3", 0.5), ("auto", "paragraphs-3", 0.5),
                                   ("hybrid-b", "siblings", 0.5), ("energy", "siblings", 0.5),
                                   ("readability", "paragraphs-3", 0.5)):
        late, outcome = alarm_overshoot(extractor, page, limit)
        alarm_rows.append([extractor, page, str(limit), f"{late:.3f}", outcome])
        print(markdown_table(alarm_header, alarm_rows[-1:])[-1], flush=True)
    return [*rows, *markdown_table(alarm_header, alarm_rows), ""]


#: Server cases: (path prefix, what the server does, stats keys that must count it).
SERVER_CASES = (
    ("/redirect-loop/", "302 a -> b -> a", ("corpuscrawl/hostile/redirect_loop",)),
    ("/redirect-chain/", "302 n -> n+1 forever", ("corpuscrawl/hostile/redirect_chain",)),
    ("/slow", "1 byte every 0.5 s (Content-Length 1 MB)", ("corpuscrawl/hostile/timeout",)),
    ("/cl-long", "Content-Length 100,000, body ~150 B, close",
     ("corpuscrawl/hostile/data_loss",)),
    ("/cl-short", "Content-Length 60, body ~5 kB", ("corpuscrawl/page/truncated",)),
    ("/bomb/", "64 MB of zeros as gzip / deflate / br Content-Encoding",
     ("corpuscrawl/hostile/decompression_bomb",)),
    ("/sitemap-bomb.xml.gz", "robots.txt sitemap: gzip file inflating to 64 MB",
     ("corpuscrawl/hostile/sitemap_too_large",)),
    ("/big", "50 MB body, announced / streamed without Content-Length",
     ("corpuscrawl/hostile/too_large",)),
    ("/calendar", "every month links to the next one, forever", ("corpuscrawl/trap/pattern_run",)),
    ("/links", "5,000 links on one page", ("corpuscrawl/links/over_page_cap",)),
    ("/flood/", "the 5,000 linked pages", ()),
    ("/octet-html", "an HTML article as application/octet-stream",
     ("corpuscrawl/hostile/html_sniffed",)),
    ("/binary-html", "2 MB of random bytes as text/html", ("corpuscrawl/dropped/binary",)),
    ("/lying-charset", "Latin-1 bytes, <meta charset=utf-16>",
     ("corpuscrawl/page/charset_label_ignored",)),
    ("/deep", "article inside 100,000 nested <div>s", ("corpuscrawl/page/parse_reparsed",)),
    ("/good/", "five ordinary articles", ()),
)


def first_log_lines(log: str) -> list[str]:
    """The crawl log's first line of each kind about the site: corpuscrawl's warnings and
    notices, Scrapy's warnings; the host's address and port written HOST."""
    import re

    seen = set()
    lines = []
    for line in log.splitlines():
        match = re.search(r"\[(corpus|corpuscrawl\.\w+|scrapy\.[\w.]+)\] (WARNING|INFO): (.*)", line)
        if not match or match.group(2) == "INFO" and "corpuscrawl" not in match.group(1) \
                and match.group(1) != "corpus":
            continue
        kind = re.sub(r"http\S+|\d+", "", match.group(3))[:40]
        if kind not in seen and ("127.0.0.1" in line):
            seen.add(kind)
            lines.append(re.sub(r"127\.0\.0\.1:\d+", "HOST", line[20:])[:220])
    return lines


def server_section() -> list[str]:
    """Crawl the hostile site with the default settings; per case: counters, requests, times."""
    import re
    import tempfile

    from tests.support.hostile_site import HostileServer

    with tempfile.TemporaryDirectory() as tmp, HostileServer() as server:
        out = Path(tmp) / "out.jsonl"
        cmd = ["/usr/bin/time", "-f", "TIME %e %M", sys.executable, "-m", "scrapy", "crawl",
               "corpus", "-a", f"seeds={server.url}", "-O", f"{out}:jsonlines",
               "-s", "LOG_LEVEL=INFO", "-s", f"CORPUSCRAWL_FAILED_DIR={tmp}/failed",
               "-s", f"CORPUSCRAWL_BOILERPLATE_HISTORY={tmp}/history.sqlite3"]
        env = dict(os.environ, PYTHONPATH=str(REPO), SCRAPY_SETTINGS_MODULE="corpuscrawl.settings")
        start = time.monotonic()
        proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=900)
        log = proc.stderr + proc.stdout
        docs = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
        times = list(server.times)
    wall, rss_kb = re.search(r"TIME ([\d.]+) (\d+)", log).groups()

    def stat(key: str) -> int:
        return int(crawl_stat(log, key))

    exported = {d["url"].split("/", 3)[-1] for d in docs}
    rows = ["## Hostile servers: one real crawl with the default settings", "",
            f"`scrapy crawl corpus -a seeds=<hostile site>` (defaults: DOWNLOAD_TIMEOUT 30, "
            f"RETRY_TIMES 2, DOWNLOAD_MAXSIZE 10 MB, REDIRECT_MAX_TIMES 10, "
            f"CORPUSCRAWL_TRAP_MAX_RUN 50, CORPUSCRAWL_MAX_LINKS_PER_PAGE 1000): exit code "
            f"{proc.returncode}, {float(wall):.1f} s, peak RSS {int(rss_kb) / 1024:.0f} MB, "
            f"{len(docs)} documents, Tracebacks in the log: {log.count('Traceback')}, "
            f"spider_exceptions: {stat('spider_exceptions')}.", ""]
    cases: list[list[str]] = []
    for prefix, what, keys in SERVER_CASES:
        hits = [t - start for t, path in times if path.startswith(prefix)]
        span = f"{min(hits):.1f}..{max(hits):.1f}" if hits else "-"
        counted = ", ".join(f"`{k}` = {stat(k)}" for k in keys) or "-"
        n_exported = sum(u.startswith(prefix.lstrip("/")) for u in exported)
        cases.append([f"`{prefix}`", what, counted, str(len(hits)), span, str(n_exported)])
    rows += [*markdown_table(["case", "server does", "counter = value", "requests",
                              "first..last request s", "exported"], cases),
             "", "Log lines (first of each kind):", "", "```", *first_log_lines(log)]
    return rows + ["```", ""]


def main() -> None:
    """Run the selected parts and write the results file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", default="")
    ap.add_argument("--extractors", default="")
    ap.add_argument("--no-server", action="store_true")
    ap.add_argument("--no-budget", action="store_true")
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args()
    from corpuscrawl.extract import names
    from tests.support.hostile_pages import PAGES

    pages = args.pages.split(",") if args.pages else [p.name for p in PAGES]
    extractors = (args.extractors.split(",") if args.extractors
                  else [n for n in names() if n != "template"] + [TEMPLATE_NAME])
    sections = [
        "# Hostile pages and servers", "",
        "Produced by `PYTHONPATH=$PWD python benchmarks/hostile.py` "
        f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, 2 shared cores: times are "
        "noisy, compare within one table).", "",
        "## Hostile pages x extractors", "",
        "The page is built from its bytes as the crawl builds it (`Page.from_html` with the "
        "page's HTTP charset; *parse s*), then each extractor runs in a forked child, by "
        "`Extraction` with the default budget (CORPUSCRAWL_EXTRACTION_MAX_BYTES 4 MiB, "
        "CORPUSCRAWL_EXTRACTION_TIMEOUT 20 s), models loaded and warmed up before.  *article "
        "kept*: the article hidden in the page is in the output (`-`: the page has no text).  "
        "*RSS growth*: the child's peak RSS minus the parent's at the fork, i.e. the memory "
        "this extraction needed on top of the parsed page and the loaded models.", "",
        *pages_table(pages, extractors), ""]
    if not args.no_budget:
        sections += budget_section()
    if not args.no_server:
        sections += server_section()
    write_run(Path(args.out), sections)


if __name__ == "__main__":
    main()
