"""HTML report of method evaluations: score plots, F1 distributions, worst documents with diffs.

Output directory layout::

    index.html                       tables + plots, links to the diff pages
    scores-<dataset>.png             precision / recall / F1 per method (summed counts)
    f1-<dataset>.png                 per-document F1 distribution per method (box plot)
    worst-<dataset>-<method>.html    the lowest-F1 documents, extracted vs gold side by side

Plots use matplotlib's Agg backend (no display needed); matplotlib is an
optional dependency (``pip install corpuscrawl[report]``).
"""

from __future__ import annotations

import difflib
import html
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from corpuscrawl.evaluation.datasets import Dataset
from corpuscrawl.evaluation.scoring import MethodEvaluation
from corpuscrawl.evaluation.tables import format_table

__all__ = ["write_report", "WORST_DEFAULT"]

#: Documents shown per method in the "worst documents" pages: enough to see a pattern.
WORST_DEFAULT = 5
#: Column at which long paragraphs are wrapped in the diff tables.
WRAP_DEFAULT = 90

_STYLE = """
body { font-family: sans-serif; margin: 2em; } table { border-collapse: collapse; }
td, th { padding: 2px 6px; } pre { background: #f6f6f6; padding: 1em; overflow-x: auto; }
table.diff { font-family: monospace; font-size: 12px; } .diff_add { background: #aaffaa; }
.diff_chg { background: #ffff77; } .diff_sub { background: #ffaaaa; }
"""


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def plot_scores(evaluations: Sequence[MethodEvaluation], path: Path, title: str) -> None:
    """Grouped bars of summed precision, recall and F1 per method."""
    plt = _pyplot()
    methods = [ev.method for ev in evaluations]
    width = 0.27
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(methods) + 2), 4))
    for k, (label, getter) in enumerate((("precision", lambda s: s.precision),
                                         ("recall", lambda s: s.recall),
                                         ("F1", lambda s: s.f1))):
        xs = [i + (k - 1) * width for i in range(len(methods))]
        ax.bar(xs, [getter(ev.summary) for ev in evaluations], width, label=label)
    ax.set_xticks(range(len(methods)), methods, rotation=30, ha="right")
    ax.set_ylim(0, 1.12)  # headroom for the legend above the bars
    ax.set_title(title)
    ax.legend(loc="upper center", ncol=3, fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_f1_distribution(evaluations: Sequence[MethodEvaluation], path: Path, title: str) -> None:
    """Box plot of per-document F1 for every method."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(evaluations) + 2), 4))
    data = [[d.score.f1 for d in ev.docs] or [0.0] for ev in evaluations]
    ax.boxplot(data, showmeans=True)
    ax.set_xticks(range(1, len(evaluations) + 1), [ev.method for ev in evaluations],
                  rotation=30, ha="right")
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("per-document F1")
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _wrapped_lines(text: str, width: int) -> list[str]:
    out: list[str] = []
    for line in text.splitlines():
        out.extend(textwrap.wrap(line, width) or [""])
    return out


def write_worst_page(dataset: Dataset, ev: MethodEvaluation, path: Path,
                     worst: int = WORST_DEFAULT) -> None:
    """The ``worst`` lowest-F1 documents of a method with extracted-vs-gold diffs."""
    ranked = sorted(ev.docs, key=lambda d: (d.score.f1, d.doc))[:worst]
    differ = difflib.HtmlDiff(wrapcolumn=WRAP_DEFAULT)
    parts = [f"<!DOCTYPE html><meta charset='utf-8'><title>{html.escape(ev.method)} on "
             f"{html.escape(ev.dataset)}: worst documents</title><style>{_STYLE}</style>",
             f"<h1>{html.escape(ev.method)} on {html.escape(ev.dataset)}: "
             f"{len(ranked)} worst documents</h1>"]
    for d in ranked:
        extracted_path = ev.directory / f"{d.doc}.txt" if ev.directory else None
        extracted = (extracted_path.read_text(encoding="utf-8", errors="replace")
                     if extracted_path and extracted_path.is_file() else "")
        s = d.score
        parts.append(f"<h2>{html.escape(d.doc)}: F1 {s.f1:.3f} (P {s.precision:.3f}, "
                     f"R {s.recall:.3f}){'' if d.extracted else ' — no output'}</h2>")
        url = dataset.urls.get(d.doc)
        if url:
            parts.append(f"<p>{html.escape(url)}</p>")
        gold = dataset.gold(d.doc) or ""
        parts.append(differ.make_table(_wrapped_lines(extracted, WRAP_DEFAULT),
                                       _wrapped_lines(gold, WRAP_DEFAULT),
                                       "extracted", "gold", context=False))
    path.write_text("\n".join(parts), encoding="utf-8")


def write_report(datasets: Sequence[Dataset], evaluations: Sequence[MethodEvaluation],
                 out_dir: Path, methods_dir: str | None = None, ascii_only: bool = False,
                 worst: int = WORST_DEFAULT) -> Path:
    """Write the report into ``out_dir`` and return the path of ``index.html``.

    ``methods_dir`` and ``ascii_only`` are only recorded in the page (the
    evaluations already carry their scores and method directories).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    by_name = {ds.name: ds for ds in datasets}
    body = ["<!DOCTYPE html><meta charset='utf-8'><title>corpuscrawl evaluation report</title>",
            f"<style>{_STYLE}</style><h1>Extraction evaluation</h1>",
            "<p>Word-level LCS precision/recall/F1 from counts summed over documents; "
            "mean F1 is the per-document average. "
            f"ASCII-only: {'yes' if ascii_only else 'no'}."
            + (f" Method directories from {html.escape(methods_dir)}." if methods_dir else "")
            + "</p>",
            f"<pre>{html.escape(format_table(evaluations))}</pre>"]
    for name in sorted({ev.dataset for ev in evaluations}):
        group = [ev for ev in evaluations if ev.dataset == name]
        group.sort(key=lambda ev: -ev.summary.f1)
        body.append(f"<h2>{html.escape(name)}</h2>")
        scores_png = f"scores-{_safe(name)}.png"
        plot_scores(group, out_dir / scores_png, f"{name}: summed P/R/F1")
        body.append(f"<img src='{scores_png}' alt='scores on {html.escape(name)}'>")
        dist_png = f"f1-{_safe(name)}.png"
        plot_f1_distribution(group, out_dir / dist_png, f"{name}: per-document F1")
        body.append(f"<img src='{dist_png}' alt='F1 distribution on {html.escape(name)}'>")
        ds = by_name.get(name)
        if ds is None or not ds.has_gold:
            continue
        links = []
        for ev in group:
            page = f"worst-{_safe(name)}-{_safe(ev.method)}.html"
            write_worst_page(ds, ev, out_dir / page, worst)
            links.append(f"<a href='{page}'>{html.escape(ev.method)}</a>")
        body.append("<p>Worst documents with diffs: " + " · ".join(links) + "</p>")
    index = out_dir / "index.html"
    index.write_text("\n".join(body), encoding="utf-8")
    return index
