"""Ordinary mistakes, before and after: what each crawl command does with a bad output, a
typo, a broken template, a disk that fills up, two writers of one file.

Every case runs real ``scrapy crawl corpus`` / ``corpuscrawl crawl`` subprocesses against
local sites on 127.0.0.1 (tests/small_site.py: 4 articles; tests/resume_site.py: 40),
once per source tree given: ``--source`` (default: this checkout) and, for the "before"
column, ``--before DIR`` (e.g. ``git archive main | tar -x -C /tmp/main-src``).  Reported
per case and tree: the exit status, the last line on standard error (shortened),
whether a traceback was printed, and the corpus afterwards: articles (after the
rerun with a good path where the case has one), documents written for a typo, documents
written twice by two writers.

    PYTHONPATH=. python benchmarks/failsafe.py --before /tmp/main-src \
        --out benchmarks/results/failsafe.md
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.tables import markdown_table
from tests.resume_site import ResumeSite
from tests.small_site import SmallSite

REPO = Path(__file__).resolve().parent.parent
FULL_DISK = ('{"file": "tests.full_disk.FullDiskStorage", '
             '"": "tests.full_disk.FullDiskStorage"}')


class Runner:
    """Runs the crawl commands of one source tree in a scratch directory."""

    def __init__(self, source: Path, work: Path) -> None:
        self.source = source
        self.work = work
        work.mkdir(parents=True, exist_ok=True)

    def run(self, command: str, *args: str, env: dict[str, str] | None = None,
            settings: dict[str, str] | None = None, state: str = "state",
            background: bool = False) -> tuple[int, str] | subprocess.Popen:
        """Run ``scrapy`` (``scrapy crawl corpus``) or ``corpuscrawl`` (``corpuscrawl crawl``)."""
        base = ([sys.executable, "-m", "scrapy", "crawl", "corpus"] if command == "scrapy"
                else [sys.executable, "-m", "corpuscrawl.cli", "crawl"])
        options = {"LOG_LEVEL": "INFO", "AUTOTHROTTLE_ENABLED": "False",
                   "CORPUSCRAWL_STATE_DIR": str(self.work / state),
                   "CORPUSCRAWL_BOILERPLATE_HISTORY": str(self.work / f"{state}.history"),
                   **(settings or {})}
        cmd = [*base, *args]
        for name, value in options.items():
            cmd += ["-s", f"{name}={value}"]
        environment = dict(os.environ, PYTHONPATH=f"{self.source}:{REPO}", **(env or {}))
        cwd = self.source if command == "scrapy" else self.work
        if background:
            return subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                                    stderr=(self.work / "background.log").open("w"),
                                    env=environment)
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600,
                              env=environment)
        return proc.returncode, proc.stderr


def articles(path: Path) -> int:
    """Distinct articles (site and path) in a JSON Lines corpus."""
    if not path.is_file():
        return 0
    urls: set[tuple[str, str]] = set()
    for line in path.read_bytes().splitlines():
        try:
            url = json.loads(line)["url"]
        except (ValueError, KeyError):
            continue
        # /copy-of-a0.html is a0 under another URL: whichever comes first is exported
        found = re.search(r"^(https?://[^/]+)/(?:copy-of-)?(a\d+\.html|article/\d+)$", url)
        if found:
            urls.add(found.group(1, 2))  # per site: two sites have the same paths
    return len(urls)


def verdict(code: int, stderr: str, corpus: int | str) -> list[str]:
    """Exit status, shortened last line, traceback?, articles."""
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    last = last.split("] ", 1)[-1] if last.startswith("20") else last  # drop log prefixes
    last = (last[:110] + "…") if len(last) > 110 else last
    return [str(code), "`" + last.replace("|", "\\|").replace("`", "'") + "`",
            "yes" if "Traceback" in stderr else "no", str(corpus)]


def seeds(command: str, url: str) -> list[str]:
    """The seed option of ``command`` (``corpuscrawl crawl`` has ``--seeds``)."""
    return ["--seeds", url] if command == "corpuscrawl" else ["-a", f"seeds={url}"]


def case_bad_output(r: Runner, url: str, command: str, bad: str) -> list[str]:
    """A bad output, then a rerun with a good path (same crawl state); ``-o`` (both
    versions of ``corpuscrawl crawl`` have it)."""
    code, err = r.run(command, *seeds(command, url), "-o", bad)
    good = r.work / "good.jsonl"
    r.run(command, *seeds(command, url), "-o", str(good))
    return verdict(code, err, f"{articles(good)} of 4 (rerun)")


def case_typo(r: Runner, url: str, command: str, *args: str) -> list[str]:
    """A typo'd argument or setting: what is crawled."""
    out = r.work / "typo.jsonl"
    code, err = r.run(command, *[a.format(url=url) for a in args],
                      "-o" if command == "corpuscrawl" else "-O", str(out))
    documents = len(out.read_text().splitlines()) if out.is_file() else 0
    site = "the demo site's" if "crawling the bundled demo site" in err else "the site's"
    return verdict(code, err, f"{documents} of {site}" if documents else "0")


def case_append(r: Runner, _: str, command: str) -> list[str]:
    """``-o`` twice, two sites: are the first run's documents kept?"""
    out = r.work / "twice.jsonl"
    with SmallSite(variant=1) as first:
        r.run(command, *seeds(command, first.url), "-o", str(out))
    with SmallSite(variant=2) as second:
        code, err = r.run(command, *seeds(command, second.url), "-o", str(out))
    return verdict(code, err, f"{articles(out)} of 8")


