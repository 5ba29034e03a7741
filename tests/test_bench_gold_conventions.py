"""benchmarks/gold_conventions.py on a tiny gold set: headline counts and weights by hand."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corpuscrawl.evaluation.datasets import Dataset
from corpuscrawl.evaluation.metrics import tokenize
from corpuscrawl.extract import get_extractor


@pytest.fixture
def bench(benchmark_module):  # type: ignore[no-untyped-def]
    return benchmark_module("gold_conventions")


def _row(text: str, section: str, first: str) -> list[str]:
    body = text.split(section, 1)[1]
    line = next(x for x in body.splitlines() if x.startswith(f"| {first} |"))
    return [c.strip() for c in line.strip("|").split("|")]


def test_contains_is_a_contiguous_word_sequence(bench) -> None:  # type: ignore[no-untyped-def]
    words = "new plans for the river announced today".split()
    assert bench.contains(words, ["plans", "for", "the"])
    assert not bench.contains(words, ["plans", "the"])  # in order but not contiguous
    assert not bench.contains(words, [])
    assert not bench.contains(["a"], ["a", "b"])


def test_headline_counts_and_weights(bench, tmp_path: Path, data_dir: Path,
                                     monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "datasets"
    shutil.copytree(data_dir / "learned" / "tinyset", root / "tinyset")
    # page00 is in the train part: its gold leaves the headline out from now on.
    gold0 = root / "tinyset" / "clean" / "page00.txt"
    lines = gold0.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[0].strip() == "New plans for the river announced"
    gold0.write_text("".join(lines[1:]), encoding="utf-8")
    monkeypatch.setenv("CORPUSCRAWL_DATASETS", str(root))
    out = tmp_path / "conventions.md"
    assert bench.main(["--datasets", "tinyset", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")

    train = ["page00", "page01", "page02", "page03", "page04", "page07", "page08", "page09",
             "page10", "page11"]
    clean = root / "tinyset" / "clean"
    gold_words = sum(len(tokenize((clean / f"{d}.txt").read_text(encoding="utf-8")))
                     for d in train)
    cells = _row(text, "## Does the gold keep the headline?", "tinyset")
    assert cells[1:4] == ["10", "10", "9 (90%)"]
    assert float(cells[4]) == pytest.approx(100 * 6 / gold_words, abs=0.005)  # river: 6 words
    # the other nine headlines have six words too
    assert float(cells[5]) == pytest.approx(100 * 54 / gold_words, abs=0.005)

    methods = "## Which methods keep it?"
    assert _row(text, methods, "gold")[1:] == ["100%", "100%"]  # test part: page05, page06
    assert _row(text, methods, "headline pages")[1:] == ["2", "2"]
    # each method's share is that of its own outputs on the two test pages
    ds = Dataset(root / "tinyset")
    for name in ("auto", "readability"):
        extractor = get_extractor(name)
        kept = 0
        for doc in ("page05", "page06"):
            page = ds.load_page(doc)
            h1 = tokenize(next(page.body.iter("h1")).text_content())
            kept += bench.contains(tokenize(extractor.extract(page)), h1)
        assert _row(text, methods, name)[1] == f"{kept / 2:.0%}"


def test_headline_worth_counts_a_removed_headline(
        bench, tmp_path: Path, data_dir: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "datasets"
    shutil.copytree(data_dir / "learned" / "tinyset", root / "tinyset")
    # page05 is in the test part: its gold leaves the headline out from now on.
    gold5 = root / "tinyset" / "clean" / "page05.txt"
    lines = gold5.read_text(encoding="utf-8").splitlines(keepends=True)
    gold5.write_text("".join(lines[1:]), encoding="utf-8")
    ds = Dataset(root / "tinyset")
    # A method answering the original gold of each page: headline and all.
    answers = {"page05": "".join(lines),
               "page06": (root / "tinyset" / "clean" / "page06.txt").read_text(encoding="utf-8")}

    def run(html: str, url: str) -> str:
        return next(text for doc, text in answers.items() if ds.read_html(doc) == html)

    kept, f1_rows = bench.method_rows(root, ["tinyset"], {"echo": run})
    assert kept[0] == ["gold", "50%", "50%"]  # page06's gold keeps its headline
    assert kept[1] == ["echo", "100%", "100%"]
    body = tokenize((root / "tinyset" / "clean" / "page05.txt").read_text(encoding="utf-8"))
    page06 = len(tokenize(answers["page06"]))
    tp = len(body) + page06  # 6 headline words of page05 are the only false positives
    assert f1_rows[0][0] == "echo"
    assert float(f1_rows[0][1]) == pytest.approx(2 * tp / (2 * tp + 6), abs=5e-5)
    assert f1_rows[1] == ["… headline as the gold has it", "1.0000", "1.0000"]
    assert bench.without(["a", "b", "c", "b", "c"], ["b", "c"]) == ["a", "b", "c"]
