"""A gzipped feed of a million items named in robots.txt ``Sitemap:``: time, peak RSS, stalls.

Serves (in a child process on 127.0.0.1) a robots.txt naming ``feed.xml.gz``, an RSS
feed of ``--items`` items, and the pages it lists, then runs ``scrapy crawl corpus``
with its defaults on the site's root and reports the crawl's wall time, peak RSS,
the URLs queued from the feed, whether the per-source cap bit, and the longest the
reactor went without running a timer (a probe ticking every 50 ms).

Two runs: the defaults (``CORPUSCRAWL_MAX_URLS_PER_SOURCE`` = 50,000; the items link
to ``--pages`` distinct pages, the rest repeat them, ``max_pages`` ends the crawl) and
no cap (every item read and queued; the duplicate filter drops the repeats).

    python benchmarks/large_feed.py --items 1000000

Peak RSS: ``wait4``'s figure (the largest single process of the crawl and its extraction
workers) and the sum over the crawl process and its workers, sampled every 0.25 s.
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from backbone import descendants, rss_mb  # this folder is sys.path[0] when run as a script

from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.tables import markdown_table

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # tests/support: the measured process and the served site
from tests.support.processes import crawl_stat  # noqa: E402

LAG_KEY = "bench/reactor_max_stall_seconds"


class ReactorStallProbe:
    """Scrapy extension: the longest gap between ticks of a 50 ms timer, in the stats."""

    def __init__(self, crawler: Any) -> None:
        from scrapy import signals
        from twisted.internet import task

        self.stats = crawler.stats
        self.last = time.monotonic()
        self.worst = 0.0
        self.loop = task.LoopingCall(self.tick)
        crawler.signals.connect(self.start, signal=signals.engine_started)
        crawler.signals.connect(self.stop, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Any) -> ReactorStallProbe:
        """Scrapy's constructor."""
        return cls(crawler)

    def start(self) -> None:
        """Start ticking (a bound method: Scrapy's signals hold receivers weakly)."""
        self.last = time.monotonic()
        self.loop.start(0.05)

    def tick(self) -> None:
        """Note the gap since the last tick."""
        now = time.monotonic()
        self.worst = max(self.worst, now - self.last)
        self.last = now

    def stop(self) -> None:
        """Record the worst gap."""
        if self.loop.running:
            self.loop.stop()
        self.stats.set_value(LAG_KEY, round(self.worst, 3))


def feed_bytes(base: str, items: int, pages: int) -> bytes:
    """The gzipped RSS feed: ``items`` items linking to ``pages`` distinct pages in turn."""
    parts = [b'<?xml version="1.0"?><rss version="2.0"><channel><title>big</title>']
    parts += [f"<item><title>item {i}</title><link>{base}a/{i % pages}.html</link></item>"
              .encode() for i in range(items)]
    parts.append(b"</channel></rss>")
    return gzip.compress(b"".join(parts), compresslevel=6)


