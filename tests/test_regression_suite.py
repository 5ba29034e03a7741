"""Our own regression suite: strings that must and must not be in the default extractor's text.

``tests/data/regression/cases.toml`` names development pages of the benchmark
datasets (never their HTML, never the test split) and ``fixtures.toml`` the
hand-written pages under ``tests/data/regression/fixtures/``; both say what a
reader expects of the text (see :mod:`corpuscrawl.evaluation.regression`).
Every case runs for the crawl's default extractor and for ``auto``; a case an
extractor fails today carries ``xfail.NAME = "reason"`` and is marked
``xfail(strict=True)``, so it fails the suite once fixed until the mark goes.
Dataset cases skip with the reason when ``../shared/datasets`` is absent.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from corpuscrawl import settings as project_settings
from corpuscrawl.evaluation.datasets import DatasetError, list_datasets
from corpuscrawl.evaluation.regression import Case, CaseError, check, load_cases, page_of
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import Extractor
from corpuscrawl.html.page import Page

DATA = Path(__file__).parent / "data" / "regression"
CASES = load_cases(DATA / "cases.toml")
FIXTURES = load_cases(DATA / "fixtures.toml", dev_only=False)
#: The crawl's default extractor and ``auto``, each once (one run while ``auto`` is the default).
EXTRACTORS = list(dict.fromkeys([project_settings.CORPUSCRAWL_EXTRACTOR, "auto"]))


@cache
def extractor(name: str) -> Extractor:
    """One built extractor per name for the whole module (models load once)."""
    return get_extractor(name)


@cache
def datasets() -> tuple:
    """The benchmark datasets on disk, or a skip naming where they were looked for."""
    try:
        return tuple(list_datasets())
    except DatasetError as exc:
        return (str(exc),)


def _params(cases: list[Case]) -> list:
    return [pytest.param(name, case, id=f"{name}:{case.key}",
                         marks=[pytest.mark.xfail(strict=True, reason=case.xfail[name])]
                         if name in case.xfail else [])
            for name in EXTRACTORS for case in cases]


def test_suite_size_and_coverage() -> None:
    assert len({c.key for c in CASES}) >= 60
    tags = {t for c in CASES + FIXTURES for t in c.tags}
    assert {"soft-hyphen", "nfd", "inline", "closing", "pros-cons", "follow-up", "related-heading",
            "author-bio", "byline", "reading-time"} <= tags
    assert {c.dataset for c in CASES} >= {"trafilatura", "dragnet", "readability", "scrapinghub"}


@pytest.mark.parametrize("name, case", _params(CASES))
def test_dataset_case(name: str, case: Case) -> None:
    found = datasets()
    if found and isinstance(found[0], str):
        pytest.skip(f"benchmark datasets absent: {found[0]}")
    text = extractor(name).extract(page_of(case, found))
    problems = check(case, text)
    assert not problems, f"{case.key} ({case.why}): " + "; ".join(problems)


@pytest.mark.parametrize("name, case", _params(FIXTURES))
def test_fixture_case(name: str, case: Case) -> None:
    page = Page.from_file(DATA / "fixtures" / f"{case.page}.html",
                          url=f"https://example.com/{case.page}")
    problems = check(case, extractor(name).extract(page))
    assert not problems, f"{case.key} ({case.why}): " + "; ".join(problems)


# ---- the cases file format -------------------------------------------------------------

def test_check_reports_every_problem() -> None:
    case = Case("d", "p", "why", must=("kept line",), must_not=("\u00ad",),
                must_not_line=("Related posts",))
    assert check(case, "a kept line here\nRelated posts") == ["line present 'Related posts'"]
    assert check(case, "Related posts here\nkept line") == []
    assert check(case, "kept\nline\u00ad") == ["missing 'kept line'", "present '\\xad'"]


@pytest.mark.parametrize("body, message", [
    ('[[case]]\ndataset = "d"\npage = "p"\nwhy = "w"\n', "needs at least one must"),
    ('[[case]]\ndataset = "d"\npage = "p"\nwhy = "w"\nmust = ["x"]\nmust_nt = ["y"]\n', "unknown field(s) must_nt"),
    ('[[case]]\ndataset = "d"\npage = "p"\nmust = ["x"]\n', "why must be a non-empty string"),
    ('[[case]]\ndataset = "d"\npage = "p"\nwhy = "w"\nmust = "x"\n', "must must be a list"),
    ('[[case]]\ndataset = "d"\npage = "p"\nwhy = "w"\nmust = ["x"]\nxfail = {auto = 1}\n', "xfail must be"),
    ('[[case]]\ndataset = "d"\npage = "p"\nwhy = "w"\nmust = ["x"]\n' * 2, "d/p has two cases"),
    ('dataset = "d"\n', "no [[case]] tables"),
    ('[[case]\n', "Expected"),
])
def test_bad_cases_file_names_file_and_case(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "cases.toml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(CaseError, match="cases.toml") as info:
        load_cases(path, dev_only=False)
    assert message in str(info.value)


def test_test_split_pages_are_refused(tmp_path: Path) -> None:
    from corpuscrawl.evaluation.datasets import is_test
    test_page = next(f"page-{i}" for i in range(1000) if is_test(f"page-{i}"))
    path = tmp_path / "cases.toml"
    path.write_text(f'[[case]]\ndataset = "d"\npage = "{test_page}"\nwhy = "w"\nmust = ["x"]\n',
                    encoding="utf-8")
    with pytest.raises(CaseError, match="test split"):
        load_cases(path)
    assert load_cases(path, dev_only=False)[0].page == test_page


def test_missing_page_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "mini" / "html").mkdir(parents=True)
    from corpuscrawl.evaluation.datasets import Dataset
    case = Case("mini", "nope", "why", must=("x",))
    with pytest.raises(DatasetError, match="mini/nope: no such page"):
        page_of(case, [Dataset(tmp_path / "mini")])
    with pytest.raises(DatasetError, match="no dataset named 'other'"):
        page_of(Case("other", "p", "why", must=("x",)), [Dataset(tmp_path / "mini")])
