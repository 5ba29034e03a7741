"""A crawl's report: one self-contained HTML page with the plots a person checks after a crawl.

Input: a corpus feed (JSON Lines or a JSON array, as ``-O corpus.jsonl`` writes) and/or its
summary (``corpus.jsonl.summary.json``, found beside the feed; :mod:`corpuscrawl.report.summary`).
Plots (matplotlib, Agg backend, PNGs embedded in the page so it is one file):

* documents per domain (top :data:`TOP_DEFAULT`) and per language — from the documents;
* the text length distribution (words per document, log scale) — from the documents;
* boilerplate paragraphs removed and near-duplicates dropped per domain (the summary's
  per-domain figures of the export stage; for an older summary, the documents'
  ``removed_boilerplate`` and the documents extracted but not exported);
* errors by type — from the summary;
* fetch rate and documents exported over time — from the summary's ``timeline``
  (:mod:`corpuscrawl.report.scrapy_glue.progress`).

A plot whose data is missing (no summary, an empty corpus) is replaced by a sentence saying
what it needs.  Plain library code: no Scrapy.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Domains shown in the per-domain plots.
TOP_DEFAULT = 25
SUMMARY_SUFFIX = ".summary.json"


class ReportInputError(ValueError):
    """The report's input cannot be read; the message names the file and why."""


@dataclass
class CrawlData:
    """What the report reads: per-document figures and the crawl's summary."""

    source: str = ""
    documents: int = 0
    by_domain: Counter[str] = field(default_factory=Counter)
    by_language: Counter[str] = field(default_factory=Counter)
    words: list[int] = field(default_factory=list)
    boilerplate_by_domain: Counter[str] = field(default_factory=Counter)
    summary: dict[str, Any] | None = None


def _documents(path: Path) -> Iterator[dict[str, Any]]:
    """The documents of a JSON Lines or JSON-array feed."""
    try:
        with path.open(encoding="utf-8") as f:
            head = f.read(1)
            f.seek(0)
            if head == "[":
                data = json.load(f)
                yield from (d for d in data if isinstance(d, dict))
                return
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    doc = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ReportInputError(f"{path} line {n}: not JSON ({exc.msg})") from exc
                if isinstance(doc, dict):
                    yield doc
    except UnicodeDecodeError as exc:
        raise ReportInputError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        raise ReportInputError(f"{path}: not JSON ({exc.msg})") from exc
    except OSError as exc:
        raise ReportInputError(f"cannot read {path}: {exc.strerror or exc}") from exc


