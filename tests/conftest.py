"""Shared pytest fixtures: paths to fixtures and to the benchmark datasets."""

from __future__ import annotations

import importlib.util
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

TESTS_DIR = Path(__file__).parent
DATA_DIR = TESTS_DIR / "data"
REPO_DIR = TESTS_DIR.parent
#: Default location of the shared benchmark datasets (overridable by CORPUSCRAWL_DATASETS).
DATASETS_DIR = Path(os.environ.get("CORPUSCRAWL_DATASETS", REPO_DIR.parent / "shared" / "datasets"))


#: Markers of tests that take seconds (crawls, servers, browsers, datasets).
HEAVY_MARKERS = ("slow", "browser", "redis", "datasets")


@pytest.hookimpl(tryfirst=True)  # before xdist turns the group markers into node-id suffixes
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the tests of a module that share a module-scoped fixture on one xdist worker, and
    hand out the heaviest work first.

    Such a fixture is a crawl or a server several tests check; under ``--dist loadgroup``
    (pyproject's pytest options) the group runs where the fixture was made, so it is made
    once, not once per worker that draws one of its tests.  (A session-scoped fixture is
    made once per worker and binds nothing: stateless local servers are session-scoped.)

    xdist hands out work units (a group, or a single test) in collection order when
    ``--no-loadscope-reorder`` is given (pyproject), so the items are ordered by their
    unit's number of heavy tests (marked ``slow``, ``browser``, ``redis`` or ``datasets``),
    most first: long groups and long tests start at once instead of ending the run on one
    busy worker while the others wait.  Within a unit, and among equals, collection order
    holds.
    """
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or item.get_closest_marker("xdist_group"):
            continue
        if any(defs and defs[-1].scope in ("module", "class", "package")
               for defs in info.name2fixturedefs.values()):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    weights: dict[str, int] = {}
    units = [_unit(item) for item in items]
    for item, unit in zip(items, units, strict=True):
        heavy = any(item.get_closest_marker(name) for name in HEAVY_MARKERS)
        weights[unit] = weights.get(unit, 0) + int(heavy)
    order = sorted(range(len(items)), key=lambda i: -weights[units[i]])
    items[:] = [items[i] for i in order]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Fail the run if ``--dist loadgroup`` did not put the group names in the node ids.

    xdist's worker hook writes a test's group into its node id (``...::test@group``), and
    the scheduler groups by that suffix alone; when it is missing, every grouped test is
    handed out on its own and each module-scoped crawl, server or build is made again on
    every worker (pytest 9.2 keeps node ids where xdist 3.8 cannot change them; pyproject
    pins below it).
    """
    if not os.environ.get("PYTEST_XDIST_WORKER") or not session.config.getvalue("loadgroup"):
        return
    lost = [item.nodeid for item in session.items
            if item.get_closest_marker("xdist_group") and "@" not in item.nodeid]
    if lost:
        raise pytest.UsageError(
            f"--dist loadgroup: {len(lost)} grouped tests have no @group in their node id "
            f"(e.g. {lost[0]}); this pytest and pytest-xdist do not group tests")


def _unit(item: pytest.Item) -> str:
    """The xdist work unit of ``item``: its group's name, or its own node id."""
    group = item.get_closest_marker("xdist_group")
    if group is None:
        return item.nodeid
    return str(group.args[0] if group.args else group.kwargs.get("name", "default"))


@pytest.fixture(autouse=True)
def _scrapy_project_unchanged() -> Iterator[None]:
    """Undo a test's ``SCRAPY_SETTINGS_MODULE``.

    Scrapy's ``get_project_settings()`` called in the test process sets it in
    ``os.environ`` (from the ``scrapy.cfg`` of the working directory: the repository's),
    and every later crawl subprocess of that worker would inherit it and read
    ``corpuscrawl.settings`` whatever project it was started in.
    """
    before = os.environ.get("SCRAPY_SETTINGS_MODULE")
    yield
    if before is None:
        os.environ.pop("SCRAPY_SETTINGS_MODULE", None)
    else:
        os.environ["SCRAPY_SETTINGS_MODULE"] = before


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The package built (sdist -> wheel) and installed into a fresh venv
    (:func:`tests.packaging_helpers.build_and_install`).  Its users share one
    ``xdist_group`` (``installed_package``), so it is built once per run; they only read it
    and run its commands."""
    from tests.packaging_helpers import build_and_install

    return build_and_install(tmp_path_factory.mktemp("install"))


@pytest.fixture
def data_dir() -> Path:
    """Directory of small hand-written test fixtures."""
    return DATA_DIR


@pytest.fixture
def tinyset(data_dir: Path) -> Path:
    """A tiny gold dataset (html/ + clean/) for training the learned models in tests."""
    return data_dir / "learned" / "tinyset"


@pytest.fixture
def ctrl_c_delivered() -> Iterator[None]:
    """SIGINT handled by Python in this process for the test, so the processes it starts
    get SIGINT as from a terminal.  A suite run as a shell's background job (``cmd &``,
    ``nohup``) ignores SIGINT, and a child inherits an ignored SIGINT: a Ctrl-C test would
    test nothing there."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CORPUSCRAWL_CACHE in the test's own directory: no test reads another's cached outputs."""
    monkeypatch.setenv("CORPUSCRAWL_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def datasets_dir() -> Path:
    """The benchmark datasets; tests needing them skip with a reason when absent."""
    if not DATASETS_DIR.is_dir():
        pytest.skip(f"benchmark datasets not found at {DATASETS_DIR} (set CORPUSCRAWL_DATASETS)")
    return DATASETS_DIR


@pytest.fixture
def benchmark_module() -> Callable[[str], ModuleType]:
    """Loader of a script in ``benchmarks/`` by name (scripts import only corpuscrawl)."""
    bench_dir = REPO_DIR / "benchmarks"

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", bench_dir / f"{name}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load
