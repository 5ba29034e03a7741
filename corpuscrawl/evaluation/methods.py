"""Extraction methods by name for the benchmarks: corpuscrawl's extractors and peer tools
alike, as ``run(html, url) -> text``, and the one timed, failure-counting call of a method.

A corpuscrawl extractor's run parses the page (:meth:`Page.from_html`) and extracts; a
peer's run does its own parsing (:mod:`corpuscrawl.evaluation.peers`), so times compare
whole methods.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence

from corpuscrawl.evaluation.names import PEERS
from corpuscrawl.evaluation.peers import available_peers
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import Extractor
from corpuscrawl.html.page import Page

#: A method: decoded HTML and the page URL in, main text out.
Method = Callable[[str, str], str]
#: Suffix of a peer's method name in reports.
PEER_SUFFIX = " (peer)"


def extractor_method(extractor: Extractor) -> Method:
    """``run(html, url)`` of a corpuscrawl extractor: parse the page, then extract."""
    return lambda html, url: extractor.extract(Page.from_html(html, url))


def build_methods(names: Sequence[str], peers: Sequence[str] = PEERS
                  ) -> tuple[dict[str, Method], list[str]]:
    """Method name -> run, for the registered extractors among ``names`` and the peers among
    them (named ``"<peer> (peer)"``), and notes on those that could not be built."""
    methods: dict[str, Method] = {}
    notes: list[str] = []
    for name in names:
        if name in peers:
            continue
        try:
            methods[name] = extractor_method(get_extractor(name))
        except Exception as exc:  # a model missing, a library absent: noted, not fatal
            notes.append(f"{name} not available: {exc}")
    built, peer_notes = available_peers([n for n in names if n in peers])
    notes += peer_notes
    for peer in built:
        methods[peer.name + PEER_SUFFIX] = peer.extract
    return methods, notes


def run_method(run: Method, html: str, url: str) -> tuple[str, bool]:
    """``(text, True)`` from ``run(html, url)``; ``("", False)`` when it fails: a failing
    method extracts nothing and the benchmark carries on, as a crawl would."""
    try:
        return run(html, url), True
    except Exception:
        return "", False


def timed(name: str, run: Method, html: str, url: str, seconds: Counter[str],
          failures: Counter[str]) -> str:
    """:func:`run_method` with its time added to ``seconds[name]`` and a failure counted in
    ``failures[name]``."""
    t0 = time.perf_counter()
    text, ok = run_method(run, html, url)
    seconds[name] += time.perf_counter() - t0
    failures[name] += not ok
    return text


__all__ = ["PEER_SUFFIX", "Method", "build_methods", "extractor_method", "run_method", "timed"]
