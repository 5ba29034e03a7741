"""Score method directories against a dataset's gold and write ``evaluation.csv``.

Evaluation walks every method directory of a dataset, scores each
document that has gold text, and writes ``evaluation.csv`` in the method
directory: the overall result first (id :data:`OVERALL_ID`), then one row per
document.  Columns for gold-text datasets are :data:`GOLD_COLUMNS`; for
snippet datasets :data:`SNIPPET_COLUMNS` (see :mod:`.snippets`).

A document that has gold but no ``<id>.txt`` in the method directory (the
extractor failed on it, or was never run on it) is scored as an empty
extraction and marked ``extracted=0``, so methods are always compared on the
same documents.  Documents without gold are not scored.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from corpuscrawl.evaluation.datasets import Dataset
from corpuscrawl.evaluation.metrics import Score, Summary, score, summarize
from corpuscrawl.evaluation.snippets import (
    SnippetScore,
    SnippetSummary,
    score_snippets,
    summarize_snippets,
)

__all__ = ["CSV_NAME", "GOLD_COLUMNS", "OVERALL_ID", "SNIPPET_COLUMNS", "DocResult",
           "MethodEvaluation", "evaluate_dataset", "evaluate_method_dir", "evaluate_texts",
           "read_csv", "read_method_texts", "scored_ids", "write_csv"]

#: File written into each method directory.
CSV_NAME = "evaluation.csv"
#: The id of the first, overall row of ``evaluation.csv``.
OVERALL_ID = "__overall__"
GOLD_COLUMNS = ("id", "precision", "recall", "f1", "mean_f1", "tp", "fp", "fn", "levenshtein",
                "extracted")
SNIPPET_COLUMNS = ("id", "precision", "recall", "f1", "mean_f1", "tp", "fp", "fn", "with_found",
                   "with_total", "without_absent", "without_total", "extracted")


@dataclass(frozen=True, slots=True)
class DocResult:
    """One scored document: its id, score, and whether the method produced an output."""

    doc: str
    score: Score | SnippetScore
    extracted: bool


@dataclass(frozen=True)
class MethodEvaluation:
    """All scores of one method on one dataset."""

    dataset: str
    method: str
    kind: str  # "gold" or "snippets"
    docs: tuple[DocResult, ...]
    summary: Summary | SnippetSummary
    directory: Path | None = None  # the method directory, when scored from disk

    @property
    def missing(self) -> int:
        """Scored documents the method produced no output for."""
        return sum(1 for d in self.docs if not d.extracted)


def scored_ids(dataset: Dataset, ids: Sequence[str] | None = None) -> list[str]:
    """Ids that can be scored: a page exists and gold (or snippets) exist; optionally within ``ids``."""
    candidates = dataset.ids() if ids is None else [d for d in ids if d in dataset.html_files]
    if dataset.has_gold:
        return [d for d in candidates if dataset.gold_path(d).is_file()]
    snippets = dataset.snippets
    return [d for d in candidates if d in snippets]


def evaluate_texts(dataset: Dataset, method: str, texts: Mapping[str, str | None],
                   ids: Sequence[str] | None = None, ascii_only: bool = False,
                   with_levenshtein: bool = True) -> MethodEvaluation:
    """Score extracted ``texts`` (id -> text; None or absent = no output) on ``dataset``."""
    docs: list[DocResult] = []
    if dataset.has_gold:
        for doc in scored_ids(dataset, ids):
            text = texts.get(doc)
            gold = dataset.gold(doc) or ""
            docs.append(DocResult(doc, score(text or "", gold, ascii_only, with_levenshtein),
                                  text is not None))
        summary: Summary | SnippetSummary = summarize(d.score for d in docs)  # type: ignore[misc]
        kind = "gold"
    elif dataset.has_snippets:
        snippets = dataset.snippets
        for doc in scored_ids(dataset, ids):
            text = texts.get(doc)
            docs.append(DocResult(doc, score_snippets(text or "", snippets[doc]), text is not None))
        summary = summarize_snippets(d.score for d in docs)  # type: ignore[misc]
        kind = "snippets"
    else:
        raise ValueError(f"{dataset.path}: neither clean/ nor snippets.jsonl: nothing to score against")
    return MethodEvaluation(dataset.name, method, kind, tuple(docs), summary)


def read_method_texts(method_dir: Path, ids: Sequence[str]) -> dict[str, str | None]:
    """The texts a method directory holds for ``ids`` (None where there is no file)."""
    out: dict[str, str | None] = {}
    for doc in ids:
        path = method_dir / f"{doc}.txt"
        out[doc] = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    return out


def evaluate_method_dir(dataset: Dataset, method_dir: Path, ascii_only: bool = False,
                        write: bool = True, extracted_only: bool = False) -> MethodEvaluation:
    """Score one method directory and (by default) write its ``evaluation.csv``.

    ``extracted_only`` scores only documents the method has an output for (for
    partial runs); by default missing outputs count as empty extractions.
    """
    ids = scored_ids(dataset)
    if extracted_only:
        ids = [d for d in ids if (method_dir / f"{d}.txt").is_file()]
    result = evaluate_texts(dataset, method_dir.name, read_method_texts(method_dir, ids),
                            ids=ids, ascii_only=ascii_only)
    result = replace(result, directory=method_dir)
    if write:
        write_csv(result, method_dir / CSV_NAME)
    return result


def evaluate_dataset(dataset: Dataset, methods_root: str | Path | None = None,
                     ascii_only: bool = False, write: bool = True,
                     extracted_only: bool = False) -> list[MethodEvaluation]:
    """Score every method directory of ``dataset`` (or under ``methods_root``)."""
    return [evaluate_method_dir(dataset, d, ascii_only, write, extracted_only)
            for d in dataset.method_dirs(methods_root)]


def _fmt(x: float) -> str:
    return f"{x:.6f}"


def _row(doc: str, s: Score | SnippetScore, extracted: int, mean_f1: str = "") -> dict[str, str]:
    row = {"id": doc, "precision": _fmt(s.precision), "recall": _fmt(s.recall), "f1": _fmt(s.f1),
           "mean_f1": mean_f1, "tp": str(s.tp), "fp": str(s.fp), "fn": str(s.fn),
           "extracted": str(extracted)}
    if isinstance(s, SnippetScore):
        row.update(with_found=str(s.with_found), with_total=str(s.with_total),
                   without_absent=str(s.without_absent), without_total=str(s.without_total))
    else:
        row["levenshtein"] = "" if s.levenshtein is None else str(s.levenshtein)
    return row


def write_csv(result: MethodEvaluation, path: Path) -> None:
    """Write ``evaluation.csv``: the overall row (id ``__overall__``) first, then one row per document.

    In the overall row P/R/F1 come from summed counts, ``mean_f1`` is the
    per-document mean and ``extracted`` counts documents with an output.
    """
    columns = GOLD_COLUMNS if result.kind == "gold" else SNIPPET_COLUMNS
    s = result.summary
    if isinstance(s, SnippetSummary):
        overall = _row(OVERALL_ID, s.total, len(result.docs) - result.missing, _fmt(s.mean_f1))
    else:
        total = Score(tp=s.tp, fp=s.fp, fn=s.fn, levenshtein=s.levenshtein)
        overall = _row(OVERALL_ID, total, len(result.docs) - result.missing, _fmt(s.mean_f1))
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerow(overall)
        for d in result.docs:
            writer.writerow(_row(d.doc, d.score, int(d.extracted)))


def read_csv(path: Path) -> tuple[dict[str, str], list[dict[str, str]]]:
    """Read an ``evaluation.csv``: (overall row, per-document rows)."""
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows or rows[0].get("id") != OVERALL_ID:
        raise ValueError(f"{path}: not an evaluation.csv (first row must have id {OVERALL_ID})")
    return rows[0], rows[1:]
