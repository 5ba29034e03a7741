"""The package's import graph: no cycle between top-level parts, and crawl-time code never
imports training (``corpuscrawl.learn``) or evaluation (``corpuscrawl.evaluation``) code.

The graph is read from the source: every ``import`` statement, at module level or
inside a function or method (as grimp and import-linter read it), so an import that
only runs on some path is caught as well.  Imports under ``if TYPE_CHECKING:`` count for
the crawl-time rule (an annotation naming training code is still a dependency on it) but
close no cycle: they never run (import-linter's ``exclude_type_checking_imports``).
Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` too, so those count as
imported.  There is no exception: a learned model's predictor (``extract/learned``) has
no ``fit``; its estimator, which adds ``fit``, lives in ``corpuscrawl.learn``.
Dynamic imports (``importlib.import_module``, ``__import__``) of training or evaluation
modules by name are refused as well.  A subprocess that imports the spider and runs
``auto`` on a page checks the rule at run time too.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import corpuscrawl

PACKAGE_DIR = Path(corpuscrawl.__file__).resolve().parent
ROOT = "corpuscrawl"
#: Training and evaluation: what crawl-time code must never reach.
OFFLINE_PACKAGES = ("corpuscrawl.learn", "corpuscrawl.evaluation")
#: Offline entry points allowed to reach them: the command line's training, evaluation,
#: dataset extraction, labelling and report commands (and the dispatcher of all commands).
OFFLINE_ENTRY_POINTS = (
    "corpuscrawl.cli",
    "corpuscrawl.commands.evaluate",
    "corpuscrawl.commands.extract",
    "corpuscrawl.commands.label",
    "corpuscrawl.commands.report",
    "corpuscrawl.commands.train",
)


@dataclass(frozen=True)
class Edge:
    """One import statement: ``source`` imports ``target`` at ``line``."""

    source: str
    target: str
    line: int
    #: The function or method the import statement is in (``Class.method``), "" at module level.
    scope: str = ""
    #: Under ``if TYPE_CHECKING:``: read by type checkers, never run.
    typing_only: bool = False

    def __str__(self) -> str:
        where = f", in {self.scope}" if self.scope else ""
        typing = ", under TYPE_CHECKING" if self.typing_only else ""
        return f"{self.source} -> {self.target} (line {self.line}{where}{typing})"


def module_files() -> dict[str, Path]:
    """Dotted module name -> source file, for every module of the package."""
    out = {}
    for path in PACKAGE_DIR.rglob("*.py"):
        parts = [ROOT, *path.relative_to(PACKAGE_DIR).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST) -> list[tuple[ast.Import | ast.ImportFrom, str, bool]]:
    """Every import statement of a module with the dotted name of the classes and functions
    around it ("" at module level) and whether it is under ``if TYPE_CHECKING:``."""
    found: list[tuple[ast.Import | ast.ImportFrom, str, bool]] = []
    stack: list[tuple[ast.AST, str, bool]] = [(tree, "", False)]
    while stack:
        node, scope, typing_only = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append((node, scope, typing_only))
            continue
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend((child, scope, True) for child in node.body)
            stack.extend((child, scope, typing_only) for child in node.orelse)
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scope = f"{scope}.{node.name}" if scope else node.name
        stack.extend((child, scope, typing_only) for child in ast.iter_child_nodes(node))
    return found


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom,
             modules: dict[str, Path]) -> list[str]:
    """The package modules one import statement runs (with their parent packages)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[:len(base) - node.level + 1]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        names = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in modules else prefix
                 for a in node.names]
    out = []
    for name in names:
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            candidate = ".".join(parts[:i])
            if candidate in modules and candidate != ROOT:
                out.append(candidate)
    return out


def import_edges() -> list[Edge]:
    """Every import edge between the package's modules."""
    modules = module_files()
    edges = []
    for module, path in sorted(modules.items()):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node, scope, typing_only in _import_nodes(tree):
            for target in _targets(module, path.name == "__init__.py", node, modules):
                if target != module:
                    edges.append(Edge(module, target, node.lineno, scope, typing_only))
    return edges