def read_summary(path: Path) -> dict[str, Any]:
    """A summary file (ReportInputError when it is not one)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReportInputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReportInputError(f"{path}: not a JSON summary ({exc})") from exc
    if not isinstance(data, dict) or data.get("format") != "corpuscrawl-crawl-summary":
        raise ReportInputError(f"{path}: not a corpuscrawl crawl summary")
    return data


def load(path: str | Path) -> CrawlData:
    """Read a feed (and the summary beside it) or a summary alone."""
    path = Path(path)
    if not path.is_file():
        raise ReportInputError(f"no such file: {path}")
    if path.name.endswith(SUMMARY_SUFFIX):
        return CrawlData(source=str(path), summary=read_summary(path))
    data = CrawlData(source=str(path))
    for doc in _documents(path):
        data.documents += 1
        domain = str(doc.get("domain") or "?")
        data.by_domain[domain] += 1
        data.by_language[str(doc.get("language") or "unknown")] += 1
        data.words.append(len(str(doc.get("text") or "").split()))
        removed = doc.get("removed_boilerplate")
        if isinstance(removed, int) and removed > 0:
            data.boilerplate_by_domain[domain] += removed
    summary = path.with_name(path.name + SUMMARY_SUFFIX)
    if summary.is_file():
        data.summary = read_summary(summary)
    return data


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    _pyplot().close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def bar_plot(counts: Mapping[str, float], title: str, xlabel: str, top: int = TOP_DEFAULT) -> str:
    """A horizontal bar chart of the largest ``top`` counts, as base64 PNG."""
    plt = _pyplot()
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top][::-1]
    fig, ax = plt.subplots(figsize=(8, max(2.0, 0.3 * len(items) + 1)))
    ax.barh([k for k, _ in items], [v for _, v in items], color="#4c72b0")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    return _png(fig)


def length_plot(words: Sequence[int]) -> str:
    """Histogram of words per document (log-spaced bins), as base64 PNG."""
    import numpy as np

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 3.5))
    values = np.maximum(np.asarray(words, dtype=float), 1)
    bins = np.logspace(0, max(1.0, float(np.log10(values.max())) + 0.1), 30)
    ax.hist(values, bins=bins, color="#55a868")
    ax.set_xscale("log")
    ax.set_xlabel("words per document")
    ax.set_ylabel("documents")
    ax.set_title(f"Text length ({len(words)} documents, median {int(np.median(values))} words)")
    return _png(fig)


def timeline_plot(timeline: Mapping[str, Any]) -> str:
    """Fetch rate (pages/s) and documents exported over time, as base64 PNG."""
    plt = _pyplot()
    columns = list(timeline.get("columns") or [])
    rows = [r for r in timeline.get("rows") or [] if len(r) == len(columns)]
    seconds = [r[columns.index("seconds")] for r in rows]
    fetched = [r[columns.index("fetched")] for r in rows]
    exported = [r[columns.index("exported")] for r in rows]
    rate = [0.0] + [(f1 - f0) / (t1 - t0) if t1 > t0 else 0.0
                    for t0, t1, f0, f1 in zip(seconds, seconds[1:], fetched, fetched[1:], strict=False)]
    fig, ax = plt.subplots(figsize=(8, 3.5))
    ax.plot(seconds, rate, color="#4c72b0", label="pages fetched per second")
    ax.set_xlabel("seconds since the start")
    ax.set_ylabel("pages / s")
    other = ax.twinx()
    other.plot(seconds, exported, color="#dd8452", label="documents exported (total)")
    other.set_ylabel("documents")
    lines = ax.get_lines() + other.get_lines()
    ax.legend(lines, [line.get_label() for line in lines], loc="upper left")
    ax.set_title("Fetch rate over time")
    return _png(fig)


def _figure(title: str, png: str | None, missing: str) -> str:
    if png is None:
        return f"<section><h2>{html.escape(title)}</h2><p class='missing'>{html.escape(missing)}</p></section>"
    return (f"<section><h2>{html.escape(title)}</h2>"
            f"<img alt='{html.escape(title)}' src='data:image/png;base64,{png}'></section>")


def _headline(data: CrawlData) -> list[tuple[str, str]]:
    rows = [("input", data.source), ("documents in the corpus", f"{data.documents:,}")]
    summary = data.summary
    if summary:
        pages, docs = summary.get("pages", {}), summary.get("documents", {})
        elapsed = summary.get("elapsed_seconds")
        rows += [("crawl", f"{summary.get('finish_reason') or '?'}"
                  + (f" after {elapsed:.0f} s" if isinstance(elapsed, int | float) else "")),
                 ("pages fetched", f"{pages.get('fetched', 0):,}"),
                 ("documents extracted / exported",
                  f"{pages.get('extracted', 0):,} / {docs.get('exported', 0):,}"),
                 ("boilerplate paragraphs removed",
                  f"{summary.get('boilerplate', {}).get('paragraphs_removed', 0):,}"),
                 ("near-duplicates dropped", f"{summary.get('duplicates_dropped', 0):,}"),
                 ("errors", f"{summary.get('errors', {}).get('total', 0):,}")]
        scope = summary.get("scope") or {}
        if scope.get("dropped"):
            rows.append(("dropped by scope rules", f"{scope['dropped']:,}"))
    return rows


def render_html(data: CrawlData) -> str:
    """The report page."""
    summary = data.summary or {}
    domains = summary.get("domains") or {}
    if any("duplicates_dropped" in c for c in domains.values()):
        dropped = {d: c["duplicates_dropped"] for d, c in domains.items()
                   if c.get("duplicates_dropped")}
        dropped_title = "Near-duplicates dropped per domain"
    else:  # a summary without the export stage's per-domain figures
        dropped = {d: c.get("documents", 0) - c.get("exported", 0) for d, c in domains.items()
                   if c.get("documents", 0) > c.get("exported", 0)}
        dropped_title = "Extracted but not exported (near-duplicates, boilerplate only)"
    boilerplate = Counter({d: c["boilerplate_paragraphs"] for d, c in domains.items()
                           if c.get("boilerplate_paragraphs")}) or data.boilerplate_by_domain
    errors = (summary.get("errors") or {}).get("by_type") or {}
    timeline = summary.get("timeline") or {}
    no_docs = "needs the corpus (a JSON Lines or JSON feed) with documents"
    no_summary = "needs the crawl's summary (<feed>.summary.json beside the feed)"
    figures = [
        _figure("Documents per domain", bar_plot(data.by_domain, "Documents per domain", "documents")
                if data.by_domain else None, no_docs),
        _figure("Documents per language", bar_plot(data.by_language, "Documents per language",
                                                   "documents") if data.by_language else None, no_docs),
        _figure("Text length", length_plot(data.words) if data.words else None, no_docs),
        _figure("Boilerplate removed per domain",
                bar_plot(boilerplate, "Boilerplate paragraphs removed per domain", "paragraphs")
                if boilerplate else None,
                "no boilerplate paragraphs removed" if data.documents or summary else no_docs),
        _figure("Duplicates dropped per domain",
                bar_plot(dropped, dropped_title, "documents") if dropped else None,
                "no duplicates dropped" if summary else no_summary),
        _figure("Errors by type", bar_plot(errors, "Errors by type", "requests or pages")
                if errors else None, "no errors" if summary else no_summary),
        _figure("Fetch rate over time", timeline_plot(timeline)
                if len(timeline.get("rows") or []) >= 2 else None,
                "needs a summary with a timeline (corpuscrawl.report.scrapy_glue.progress)" if not summary
                else "the crawl was too short for a timeline"),
    ]
    head = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                   for k, v in _headline(data))
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            "<title>corpuscrawl crawl report</title><style>"
            "body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}"
            "th{text-align:left;padding-right:1em}img{max-width:100%}.missing{color:#777}"
            "section{margin:2em 0}</style></head><body>"
            f"<h1>Crawl report</h1><table>{head}</table>{''.join(figures)}</body></html>\n")


def write_crawl_report(path: str | Path, out_dir: str | Path) -> Path:
    """Write ``out_dir/index.html`` for the feed or summary ``path``; returns its path."""
    data = load(path)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    index = out / "index.html"
    index.write_text(render_html(data), encoding="utf-8")
    return index
