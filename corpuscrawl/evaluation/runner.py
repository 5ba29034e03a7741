"""Run registered extractors over a dataset's pages and write one directory per method.

Each page is read and parsed once (:class:`~corpuscrawl.html.page.Page`), then every
requested extractor runs on that same Page; the text goes to
``<out>/<method>/<id>.txt`` where ``<method>`` is :func:`method_name` of the
extractor instance.  Work is spread over processes; every worker builds its
own extractors from their :class:`ExtractorSpec` (name + options), so
extractor objects never need to be picklable.

Failures never abort a run: a page that cannot be read, or an extractor that
raises on a page, is logged and counted, **no** ``<id>.txt`` is written for it
(so a failure is not mistaken for the valid "no content" answer, an empty file)
and the failure is appended to ``<out>/<method>/errors.jsonl``.  Evaluation
scores a missing output as an empty extraction, so failures cost recall.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpuscrawl.evaluation.datasets import Dataset
from corpuscrawl.extract.base import Extractor, ExtractorError
from corpuscrawl.extract.spec import ExtractorSpec, parse_spec
from corpuscrawl.html.page import Page

logger = logging.getLogger("corpuscrawl.evaluation")

__all__ = ["ERRORS_FILE", "ExtractorSpec", "available_specs", "RunResult", "build_extractors", "method_name",
           "parse_spec", "run_extraction"]

#: Per-method file listing the pages an extractor failed on (one JSON object a line).
ERRORS_FILE = "errors.jsonl"
#: Pages per task handed to a worker process: large enough to amortise IPC, small
#: enough that the progress bar moves (ms per page: benchmarks/results/gate.md).
CHUNKSIZE_DEFAULT = 4


def method_name(extractor: Extractor) -> str:
    """Name of the method directory for an extractor instance.

    An optional ``method_name`` attribute wins (trained models put their
    training timestamp there); otherwise the extractor's ``name``
    (``template-<name>`` for templates).
    """
    name = getattr(extractor, "method_name", None) or extractor.name
    if not name or "/" in name or name in {".", ".."}:
        raise ExtractorError(f"extractor {extractor!r} has an unusable method name {name!r}")
    return str(name)


def build_extractors(specs: Sequence[ExtractorSpec]) -> list[Extractor]:
    """Build every spec, in order; the first bad one raises ExtractorError."""
    return [spec.build() for spec in specs]


def available_specs(names: Sequence[str] | None = None) -> tuple[list[ExtractorSpec], list[str]]:
    """Specs of the registered extractors that build without options (default: all names).

    Returns (specs, notes): an extractor that needs configuration (``template``
    needs a file, a trained model may be missing) is skipped with a note
    saying why, so "all" keeps working as engineers add extractors.
    """
    from corpuscrawl.extract import names as registry_names

    specs: list[ExtractorSpec] = []
    notes: list[str] = []
    for name in names if names is not None else registry_names():
        spec = ExtractorSpec(name)
        try:
            spec.build()
        except Exception as exc:  # any failure to build = not usable without configuration
            notes.append(f"skipped {name}: {exc}")
            continue
        specs.append(spec)
    return specs, notes


@dataclass
class RunResult:
    """What a run produced: pages seen and, per method, pages written and failures."""

    pages: int = 0
    unreadable: int = 0
    written: Counter[str] = field(default_factory=Counter)
    failed: Counter[str] = field(default_factory=Counter)
    methods: list[str] = field(default_factory=list)


# ---- worker side -------------------------------------------------------------------

_worker_extractors: list[Extractor] = []


def _init_worker(specs: Sequence[ExtractorSpec]) -> None:
    global _worker_extractors
    _worker_extractors = build_extractors(specs)


def _process(task: tuple[str, str, str]) -> tuple[str, dict[str, str | None], str | None]:
    """Parse one page and run every extractor; returns (id, method -> text or None, page error)."""
    doc, path, url = task
    try:
        page = Page.from_file(path, url=url)
    except Exception as exc:  # any unreadable file: reported, never fatal
        return doc, {}, f"{type(exc).__name__}: {exc}"
    return doc, run_on_page(_worker_extractors, page, doc), None


def run_on_page(extractors: Sequence[Extractor], page: Page, doc: str = "") -> dict[str, str | None]:
    """Run every extractor on one parsed page: method name -> text, or None when it raised."""
    out: dict[str, str | None] = {}
    for ex in extractors:
        try:
            out[method_name(ex)] = ex.extract(page)
        except Exception:
            logger.warning("extractor %s failed on %s:\n%s", ex.name, doc or page.url,
                           traceback.format_exc(limit=3))
            out[method_name(ex)] = None
    return out


def _results(tasks: list[tuple[str, str, str]], specs: Sequence[ExtractorSpec], jobs: int,
             ) -> Iterator[tuple[str, dict[str, str | None], str | None]]:
    if jobs <= 1 or len(tasks) <= 1:
        _init_worker(specs)
        yield from map(_process, tasks)
        return
    ctx = multiprocessing.get_context("spawn" if os.name == "nt" else "fork")
    with ctx.Pool(jobs, initializer=_init_worker, initargs=(tuple(specs),)) as pool:
        yield from pool.imap_unordered(_process, tasks, chunksize=CHUNKSIZE_DEFAULT)


# ---- driver side -------------------------------------------------------------------

def run_extraction(dataset: Dataset, specs: Sequence[ExtractorSpec], out_dir: str | Path | None = None,
                   jobs: int | None = None, ids: Sequence[str] | None = None,
                   progress: bool = True,
                   on_page: Callable[[str], None] | None = None) -> RunResult:
    """Extract every page of ``dataset`` (or only ``ids``) with every spec.

    Writes ``<out_dir>/<method>/<id>.txt`` (``out_dir`` defaults to the dataset
    directory).  Extractors are built once up front so that a bad name or
    option fails before any work starts.  ``jobs`` defaults to the number of
    CPUs.  Returns counts of what was written and what failed.
    """
    extractors = build_extractors(specs)
    methods = [method_name(ex) for ex in extractors]
    dupes = sorted(m for m, n in Counter(methods).items() if n > 1)
    if dupes:
        raise ExtractorError(f"two extractors would write to the same directory: {', '.join(dupes)}")
    base = Path(out_dir) if out_dir else dataset.path
    for m in methods:
        (base / m).mkdir(parents=True, exist_ok=True)
        (base / m / ERRORS_FILE).unlink(missing_ok=True)

    files = dataset.html_files
    chosen = list(files) if ids is None else [d for d in ids if d in files]
    urls = dataset.urls
    tasks = [(doc, str(files[doc]), urls.get(doc, "")) for doc in chosen]
    result = RunResult(methods=methods)
    bar = _progress_bar(len(tasks), dataset.name, progress)
    try:
        for doc, texts, page_error in _results(tasks, specs, jobs or os.cpu_count() or 1):
            result.pages += 1
            if page_error is not None:
                result.unreadable += 1
                logger.warning("cannot read page %s: %s", files[doc], page_error)
                for m in methods:
                    _record_failure(base / m, doc, f"page unreadable: {page_error}")
                    result.failed[m] += 1
            for m, text in texts.items():
                if text is None:
                    result.failed[m] += 1
                    _record_failure(base / m, doc, "extractor raised (see log)")
                else:
                    (base / m / f"{doc}.txt").write_text(text, encoding="utf-8")
                    result.written[m] += 1
            if on_page:
                on_page(doc)
            bar.update(1)
    finally:
        bar.close()
    return result


def _record_failure(method_dir: Path, doc: str, reason: str) -> None:
    (method_dir / f"{doc}.txt").unlink(missing_ok=True)  # never leave a stale old output
    with (method_dir / ERRORS_FILE).open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": doc, "error": reason}, ensure_ascii=False) + "\n")


class _NoBar:
    def update(self, n: int = 1) -> None:
        """Do nothing (progress display disabled)."""

    def close(self) -> None:
        """Do nothing."""


def _progress_bar(total: int, desc: str, enabled: bool) -> Any:
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="page", dynamic_ncols=True)