def part_of(module: str) -> str:
    """The top-level part a module belongs to: ``corpuscrawl.X`` (a package or a module)."""
    return ".".join(module.split(".")[:2])


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _cycle_through(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """One cycle inside a strongly connected component, as a list of parts (first = last)."""
    start = component[0]
    members = set(component)
    parents: dict[str, str] = {}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph.get(v, ())):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(parents[path[-1]])
                return [*reversed(path), start]
            if w in members and w not in parents and w != start:
                parents[w] = v
                queue.append(w)
    return [start, start]


def part_cycles(edges: list[Edge]) -> list[str]:
    """Each cycle between top-level parts, with the module imports that close it."""
    graph: dict[str, set[str]] = {}
    witness: dict[tuple[str, str], Edge] = {}
    for e in edges:
        if e.typing_only:  # read by type checkers, never imported when the code runs
            continue
        a, b = part_of(e.source), part_of(e.target)
        if a != b:
            graph.setdefault(a, set()).add(b)
            witness.setdefault((a, b), e)
    reports = []
    for component in _strongly_connected(graph):
        cycle = _cycle_through(component, graph)
        hops = [str(witness[(a, b)]) for a, b in zip(cycle, cycle[1:], strict=False)]
        reports.append(" -> ".join(cycle) + "\n    " + "\n    ".join(hops))
    return reports


def _offline(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in OFFLINE_PACKAGES)


def offline_reaches(edges: list[Edge], modules: list[str] | None = None) -> list[str]:
    """For each crawl-time module (of ``modules``, default all) that reaches training or
    evaluation code, the chain of imports that does."""
    graph: dict[str, list[Edge]] = {}
    for e in edges:
        graph.setdefault(e.source, []).append(e)
    reports = []
    for module in sorted(module_files() if modules is None else modules):
        if _offline(module) or module in OFFLINE_ENTRY_POINTS or module == ROOT:
            continue
        came_by: dict[str, Edge] = {}
        queue = deque([module])
        seen = {module}
        while queue:
            v = queue.popleft()
            if _offline(v):
                chain = []
                while v != module:
                    chain.append(came_by[v])
                    v = came_by[v].source
                reports.append(f"{module}:\n    " + "\n    ".join(map(str, reversed(chain))))
                break
            for e in graph.get(v, ()):
                if e.target not in seen:
                    seen.add(e.target)
                    came_by[e.target] = e
                    queue.append(e.target)
    return reports


def test_graph_is_read_from_every_module():
    edges = import_edges()
    sources = {e.source for e in edges}
    assert "corpuscrawl.spiders.corpus" in sources
    # an import inside a function counts, and so does the package it runs
    assert {"corpuscrawl.extract"} <= {
        e.target for e in edges
        if e.source == "corpuscrawl.extract.learned.models" and e.scope == "model_class"}
    assert {"corpuscrawl.learn.auto", "corpuscrawl.learn"} <= {
        e.target for e in edges if e.source == "corpuscrawl.learn.training"}


def test_no_cycle_between_top_level_parts():
    cycles = part_cycles(import_edges())
    assert not cycles, "import cycles between parts of the package:\n" + "\n".join(cycles)


def test_crawl_time_code_never_imports_training_or_evaluation():
    chains = offline_reaches(import_edges())
    assert not chains, ("crawl-time modules that import training/evaluation code:\n"
                        + "\n".join(chains))


def test_the_checks_catch_a_cycle_and_a_crawl_time_import():
    edges = [Edge("corpuscrawl.a.x", "corpuscrawl.b.y", 3), Edge("corpuscrawl.b.y", "corpuscrawl.a.z", 5)]
    (report,) = part_cycles(edges)
    assert "corpuscrawl.a -> corpuscrawl.b -> corpuscrawl.a" in report
    assert "corpuscrawl.b.y -> corpuscrawl.a.z (line 5)" in report
    edges = [Edge("corpuscrawl.spiders.corpus", "corpuscrawl.extract.learned.auto", 7),
             Edge("corpuscrawl.extract.learned.auto", "corpuscrawl.learn.folds", 9)]
    (chain,) = offline_reaches(edges, ["corpuscrawl.spiders.corpus"])
    assert chain.splitlines()[1:] == [
        "    corpuscrawl.spiders.corpus -> corpuscrawl.extract.learned.auto (line 7)",
        "    corpuscrawl.extract.learned.auto -> corpuscrawl.learn.folds (line 9)"]


