"""The package's import graph: the import-linter contracts of ``.importlinter`` (no import
cycle anywhere, rooms layered, crawl-time code never importing training or evaluation
code, Scrapy reached only by the glue) hold, and the checks the contracts cannot state:
that the crawl-time contracts leave no module out, that the two glue contracts name the
same glue, that no crawl-time module imports training code by name, that a crawl
running ``auto`` loads none, and that ``import corpuscrawl`` installs no import hook.

import-linter (on grimp) reads every ``import`` statement, inside functions and under
``if TYPE_CHECKING:`` too: an import that only runs on some path still counts.
"""

from __future__ import annotations

import ast
import configparser
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import grimp
import pytest

import corpuscrawl

PACKAGE_DIR = Path(corpuscrawl.__file__).resolve().parent
REPO = PACKAGE_DIR.parent
CONTRACTS = REPO / ".importlinter"
ROOT = "corpuscrawl"
#: Training and evaluation: what crawl-time code must never reach.
OFFLINE_PACKAGES = ("corpuscrawl.learn", "corpuscrawl.evaluation")
#: Offline entry points allowed to reach them: the command line's training, evaluation,
#: dataset extraction, labelling and report commands (and the dispatcher of all commands).
OFFLINE_ENTRY_POINTS = frozenset({
    "corpuscrawl.cli",
    "corpuscrawl.commands.evaluate",
    "corpuscrawl.commands.extract",
    "corpuscrawl.commands.label",
    "corpuscrawl.commands.report",
    "corpuscrawl.commands.train",
})
#: Calls that import a module named by a string.
DYNAMIC_IMPORTS = ("import_module", "__import__", "load_object", "find_spec")


def _offline(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in OFFLINE_PACKAGES)


def _lines(value: str) -> list[str]:
    return [line.strip() for line in value.splitlines() if line.strip()]


