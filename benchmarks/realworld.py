"""trafilatura's real-world test suite, as data, for every extractor and peer: pages and assertions passed.

    CORPUSCRAWL_DATASETS=../shared/datasets nice -n 5 .venv/bin/python benchmarks/realworld.py
    ... --extractors auto,bte --peers trafilatura       # other methods
    ... --limit 3 --out /tmp/rw.md                      # a quick look

The cases (``benchmarks/data/trafilatura_realworld.jsonl``, derived by
``benchmarks/realworld_cases.py`` from trafilatura's ``tests/realworld_tests.py``) name a page of
the ``trafilatura`` dataset and the strings its main text must and must not hold.  Every
method gets the same page with the URL the test passes: the registry's extractors their
main text (``extract``: comments are apart and not judged), the peers of
:mod:`corpuscrawl.evaluation.peers` the text they return.  The matching rule is
:func:`corpuscrawl.evaluation.realworld.contains` (whitespace runs as one space, nothing else
normalised), the same for every method; a page passes when all its kept assertions pass.

A last row runs trafilatura the way its own test does (``extract(html, url,
record_id="0000", fast=False, output_format="txt")``, so with its default
``include_comments=True``) and checks the test's plain ``in`` on every assertion of the
kept pages, including the comment strings set aside for the other rows: a check that
the derived cases say what the test says (``--no-upstream`` skips it).  The last column
of the table counts the pages each method passes under that plain ``in`` (a line break
where the test has a space fails it): how much the whitespace allowance changes.

The results file is rewritten from the top down to a line ``## Analysis``: what follows
that line (written by hand: causes of the failures) is kept.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from corpuscrawl.evaluation.datasets import list_datasets
from corpuscrawl.evaluation.peers import available_peers
from corpuscrawl.evaluation.realworld import (
    Failure,
    RealworldCase,
    check,
    load_cases,
    summary_counts,
)
from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.runner import available_specs, build_extractors, method_name
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.html.page import Page

DATA = Path(__file__).resolve().parent / "data" / "trafilatura_realworld.jsonl"
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "realworld.md"
UPSTREAM = "trafilatura as its test calls it (comments in, plain `in`)"

Method = Callable[[Page], str]


class Outcome:
    """One method's result over the cases: the failed assertions per page."""

    def __init__(self, name: str, failures: dict[str, list[Failure]], assertions: int, plain_passed: int):
        self.name, self.failures, self.assertions = name, failures, assertions
        self.plain_passed = plain_passed  # pages passed under the test's plain `in` (no whitespace allowance)

    @property
    def pages_passed(self) -> int:
        """Pages whose every assertion passed."""
        return sum(1 for f in self.failures.values() if not f)

    @property
    def assertions_passed(self) -> int:
        """Assertions passed over all pages."""
        return self.assertions - sum(len(f) for f in self.failures.values())

    def passed(self, op: str, total: int) -> int:
        """Assertions of one kind (``in`` / ``not in``) passed."""
        return total - sum(1 for f in self.failures.values() for x in f if x.op == op)


def _upstream_case(case: RealworldCase) -> RealworldCase:
    """The case with its comment strings back among the ``in`` assertions (the test's own view)."""
    extra = tuple(a["string"] for a in case.set_aside if a.get("reason") == "comment")
    return RealworldCase(case.test, case.url, case.source_file, case.dataset, case.page, case.line,
                         must=case.must + extra, must_not=case.must_not)


def _upstream() -> Method | None:
    try:
        import trafilatura
    except ImportError:
        return None

    def run(page: Page) -> str:
        return trafilatura.extract(page.html, page.url or None, record_id="0000", fast=False,
                                   output_format="txt") or ""

    return run


def _plain(case: RealworldCase, text: str) -> list[Failure]:
    """The test's own ``in`` on the returned string: no whitespace allowance."""
    return ([Failure("in", s) for s in case.must if s not in text]
            + [Failure("not in", s) for s in case.must_not if s in text])


def run_method(name: str, method: Method, cases: list[RealworldCase],
               pages: dict[str, Page], upstream: bool = False) -> Outcome:
    """Run ``method`` on every case's page and check its assertions (``upstream``: the
    comment strings back in and the plain ``in``, as trafilatura's test does)."""
    failures: dict[str, list[Failure]] = {}
    assertions = plain_passed = 0
    for case in cases:
        judged = _upstream_case(case) if upstream else case
        text = method(pages[case.page]) or ""
        plain = _plain(judged, text)
        failures[case.page] = plain if upstream else check(judged, text)
        plain_passed += not plain
        assertions += judged.assertions
    return Outcome(name, failures, assertions, plain_passed)


def build_methods(extractors: str, peers: str) -> dict[str, Method]:
    """The requested registry extractors and peers, by display name."""
    specs, notes = available_specs(extractors.split(",") if extractors != "none" else [])
    for note in notes:
        print(note, file=sys.stderr)
    methods: dict[str, Method] = {method_name(e): e.extract for e in build_extractors(specs)}
    if peers != "none":
        found, notes = available_peers(peers.split(","))
        for note in notes:
            print(note, file=sys.stderr)
        for peer in found:
            methods[f"{peer.name} {peer.version} (peer)"] = (
                lambda page, peer=peer: peer.extract(page.html, page.url))
    return methods


