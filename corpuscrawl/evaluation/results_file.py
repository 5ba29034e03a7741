"""A benchmark run written into its results file without rewriting what people wrote there.

A results file (``benchmarks/results/NAME.md``) holds a short head, the current figures
with their command, and below it the history, both written by people.  A run of the
benchmark adds its generated report as one dated section just below
:data:`RUNS_MARKER` (newest first), so neither the head nor the history is ever
rewritten: the person who reads the run updates the head.  A path that does not exist
yet (``--out /tmp/x.md``) gets the report alone, as generated.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

#: A run's dated section goes just below this line of its results file.
RUNS_MARKER = "<!-- benchmark runs: each run adds its dated section below this line -->"

__all__ = ["RUNS_MARKER", "dated_section", "write_run"]


def dated_section(lines: Sequence[str], when: datetime) -> list[str]:
    """The generated report ``lines`` as one section of a results file: its ``# title``
    becomes ``## Run <when>: title`` and every other heading goes one level down."""
    body = list(lines)
    title = body.pop(0).lstrip("#").strip() if body and body[0].startswith("# ") else ""
    heading = f"## Run {when:%Y-%m-%d %H:%M} UTC" + (f": {title}" if title else "")
    return [heading, *("#" + line if line.startswith("#") else line for line in body)]


def write_run(out: Path, lines: Sequence[str], when: datetime | None = None) -> None:
    """Write a benchmark's report ``lines`` to ``out``: the report alone when ``out`` does
    not exist, else as a dated section below :data:`RUNS_MARKER`, everything else kept
    (a file without the marker gets it, and the run, at its end)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    previous = out.read_text(encoding="utf-8") if out.is_file() else ""
    if not previous.strip():
        out.write_text("\n".join(lines).rstrip("\n") + "\n", encoding="utf-8")
    else:
        section = "\n".join(dated_section(lines, when or datetime.now(UTC))).rstrip("\n")
        head, marker, history = previous.partition(RUNS_MARKER)
        if not marker:
            head, history = previous.rstrip("\n") + "\n\n", ""
        text = f"{head}{RUNS_MARKER}\n\n{section}\n\n{history.lstrip(chr(10))}"
        out.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
