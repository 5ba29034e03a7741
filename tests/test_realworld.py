"""trafilatura's real-world suite as data: the cases file, its matching rule, its derivation, the benchmark."""

from __future__ import annotations

import json
from pathlib import Path

import lxml.html
import pytest

from corpuscrawl.evaluation.realworld import (
    Failure,
    RealworldCase,
    RealworldError,
    check,
    contains,
    load_cases,
    summary_counts,
)
from corpuscrawl.evaluation.results_file import RUNS_MARKER

CASES_FILE = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "trafilatura_realworld.jsonl"


def test_the_committed_cases_file_parses_and_its_counts_hold() -> None:
    source, cases = load_cases(CASES_FILE)
    assert source["repo"] == "adbar/trafilatura" and source["licence"] == "Apache-2.0"
    assert len(source["commit"]) == 40 and source["path"] == "tests/realworld_tests.py"
    counts = summary_counts(cases)
    assert counts["pages"] == source["counts"]["pages"] == len(cases) >= 80
    assert counts["in"] == source["counts"]["in"] and counts["not_in"] == source["counts"]["not_in"]
    assert len({c.page for c in cases}) == len(cases)
    for case in cases:
        assert case.dataset == "trafilatura" and case.url.startswith("http")
        assert not set(case.must) & set(case.must_not), case.page
        for item in case.set_aside:
            if item["reason"] == "comment":  # every comment string says where the page holds it
                assert item["op"] == "in" and "comment" in item["evidence"].lower()


def _case(must: tuple[str, ...] = (), must_not: tuple[str, ...] = ()) -> RealworldCase:
    return RealworldCase("test_x", "https://example.com/", "x.html", "trafilatura", "x", 1, must, must_not)


def test_matching_counts_whitespace_runs_as_one_space_and_nothing_else() -> None:
    text = "First line.\nKommentieren\n\nSecond   paragraph ends here!"
    assert contains(text, "First line. Kommentieren")
    assert contains(text, " Kommentieren")  # a leading space matches a line break
    assert contains(text, "ends here! ")  # the text's end counts as whitespace
    assert contains(text, "Second paragraph")
    assert contains(text, "Kommentieren Second")  # a blank line is whitespace too
    assert not contains(text, "First Kommentieren")  # the words must be adjacent
    assert contains(text, "Kommentieren \t ")  # the needle's whitespace runs are one space too
    assert not contains("gepru\u0308ft", "gepr\u00fcft")  # decomposed Unicode is not normalised
    assert not contains("Verschlei\xadß", "Verschleiß")  # nor soft hyphens
    failures = check(_case(must=("First line.", "missing"), must_not=("Second", "absent")), text)
    assert failures == [Failure("in", "missing"), Failure("not in", "Second")]
    assert check(_case(must=("First line.",), must_not=("absent",)), text) == []


