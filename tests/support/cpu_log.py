"""Per-test CPU seconds of a pytest worker and every process under it (opt-in plugin).

The suite's crawls are forks of a per-worker fork server, its browsers are children of
Playwright's driver and its servers are threads or subprocesses: a test's cost is the CPU
of the whole process tree under its worker, not the worker's own time, and on a machine
shared with other jobs wall time mostly measures the other jobs.  With
``-p tests.support.cpu_log`` and ``TESTS_CPU_LOG=DIR`` each worker appends one JSON line
per test phase (setup, call, teardown) to ``DIR/<worker>.jsonl``: the node id, the phase,
wall seconds and CPU seconds of the tree (user+system of every live process under the
worker, itself included, plus what they reaped).  ``python -m tests.support.cpu_log DIR``
sums them per module.  A process that ends unreaped by the tree (reparented outside it) is
not counted.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

LOG_VARIABLE = "TESTS_CPU_LOG"
_TICKS = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: str) -> list[str] | None:
    """The fields after the command name of ``/proc/PID/stat``, or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def tree_cpu(root: int) -> float:
    """CPU seconds (user+system, with reaped children's) of ``root`` and its descendants."""
    children: dict[str, list[str]] = defaultdict(list)
    times: dict[str, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(entry.name)
        if fields is None:
            continue
        children[fields[1]].append(entry.name)  # fields[1]: ppid
        times[entry.name] = sum(int(value) for value in fields[11:15])  # utime..cstime
    total, todo = 0, [str(root)]
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0)
        todo.extend(children.get(pid, ()))
    return total / _TICKS


class _Recorder:
    """Appends a line per test phase to this worker's log."""

    def __init__(self, directory: Path, worker: str) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.out = (directory / f"{worker}.jsonl").open("a", encoding="utf-8")
        self.worker = worker

    def measure(self, item: pytest.Item, phase: str) -> Iterator[None]:
        start_wall, start_cpu = time.monotonic(), tree_cpu(os.getpid())
        yield
        line = {"nodeid": item.nodeid, "phase": phase, "worker": self.worker,
                "wall": round(time.monotonic() - start_wall, 3),
                "cpu": round(tree_cpu(os.getpid()) - start_cpu, 3)}
        self.out.write(json.dumps(line) + "\n")
        self.out.flush()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Iterator[None]:
        yield from self.measure(item, "setup")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        yield from self.measure(item, "call")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Iterator[None]:
        yield from self.measure(item, "teardown")


def pytest_configure(config: pytest.Config) -> None:
    """Record in workers (or in a run without xdist) when ``TESTS_CPU_LOG`` is set."""
    directory = os.environ.get(LOG_VARIABLE)
    if not directory:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None and config.pluginmanager.hasplugin("dsession"):
        return  # the xdist controller runs no test
    config.pluginmanager.register(_Recorder(Path(directory), worker or "main"), "cpu_log")


def summarize(directory: Path, top: int = 40) -> str:
    """CPU and wall seconds per module and the ``top`` costliest tests, as Markdown."""
    modules: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    tests: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for path in sorted(directory.glob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = json.loads(raw)
            module = line["nodeid"].split("::")[0]
            modules[module][0] += line["cpu"]
            modules[module][1] += line["wall"]
            modules[module][2] += line["phase"] == "call"
            tests[line["nodeid"]][0] += line["cpu"]
            tests[line["nodeid"]][1] += line["wall"]
    rows = ["| module | tests | CPU s | wall s |", "|---|---:|---:|---:|"]
    for name, (cpu, wall, count) in sorted(modules.items(), key=lambda kv: -kv[1][0]):
        rows.append(f"| {name} | {int(count)} | {cpu:.1f} | {wall:.1f} |")
    total_cpu = sum(value[0] for value in modules.values())
    total_wall = sum(value[1] for value in modules.values())
    rows.append(f"| all | {sum(int(v[2]) for v in modules.values())} | {total_cpu:.1f} | "
                f"{total_wall:.1f} |")
    rows += ["", "| test | CPU s | wall s |", "|---|---:|---:|"]
    for name, (cpu, wall) in sorted(tests.items(), key=lambda kv: -kv[1][0])[:top]:
        rows.append(f"| {name} | {cpu:.1f} | {wall:.1f} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(summarize(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 40))