def serve(items: int, pages: int) -> None:
    """Serve robots.txt, the feed and its pages on a free port; print the base URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    feed = feed_bytes(base, items, pages)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802 (http.server API)
            if self.path == "/robots.txt":
                body, kind = f"User-agent: *\nSitemap: {base}feed.xml.gz\n".encode(), "text/plain"
            elif self.path == "/feed.xml.gz":
                body, kind = feed, "application/gzip"
            elif self.path.startswith("/a/") or self.path == "/":
                n = self.path.rsplit("/", 1)[-1]
                words = " ".join(f"word{(hash(n) + i * 7919) % 5000}" for i in range(300))
                body = (f"<html><head><title>Page {n}</title></head><body><article><h1>Page "
                        f"{n}</h1><p>{words}.</p></article></body></html>").encode()
                kind = "text/html; charset=utf-8"
            else:
                body, kind = b"not found", "text/plain"
                self.send_response(404)
            if kind != "text/plain" or self.path == "/robots.txt":
                self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    httpd.RequestHandlerClass = Handler
    print(base, f"{len(feed)}", flush=True)
    httpd.serve_forever()


def crawl(base: str, tmp: Path, name: str, extra: list[str]) -> dict[str, float]:
    """One ``scrapy crawl corpus`` of the site: wall s, peak RSS MB and the stats read."""
    env = dict(os.environ, PYTHONPATH=f"{REPO}{os.pathsep}{REPO / 'benchmarks'}")
    cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", "-a", f"seeds={base}",
           "-O", f"{tmp / name}.jsonl:jsonlines", "-s", "LOG_LEVEL=INFO",
           "-s", f"CORPUSCRAWL_STATE_DIR={tmp / name}-state",
           "-s", "EXTENSIONS=" + _extensions(), *extra]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    done, tree = threading.Event(), [0.0]

    def sample() -> None:  # the crawl process and its workers together, every 0.25 s
        while not done.wait(0.25):
            tree[0] = max(tree[0], rss_mb(proc.pid) + sum(map(rss_mb, descendants(proc.pid))))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    assert proc.stderr is not None
    log = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    done.set()
    sampler.join()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError(f"crawl {name} failed ({code}):\n{log[-3000:]}")
    return {"wall": time.perf_counter() - started, "rss": usage.ru_maxrss / 1024,
            "tree": tree[0],
            "cpu": usage.ru_utime + usage.ru_stime,
            "queued": crawl_stat(log, "corpuscrawl/urls_from_feeds"),
            "capped": crawl_stat(log, "corpuscrawl/sources/capped"),
            "documents": crawl_stat(log, "item_scraped_count"),
            "stall": crawl_stat(log, LAG_KEY)}


def _extensions() -> str:
    """The probe as EXTENSIONS (corpuscrawl's add-on installs its own beside it)."""
    import json

    return json.dumps({"large_feed.ReactorStallProbe": 10})


def main() -> None:
    """Serve the site, run both crawls, write benchmarks/results/large_feed.md."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--no-uncapped", action="store_true",
                        help="only the run with the defaults (the uncapped one is long)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks/results/large_feed.md")
    args = parser.parse_args()
    if args.serve:
        serve(args.items, args.pages)
        return
    server = subprocess.Popen([sys.executable, __file__, "--serve", "--items", str(args.items),
                               "--pages", str(args.pages)], stdout=subprocess.PIPE, text=True,
                              cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert server.stdout is not None
    base, feed_size = server.stdout.readline().split()
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            runs = [("defaults (cap 50,000), max_pages=50", ["-a", "max_pages=50"]),
                    ("no cap (every item read and queued)",
                     ["-s", "CORPUSCRAWL_MAX_URLS_PER_SOURCE=0"])]
            for i, (label, extra) in enumerate(runs[:1] if args.no_uncapped else runs):
                got = crawl(base, Path(tmp), f"run{i}", extra)
                rows.append([label, f"{got['wall']:.1f}", f"{got['cpu']:.1f}", f"{got['rss']:.0f}",
                             f"{got['tree']:.0f}",
                             f"{got['queued']:.0f}", f"{got['capped']:.0f}",
                             f"{got['documents']:.0f}", f"{got['stall']:.2f}"])
                print(rows[-1], flush=True)
    finally:
        server.terminate()
    command = (f"python benchmarks/large_feed.py --items {args.items} --pages {args.pages}"
               + (" --no-uncapped" if args.no_uncapped else ""))
    load = os.getloadavg()
    lines = ["# A million-item feed", "",
             f"Command: `PYTHONPATH=$PWD nice -n 5 {command}` (2 cores shared with other developers' jobs; load "
             f"average {load[0]:.1f} at the end; {time.strftime('%Y-%m-%d %H:%M')} UTC).", "",
             f"A gzipped RSS feed of {args.items} items ({int(feed_size) / 2**20:.1f} MB) named "
             "in robots.txt `Sitemap:`, its items linking to "
             f"{args.pages} distinct pages in turn; `scrapy crawl corpus` with its defaults on "
             "the site's root (finishes by itself: exit status 0).", "",
             *markdown_table(["crawl", "wall s", "CPU s", "peak RSS MB, largest process",
                              "peak RSS MB, crawl and workers together", "URLs queued",
                              "sources capped", "documents", "longest reactor stall s"],
                             rows, right_from=1), ""]
    write_run(args.out, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
