"""Extraction methods by name for the benchmarks: corpuscrawl's extractors and peer tools
alike, as ``run(html, url) -> text``, the one timed, failure-counting call of a method,
and the one loop running methods over a dataset's documents (:func:`run_dataset`).

A corpuscrawl extractor's run parses the page (:meth:`Page.from_html`) and extracts; a
peer's run does its own parsing (:mod:`corpuscrawl.evaluation.peers`), so times compare
whole methods.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from tqdm import tqdm

from corpuscrawl.evaluation.datasets import Dataset
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


@dataclass
class MethodRun:
    """What methods produced on a dataset's documents: per method, the text of each document
    (None where the method failed), its seconds in total and its failures."""

    texts: dict[str, dict[str, str | None]] = field(default_factory=lambda: defaultdict(dict))
    seconds: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)


def run_dataset(dataset: Dataset, ids: Sequence[str], methods: Mapping[str, Method],
                progress: bool = True) -> MethodRun:
    """Every method on every document ``ids`` of ``dataset``, timed (:func:`timed`), in one
    process.  Each page is decoded once (not timed); every method then gets the decoded
    HTML and the page's URL, as in a crawl, and does its own parsing."""
    out = MethodRun()
    urls = dataset.urls
    for doc in tqdm(ids, desc=dataset.name, unit="page", dynamic_ncols=True,
                    disable=not progress):
        html = dataset.read_html(doc)
        url = urls.get(doc, "")
        for name, run in methods.items():
            failed = out.failures[name]
            text = timed(name, run, html, url, out.seconds, out.failures)
            out.texts[name][doc] = text if out.failures[name] == failed else None
    return out


__all__ = ["PEER_SUFFIX", "Method", "MethodRun", "build_methods", "extractor_method",
           "run_dataset", "run_method", "timed"]
