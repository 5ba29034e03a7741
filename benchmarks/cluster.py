"""Cluster mode: one worker vs two on one Redis, WARC's cost, and a recrawl by two workers.

Starts a throwaway redis-server and the changing news site of
tests/recrawl_site.py on 127.0.0.1 (``--articles`` articles; ETag /
Last-Modified, 304s; section pages give no document, so documents ==
articles), then, in one run, side by side:

1. one worker (cluster mode, collection ``one``);
2. one worker with ``CORPUSCRAWL_WARC_DIR`` (collection ``one-warc``): WARC
   writing's share of the crawl (wall and CPU time against 1, and the CPU time
   inside the WARC code, ``corpuscrawl/warc/cpu_seconds``, over the process's);
3. two workers at once (collection ``two``);
4. the site changes (``--edits`` articles edited, ``--new`` added, ``--deleted``
   removed) and two workers recrawl collection ``two``: pages answered 304,
   bodies sent, documents exported (== edited + new, each once).

Per configuration: wall time, pages fetched, pages/s, documents exported over
all outputs vs unique URLs, and each worker's peak RSS and CPU seconds (from
``wait4``).

    PYTHONPATH=. python benchmarks/cluster.py --articles 10000
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpuscrawl.evaluation.tables import markdown_table
from tests.recrawl_site import ChangingSite, SiteServer

REPO = Path(__file__).resolve().parent.parent

SETTINGS = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=16",
            "-s", "LOG_LEVEL=INFO", "-s", "CORPUSCRAWL_MIN_TEXT_CHARS=500",
            "-s", "CORPUSCRAWL_BOILERPLATE_ERROR_PAGES=False"]


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stat(text: str, key: str) -> float:
    """The last value of ``key`` in a Scrapy stats dump (0 when absent)."""
    found = re.findall(rf"'{re.escape(key)}': ([0-9.e+-]+)", text)
    return float(found[-1]) if found else 0.0


def crawl(workers: int, redis: str, collection: str, seed: str, work: Path, tag: str,
          extra: list[str] | None = None) -> dict:
    """Run ``workers`` workers at once; their outputs, stats, peak RSS, CPU and the wall time."""
    procs, outs, logs = [], [], []
    started = time.monotonic()
    for i in range(workers):
        out, log = work / f"{tag}-{i}.jsonl", work / f"{tag}-{i}.log"
        cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", "-O", str(out),
               "-a", f"seeds={seed}", "-a", f"collection={collection}",
               "-s", f"CORPUSCRAWL_REDIS_URL={redis}", "-s", f"CORPUSCRAWL_CLUSTER_WORKER=w{i}",
               *SETTINGS, *(extra or [])]
        procs.append(subprocess.Popen(cmd, cwd=REPO, stdout=log.open("w"),
                                      stderr=subprocess.STDOUT,
                                      env=dict(os.environ, PYTHONPATH=str(REPO))))
        outs.append(out)
        logs.append(log)
    usage = {}
    for proc in procs:
        _, status, rusage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        usage[proc.pid] = rusage
    wall = time.monotonic() - started
    per_worker, urls, exported = [], collections.Counter(), 0
    for proc, out, log in zip(procs, outs, logs, strict=True):
        text = log.read_text()
        rusage = usage[proc.pid]
        docs = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
        exported += len(docs)
        urls.update((d["url"], d.get("unit_index", 0)) for d in docs)
        per_worker.append({
            "pages": int(stat(text, "response_received_count")), "documents": len(docs),
            "not_modified": int(stat(text, "corpuscrawl/recrawl/not_modified")),
            "peak_mb": rusage.ru_maxrss / 1024, "cpu": rusage.ru_utime + rusage.ru_stime,
            "warc_cpu": stat(text, "corpuscrawl/warc/cpu_seconds"),
            "warc_records": int(stat(text, "corpuscrawl/warc/records")),
            "warc_bytes": int(stat(text, "corpuscrawl/warc/bytes"))})
    pages = sum(w["pages"] for w in per_worker)
    answered = pages + sum(w["not_modified"] for w in per_worker)
    return {"tag": tag, "workers": workers, "wall": wall, "pages": pages,
            "pages_per_s": answered / wall, "exported": exported, "unique": len(urls),
            "twice": sum(1 for n in urls.values() if n > 1), "per_worker": per_worker,
            "docs": {url for url, _ in urls}, "exit": [p.returncode for p in procs]}


def table(results: list[dict], articles: set[str]) -> None:
    """Print the results as a Markdown table."""
    rows: list[tuple[str, ...]] = []
    for r in results:
        per = "; ".join(f"{w['pages']} / {w['documents']} / {w['peak_mb']:.0f} / {w['cpu']:.1f}"
                        for w in r["per_worker"])
        missing = len(articles - r["docs"]) if r["tag"] != "recrawl" else "-"
        rows.append((r["tag"], str(r["workers"]), f"{r['wall']:.1f}", str(r["pages"]),
                     f"{r['pages_per_s']:.1f}",
                     str(sum(w["not_modified"] for w in r["per_worker"])), str(r["exported"]),
                     str(r["unique"]), str(r["twice"]), str(missing), per, str(r["exit"])))
    print("\n".join(markdown_table(
        ["configuration", "workers", "wall s", "pages fetched", "answers/s (pages + 304)", "304",
         "exported", "unique docs", "twice", "articles missing",
         "per worker: pages / docs / peak MB / CPU s", "exit"], rows)))


def main() -> None:
    """Run the four configurations and print Markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=10000)
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--new", type=int, default=50)
    parser.add_argument("--deleted", type=int, default=20)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cluster-bench-"))
    port = free_port()
    server = subprocess.Popen([shutil.which("redis-server") or "redis-server", "--port",
                               str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                               "no", "--dir", str(work)], stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    redis = f"redis://127.0.0.1:{port}/0"
    site = ChangingSite.build(args.articles, sections=10, per_section=50)
    try:
        with SiteServer(site) as http:
            paths = {http.url.rstrip("/") + a.path for a in site.articles.values()}
            results = [crawl(1, redis, "one", http.url, work, "1 worker"),
                       crawl(1, redis, "one-warc", http.url, work, "1 worker + WARC",
                             ["-s", f"CORPUSCRAWL_WARC_DIR={work / 'warc'}"]),
                       crawl(2, redis, "two", http.url, work, "2 workers")]
            numbers = sorted(site.articles)
            step = max(1, len(numbers) // max(1, args.edits))
            edited = numbers[::step][:args.edits]
            for number in edited:
                site.edit(number)
            deleted = [n for n in numbers[1::step] if n not in edited][:args.deleted]
            for number in deleted:
                site.delete(number)
            added = [site.add(args.articles + 1 + i).path for i in range(args.new)]
            http.reset_counts()
            recrawl = crawl(2, redis, "two", http.url, work, "recrawl")
            recrawl_bodies = sum(http.bodies.values())
            changed = {http.url.rstrip("/") + site.articles[n].path for n in edited} | {
                http.url.rstrip("/") + p for p in added}
            results.append(recrawl)
    finally:
        server.terminate()
        server.wait()
    print(f"site: tests/recrawl_site.py, {args.articles} articles in 10 sections "
          "(50 per section page), 127.0.0.1, no delay")
    table(results, paths)
    plain, warc = results[0], results[1]
    w = warc["per_worker"][0]
    print()
    print(f"WARC: {w['warc_records']} records, {w['warc_bytes'] / 2**20:.1f} MB; crawl time "
          f"{warc['wall']:.1f} s vs {plain['wall']:.1f} s without "
          f"({(warc['wall'] / plain['wall'] - 1) * 100:+.1f} %); process CPU "
          f"{w['cpu']:.1f} s vs {plain['per_worker'][0]['cpu']:.1f} s "
          f"({(w['cpu'] / plain['per_worker'][0]['cpu'] - 1) * 100:+.1f} %); CPU inside the "
          f"WARC code {w['warc_cpu']:.2f} s = {w['warc_cpu'] / w['cpu'] * 100:.1f} % of the "
          f"process's CPU, {w['warc_cpu'] / warc['wall'] * 100:.1f} % of its wall time")
    print(f"recrawl: {len(edited)} edited + {len(added)} new + {len(deleted)} deleted; "
          f"{sum(x['not_modified'] for x in recrawl['per_worker'])} answered 304, "
          f"{recrawl_bodies} bodies sent; exported {recrawl['exported']} "
          f"(unique {recrawl['unique']}, twice {recrawl['twice']}); every edited and new "
          f"article exported: {changed <= recrawl['docs']}; exported besides them: "
          f"{sorted(recrawl['docs'] - changed) or 'none'}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