def crawl_time_modules() -> list[str]:
    """The modules the crawl-time rule checks: every module but training, evaluation and
    the offline entry points."""
    return sorted(m for m in module_files()
                  if not _offline(m) and m not in OFFLINE_ENTRY_POINTS and m != ROOT)


def test_the_rule_covers_every_crawl_time_room():
    modules = module_files()
    # an exemption that names no module would silently exempt a future one
    assert set(OFFLINE_ENTRY_POINTS) <= set(modules), (
        f"stale offline entry points: {sorted(set(OFFLINE_ENTRY_POINTS) - set(modules))}")
    checked_parts = {part_of(m) for m in crawl_time_modules()}
    all_parts = {part_of(m) for m in modules if m != ROOT}
    # only training, evaluation and the command-line dispatcher are exempt as a whole
    exempt = {*OFFLINE_PACKAGES, "corpuscrawl.cli"}
    assert all_parts - checked_parts == exempt, (
        f"top-level parts the crawl-time rule skips: {sorted(all_parts - checked_parts - exempt)}")
    for room in ("corpuscrawl.browse", "corpuscrawl.spiders", "corpuscrawl.extract",
                 "corpuscrawl.html", "corpuscrawl.net", "corpuscrawl.boilerplate",
                 "corpuscrawl.archive", "corpuscrawl.cluster", "corpuscrawl.crawlstate",
                 "corpuscrawl.scrapy_commands", "corpuscrawl.export.pipelines"):
        assert room in checked_parts, f"{room} is not checked as crawl-time code"
    # every module of browse/ (the element classifier's crawl-time half) is checked
    browse = [m for m in modules if part_of(m) == "corpuscrawl.browse"]
    assert browse and set(browse) <= set(crawl_time_modules())


def test_browse_importing_learn_fails():
    """The element classifier's training lives in learn/; browse/ only predicts."""
    edges = [Edge("corpuscrawl.browse.render", "corpuscrawl.browse.classifier", 4),
             Edge("corpuscrawl.browse.classifier", "corpuscrawl.learn.elements", 12)]
    (chain,) = offline_reaches(edges, ["corpuscrawl.browse.render"])
    assert "corpuscrawl.browse.classifier -> corpuscrawl.learn.elements (line 12)" in chain
    real = [e for e in import_edges()
            if part_of(e.source) == "corpuscrawl.browse" and _offline(e.target)]
    assert not real, "browse/ imports training/evaluation code: " + ", ".join(map(str, real))


def test_an_import_inside_a_method_or_under_type_checking_counts():
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "import corpuscrawl.html.page\n"
        "if TYPE_CHECKING:\n"
        "    from corpuscrawl.evaluation import metrics\n"
        "class AutoModel:\n"
        "    def fit(self, docs):\n"
        "        from corpuscrawl.learn.auto import fit_auto\n"
        "        return fit_auto(self, docs)\n")
    found = {(ast.unparse(node), scope, typing) for node, scope, typing in _import_nodes(tree)}
    assert ("from corpuscrawl.learn.auto import fit_auto", "AutoModel.fit", False) in found
    assert ("from corpuscrawl.evaluation import metrics", "", True) in found
    assert ("import corpuscrawl.html.page", "", False) in found
    # a crawl-time module importing evaluation code for its annotations only still fails
    edge = Edge("corpuscrawl.extract.learned.auto", "corpuscrawl.evaluation.metrics", 4,
                typing_only=True)
    (chain,) = offline_reaches([edge], [edge.source])
    assert "under TYPE_CHECKING" in chain
    # but it never runs, so it closes no import cycle
    assert not part_cycles([edge, Edge("corpuscrawl.evaluation.metrics",
                                       "corpuscrawl.extract.learned.auto", 9)])


def test_a_models_fit_importing_training_code_fails_both_checks():
    """No door: an import of training code inside a predictor's ``fit`` is a crawl-time
    import of training code, and a cycle when training imports the predictor."""
    inside_fit = Edge("corpuscrawl.extract.learned.auto", "corpuscrawl.learn.auto", 9,
                      "AutoModel.fit")
    (chain,) = offline_reaches([inside_fit], [inside_fit.source])
    assert str(inside_fit) in chain
    back = Edge("corpuscrawl.learn.auto", "corpuscrawl.extract.learned.auto", 3)
    (cycle,) = part_cycles([inside_fit, back])
    assert "corpuscrawl.extract -> corpuscrawl.learn -> corpuscrawl.extract" in cycle
    assert "(line 9, in AutoModel.fit)" in cycle


