"""A benchmark run written into a results file: the report alone in a new file, a dated
section below the runs marker in an existing one, nothing people wrote rewritten."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from corpuscrawl.evaluation.results_file import RUNS_MARKER, dated_section, write_run

REPORT = ["# Crawl throughput", "", "Command: `x --pages 5`", "", "## Memory", "", "| a |"]
WHEN = datetime(2026, 12, 7, 23, 5, tzinfo=UTC)


def test_a_new_path_gets_the_report_as_generated(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "r.md"
    write_run(out, REPORT)
    assert out.read_text(encoding="utf-8") == "\n".join(REPORT) + "\n"


def test_the_run_goes_below_the_marker_and_the_head_and_history_stay(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    curated = f"# Title\n\nCurrent figures: 0.80.\n\n{RUNS_MARKER}\n\n## Older run\n\nkept\n"
    out.write_text(curated, encoding="utf-8")
    write_run(out, REPORT, WHEN)
    text = out.read_text(encoding="utf-8")
    head, history = text.split(RUNS_MARKER)
    assert head == "# Title\n\nCurrent figures: 0.80.\n\n"
    assert history.startswith("\n\n## Run 2026-12-07 23:05 UTC: Crawl throughput\n")
    assert "\n### Memory\n" in history and history.endswith("## Older run\n\nkept\n")
    write_run(out, REPORT, datetime(2026, 12, 8, tzinfo=UTC))  # newest first
    runs = out.read_text(encoding="utf-8").split(RUNS_MARKER)[1]
    assert runs.index("2026-12-08") < runs.index("2026-12-07") < runs.index("Older run")


def test_a_file_without_the_marker_keeps_everything_and_gets_the_run_at_its_end(
        tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    out.write_text("# Notes\n\nwritten by hand\n", encoding="utf-8")
    write_run(out, REPORT, WHEN)
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Notes\n\nwritten by hand\n\n" + RUNS_MARKER + "\n\n## Run ")


def test_a_report_without_a_title_is_still_dated() -> None:
    assert dated_section(["plain", "# deep"], WHEN) == ["## Run 2026-12-07 23:05 UTC", "plain",
                                                        "## deep"]
