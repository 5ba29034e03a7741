"""Derive the real-world cases file from trafilatura's ``tests/realworld_tests.py`` (its syntax tree).

    .venv/bin/python benchmarks/realworld_cases.py /path/to/realworld_tests.py \
        --commit 006051358f314c7beb60b5f5ec6f8922894a5a26

The test file is read, never imported or copied: the script walks its syntax tree.
``MOCK_PAGES`` maps each URL to a file of ``tests/cache/``, which is matched to a page of the
``trafilatura`` dataset by the manifest's source path (``tests/cache/<file>``), else by URL.
In every ``test_*`` function, ``result = load_mock_page(URL, ...)`` (or a
``functools.partial`` of it) opens a page and each following ``assert "s" in result`` /
``assert "s" not in result`` is one assertion.  A parametrized test is read under one
binding of its parameters (``--bind``; default: plain text, no formatting), the same
``if`` branches the test takes under it; the branches it does not take are variants of
the same assertion for another output format and are not counted.

Set aside, each with its reason in the file:

* ``comment``: an ``in`` string that occurs in the page only inside an element whose id
  or class names a comment section (``#comments``, ``.comment-list``, ...; the element is
  recorded as evidence).  The test extracts with trafilatura's default
  ``include_comments=True``; reader comments are not main text.
* ``options``: assertions on a result extracted with formatting, links or another
  output format (Markdown markup, XML): not plain main text.
* ``metadata``: assertions on ``extract_metadata`` (title, author, ...), not on text.
* ``bare string``: ``assert "s"`` without a comparison, which is always true.

Pages of the test file that the dataset does not hold are listed in the source record.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shlex
import sys
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import lxml.html

from corpuscrawl.evaluation.datasets import datasets_root, list_datasets
from corpuscrawl.html.page import Page

DEFAULT_OUT = Path(__file__).resolve().parent / "data" / "trafilatura_realworld.jsonl"
#: Loader functions of the test file whose result is extracted text.
LOADERS = {"load_mock_page", "extract"}
#: Keyword arguments of a loader that make its result something other than plain main text.
OPTIONS = {"xml_flag", "tei_output", "formatting", "links", "include_formatting", "include_links",
           "output_format", "include_comments"}
#: Id/class words of a comment section (a reader-comment container and its parts).
COMMENT_MARK = re.compile(r"comment|kommentar|disqus|respond|repl(?:y|ies)|discussion", re.IGNORECASE)
_SPACE = re.compile(r"\s+")


class DerivationError(ValueError):
    """The test file has a form this script does not read; the message names the line."""


class PageCase:
    """Assertions of one page in one test function, as they are collected."""

    def __init__(self, test: str, url: str, line: int):
        self.test, self.url, self.line = test, url, line
        self.must: list[str] = []
        self.must_not: list[str] = []
        self.set_aside: list[dict[str, Any]] = []


def _const(node: ast.AST, env: dict[str, Any], line: int) -> Any:
    """Value of a constant or of a bound name."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    raise DerivationError(f"line {line}: cannot evaluate {ast.unparse(node)!r}")