def _write(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


GOOD = {"test": "t", "url": "https://a.example/", "source_file": "a.html", "dataset": "trafilatura",
        "page": "a", "line": 3, "must": ["x"], "must_not": []}


@pytest.mark.parametrize("records, message", [
    ([GOOD], "first record must be"),
    ([{"source": {}}, {**GOOD, "must": []}], "at least one kept assertion"),
    ([{"source": {}}, {**GOOD, "must": [""]}], "non-empty strings"),
    ([{"source": {}}, {**GOOD, "extra": 1}], "unknown field"),
    ([{"source": {}}, GOOD, GOOD], "listed twice"),
    ([{"source": {}}, {**GOOD, "set_aside": [{"string": "s"}]}], "with a reason"),
])
def test_a_malformed_cases_file_is_refused_naming_the_line(tmp_path: Path, records: list, message: str) -> None:
    path = _write(tmp_path / "cases.jsonl", records)
    with pytest.raises(RealworldError, match=message) as info:
        load_cases(path)
    assert str(path) in str(info.value)


def test_a_line_that_is_not_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"source": {}}\n{not json\n', encoding="utf-8")
    with pytest.raises(RealworldError, match=r"cases.jsonl:2: not JSON"):
        load_cases(path)


def test_comment_evidence_needs_every_occurrence_inside_a_comment_section(benchmark_module) -> None:
    derive = benchmark_module("realworld_cases")
    root = lxml.html.fromstring(
        "<html><body><article><p>The article says hello.</p><p>Shared words.</p></article>"
        "<div id='comments' class='comments-area'><ol class='commentlist'><li><p>Great post, thanks!</p>"
        "<p>Shared words.</p></li></ol></div></body></html>")
    assert derive.comment_evidence(root, "Great  post, thanks!") == "div#comments.comments-area"
    assert derive.comment_evidence(root, "Shared words.") is None  # also in the article
    assert derive.comment_evidence(root, "The article says hello.") is None
    assert derive.comment_evidence(root, "nowhere") is None


SMALL_TEST_FILE = '''
import functools
import pytest

MOCK_PAGES = {
    "http://love-hina.ch/news/0409.html": "love-hina.ch.0409.html",
    "https://lemire.me/blog/2019/08/02/json-parsing-simdjson-vs-json-for-modern-c/": "lemire.me.json.html",
    "https://example.org/not-in-the-dataset": "example.org.html",
}

@pytest.mark.parametrize("xmloutput,formatting", [(True, False), (False, False)])
def test_extract(xmloutput, formatting):
    do_load_page = functools.partial(load_mock_page, xml_flag=xmloutput, formatting=formatting)
    result = do_load_page("http://love-hina.ch/news/0409.html")
    assert "Kapitel 121 ist" in result
    assert "Besucher online" not in result
    if xmloutput is False:
        assert "Kommentare schreiben" not in result
    else:
        assert "<p>" in result
    assert "always true"
    result = do_load_page("https://lemire.me/blog/2019/08/02/json-parsing-simdjson-vs-json-for-modern-c/")
    assert "I use a Skylake processor with GNU GCC 8.3." in result
    assert "version 0.2 on vcpkg." in result
    assert "Leave a Reply" not in result
    result = do_load_page("https://example.org/not-in-the-dataset")
    assert "anything" in result

def test_links():
    result = load_mock_page("http://love-hina.ch/news/0409.html", formatting=True, links=True)
    assert "[a link](https://x)" in result

def test_pages():
    metadata = extract_metadata(load_mock_page_meta("http://love-hina.ch/news/0409.html"))
    assert metadata.title == "x"
'''


@pytest.mark.datasets
def test_derivation_reads_the_tests_syntax_tree(datasets_dir: Path, benchmark_module) -> None:
    derive = benchmark_module("realworld_cases")
    out = derive.derive(SMALL_TEST_FILE, {"xmloutput": False, "formatting": False}, str(datasets_dir),
                        "trafilatura")
    cases = {c["page"]: c for c in out["cases"]}
    assert set(cases) == {"love-hina.ch.0409", "lemire.me.json"}
    hina = cases["love-hina.ch.0409"]
    assert hina["must"] == ["Kapitel 121 ist"]
    assert hina["must_not"] == ["Besucher online", "Kommentare schreiben"]  # the text branch only
    assert [a["reason"] for a in hina["set_aside"]] == ["bare string: no comparison, always true"]
    lemire = cases["lemire.me.json"]
    assert lemire["must"] == ["I use a Skylake processor with GNU GCC 8.3."]
    assert [(a["string"], a["reason"]) for a in lemire["set_aside"]] == [("version 0.2 on vcpkg.", "comment")]
    not_judged = {(n["test"], n["url"]) for n in out["not_judged"]}
    assert ("test_extract", "https://example.org/not-in-the-dataset") in not_judged
    assert ("test_links", "http://love-hina.ch/news/0409.html") in not_judged  # Markdown only
    assert out["counts"]["metadata"] == 1 and out["counts"]["other_variant"] == 1
    assert out["counts"]["options"] == 1 and out["counts"]["comment"] == 1
    with pytest.raises(derive.DerivationError, match="not one of its parameters"):
        derive.derive(SMALL_TEST_FILE, {"xmloutput": False, "formatting": True}, str(datasets_dir), "trafilatura")


@pytest.mark.datasets
def test_the_benchmark_runs_on_three_cases(datasets_dir: Path, tmp_path: Path, benchmark_module) -> None:
    bench = benchmark_module("realworld")
    out = tmp_path / "realworld.md"
    out.write_text("old table\n\n## Analysis\n\nkept by hand\n", encoding="utf-8")
    bench.main(["--limit", "3", "--extractors", "auto", "--peers", "trafilatura", "--root", str(datasets_dir),
                "--out", str(out)])
    text = out.read_text(encoding="utf-8")
    assert text.startswith(f"old table\n\n## Analysis\n\nkept by hand\n\n{RUNS_MARKER}\n\n## Run ")
    rows = [line for line in text.splitlines() if line.startswith("| auto |") or "(peer) |" in line]
    assert len(rows) == 2 and all("/3 |" in r for r in rows)
    assert "Check of the derivation" in text and "3/3 pages" in text.split("Check of the derivation")[1]
