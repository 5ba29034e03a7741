"""Tables of results, as aligned plain text or Markdown."""

from __future__ import annotations

from collections.abc import Sequence

from corpuscrawl.evaluation.lost import LostArticles, format_lost, lost_articles
from corpuscrawl.evaluation.metrics import Score, Summary
from corpuscrawl.evaluation.scoring import MethodEvaluation
from corpuscrawl.evaluation.snippets import SnippetSummary

__all__ = ["comparison_rows", "format_table", "lost_by_method", "markdown_table", "render"]

GOLD_HEADER = ("dataset", "method", "docs", "missing", "precision", "recall", "F1", "mean F1",
               "lost (gold words)", "Levenshtein")
SNIPPET_HEADER = ("dataset", "method", "docs", "missing", "precision", "recall", "F1",
                  "mean F1", "with found", "without absent")


def comparison_rows(evaluations: Sequence[MethodEvaluation]) -> tuple[list[tuple[str, ...]],
                                                                      list[tuple[str, ...]]]:
    """Rows for gold datasets and rows for snippet datasets, sorted by dataset then F1 descending."""
    gold: list[tuple[float, tuple[str, ...]]] = []
    snip: list[tuple[float, tuple[str, ...]]] = []
    lost = lost_by_method(evaluations)
    for ev in evaluations:
        s = ev.summary
        head = (ev.dataset, ev.method, str(s.documents), str(ev.missing),
                f"{s.precision:.3f}", f"{s.recall:.3f}", f"{s.f1:.3f}", f"{s.mean_f1:.3f}")
        if isinstance(s, SnippetSummary):
            snip.append((s.f1, head + (f"{s.with_found_share:.3f}",
                                       f"{s.without_absent_share:.3f}")))
        elif isinstance(s, Summary):
            lev = "" if s.levenshtein is None else str(s.levenshtein)
            gold.append((s.f1, head + (format_lost(lost.get((ev.dataset, ev.method))), lev)))

    def order(items: list[tuple[float, tuple[str, ...]]]) -> list[tuple[str, ...]]:
        return [row for _, row in sorted(items, key=lambda it: (it[1][0], -it[0], it[1][1]))]

    return order(gold), order(snip)


def lost_by_method(evaluations: Sequence[MethodEvaluation]
                   ) -> dict[tuple[str, str], LostArticles]:
    """Lost articles (:mod:`corpuscrawl.evaluation.lost`) of each gold-scored (dataset,
    method), compared on the documents every method of that dataset scored."""
    by_dataset: dict[str, list[MethodEvaluation]] = {}
    for ev in evaluations:
        if isinstance(ev.summary, Summary):
            by_dataset.setdefault(ev.dataset, []).append(ev)
    out: dict[tuple[str, str], LostArticles] = {}
    for dataset, evs in by_dataset.items():
        per_doc = [{d.doc: d.score for d in ev.docs if isinstance(d.score, Score)} for ev in evs]
        common = sorted(set.intersection(*(set(p) for p in per_doc)))
        lost = lost_articles({ev.method: [p[d] for d in common]
                              for ev, p in zip(evs, per_doc, strict=True)})
        out.update({(dataset, m): v for m, v in lost.items()})
    return out


def render(header: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool = False) -> str:
    """One table: Markdown (pipes) or plain text with aligned columns (numbers right-aligned)."""
    if markdown:
        lines = ["| " + " | ".join(header) + " |",
                 "|" + "|".join("---" if i < 2 else "---:" for i in range(len(header))) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=False)]
    out = []
    for r in [tuple(header), *rows]:
        cells = [c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)


def format_table(evaluations: Sequence[MethodEvaluation], markdown: bool = False) -> str:
    """The comparison table(s) for ``evaluations``: gold datasets, then snippet datasets."""
    gold, snip = comparison_rows(evaluations)
    parts = []
    if gold:
        parts.append(render(GOLD_HEADER, gold, markdown))
    if snip:
        parts.append(render(SNIPPET_HEADER, snip, markdown))
    return "\n\n".join(parts) if parts else "(no method directories to evaluate)"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]],
                   right_from: int | None = None) -> list[str]:
    """The lines of one Markdown table (every benchmark report writes its tables so);
    columns from index ``right_from`` on are right-aligned (numbers)."""
    rule = "".join("---:|" if right_from is not None and i >= right_from else "---|"
                   for i in range(len(header)))
    return ["| " + " | ".join(header) + " |", "|" + rule] + \
        ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]

