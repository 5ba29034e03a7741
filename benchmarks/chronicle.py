"""The CMS-shaped daily of ``tests/chronicle_site.py`` crawled end to end, by extractor and order.

    PYTHONPATH=$PWD nice -n 5 .venv/bin/python benchmarks/chronicle.py
    cd OTHER_CHECKOUT && PYTHONPATH=$PWD nice -n 5 /path/to/.venv/bin/python benchmarks/chronicle.py

Real ``scrapy crawl corpus`` runs (the test crawls' settings, one request at a time)
against the site on 127.0.0.1, for ``auto`` and ``bte`` and three arrival orders: from
the front page with links followed (what a user's crawl does), every page as a seed in
the site's order (front, sections, stories, robots pages), and the seeds reversed
(stories first).  Counted per run: stories not exported, without their headline in
their first three lines, titled otherwise than by it, report sentences lost (of
:data:`~tests.chronicle_site.REPORT_SENTENCES`), other story sentences lost (body and
standfirst), documents with a notice left, documents under 15 words, robots pages
treated otherwise than their directives ask (exported while ``noindex``, or the page
behind them fetched while ``nofollow``: front-page order only, where links are
followed), and fetched pages missing from ``<feed>.dropped.jsonl`` that gave no
document.  Uses only what older checkouts have, so the same script measures the code
before a change.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.chronicle_site import (  # noqa: E402
    ALL_STORIES,
    NOTICES,
    ONLY_BEHIND,
    REPORT_SENTENCES,
    expected_robots,
    site_files,
)
from tests.crawl_helpers import run_crawl  # noqa: E402
from tests.local_server import LocalServer, Reply  # noqa: E402

SETTINGS = {"CONCURRENT_REQUESTS": "1", "CORPUSCRAWL_BOILERPLATE_ERROR_PAGES": "False"}
HEADER = ["extractor", "order", "stories not exported", "without headline", "another title",
          "report sentences lost", "other story sentences lost", "notices left",
          "documents < 15 words", "robots pages wrong", "not in dropped.jsonl"]


def _path(url: str) -> str:
    return "/" + url.split("/", 3)[3]


def row(docs: dict[str, dict], fetched: set[str], dropped: set[str], follows: bool,
        files: dict) -> list[str]:
    """The counts of one crawl (``docs`` by path)."""
    stories = [s for s in ALL_STORIES if s.path in docs]
    text = {s.path: docs[s.path]["text"] for s in stories}
    robots_wrong = 0
    for path, (exported, behind) in expected_robots().items():
        robots_wrong += (path in docs) != exported
        robots_wrong += follows and (ONLY_BEHIND[path] in fetched) != behind
    others = [(s.path, p) for s in stories for p in (s.dek, *s.paragraphs)
              if (s.path, p) not in REPORT_SENTENCES]
    unlisted = {p for p in fetched if p in files} - set(docs) - dropped
    return [str(len(ALL_STORIES) - len(stories)),
            str(sum(s.headline not in text[s.path].split("\n")[:3] for s in stories)),
            str(sum(docs[s.path]["title"] != s.headline for s in stories)),
            f"{sum(p not in text.get(path, '') for path, p in REPORT_SENTENCES)} of "
            f"{len(REPORT_SENTENCES)}",
            f"{sum(p not in text[path] for path, p in others)} of {len(others)}",
            str(sum(any(n in d["text"] for n in NOTICES) for d in docs.values())),
            str(sum(len(d["text"].split()) < 15 for d in docs.values())),
            str(robots_wrong), str(len(unlisted))]


def main() -> int:
    files = site_files()
    routes = {path: Reply(html, headers=headers) for path, (html, headers) in files.items()}
    routes["/robots.txt"] = Reply("User-agent: *\nDisallow:\n", content_type="text/plain")
    seeds = [p for p in files if not p.startswith("/hidden/")]
    code = Path(sys.modules["tests.crawl_helpers"].__file__).resolve().parent.parent
    print(f"# the Chronicle site crawled end to end\n\ncode: `{code}`\n")
    print("| " + " | ".join(HEADER) + " |\n|" + "---|" * len(HEADER))
    with tempfile.TemporaryDirectory(prefix="chronicle-") as tmp:
        for extractor in ("auto", "bte"):
            for order in ("front page", "site", "reversed"):
                out = Path(tmp) / f"{extractor}-{order.replace(' ', '-')}.jsonl"
                with LocalServer(routes) as server:
                    base = server.url.rstrip("/")
                    if order == "front page":
                        args = [f"seeds={server.url}"]
                    else:
                        paths = seeds if order == "site" else seeds[::-1]
                        args = ["seeds=" + ",".join(base + p for p in paths), "depth=0",
                                "sitemaps=0", "feeds=0"]
                    docs, log, status = run_crawl(out, *args, settings={
                        **SETTINGS, "CORPUSCRAWL_EXTRACTOR": extractor})
                    fetched = set(server.paths())
                if status != 0:
                    print(log[-3000:], file=sys.stderr)
                    return 1
                dropped_file = Path(f"{out}.dropped.jsonl")
                dropped = ({_path(json.loads(line)["url"]) for line in
                            dropped_file.read_text(encoding="utf-8").splitlines()}
                           if dropped_file.exists() else set())
                counts = row({_path(d["url"]): d for d in docs}, fetched, dropped,
                             order == "front page", files)
                print("| " + " | ".join([extractor, order, *counts]) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
