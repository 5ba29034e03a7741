"""Focused crawling: articles fetched within a page budget on sites where articles hide.

The site (tests/focus_site.py) has articles as 20 % of its pages, reachable only
through link-heavy tag, author, calendar and archive listings.  A crawl of it is
stopped after ``--budget`` responses (``CLOSESPIDER_PAGECOUNT``); reported: the
articles among the exported documents and among the fetched pages.  Per
extractor, a fresh crawl, and a crawl killed (SIGKILL) after half the budget
and resumed with the rest of it.  ``--repo`` runs another checkout's code (e.g.
``git worktree add /tmp/focus-old e0268fc``) on the same site.

    python benchmarks/focus.py --articles 200 --budget 200 --extractors auto,bte \
        --styles wordpress,portal,bulletin --resume
    python benchmarks/focus.py --repo /tmp/focus-old --extractors auto,bte --no-resume
    python benchmarks/focus.py --workers 2 --styles wordpress,bulletin

``--workers N`` crawls in cluster mode instead: N workers at once on a throwaway
redis-server (127.0.0.1), each stopped after ``budget / N`` responses, sharing the Redis
queue and what the focus learns (``corpuscrawl/cluster/focus_rank.py``); fresh only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.cluster import free_port
from tests.bulletin_site import BulletinSite
from tests.focus_site import INTERRUPTIONS, STYLES, BudgetRun, FocusSite, exported_articles, measure
from tests.plain_site import PlainSite

REPO = Path(__file__).resolve().parent.parent


@contextmanager
def redis_server(work: Path) -> Iterator[str]:
    """A throwaway redis-server on 127.0.0.1 (no persistence); its URL."""
    port = free_port()
    server = subprocess.Popen([shutil.which("redis-server") or "redis-server", "--port", str(port),
                               "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                               "--dir", str(work)], stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait()


def measure_cluster(site: FocusSite, extractor: str, budget: int, workers: int, redis: str,
                    repo: Path, extra: tuple[str, ...] = ()) -> BudgetRun:
    """Articles ``workers`` cluster workers get together, each within ``budget / workers``
    responses (a fresh collection on ``redis``)."""
    site.requests.clear()
    collection = f"focus{time.monotonic_ns()}"
    with tempfile.TemporaryDirectory(prefix="focus-cluster-") as tmp:
        procs, outs = [], []
        for i in range(workers):
            out = Path(tmp) / f"out{i}.jsonl"
            cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", "-o", f"{out}:jsonlines",
                   "-a", f"seeds={site.url}", "-a", f"collection={collection}",
                   *(["-a", f"extractor={extractor}"] if extractor else []),
                   "-s", "LOG_LEVEL=INFO", "-s", "AUTOTHROTTLE_ENABLED=False",
                   "-s", f"CLOSESPIDER_PAGECOUNT={budget // workers}",
                   "-s", f"CORPUSCRAWL_REDIS_URL={redis}", "-s", f"CORPUSCRAWL_CLUSTER_WORKER=w{i}",
                   "-s", f"CORPUSCRAWL_STATE_DIR={tmp}/state{i}", *extra]
            procs.append(subprocess.Popen(cmd, cwd=repo, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL,
                                          env=dict(os.environ, PYTHONPATH=str(repo))))
            outs.append(out)
        for proc in procs:
            proc.wait()
        merged = Path(tmp) / "all.jsonl"
        merged.write_text("".join(o.read_text(encoding="utf-8") for o in outs if o.exists()),
                          encoding="utf-8")
        return BudgetRun(exported_articles(site, merged), site.fetched_articles(),
                         len(site.requests), False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=200)
    parser.add_argument("--budget", type=int, default=200)
    parser.add_argument("--extractors", default="auto,bte")
    parser.add_argument("--styles", default="wordpress", help=f"comma-separated: {','.join(STYLES)},bulletin "
                        "(tests/bulletin_site.py: query-string ids, dated paths, endless calendar), plain "
                        "(tests/plain_site.py: a blog on plain permalinks, print views, replies)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--related", type=int, default=0, help="related-article links per article")
    parser.add_argument("--resume", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--repo", type=Path, default=REPO, help="checkout whose code crawls")
    parser.add_argument("-s", dest="settings", action="append", default=[],
                        help="extra Scrapy setting NAME=VALUE")
    parser.add_argument("--workers", type=int, default=0,
                        help="cluster workers sharing one redis-server (fresh crawls only)")
    args = parser.parse_args()
    if args.workers:
        cluster(args)
        return
    extra = [x for s in args.settings for x in ("-s", s)]
    print(f"repo {args.repo}, {args.articles} articles (20 % of pages), budget {args.budget} "
          f"responses, seed {args.seed}, related {args.related}\n")
    print("| style | extractor | run | articles exported | articles fetched | requests |")
    print("|---|---|---|---:|---:|---:|")
    for style in args.styles.split(","):
        with made_site(style, args) as site:
            for extractor in args.extractors.split(","):
                for how in ["", *INTERRUPTIONS] if args.resume else [""]:
                    got = measure(site, extractor, args.budget, how, args.repo, tuple(extra))
                    name = f"{how} at half + resumed" if how else "fresh"
                    if how and not got.resumed:
                        name += " (did NOT resume)"
                    print(f"| {style} | {extractor} | {name} | {got.exported} | {got.fetched} | "
                          f"{got.requests} |", flush=True)


def made_site(style: str, args: argparse.Namespace) -> FocusSite:
    """The test site of ``style`` (not started)."""
    if style == "bulletin":
        return BulletinSite(args.articles, args.seed)
    if style == "plain":
        return PlainSite(args.articles, args.seed)
    return FocusSite(args.articles, style, args.seed, args.related)


def cluster(args: argparse.Namespace) -> None:
    """``--workers``: fresh cluster crawls, per style and extractor."""
    extra = tuple(x for s in args.settings for x in ("-s", s))
    print(f"repo {args.repo}, {args.articles} articles (20 % of pages), {args.workers} workers "
          f"of {args.budget // args.workers} responses each on one redis-server, seed {args.seed}\n")
    print("| style | extractor | workers | articles exported | articles fetched | requests |")
    print("|---|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="focus-redis-") as work, \
            redis_server(Path(work)) as redis:
        for style in args.styles.split(","):
            with made_site(style, args) as site:
                for extractor in args.extractors.split(","):
                    got = measure_cluster(site, extractor, args.budget, args.workers, redis,
                                          args.repo, extra)
                    print(f"| {style} | {extractor} | {args.workers} | {got.exported} | "
                          f"{got.fetched} | {got.requests} |", flush=True)


if __name__ == "__main__":
    main()
