"""Regression cases: strings that must, and must not, be in the text extracted from a page.

A case names a page of a dataset on disk (never its HTML: the pages stay in
the datasets directory) and what a reader expects of its extracted text,
chosen by reading the page and its gold text or snippets:

* ``must`` — substrings that must occur (a sentence kept, on one line: the
  text is normalised, so one space separates the words of a line);
* ``must_not`` — substrings that must not occur anywhere (a soft hyphen, a
  combining mark of decomposed Unicode, a boilerplate sentence);
* ``must_not_line`` — whole lines that must not occur (a "Related posts"
  heading, a byline, a "5 min read" badge: short strings that could be part of
  a content sentence, but never a line of the article);
* ``why`` — what the case guards; ``tags`` — the kind of case;
* ``xfail`` — extractor name -> reason, for a case an extractor fails today
  (the test suite marks it ``xfail(strict=True)``, so it turns into a failure
  to remove the mark once fixed).

The cases file is TOML with one ``[[case]]`` table per case.  Pages of the
test part of :func:`corpuscrawl.evaluation.datasets.split` are refused: the
suite is built on the development data only.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpuscrawl.evaluation.datasets import Dataset, DatasetError, is_test
from corpuscrawl.html.page import Page

__all__ = ["Case", "CaseError", "check", "load_cases", "page_of"]

_FIELDS = {"dataset", "page", "must", "must_not", "must_not_line", "why", "tags", "xfail"}


class CaseError(ValueError):
    """The cases file is malformed; the message names the file and the case."""


@dataclass(frozen=True)
class Case:
    """One page and the strings its extracted text must and must not hold."""

    dataset: str
    page: str
    why: str
    must: tuple[str, ...] = ()
    must_not: tuple[str, ...] = ()
    must_not_line: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    xfail: Mapping[str, str] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """``dataset/page``: the case's name in test ids and reports."""
        return f"{self.dataset}/{self.page}"


def _strings(raw: Mapping[str, Any], name: str, where: str) -> tuple[str, ...]:
    value = raw.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise CaseError(f"{where}: {name} must be a list of non-empty strings")
    return tuple(value)


def _case(raw: Any, where: str, dev_only: bool) -> Case:
    if not isinstance(raw, Mapping):
        raise CaseError(f"{where}: a case must be a table")
    unknown = set(raw) - _FIELDS
    if unknown:
        raise CaseError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}; "
                        f"known: {', '.join(sorted(_FIELDS))}")
    for name in ("dataset", "page", "why"):
        if not isinstance(raw.get(name), str) or not raw[name].strip():
            raise CaseError(f"{where}: {name} must be a non-empty string")
    xfail = raw.get("xfail", {})
    if not isinstance(xfail, Mapping) or not all(isinstance(v, str) and v for v in xfail.values()):
        raise CaseError(f"{where}: xfail must be a table of extractor name = reason")
    case = Case(dataset=raw["dataset"], page=raw["page"], why=raw["why"],
                must=_strings(raw, "must", where), must_not=_strings(raw, "must_not", where),
                must_not_line=_strings(raw, "must_not_line", where),
                tags=_strings(raw, "tags", where), xfail=dict(xfail))
    if not (case.must or case.must_not or case.must_not_line):
        raise CaseError(f"{where}: a case needs at least one must, must_not or must_not_line string")
    if dev_only and is_test(case.page):
        raise CaseError(f"{where}: {case.key} is in the test split; regression cases use "
                        "development pages only")
    return case


def load_cases(path: str | Path, dev_only: bool = True) -> list[Case]:
    """The cases of a TOML file, validated (raises :class:`CaseError` naming file and case).

    With ``dev_only`` (cases on benchmark datasets) a page of the test split is an
    error; hand-written fixture pages are not in any split.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CaseError(f"{path}: {exc}") from exc
    raw_cases = data.get("case")
    if not isinstance(raw_cases, list) or not raw_cases:
        raise CaseError(f"{path}: no [[case]] tables")
    cases = [_case(raw, f"{path}, case {i + 1} ({raw.get('dataset')}/{raw.get('page')})"
                   if isinstance(raw, Mapping) else f"{path}, case {i + 1}", dev_only)
             for i, raw in enumerate(raw_cases)]
    seen: set[str] = set()
    for case in cases:
        if case.key in seen:
            raise CaseError(f"{path}: {case.key} has two cases; merge them")
        seen.add(case.key)
    return cases


def check(case: Case, text: str) -> list[str]:
    """What the extracted ``text`` gets wrong for ``case`` (empty when it passes)."""
    problems = [f"missing {s!r}" for s in case.must if s not in text]
    problems += [f"present {s!r}" for s in case.must_not if s in text]
    lines = set(text.split("\n"))
    problems += [f"line present {s!r}" for s in case.must_not_line if s in lines]
    return problems


def page_of(case: Case, datasets: Sequence[Dataset] | Iterable[Dataset]) -> Page:
    """The parsed page of ``case`` from the datasets on disk (raises DatasetError if absent)."""
    for ds in datasets:
        if ds.name == case.dataset:
            if case.page not in ds.html_files:
                raise DatasetError(f"{case.key}: no such page in {ds.path}")
            return ds.load_page(case.page)
    raise DatasetError(f"{case.key}: no dataset named {case.dataset!r}")
