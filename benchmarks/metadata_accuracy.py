"""Accuracy of page metadata (site name, description, categories, tags, licence, image,
modified date, canonical URL) on dataset pages labelled by reading them.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/metadata_accuracy.py [--datasets DIR] [--write]

Labels: ``benchmarks/data/metadata_labels.jsonl``, one page per line (dataset, id and a
value per field; ``null``: not judged).  What was judged on each page is what a reader
sees or what the page declares about itself, read from its HTML by a person: the site's
name as the site writes it, the page's own summary, the main picture, the date of the last
change, the page's preferred address, its sections and tags, its licence ("" when it has
none).  A value is right when (strings) it equals the label ignoring case, (description,
image, canonical URL) it starts with the labelled prefix, (modified) its day is the
labelled day, (categories, tags) as the F1 of the two sets.  corpuscrawl's
:func:`~corpuscrawl.extract.meta.page_info.extract_page_info` is compared with
trafilatura's ``extract_metadata`` (when installed) on the same pages, and both are timed.
``--write`` puts the table into ``benchmarks/results/metadata.md`` (notes below the marker
are kept).
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corpuscrawl.evaluation.results_file import write_run
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract.meta.page_info import extract_page_info
from corpuscrawl.html.page import Page

HERE = Path(__file__).resolve().parent
LABELS = HERE / "data" / "metadata_labels.jsonl"
FIELDS = ("site_name", "description", "categories", "tags", "license", "image", "modified",
          "canonical_url")


def _norm(value: str) -> str:
    return " ".join(str(value or "").split()).lower().rstrip("/")


def score(field: str, label: Any, value: Any) -> float:
    """1.0 when ``value`` matches ``label`` (see the module docstring), else 0.0; a set F1
    for categories and tags."""
    if field in ("categories", "tags"):
        truth = {_norm(t) for t in label}
        got = {_norm(t) for t in value or []}
        if not truth and not got:
            return 1.0
        common = len(truth & got)
        if not common:
            return 0.0
        p, r = common / len(got), common / len(truth)
        return 2 * p * r / (p + r)
    if field == "modified":
        return float(str(value or "")[:10] == label)
    if field in ("description", "image", "canonical_url"):
        if label == "":
            return float(not value)
        return float(_norm(value).startswith(_norm(label)))
    return float(_norm(value) == _norm(label))


def ours(page: Page) -> dict[str, Any]:
    """corpuscrawl's fields of ``page``."""
    info = extract_page_info(page)
    return {f: getattr(info, f) for f in FIELDS}


def trafilatura_fields(page: Page) -> dict[str, Any] | None:
    """trafilatura's metadata of ``page`` under our field names (None when not installed)."""
    try:
        from trafilatura.metadata import extract_metadata
    except ImportError:
        return None
    meta = extract_metadata(page.html, default_url=page.url)
    if meta is None:
        return dict.fromkeys(FIELDS, "")
    return {"site_name": meta.sitename or "", "description": meta.description or "",
            "categories": list(meta.categories or []), "tags": list(meta.tags or []),
            "license": meta.license or "", "image": meta.image or "",
            "modified": None, "canonical_url": meta.url or ""}  # no date of last change


def run(datasets: Path) -> tuple[list[list[str]], int]:
    """The table rows (field, pages judged, ours, trafilatura) and the number of pages."""
    labels = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line]
    methods: dict[str, Callable[[Page], dict[str, Any] | None]] = {
        "corpuscrawl": ours, "trafilatura": trafilatura_fields}
    totals: dict[str, dict[str, float]] = {m: dict.fromkeys(FIELDS, 0.0) for m in methods}
    judged: dict[str, dict[str, int]] = {m: dict.fromkeys(FIELDS, 0) for m in methods}
    counts = dict.fromkeys(FIELDS, 0)
    times = dict.fromkeys(methods, 0.0)
    misses: list[str] = []
    for label in labels:
        manifest = {json.loads(x)["id"]: json.loads(x) for x in
                    (datasets / label["dataset"] / "manifest.jsonl").read_text().splitlines() if x}
        raw = gzip.decompress((datasets / label["dataset"] / "html" / f"{label['id']}.html.gz")
                              .read_bytes())
        page = Page.from_html(raw, url=manifest[label["id"]]["url"])
        results = {}
        for name, method in methods.items():
            start = time.perf_counter()
            results[name] = method(page)
            times[name] += time.perf_counter() - start
        for field in FIELDS:
            if label.get(field) is None:
                continue
            counts[field] += 1
            for name, got in results.items():
                if got is not None and got[field] is not None:
                    s = score(field, label[field], got[field])
                    totals[name][field] += s
                    judged[name][field] += 1
                    if name == "corpuscrawl" and s < 1:
                        misses.append(f"{label['dataset']}/{label['id'][:12]} {field}: "
                                      f"{got[field]!r} (label {label[field]!r})")
    rows = []
    for field in FIELDS:
        cells = [field, str(counts[field])]
        for name in methods:
            n = judged[name][field]
            cells.append(f"{totals[name][field] / n:.2f}" if n else "n/a")
        rows.append(cells)
    n_pages = len(labels)
    rows.append(["ms per page", str(n_pages)] + [f"{1000 * times[m] / n_pages:.1f}" for m in methods])
    for miss in misses:
        print("miss:", miss)
    return rows, n_pages


def main() -> None:
    """Score, print the table and (``--write``) record it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=HERE.parent.parent / "shared" / "datasets")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    rows, n_pages = run(args.datasets)
    table = markdown_table(["field", "pages judged", "corpuscrawl", "trafilatura"], rows,
                           right_from=1)
    print("\n".join(table))
    if args.write:
        write_run(HERE / "results" / "metadata.md", [
            "# Page metadata: accuracy on labelled pages", "",
            f"{n_pages} pages from wcxb (dev), trafilatura and scrapinghub, labelled by reading "
            "their HTML (`benchmarks/data/metadata_labels.jsonl`); command: "
            "`PYTHONPATH=$PWD .venv/bin/python benchmarks/metadata_accuracy.py --write`.", "",
            *table, ""])


if __name__ == "__main__":
    main()
