"""benchmarks/wcxb.py end to end on a tiny typed dataset (no peers): per-type tables, lost
pages and their causes, the output cache and its resumption, stored outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ARTICLE = ("<html><body><nav><a href='/'>Home</a> <a href='/n'>News</a></nav><article>"
           "<h1>Rain returns</h1><p>{}</p></article><footer>Copyright</footer></body></html>")
TEXTS = {
    "a1": "After a dry month the rain came back to the valley on Sunday and filled the "
          "reservoirs that farmers had watched shrink all summer long.",
    "a2": "The library reopened its reading room after two years of repairs, with new "
          "lamps, quieter heating and twice as many seats by the windows.",
    "f1": "My bike chain skips on the smallest cog after I cleaned it, and a new cable "
          "did not help at all; what else should I check before buying parts?",
}


@pytest.fixture
def bench(benchmark_module):  # type: ignore[no-untyped-def]
    return benchmark_module("wcxb")


def make_root(tmp_path: Path) -> Path:
    root = tmp_path / "datasets" / "wcxb"
    (root / "html").mkdir(parents=True)
    (root / "clean").mkdir()
    lines = []
    for i, (doc, text) in enumerate(TEXTS.items()):
        (root / "html" / f"{doc}.html").write_text(ARTICLE.format(text))
        (root / "clean" / f"{doc}.txt").write_text(text + "\n")
        lines.append(json.dumps({"id": doc, "domain": f"site{i}.example",
                                 "url": f"https://site{i}.example/{doc}",
                                 "page_type": "forum" if doc.startswith("f") else "article"}))
    (root / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    return root.parent


def test_the_benchmark_reports_by_page_type_and_resumes_from_its_cache(
        bench, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CORPUSCRAWL_CACHE", str(tmp_path / "cache"))
    root = make_root(tmp_path)
    out = tmp_path / "wcxb.md"
    assert bench.main(["--root", str(root), "--methods", "bte", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "| method | article | forum | all |" in text
    assert "| pages | 2 | 1 | 3 |" in text
    row = next(line for line in text.splitlines() if line.startswith("| bte |"))
    assert float(row.split("|")[-2]) > 0.8  # BTE's pooled F1 on these clean pages
    stored = next((tmp_path / "cache" / "wcxb-bench" / "bte").glob("*.json"))
    assert set(json.loads(stored.read_text())) == set(TEXTS)
    # A second run reads the cache; stored outputs of an "earlier version" join the table,
    # and one that lost a page shows it as lost with its cause.
    earlier = json.loads(stored.read_text())
    earlier["a2"] = ["", 0.01]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(earlier))
    again = tmp_path / "wcxb-again.md"
    assert bench.main(["--root", str(root), "--methods", "bte", "--stored", f"before={old}",
                       "--out", str(again)]) == 0
    text = again.read_text(encoding="utf-8")
    assert any(line.startswith("| bte |") and line.endswith("| cache |")
               for line in text.splitlines())
    lost = [line for line in text.split("## Lost pages")[1].splitlines()
            if line.startswith("| before |")][0]
    assert lost.split("|")[-2].strip() == "1"
    assert "| before | 1 | 0 | 0 | 0 | 1 |" in text  # lost because nothing was extracted


def test_the_test_part_holds_whole_sites(bench, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from corpuscrawl.evaluation.datasets import Dataset

    monkeypatch.setenv("CORPUSCRAWL_CACHE", str(tmp_path / "cache"))
    root = make_root(tmp_path)
    train, test = Dataset(root / "wcxb").split(sorted(TEXTS))
    out = tmp_path / "wcxb.md"
    assert bench.main(["--root", str(root), "--methods", "bte", "--part", "test",
                       "--out", str(out)]) == 0
    assert f"- pages: {len(test)} of wcxb (part `test`" in out.read_text(encoding="utf-8")