def _report(argv: list[str], source: dict, cases: list[RealworldCase], outcomes: list[Outcome],
            upstream: Outcome | None, focus: str) -> list[str]:
    counts = summary_counts(cases)
    n_in, n_not = counts["in"], counts["not_in"]
    src_counts = source.get("counts", {})
    lines = ["# trafilatura's real-world test suite: pages and assertions passed", "",
             "Produced by (from the repository root):", "",
             "    CORPUSCRAWL_DATASETS=../shared/datasets nice -n 5 .venv/bin/python benchmarks/realworld.py "
             + " ".join(shlex.quote(a) for a in argv), "",
             f"Cases: `benchmarks/data/trafilatura_realworld.jsonl`, derived from `{source.get('path')}` of "
             f"`{source.get('repo')}` at `{source.get('commit')}` (licence {source.get('licence')}) by "
             "`benchmarks/realworld_cases.py`. "
             f"{counts['pages']} pages of the `trafilatura` dataset, {n_in + n_not} assertions kept "
             f"({n_in} `in`, {n_not} `not in`); set aside: {src_counts.get('comment', 0)} comment strings, "
             f"{src_counts.get('options', 0)} on formatting/links output, {src_counts.get('metadata', 0)} "
             f"on metadata, {src_counts.get('bare string', 0)} bare string; "
             f"{len(source.get('not_judged', []))} pages of the test not judged "
             "(not in the dataset, or every assertion set aside). A page passes when all its kept "
             "assertions pass; matching: whitespace runs as one space, nothing else normalised "
             "(`corpuscrawl/evaluation/realworld.py`).", ""]
    rows = sorted(outcomes, key=lambda o: (-o.pages_passed, -o.assertions_passed, o.name))
    lines += markdown_table(
        ["method", "pages passed", "assertions passed", "`in` passed", "`not in` passed",
         "pages passed, plain `in`"],
        [(o.name, f"{o.pages_passed}/{len(cases)}", f"{o.assertions_passed}/{o.assertions}",
          f"{o.passed('in', n_in)}/{n_in}", f"{o.passed('not in', n_not)}/{n_not}", str(o.plain_passed))
         for o in rows], right_from=1)
    if upstream is not None:
        lines += ["", f"Check of the derivation: {UPSTREAM}, on the same pages with the comment strings "
                  f"back in: {upstream.pages_passed}/{len(cases)} pages, "
                  f"{upstream.assertions_passed}/{upstream.assertions} assertions."]
        for page, fails in upstream.failures.items():
            for f in fails:
                lines.append(f"- fails `{page}`: `{f.op}` {f.string!r}")
    lines += ["", "## Pages failed, per method", ""]
    for o in rows:
        failed = [p for p, f in o.failures.items() if f]
        lines.append(f"- {o.name} ({len(failed)}): " + (", ".join(failed) if failed else "none"))
    chosen = next((o for o in outcomes if o.name == focus), None)
    if chosen is not None:
        lines += ["", f"## Failing assertions of `{focus}`", ""]
        for page, fails in chosen.failures.items():
            if fails:
                lines.append(f"- `{page}`: " + "; ".join(f"`{f.op}` {f.string!r}" for f in fails))
    return lines


def main(argv: list[str] | None = None) -> None:
    """Run every case for every method; write the results file."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--extractors", default="auto",
                   help="comma-separated registry names (default: auto), or 'none'")
    p.add_argument("--peers", default="trafilatura,trafilatura-fast,readability-lxml",
                   help="comma-separated peers of corpuscrawl/evaluation/peers.py, or 'none'")
    p.add_argument("--no-upstream", action="store_true", help="skip the derivation check (trafilatura's own call)")
    p.add_argument("--cases", type=Path, default=DATA)
    p.add_argument("--limit", type=int, help="only the first N cases (a quick look)")
    p.add_argument("--focus", default="auto", help="method whose failing assertions are listed")
    p.add_argument("--root", help="datasets root (default: CORPUSCRAWL_DATASETS or ../shared/datasets)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = p.parse_args(argv)
    argv = argv if argv is not None else sys.argv[1:]
    source, cases = load_cases(args.cases)
    cases = cases[: args.limit] if args.limit else cases
    datasets = {d.name: d for d in list_datasets(args.root)}
    pages = {c.page: Page.from_file(datasets[c.dataset].html_files[c.page], url=c.url) for c in cases}
    outcomes = []
    for name, method in build_methods(args.extractors, args.peers).items():
        outcome = run_method(name, method, cases, pages)
        print(f"{name}: {outcome.pages_passed}/{len(cases)} pages, "
              f"{outcome.assertions_passed}/{outcome.assertions} assertions", file=sys.stderr)
        outcomes.append(outcome)
    upstream = None
    if not args.no_upstream and (call := _upstream()) is not None:
        upstream = run_method(UPSTREAM, call, cases, pages, upstream=True)
    lines = _report(argv, source, cases, outcomes, upstream, args.focus)
    write_run(args.out, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
