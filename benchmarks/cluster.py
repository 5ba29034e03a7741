"""Cluster mode: one worker vs two workers on one Redis, over the same local site, in one run.

Starts a throwaway redis-server and a generated news site on 127.0.0.1
(tests/resume_site.py: distinct article texts, ``--articles`` articles plus
list pages), then crawls it with one ``scrapy crawl corpus`` worker, and again
(fresh collection) with two workers at once.  Reports wall time, pages fetched
and pages/s, documents exported over all outputs vs unique URLs, and each
worker's peak memory (Scrapy's ``memusage/max``).

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

from tests.resume_site import ResumeSite

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def crawl(workers: int, redis: str, collection: str, seed: str, work: Path,
          articles: set[str]) -> dict:
    """Run ``workers`` workers at once; their outputs, stats and the wall time."""
    procs, outs, logs = [], [], []
    started = time.monotonic()
    for i in range(workers):
        out, log = work / f"{collection}-{i}.jsonl", work / f"{collection}-{i}.log"
        cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", "-o", str(out),
               "-a", f"seeds={seed}", "-a", f"collection={collection}",
               "-s", f"CORPUSCRAWL_REDIS_URL={redis}", "-s", f"CORPUSCRAWL_CLUSTER_WORKER=w{i}",
               "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=16",
               "-s", "LOG_LEVEL=INFO"]
        procs.append(subprocess.Popen(cmd, cwd=REPO, stdout=log.open("w"),
                                      stderr=subprocess.STDOUT,
                                      env=dict(os.environ, PYTHONPATH=str(REPO))))
        outs.append(out)
        logs.append(log)
    for proc in procs:
        proc.wait()
    wall = time.monotonic() - started
    per_worker, urls, exported = [], collections.Counter(), 0
    for out, log in zip(outs, logs, strict=True):
        text = log.read_text()
        pages = int((re.findall(r"'response_received_count': (\d+)", text) or ["0"])[-1])
        memory = int((re.findall(r"'memusage/max': (\d+)", text) or ["0"])[-1])
        docs = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
        exported += len(docs)
        urls.update((d["url"], d.get("unit_index", 0)) for d in docs)
        per_worker.append({"pages": pages, "documents": len(docs), "peak_mb": memory / 2**20})
    pages = sum(w["pages"] for w in per_worker)
    return {"workers": workers, "wall": wall, "pages": pages, "pages_per_s": pages / wall,
            "exported": exported, "unique": len(urls),
            "twice": sum(1 for n in urls.values() if n > 1), "per_worker": per_worker,
            "missing": len(articles - {url for url, _ in urls}),
            "exit": [p.returncode for p in procs]}


def main() -> None:
    """Run both configurations and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=10000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cluster-bench-"))
    port = free_port()
    server = subprocess.Popen([shutil.which("redis-server") or "redis-server", "--port",
                               str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                               "no", "--dir", str(work)], stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    redis = f"redis://127.0.0.1:{port}/0"
    try:
        with ResumeSite(articles=args.articles, delay=0.0) as site:
            results = [crawl(1, redis, "one", site.url, work, site.article_urls()),
                       crawl(2, redis, "two", site.url, work, site.article_urls())]
            expected = args.articles
    finally:
        server.terminate()
        server.wait()
    print(f"site: {expected} articles (+ list pages), 127.0.0.1, no delay")
    print("| workers | wall s | pages fetched | pages/s | exported | unique docs | twice | "
          "articles missing | per worker: pages / docs / peak MB | exit |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        per = "; ".join(f"{w['pages']} / {w['documents']} / {w['peak_mb']:.0f}"
                        for w in r["per_worker"])
        print(f"| {r['workers']} | {r['wall']:.1f} | {r['pages']} | {r['pages_per_s']:.1f} | "
              f"{r['exported']} | {r['unique']} | {r['twice']} | "
              f"{r['missing']} | {per} | {r['exit']} |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