def case_template(r: Runner, url: str, command: str) -> list[str]:
    """A template in templates/ with a CSS-selector line."""
    templates = r.work / "templates"
    templates.mkdir(exist_ok=True)
    host = url.split("/")[2].split(":")[0]
    (templates / f"{host}.txt").write_text("article\ndiv.main > p\n")
    out = r.work / "template.jsonl"
    code, err = r.run(command, "-a", f"seeds={url}", "-O", str(out),
                      settings={"CORPUSCRAWL_TEMPLATES_DIR": str(templates)})
    return verdict(code, err, articles(out))


def case_full_disk(r: Runner, _: str, command: str) -> list[str]:
    """The feed's disk fills after ~20 kB; then the same command with room again."""
    out = r.work / "full.jsonl"
    with ResumeSite(articles=40, delay=0.0) as site:
        code, err = r.run(command, "-a", f"seeds={site.url}", "-o", str(out),
                          settings={"FEED_STORAGES": FULL_DISK},
                          env={"CORPUSCRAWL_TEST_DISK_BYTES": "20000"})
        r.run(command, "-a", f"seeds={site.url}", "-o", str(out))
    return verdict(code, err, f"{articles(out)} of 40 (rerun)")


def case_two_writers(r: Runner, _: str, command: str) -> list[str]:
    """Two crawls (two cluster workers' mistake) writing one file at the same time."""
    out = r.work / "shared.jsonl"
    with ResumeSite(articles=40, delay=0.1) as site:
        first = r.run(command, "-a", f"seeds={site.url}", "-o", str(out), state="a",
                      background=True)
        assert isinstance(first, subprocess.Popen)
        time.sleep(8)
        code, err = r.run(command, "-a", f"seeds={site.url}", "-a", "collection=other",
                          "-o", str(out), state="b")
        first.wait(timeout=600)
    lines = out.read_text().splitlines() if out.is_file() else []
    urls = [json.loads(line)["url"] for line in lines if line.strip()]
    return verdict(code, err, f"{len(urls) - len(set(urls))} written twice")


CASES: list[tuple[str, str, Callable[..., list[str]], tuple[str, ...]]] = [
    ("output under /proc", "scrapy", case_bad_output, ("/proc/out.jsonl",)),
    ("output under a file", "scrapy", case_bad_output, ("/etc/passwd/out.jsonl",)),
    ("output is a directory", "scrapy", case_bad_output, ("{work}",)),
    ("unknown format `-O out.parquet`", "scrapy", case_bad_output, ("{work}/out.parquet",)),
    ("output under /proc", "corpuscrawl", case_bad_output, ("/proc/out.jsonl",)),
    ("`-o` twice, two sites", "corpuscrawl", case_append, ()),
    ("`-a seed=URL`", "scrapy", case_typo, ("-a", "seed={url}")),
    ("`-a seed=URL`", "corpuscrawl", case_typo, ("-a", "seed={url}")),
    ("`-a max_page=3`", "scrapy", case_typo, ("-a", "seeds={url}", "-a", "max_page=3")),
    ("`-s CORPUSCRAWL_EXTRACTER=bte`", "scrapy", case_typo,
     ("-a", "seeds={url}", "-s", "CORPUSCRAWL_EXTRACTER=bte")),
    ("`-s CONCURRENT_REQUESTS=abc`", "scrapy", case_typo,
     ("-a", "seeds={url}", "-s", "CONCURRENT_REQUESTS=abc")),
    ("`-a depth=abc`", "scrapy", case_typo, ("-a", "seeds={url}", "-a", "depth=abc")),
    ("`-a depth=abc`", "corpuscrawl", case_typo, ("--seeds", "{url}", "-a", "depth=abc")),
    ("`-a seeds=URL`", "corpuscrawl", case_typo, ("-a", "seeds={url}")),
    ("broken template in templates/", "scrapy", case_template, ()),
    ("disk full mid-crawl", "scrapy", case_full_disk, ()),
    ("two crawls, one `-o` file", "scrapy", case_two_writers, ()),
]


def main() -> None:
    """Run every case on each tree; print or write the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=REPO)
    parser.add_argument("--before", type=Path, help="source tree of the 'before' column")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--cases", default="", help="comma-separated case numbers to run "
                                                    "(1-based; default: all)")
    args = parser.parse_args()
    trees = ([("before", args.before)] if args.before else []) + [("after", args.source)]
    header = ["case", "command"]
    for name, _ in trees:
        header += [f"{name}: exit", f"{name}: last line", f"{name}: traceback",
                   f"{name}: corpus afterwards"]
    rows = []
    with SmallSite() as site:
        chosen = {int(n) for n in args.cases.split(",") if n.strip()}
        for number, (title, command, case, extra) in enumerate(CASES, 1):
            if chosen and number not in chosen:
                continue
            row = [title, "scrapy crawl" if command == "scrapy" else "corpuscrawl crawl"]
            for _, tree in trees:
                work = Path(tempfile.mkdtemp(prefix="failsafe-"))
                try:
                    runner = Runner(tree.resolve(), work)
                    row += case(runner, site.url, command,
                                *[e.replace("{work}", str(work)) for e in extra])
                finally:
                    shutil.rmtree(work, ignore_errors=True)
            rows.append(row)
            print(" | ".join(row), file=sys.stderr, flush=True)
    lines = ["# Ordinary mistakes: bad outputs, typos, broken templates, full disks",
             "", "Generated by `python benchmarks/failsafe.py "
             + (f"--before {args.before} " if args.before else "") + "`; see its docstring.",
             "", *markdown_table(header, rows), ""]
    if args.out:
        write_run(args.out, lines)
    else:
        print("\n".join(lines))


if __name__ == "__main__":
    main()