def test_no_crawl_time_import_of_training_code_anywhere_in_the_package():
    """The real graph, imports inside functions included: nothing in a crawl-time room
    imports ``corpuscrawl.learn`` or ``corpuscrawl.evaluation`` directly."""
    crawl_time = set(crawl_time_modules())
    direct = [str(e) for e in import_edges() if e.source in crawl_time and _offline(e.target)]
    assert not direct, "crawl-time imports of training/evaluation code:\n" + "\n".join(direct)


#: Calls that import a module named by a string.
DYNAMIC_IMPORTS = ("import_module", "__import__", "load_object", "find_spec")


def dynamic_offline_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of each call in ``source`` that imports a training or evaluation
    module named by a string constant (``importlib.import_module("corpuscrawl.learn.x")``,
    ``load_object("corpuscrawl.evaluation.y:Z")``)."""
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


def test_no_crawl_time_module_imports_training_code_by_name():
    assert dynamic_offline_imports(
        "import importlib\n"
        "def fit(self):\n"
        "    return importlib.import_module('corpuscrawl.learn.auto').fit_auto(self)\n"
        "x = load_object('corpuscrawl.evaluation.metrics:score')\n"
        "y = importlib.import_module('corpuscrawl.extract.learned.auto')\n") == [
        (3, "corpuscrawl.learn.auto"), (4, "corpuscrawl.evaluation.metrics:score")]
    files = module_files()
    found = [f"{m} line {line}: {target}" for m in crawl_time_modules()
             for line, target in dynamic_offline_imports(files[m].read_text(encoding="utf-8"))]
    assert not found, "crawl-time modules importing training/evaluation code by name:\n" + \
        "\n".join(found)


def grimp_graph(exclude_type_checking: bool = False):
    """The package's import graph as grimp (import-linter's engine) builds it."""
    import grimp

    return grimp.build_graph(ROOT, exclude_type_checking_imports=exclude_type_checking,
                             cache_dir=None)


def test_grimp_finds_no_crawl_time_import_of_training_code_and_no_cycle():
    """An external import-graph tool agrees: grimp reads imports inside functions too."""
    graph = grimp_graph()
    for room in ("corpuscrawl.extract", "corpuscrawl.html", "corpuscrawl.spiders",
                 "corpuscrawl.browse", "corpuscrawl.boilerplate", "corpuscrawl.crawlstate",
                 "corpuscrawl.cluster", "corpuscrawl.net", "corpuscrawl.archive"):
        for offline in OFFLINE_PACKAGES:
            chains = graph.find_shortest_chains(importer=room, imported=offline)
            assert not chains, f"grimp: {room} imports {offline}: {sorted(chains)}"
    crawl_time = crawl_time_modules()
    reaching = {m: sorted(u for u in graph.find_upstream_modules(m) if _offline(u))
                for m in crawl_time if m in graph.modules}
    assert not {m: u for m, u in reaching.items() if u}
    # every import grimp sees, the reader of this module sees (it adds parent packages)
    ours = {(e.source, e.target) for e in import_edges()}
    theirs = {(a, b) for a in graph.modules for b in graph.find_modules_directly_imported_by(a)
              if b != ROOT}
    assert theirs - ours == set()
    run_time = grimp_graph(exclude_type_checking=True)
    edges = [Edge(a, b, 0) for a in run_time.modules
             for b in run_time.find_modules_directly_imported_by(a)]
    assert not part_cycles(edges)


#: Imports the spider, loads ``auto`` and extracts a page; prints the offline modules loaded.
CRAWL_TIME_SCRIPT = """
import json, sys
import corpuscrawl.spiders.corpus
from corpuscrawl.extract import get_extractor
from corpuscrawl.extraction import Extraction
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


def test_a_crawl_running_auto_imports_no_training_or_evaluation_code():
    out = subprocess.run([sys.executable, "-c", CRAWL_TIME_SCRIPT], capture_output=True,
                         text=True, check=True, cwd=PACKAGE_DIR.parent, timeout=120)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert "council met" in result["text"]
    assert result["offline"] == []
