"""Pass counts of the regression suite (tests/data/regression) for every extractor and peer.

    .venv/bin/python benchmarks/regression_suite.py                 # all buildable + peers
    .venv/bin/python benchmarks/regression_suite.py --extractors auto,bte --peers none

The CI test (tests/test_regression_suite.py) runs the suite for the default
extractor and ``auto``; this script runs the same cases for any extractor of
the registry and for the peer libraries of corpuscrawl/evaluation/peers.py (their text as
they return it), and counts the cases passed, in total and per tag.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from corpuscrawl.evaluation.datasets import list_datasets
from corpuscrawl.evaluation.peers import available_peers
from corpuscrawl.evaluation.regression import Case, check, load_cases, page_of
from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.runner import available_specs, build_extractors, method_name
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.html.page import Page

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "regression"
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "regression_suite.md"


Method = Callable[[Page, str], str | None]


def methods_of(extractors: str | None, peer_names: str) -> dict[str, Method]:
    """The registry's extractors (all buildable when ``extractors`` is None) and the peers."""
    specs, _ = available_specs(extractors.split(",") if extractors else None)
    methods: dict[str, Method] = {
        method_name(e): (lambda page, html, e=e: e.extract(page)) for e in build_extractors(specs)}
    if peer_names != "none":
        peers, notes = available_peers(peer_names.split(","))
        for note in notes:
            print(note, file=sys.stderr)
        for peer in peers:
            methods[f"{peer.name} (peer)"] = (lambda page, html, peer=peer: peer.extract(html, page.url))
    return methods


def case_pages(root: str | None) -> list[tuple[Case, Page, str, bool]]:
    """Every case with its page and HTML; the flag is True for dataset pages, False for
    the hand-written fixtures."""
    datasets = list_datasets(root)
    cases = [(c, True) for c in load_cases(DATA / "cases.toml")]
    cases += [(c, False) for c in load_cases(DATA / "fixtures.toml", dev_only=False)]
    pages = []
    for case, on_disk in cases:
        if on_disk:
            page = page_of(case, datasets)
            html = next(d for d in datasets if d.name == case.dataset).read_html(case.page)
        else:
            path = DATA / "fixtures" / f"{case.page}.html"
            page = Page.from_file(path, url=f"https://example.com/{case.page}")
            html = path.read_text(encoding="utf-8")
        pages.append((case, page, html, on_disk))
    return pages


def outcome(run: Method, pages: list[tuple[Case, Page, str, bool]]) -> tuple[Counter[str], list[str]]:
    """Cases one method passes, by group (datasets, fixtures) and by tag, and the failed keys."""
    passed: Counter[str] = Counter()
    failed: list[str] = []
    for case, page, html, _ in pages:
        ok = not check(case, run(page, html) or "")
        passed["fixtures" if case.dataset == "fixtures" else "datasets"] += ok
        for tag in case.tags:
            passed[tag] += ok
        if not ok:
            failed.append(case.key)
    return passed, failed


def main(argv: list[str] | None = None) -> None:
    """Run every case for every method; write the pass-count table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--extractors", help="comma-separated registry names (default: all buildable)")
    p.add_argument("--peers", default="trafilatura,readability-lxml",
                   help="comma-separated peers of corpuscrawl/evaluation/peers.py, or 'none'")
    p.add_argument("--root", help="datasets root (default: CORPUSCRAWL_DATASETS or ../shared/datasets)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = p.parse_args(argv)
    pages = case_pages(args.root)
    n_data = sum(1 for *_, on_disk in pages if on_disk)
    n_fix = len(pages) - n_data
    rows = []
    for name, run in methods_of(args.extractors, args.peers).items():
        passed, failed = outcome(run, pages)
        rows.append((passed["datasets"] + passed["fixtures"], name, passed, failed))
        print(f"{name}: {passed['datasets']}/{n_data} dataset cases, "
              f"{passed['fixtures']}/{n_fix} fixtures", file=sys.stderr)
    tags = sorted({t for c, *_ in pages for t in c.tags})
    per_tag = {t: sum(1 for c, *_ in pages if t in c.tags) for t in tags}
    lines = ["# Regression suite: cases passed per extractor", "",
             "Produced by (from the repository root):", "",
             "    .venv/bin/python benchmarks/regression_suite.py "
             + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])), "",
             f"Cases: {n_data} development pages of the benchmark datasets (tests/data/regression/cases.toml) "
             f"and {n_fix} hand-written pages (fixtures.toml). Peers are scored on the text they return.", ""]
    lines += markdown_table(
        ["method", "all", "dataset pages", "fixtures", *(f"{t} ({per_tag[t]})" for t in tags)],
        [(name, f"{total}/{len(pages)}", f"{passed['datasets']}/{n_data}",
          f"{passed['fixtures']}/{n_fix}", *(str(passed[t]) for t in tags))
         for total, name, passed, _ in sorted(rows, key=lambda r: (-r[0], r[1]))],
        right_from=1)
    lines += ["", "Failed cases:", ""]
    for _, name, _, failed in sorted(rows, key=lambda r: (-r[0], r[1])):
        lines.append(f"- {name}: " + (", ".join(failed) if failed else "none"))
    write_run(args.out, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
