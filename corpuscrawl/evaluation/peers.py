"""Adapters for peer extractors, for the benchmarks only (never runtime dependencies).

Every adapter takes the decoded HTML string (and the page URL) and returns
plain text, so peers are timed on their own parsing as they would run
standalone.  Settings are each library's defaults except where noted:

* trafilatura: ``extract(html, url=..., include_comments=False)`` — reader
  comments are not main text in any of our gold sets (the trafilatura
  evaluation script does the same).
* trafilatura-fast: the same with ``fast=True`` (no fallback extractors: trafilatura's
  own speed setting, the reference ``auto``'s docs/s are compared with).
* readability-lxml: ``Document(html).summary(html_partial=True)``, rendered to
  text with one line per block element.
* boilerpy3: ``ArticleExtractor().get_content(html)``.
* goose3: ``Goose().extract(raw_html=html).cleaned_text`` (no network: no URL
  fetching, no image fetching).
* jusText (raw library): ``justext.justext(html, get_stoplist("English"))``,
  non-boilerplate paragraphs — the library's plain use with a fixed English
  stoplist, unlike corpuscrawl's ``justext`` which detects the language.
* resiliparse: ``extract_plain_text(html, main_content=True)``.

An adapter whose library is not installed is simply absent from
:func:`available_peers`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import lxml.html

from corpuscrawl.html.dom import render_text

PeerFunc = Callable[[str, str], str]


@dataclass(frozen=True)
class Peer:
    """A named peer extractor: ``extract(html, url) -> text`` and its library version."""

    name: str
    extract: PeerFunc
    version: str


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"


def _trafilatura() -> Peer:
    import trafilatura

    def run(html: str, url: str) -> str:
        return trafilatura.extract(html, url=url or None, include_comments=False) or ""

    return Peer("trafilatura", run, _version("trafilatura"))


def _trafilatura_fast() -> Peer:
    import trafilatura

    def run(html: str, url: str) -> str:
        return trafilatura.extract(html, url=url or None, include_comments=False,
                                   fast=True) or ""

    return Peer("trafilatura-fast", run, _version("trafilatura"))


def _readability() -> Peer:
    from readability import Document

    def run(html: str, url: str) -> str:
        summary = Document(html, url=url or None).summary(html_partial=True)
        if not summary.strip():
            return ""
        return render_text(lxml.html.fromstring(summary))

    return Peer("readability-lxml", run, _version("readability-lxml"))


def _boilerpy3() -> Peer:
    from boilerpy3 import extractors

    extractor = extractors.ArticleExtractor()

    def run(html: str, url: str) -> str:
        return extractor.get_content(html) or ""

    return Peer("boilerpy3-article", run, _version("boilerpy3"))


def _goose3() -> Peer:
    from goose3 import Goose

    goose = Goose({"enable_image_fetching": False, "http_timeout": 1})

    def run(html: str, url: str) -> str:
        return goose.extract(raw_html=html).cleaned_text or ""

    return Peer("goose3", run, _version("goose3"))


def _justext_raw() -> Peer:
    import justext

    stoplist = justext.get_stoplist("English")

    def run(html: str, url: str) -> str:
        if not html.strip():
            return ""
        paragraphs = justext.justext(html.encode("utf-8"), stoplist, encoding="utf-8")
        return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    return Peer("justext-raw", run, _version("justext"))


def _resiliparse() -> Peer:
    from resiliparse.extract.html2text import extract_plain_text

    def run(html: str, url: str) -> str:
        return extract_plain_text(html, main_content=True) or ""

    return Peer("resiliparse", run, _version("resiliparse"))


FACTORIES: dict[str, Callable[[], Peer]] = {
    "trafilatura": _trafilatura,
    "trafilatura-fast": _trafilatura_fast,
    "readability-lxml": _readability,
    "boilerpy3-article": _boilerpy3,
    "goose3": _goose3,
    "justext-raw": _justext_raw,
    "resiliparse": _resiliparse,
}


def available_peers(names: list[str] | None = None) -> tuple[list[Peer], list[str]]:
    """Build the requested peers (default: all); returns (peers, notes on the missing ones)."""
    peers: list[Peer] = []
    notes: list[str] = []
    for name in names if names is not None else list(FACTORIES):
        factory = FACTORIES.get(name)
        if factory is None:
            raise ValueError(f"unknown peer {name!r}; known peers: {', '.join(FACTORIES)}")
        try:
            peers.append(factory())
        except ImportError as exc:
            notes.append(f"peer {name} not installed: {exc}")
    # Peers log a lot on odd pages; the benchmark counts failures itself.
    for logger in ("trafilatura", "readability", "goose3", "boilerpy3"):
        logging.getLogger(logger).setLevel(logging.CRITICAL)
    return peers, notes