def _condition(node: ast.AST, env: dict[str, Any]) -> bool:
    """Truth of an ``if`` test over the bound parameters (``is``, ``==``, ``not``, and/or)."""
    line = getattr(node, "lineno", 0)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _condition(node.operand, env)
    if isinstance(node, ast.BoolOp):
        values = [_condition(v, env) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = _const(node.left, env, line), _const(node.comparators[0], env, line)
        op = node.ops[0]
        if isinstance(op, ast.Is | ast.Eq):
            return left is right if isinstance(op, ast.Is) else left == right
        if isinstance(op, ast.IsNot | ast.NotEq):
            return left is not right if isinstance(op, ast.IsNot) else left != right
    if isinstance(node, ast.Name | ast.Constant):
        return bool(_const(node, env, line))
    raise DerivationError(f"line {line}: cannot evaluate the condition {ast.unparse(node)!r}")


def _parametrize(fn: ast.FunctionDef, bind: dict[str, Any]) -> dict[str, Any]:
    """The binding of ``fn``'s parametrized arguments; it must be one of the listed tuples."""
    for deco in fn.decorator_list:
        if isinstance(deco, ast.Call) and ast.unparse(deco.func).endswith("mark.parametrize"):
            names = [n.strip() for n in ast.literal_eval(deco.args[0]).split(",")]
            rows = [r if isinstance(r, tuple) else (r,) for r in ast.literal_eval(deco.args[1])]
            missing = [n for n in names if n not in bind]
            if missing:
                raise DerivationError(f"{fn.name}: no --bind for {', '.join(missing)}")
            chosen = tuple(bind[n] for n in names)
            if chosen not in rows:
                raise DerivationError(f"{fn.name}: --bind {chosen} is not one of its parameters {rows}")
            return dict(zip(names, chosen, strict=True))
    return {}


def _options(call: ast.Call, partials: dict[str, dict[str, Any]], env: dict[str, Any]) -> dict[str, Any]:
    """Output options of a loader call (its partial's keywords and its own), with truthy values."""
    name = ast.unparse(call.func)
    kwargs = dict(partials.get(name, {}))
    for kw in call.keywords:
        if kw.arg is not None:
            kwargs[kw.arg] = _const(kw.value, env, call.lineno)
    return {k: v for k, v in kwargs.items() if k in OPTIONS and v not in (False, None, "txt")}


class _Walker:
    """Collects the page cases of one test function under a parameter binding."""

    def __init__(self, fn: ast.FunctionDef, env: dict[str, Any]):
        self.fn, self.env = fn, env
        self.partials: dict[str, dict[str, Any]] = {}
        self.cases: dict[str, PageCase] = {}
        self.current: PageCase | None = None
        self.result_var = ""
        self.reason = ""  # why the current result's assertions are set aside ("" = kept)
        self.untaken = 0

    def _loader(self, call: ast.Call) -> bool:
        name = ast.unparse(call.func)
        return name in LOADERS or name in self.partials

    def run(self) -> list[PageCase]:
        self._block(self.fn.body)
        return list(self.cases.values())

    def _block(self, body: list[ast.stmt]) -> None:
        for st in body:
            if isinstance(st, ast.If):
                taken = _condition(st.test, self.env)
                self._block(st.body if taken else st.orelse)
                self.untaken += sum(isinstance(n, ast.Assert)
                                    for s in (st.orelse if taken else st.body) for n in ast.walk(s))
            elif isinstance(st, ast.Assign) and isinstance(st.value, ast.Call):
                self._assign(st)
            elif isinstance(st, ast.Assert):
                self._assert(st)
            elif isinstance(st, ast.Expr | ast.Pass) or (
                    isinstance(st, ast.Assign) and isinstance(st.value, ast.Constant)):
                continue
            else:
                raise DerivationError(f"line {st.lineno}: statement not read: {ast.unparse(st)[:80]!r}")

    def _assign(self, st: ast.Assign) -> None:
        call = st.value
        assert isinstance(call, ast.Call)
        target = ast.unparse(st.targets[0])
        func = ast.unparse(call.func)
        if func.endswith("partial") and call.args and ast.unparse(call.args[0]) in LOADERS:
            self.partials[target] = {kw.arg: _const(kw.value, self.env, st.lineno)
                                     for kw in call.keywords if kw.arg}
            return
        inner = call
        if func == "extract_metadata" or not self._loader(call):
            self.current, self.result_var, self.reason = None, target, "metadata"
            return
        if not inner.args or not isinstance(inner.args[0], ast.Constant):
            raise DerivationError(f"line {st.lineno}: loader call without a literal URL")
        url = inner.args[0].value
        opts = _options(inner, self.partials, self.env)
        self.current = self.cases.setdefault(url, PageCase(self.fn.name, url, st.lineno))
        self.result_var = target
        self.reason = "options: " + ", ".join(f"{k}={v}" for k, v in sorted(opts.items())) if opts else ""

    def _assert(self, st: ast.Assert) -> None:
        test = st.test
        if isinstance(test, ast.Constant) and isinstance(test.value, str):
            if self.current is not None:
                self.current.set_aside.append({"op": "bare", "string": test.value, "line": st.lineno,
                                               "reason": "bare string: no comparison, always true"})
            return
        is_text = (isinstance(test, ast.Compare) and len(test.ops) == 1
                   and isinstance(test.ops[0], ast.In | ast.NotIn)
                   and isinstance(test.left, ast.Constant) and isinstance(test.left.value, str)
                   and ast.unparse(test.comparators[0]) == self.result_var)
        if self.current is None:
            return  # metadata assertions: counted by the caller per function
        if not is_text:
            self.current.set_aside.append({"op": "other", "string": ast.unparse(test), "line": st.lineno,
                                           "reason": "not a string test on the extracted text"})
            return
        assert isinstance(test, ast.Compare) and isinstance(test.left, ast.Constant)
        op = "in" if isinstance(test.ops[0], ast.In) else "not in"
        if self.reason:
            self.current.set_aside.append({"op": op, "string": test.left.value, "line": st.lineno,
                                           "reason": self.reason})
        else:
            (self.current.must if op == "in" else self.current.must_not).append(test.left.value)


def _norm(text: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def _selector(el: Any) -> str:
    classes = ".".join((el.get("class") or "").split())
    return f"{el.tag}" + (f"#{el.get('id')}" if el.get("id") else "") + (f".{classes}" if classes else "")


def comment_evidence(root: Any, needle: str) -> str | None:
    """The comment-section element holding every occurrence of ``needle`` in the page, or None.

    The occurrences are the deepest elements whose text (whitespace and Unicode
    normalised) contains the needle; each must have an ancestor below ``<body>`` whose id
    or class matches :data:`COMMENT_MARK`.  The outermost such ancestor is returned.
    """
    n = _norm(needle)
    deepest = []
    for el in root.iter():
        if not isinstance(el.tag, str) or el.tag in ("script", "style"):
            continue
        if n in _norm(el.text_content()) and not any(
                isinstance(c.tag, str) and n in _norm(c.text_content()) for c in el):
            deepest.append(el)
    if not deepest:
        return None
    marks = []
    for el in deepest:
        mark = None
        for anc in [el, *el.iterancestors()]:
            if anc.tag in ("body", "html"):
                break
            if COMMENT_MARK.search(f"{anc.get('id') or ''} {anc.get('class') or ''}"):
                mark = anc
        if mark is None:
            return None
        marks.append(_selector(mark))
    return marks[0]


def _mock_pages(tree: ast.Module) -> dict[str, str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "MOCK_PAGES":
            return ast.literal_eval(node.value)
    raise DerivationError("no MOCK_PAGES dict at module level")


def derive(source: str, bind: dict[str, Any], root: str | None, dataset_name: str) -> dict[str, Any]:
    """The source record's counts and the page cases (dicts, file order) of a test file's text."""
    tree = ast.parse(source)
    mock = _mock_pages(tree)
    dataset = next(d for d in list_datasets(root) if d.name == dataset_name)
    by_file = {str(rec.get("source", {}).get("html", "")).rsplit("/", 1)[-1]: doc
               for doc, rec in dataset.manifest.items()}
    by_url = {url: doc for doc, url in dataset.urls.items()}
    counts: Counter[str] = Counter()
    cases: list[dict[str, Any]] = []
    absent: list[dict[str, Any]] = []
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef) or not fn.name.startswith("test"):
            continue
        walker = _Walker(fn, _parametrize(fn, bind))
        found = walker.run()
        counts["other_variant"] += walker.untaken
        counts["metadata"] += sum(isinstance(n, ast.Assert) for n in ast.walk(fn)) - walker.untaken - sum(
            len(c.must) + len(c.must_not) + len(c.set_aside) for c in found)
        for case in found:
            file = mock.get(case.url)
            if file is None:
                raise DerivationError(f"line {case.line}: {case.url} is not in MOCK_PAGES")
            doc = by_file.get(file) or by_url.get(case.url)
            if doc is None:
                absent.append({"test": case.test, "url": case.url, "source_file": file,
                               "assertions": len(case.must) + len(case.must_not) + len(case.set_aside)})
                continue
            page = lxml.html.fromstring(Page.from_file(dataset.html_files[doc], url=case.url).html)
            kept = []
            for s in case.must:
                where = comment_evidence(page, s)
                if where:
                    case.set_aside.append({"op": "in", "string": s, "reason": "comment", "evidence": where})
                else:
                    kept.append(s)
            case.must = kept
            for item in case.set_aside:
                counts[item["reason"].split(":")[0]] += 1
            if not case.must and not case.must_not:
                counts["pages_all_set_aside"] += 1
                absent.append({"test": case.test, "url": case.url, "source_file": file,
                               "assertions": 0, "why": "every assertion set aside"})
                continue
            counts["in"] += len(case.must)
            counts["not_in"] += len(case.must_not)
            cases.append({"test": case.test, "url": case.url, "source_file": file, "dataset": dataset.name,
                          "page": doc, "line": case.line, "must": case.must, "must_not": case.must_not,
                          "set_aside": case.set_aside})
    counts["pages"] = len(cases)
    return {"counts": dict(sorted(counts.items())), "mock_pages": len(mock), "not_judged": absent,
            "cases": cases}


def _value(text: str) -> Any:
    return {"True": True, "False": False, "None": None}.get(text, text)


def main(argv: list[str] | None = None) -> None:
    """Derive the cases and write the JSONL file (source record first)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("test_file", type=Path, help="a copy of trafilatura's tests/realworld_tests.py")
    p.add_argument("--commit", required=True, help="the commit the test file was read at")
    p.add_argument("--repo", default="adbar/trafilatura")
    p.add_argument("--path", default="tests/realworld_tests.py", help="the test file's path in the repo")
    p.add_argument("--bind", action="append", default=[], metavar="NAME=VALUE",
                   help="parameter binding (default: xmloutput=False, formatting=False)")
    p.add_argument("--root", help="datasets root (default: CORPUSCRAWL_DATASETS or ../shared/datasets)")
    p.add_argument("--dataset", default="trafilatura")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = p.parse_args(argv)
    bind: dict[str, Any] = {"xmloutput": False, "formatting": False}
    for item in args.bind:
        name, _, value = item.partition("=")
        bind[name] = _value(value)
    text = args.test_file.read_text(encoding="utf-8")
    derived = derive(text, bind, str(datasets_root(args.root)) if args.root else None, args.dataset)
    source = {
        "repo": args.repo, "path": args.path, "commit": args.commit, "licence": "Apache-2.0",
        "what": "strings asserted in / not in the text trafilatura extracts from its cached pages "
                "(derived data: no code and no copy of the test file)",
        "derived_by": "benchmarks/realworld_cases.py TEST_FILE "
                      + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
                                 if a != str(args.test_file)),
        "test_file_chars": len(text), "binding": bind, "mock_pages": derived["mock_pages"],
        "counts": derived["counts"], "not_judged": derived["not_judged"],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps({"source": source}, ensure_ascii=False) + "\n")
        for case in derived["cases"]:
            fh.write(json.dumps(case, ensure_ascii=False) + "\n")
    print(json.dumps(derived["counts"]), file=sys.stderr)
    print(f"{len(derived['cases'])} pages -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