def lint_imports_in(config: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """import-linter on ``config`` in a fresh interpreter run from ``cwd``, so the package
    read is that tree's (not a copy another test put on ``sys.path``), and its report is
    this process's to read (import-linter's console is bound at import, past pytest's
    capture when tests run on xdist workers)."""
    script = ("import sys\nfrom importlinter.cli import lint_imports\n"
              f"sys.exit(lint_imports(config_filename={str(config)!r}, no_cache=True, "
              "no_logo=True))\n")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_the_import_contracts_are_kept() -> None:
    out = lint_imports_in(CONTRACTS, REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "6 kept, 0 broken" in out.stdout


def crawl_time_modules() -> list[str]:
    """Every module but training, evaluation and the offline entry points."""
    graph = grimp.build_graph(ROOT, cache_dir=None)
    return sorted(m for m in graph.modules
                  if m != ROOT and not _offline(m) and m not in OFFLINE_ENTRY_POINTS)


def test_the_crawl_time_contracts_cover_every_crawl_time_module() -> None:
    """A module added outside the contracts' lists (a new room, a new command) fails here."""
    config = configparser.ConfigParser()
    config.read(CONTRACTS, encoding="utf-8")
    packages = _lines(config["importlinter:contract:crawl-time"]["source_modules"])
    exact = _lines(config["importlinter:contract:crawl-time-commands"]["source_modules"])
    for section in ("crawl-time", "crawl-time-commands"):
        assert set(_lines(config[f"importlinter:contract:{section}"]["forbidden_modules"])) >= \
            set(OFFLINE_PACKAGES)
    uncovered = [m for m in crawl_time_modules()
                 if m not in exact and not any(m == p or m.startswith(p + ".") for p in packages)]
    assert not uncovered, f"crawl-time modules no contract checks: {uncovered}"
    offline_listed = [m for m in packages + exact if _offline(m) or m in OFFLINE_ENTRY_POINTS]
    assert not offline_listed
    # the package-wide list must not swallow an offline entry point
    assert not [p for p in packages for m in OFFLINE_ENTRY_POINTS if m.startswith(p + ".")]


def _write_package(root: Path, files: dict[str, str]) -> None:
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")


@pytest.mark.parametrize(("files", "broken"), [
    # a cycle closed by an import inside a function
    ({"a.py": "from fake_pkg import b\n",
      "b.py": "def f():\n    from fake_pkg import a\n"}, "No import cycle"),
    # a cycle closed under TYPE_CHECKING
    ({"a.py": "from fake_pkg import b\n",
      "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from fake_pkg import a\n"},
     "No import cycle"),
    # crawl-time code reaching training code through another module, inside a method
    ({"fast/__init__.py": "",
      "fast/model.py": "class M:\n    def fit(self):\n        from fake_pkg import helper\n",
      "helper.py": "import fake_pkg.learn.train\n",
      "learn/__init__.py": "", "learn/train.py": ""}, "Crawl-time code"),
])
def test_the_contract_types_catch_what_they_must(
        tmp_path: Path, files: dict[str, str], broken: str) -> None:
    _write_package(tmp_path / "fake_pkg", {"__init__.py": "", "fast/__init__.py": "",
                                           "learn/__init__.py": "", **files})
    (tmp_path / ".importlinter").write_text(textwrap.dedent("""
        [importlinter]
        root_package = fake_pkg

        [importlinter:contract:no-cycles]
        name = No import cycle
        type = acyclic_siblings
        ancestors = fake_pkg

        [importlinter:contract:crawl-time]
        name = Crawl-time code never imports training code
        type = forbidden
        source_modules =
            fake_pkg.fast
        forbidden_modules =
            fake_pkg.learn
        """), encoding="utf-8")
    out = lint_imports_in(tmp_path / ".importlinter", tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    assert f"{broken}" in out.stdout.split("Broken contracts")[-1], out.stdout


#: The two glue contracts on a throw-away package: Scrapy only in ``scrapy_glue``, and glue
#: imported only by glue.
GLUE_CONTRACTS = """
    [importlinter]
    root_package = fake_pkg
    include_external_packages = True

    [importlinter:contract:scrapy-glue]
    name = A room's pure core never imports Scrapy
    type = forbidden
    allow_indirect_imports = True
    source_modules =
        fake_pkg
    forbidden_modules =
        scrapy
    ignore_imports =
        fake_pkg.*.scrapy_glue -> scrapy

    [importlinter:contract:pure-cores]
    name = A pure module never reaches Scrapy, not even through another module
    type = protected
    protected_modules =
        fake_pkg.*.scrapy_glue
    allowed_importers =
        fake_pkg.*.scrapy_glue
    """


@pytest.mark.parametrize(("core", "broken"), [
    ("def f() -> None:\n    return None\n", False),
    # a pure core importing Scrapy, even inside a function
    ("def f():\n    from scrapy.http import Request\n    return Request\n", True),
])
def test_the_scrapy_glue_contract_allows_scrapy_in_the_glue_only(
        tmp_path: Path, core: str, broken: bool) -> None:
    """The contract form of ``.importlinter``'s scrapy-glue: a room's ``scrapy_glue`` may
    import Scrapy, any other module of the room may not."""
    _write_package(tmp_path / "fake_pkg", {
        "__init__.py": "", "room/__init__.py": "", "room/core.py": core,
        "room/scrapy_glue.py": "from scrapy import signals\nfrom fake_pkg.room import core\n"})
    (tmp_path / ".importlinter").write_text(textwrap.dedent(GLUE_CONTRACTS), encoding="utf-8")
    out = lint_imports_in(tmp_path / ".importlinter", tmp_path)
    assert out.returncode == int(broken), out.stdout + out.stderr
    if broken:
        assert "fake_pkg.room.core -> scrapy" in out.stdout, out.stdout


@pytest.mark.parametrize(("helper", "broken"), [
    ("import json\n", ""),
    # a pure module reaching Scrapy through another room's glue, inside a function
    ("def f():\n    from fake_pkg.room import scrapy_glue\n    return scrapy_glue\n",
     "fake_pkg.other.helper -> fake_pkg.room.scrapy_glue"),
])
def test_the_pure_cores_contract_catches_scrapy_reached_through_glue(
        tmp_path: Path, helper: str, broken: str) -> None:
    """``room.core`` imports ``other.helper``, which imports Scrapy only through ``room``'s
    glue: the direct contract keeps that, the pure-cores contract does not."""
    _write_package(tmp_path / "fake_pkg", {
        "__init__.py": "", "room/__init__.py": "", "other/__init__.py": "",
        "room/core.py": "def g():\n    from fake_pkg.other import helper\n    return helper\n",
        "room/scrapy_glue.py": "from scrapy import signals\n",
        "other/helper.py": helper})
    (tmp_path / ".importlinter").write_text(textwrap.dedent(GLUE_CONTRACTS), encoding="utf-8")
    out = lint_imports_in(tmp_path / ".importlinter", tmp_path)
    assert out.returncode == int(bool(broken)), out.stdout + out.stderr
    assert "A room's pure core never imports Scrapy KEPT" in out.stdout, out.stdout
    if broken:
        assert broken in out.stdout.split("Broken contracts")[-1], out.stdout


def _expression(pattern: str) -> re.Pattern[str]:
    """import-linter's module expression as a regex: ``*`` one name, ``**`` one or more."""
    names = [r"[^.]+(\.[^.]+)*" if n == "**" else "[^.]+" if n == "*" else re.escape(n)
             for n in pattern.split(".")]
    return re.compile(r"\.".join(names))


def test_both_glue_contracts_name_the_same_glue() -> None:
    """The modules allowed to import Scrapy (the scrapy-glue contract's ignored imports) are
    the modules the pure-cores contract protects, packages with their modules."""
    config = configparser.ConfigParser()
    config.read(CONTRACTS, encoding="utf-8")
    importers = {line.split("->")[0].strip() for line in
                 _lines(config["importlinter:contract:scrapy-glue"]["ignore_imports"])
                 if not line.startswith("#")}
    protected = _lines(config["importlinter:contract:pure-cores"]["protected_modules"])
    allowed = _lines(config["importlinter:contract:pure-cores"]["allowed_importers"])
    assert set(protected) <= set(allowed)
    # a room named with ``.**`` (spiders) is glue with its ``__init__``
    importers |= {p.removesuffix(".**") for p in importers if p.endswith(".**")}
    modules = grimp.build_graph(ROOT, cache_dir=None).modules
    may_import_scrapy = {m for m in modules
                         if any(_expression(p).fullmatch(m) for p in importers)}
    glue = {m for m in modules if any(_expression(p).fullmatch(m)
                                      or _expression(p + ".**").fullmatch(m)
                                      for p in protected)}
    assert may_import_scrapy == glue, (sorted(may_import_scrapy ^ glue))


def dynamic_offline_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of each call in ``source`` that imports a training or evaluation
    module named by a string constant (``importlib.import_module("corpuscrawl.learn.x")``,
    ``load_object("corpuscrawl.evaluation.y:Z")``): imports no graph reader sees."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        arg = node.args[0]
        if (name in DYNAMIC_IMPORTS and isinstance(arg, ast.Constant)
                and isinstance(arg.value, str) and _offline(arg.value.split(":")[0])):
            found.append((node.lineno, arg.value))
    return sorted(found)


def _module_file(module: str) -> Path:
    path = PACKAGE_DIR.joinpath(*module.split(".")[1:])
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def test_no_crawl_time_module_imports_training_code_by_name() -> None:
    assert dynamic_offline_imports(
        "import importlib\n"
        "def fit(self):\n"
        "    return importlib.import_module('corpuscrawl.learn.auto_trainer').fit_auto(self)\n"
        "x = load_object('corpuscrawl.evaluation.metrics:score')\n"
        "y = importlib.import_module('corpuscrawl.extract.learned.auto')\n") == [
        (3, "corpuscrawl.learn.auto_trainer"), (4, "corpuscrawl.evaluation.metrics:score")]
    found = [f"{m} line {line}: {target}" for m in crawl_time_modules()
             for line, target in dynamic_offline_imports(
                 _module_file(m).read_text(encoding="utf-8"))]
    assert not found, "crawl-time modules importing training/evaluation code by name:\n" + \
        "\n".join(found)


#: Imports the spider, loads ``auto`` and extracts a page; prints the offline modules loaded.
CRAWL_TIME_SCRIPT = """
import json, sys
import corpuscrawl.spiders.corpus
from corpuscrawl.extract import get_extractor
from corpuscrawl.html.page import Page
page = Page.from_html("<html><head><title>Budget agreed</title></head><body><h1>Budget "
                      "agreed</h1>" + "<p>The council met on Tuesday and agreed a new budget "
                      "for the schools of the town, after a long debate.</p>" * 5
                      + "</body></html>", url="http://example.com/a")
text = get_extractor("auto").extract(page)
offline = sorted(m for m in sys.modules
                 if m.split(".")[:2] in (["corpuscrawl", "learn"], ["corpuscrawl", "evaluation"]))
print(json.dumps({"text": text, "offline": offline}))
"""


def test_a_crawl_running_auto_imports_no_training_or_evaluation_code() -> None:
    out = subprocess.run([sys.executable, "-c", CRAWL_TIME_SCRIPT], capture_output=True,
                         text=True, check=True, cwd=REPO, timeout=120)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert "council met" in result["text"]
    assert result["offline"] == []


def test_importing_the_package_installs_no_import_hook() -> None:
    script = ("import sys\nbefore = [repr(type(f)) for f in sys.meta_path + sys.path_hooks]\n"
              "import corpuscrawl, corpuscrawl.settings, corpuscrawl.spiders.corpus\n"
              "after = [repr(type(f)) for f in sys.meta_path + sys.path_hooks]\n"
              "print(before == after)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=REPO, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "True"
