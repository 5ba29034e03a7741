"""trafilatura's real-world test suite as data: per page, strings its main text must and must not hold.

trafilatura's ``tests/realworld_tests.py`` extracts each of its cached pages and asserts
``"string" in result`` / ``"string" not in result`` on the text.  The cases file
(``benchmarks/data/trafilatura_realworld.jsonl``, derived from that test file's syntax tree by
``benchmarks/realworld_cases.py``) turns those assertions into data, one JSON object a
line: a first record ``{"source": {...}}`` says where the assertions come from (repository,
path, commit, licence) and how they were counted; every further line is one page::

    {"test": "test_extract", "url": "...", "source_file": "x.html", "dataset": "trafilatura",
     "page": "<dataset id>", "line": 123, "must": [...], "must_not": [...],
     "set_aside": [{"op": "in", "string": "...", "reason": "comment", "evidence": "..."}]}

``set_aside`` keeps what is not judged here, with why: strings of reader comments (the
test extracts with trafilatura's default ``include_comments=True``; comments are not main
text), formatting-only variants, metadata.

**Matching** mirrors the test's ``in`` on the returned string, with one allowance made
the same for every method: runs of whitespace count as one space on both sides, and the
text's start and end count as whitespace (a needle's leading or trailing space matches a
line break; extractors differ in how they break lines, which is not what the suite tests).
Nothing else is normalised: a page whose text keeps decomposed Unicode or soft hyphens
fails an assertion written in composed, unhyphenated form, as it does in trafilatura's
own test.  A page passes when every kept assertion passes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Failure", "RealworldCase", "RealworldError", "check", "contains", "load_cases", "normalize_space",
           "summary_counts"]

_SPACE_RE = re.compile(r"\s+")
_CASE_FIELDS = {"test", "url", "source_file", "dataset", "page", "line", "must", "must_not", "set_aside"}


class RealworldError(ValueError):
    """The cases file is malformed; the message names the file and the line."""


def normalize_space(text: str) -> str:
    """``text`` with every run of whitespace as one space (ends kept as a space too)."""
    return _SPACE_RE.sub(" ", text)


def contains(text: str, needle: str) -> bool:
    """True when ``needle`` occurs in ``text`` under the suite's matching rule (module doc)."""
    return normalize_space(needle) in " " + normalize_space(text) + " "


@dataclass(frozen=True)
class Failure:
    """One failed assertion: ``op`` is ``"in"`` (a string missing) or ``"not in"`` (present)."""

    op: str
    string: str


@dataclass(frozen=True)
class RealworldCase:
    """One page of the suite: the strings its main text must and must not hold."""

    test: str
    url: str
    source_file: str
    dataset: str
    page: str
    line: int
    must: tuple[str, ...] = ()
    must_not: tuple[str, ...] = ()
    set_aside: tuple[dict[str, Any], ...] = field(default=())

    @property
    def assertions(self) -> int:
        """Number of kept assertions."""
        return len(self.must) + len(self.must_not)


def check(case: RealworldCase, text: str) -> list[Failure]:
    """The kept assertions of ``case`` that ``text`` fails (empty: the page passes)."""
    failed = [Failure("in", s) for s in case.must if not contains(text, s)]
    failed += [Failure("not in", s) for s in case.must_not if contains(text, s)]
    return failed


def _strings(raw: dict, name: str, where: str) -> tuple[str, ...]:
    value = raw.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise RealworldError(f"{where}: {name} must be a list of non-empty strings")
    return tuple(value)


def _case(raw: Any, where: str) -> RealworldCase:
    if not isinstance(raw, dict):
        raise RealworldError(f"{where}: a case must be a JSON object")
    unknown = set(raw) - _CASE_FIELDS
    if unknown:
        raise RealworldError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    for name in ("test", "url", "source_file", "dataset", "page"):
        if not isinstance(raw.get(name), str) or not raw[name].strip():
            raise RealworldError(f"{where}: {name} must be a non-empty string")
    if not isinstance(raw.get("line"), int):
        raise RealworldError(f"{where}: line must be an integer")
    must, must_not = _strings(raw, "must", where), _strings(raw, "must_not", where)
    if not must and not must_not:
        raise RealworldError(f"{where}: a case needs at least one kept assertion")
    aside = raw.get("set_aside", [])
    if not isinstance(aside, list) or not all(isinstance(a, dict) and a.get("reason") for a in aside):
        raise RealworldError(f"{where}: set_aside must be a list of objects with a reason")
    return RealworldCase(test=raw["test"], url=raw["url"], source_file=raw["source_file"],
                         dataset=raw["dataset"], page=raw["page"], line=raw["line"],
                         must=must, must_not=must_not, set_aside=tuple(aside))


def load_cases(path: str | Path) -> tuple[dict[str, Any], list[RealworldCase]]:
    """The source record and the cases of a cases file; :class:`RealworldError` when malformed."""
    path = Path(path)
    source: dict[str, Any] | None = None
    cases: list[RealworldCase] = []
    seen: set[tuple[str, str]] = set()
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                raw = json.loads(line)
            except ValueError as exc:
                raise RealworldError(f"{where}: not JSON ({exc})") from None
            if source is None:
                if not isinstance(raw, dict) or not isinstance(raw.get("source"), dict):
                    raise RealworldError(f"{where}: the first record must be {{\"source\": {{...}}}}")
                source = raw["source"]
                continue
            case = _case(raw, where)
            if (case.test, case.url) in seen:
                raise RealworldError(f"{where}: {case.test} {case.url} is listed twice")
            seen.add((case.test, case.url))
            cases.append(case)
    if source is None:
        raise RealworldError(f"{path}: empty cases file")
    return source, cases


def summary_counts(cases: Sequence[RealworldCase]) -> dict[str, int]:
    """Pages, kept assertions (in / not in) and set-aside assertions of ``cases``."""
    return {"pages": len(cases),
            "in": sum(len(c.must) for c in cases),
            "not_in": sum(len(c.must_not) for c in cases),
            "set_aside": sum(len(c.set_aside) for c in cases)}
