"""``corpuscrawl extract`` on a tiny hand-written dataset: outputs, encodings, failures, errors."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from corpuscrawl import extract as registry_module
from corpuscrawl.cli import main
from corpuscrawl.html.page import Page


class BoomExtractor:
    """Test extractor: returns the page's paragraphs, raises on pages containing BOOM."""

    name = "boom"

    def extract(self, page: Page) -> str:
        text = "\n".join(p.text_content().strip() for p in page.tree.iter("p"))
        if "BOOM" in text:
            raise RuntimeError("BOOM found")
        return text


class VersionedExtractor(BoomExtractor):
    """Test extractor naming its output directory through ``method_name`` (like trained models)."""

    name = "versioned"
    method_name = "versioned-20240101T000000"


@pytest.fixture
def tiny(tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A writable copy of tests/data/evaluation/tiny plus a gzipped page and test extractors."""
    root = tmp_path / "tiny"
    shutil.copytree(data_dir / "evaluation" / "tiny", root)
    html = (root / "html" / "news.html").read_bytes()
    (root / "html" / "zipped.html.gz").write_bytes(gzip.compress(html))
    shutil.copy(root / "clean" / "news.txt", root / "clean" / "zipped.txt")
    monkeypatch.setitem(registry_module.EXTRACTORS_BASE, "boom", f"{__name__}:BoomExtractor")
    monkeypatch.setitem(registry_module.EXTRACTORS_BASE, "versioned",
                        f"{__name__}:VersionedExtractor")
    return root


def test_writes_one_file_per_page_and_method(tiny: Path) -> None:
    rc = main(["extract", "-e", "bte", "-e", "boom", "-j", "1", "--no-progress", str(tiny)])
    assert rc == 0
    bte = sorted(p.name for p in (tiny / "bte").glob("*.txt"))
    assert bte == ["boom.txt", "latin.txt", "news.txt", "nogold.txt", "zipped.txt"]
    news = (tiny / "bte" / "news.txt").read_text(encoding="utf-8")
    assert "new ferry line on Monday" in news
    assert "should never appear" not in news
    # The gzipped copy gives the same text as the plain page.
    assert (tiny / "bte" / "zipped.txt").read_text(encoding="utf-8") == news


def test_declared_legacy_encoding_is_decoded(tiny: Path) -> None:
    assert main(["extract", "-e", "boom", "-j", "1", "--no-progress", str(tiny)]) == 0
    text = (tiny / "boom" / "latin.txt").read_text(encoding="utf-8")
    assert "Le café de la gare ouvre à sept heures" in text
    assert "crème brûlée" in text


def test_failing_page_is_counted_not_written_and_run_continues(
        tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["extract", "-e", "boom", "-j", "1", "--no-progress", str(tiny)])
    assert rc == 0
    assert not (tiny / "boom" / "boom.txt").exists()
    assert (tiny / "boom" / "news.txt").exists()
    errors = [json.loads(line) for line in
              (tiny / "boom" / "errors.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [e["id"] for e in errors] == ["boom"]
    assert "4 written, 1 failed" in capsys.readouterr().out


def test_unreadable_page_is_counted(tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tiny / "html" / "corrupt.html.gz").write_bytes(b"\x1f\x8bnot really gzip")
    assert main(["extract", "-e", "boom", "-j", "1", "--no-progress", str(tiny)]) == 0
    out = capsys.readouterr().out
    assert "6 pages, 1 unreadable" in out
    assert "4 written, 2 failed" in out


def test_parallel_run_matches_serial_run(tiny: Path, tmp_path: Path) -> None:
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    assert main(["extract", "-e", "boom", "-e", "bte", "-j", "1", "--no-progress",
                 "-o", str(serial), str(tiny)]) == 0
    assert main(["extract", "-e", "boom", "-e", "bte", "-j", "2", "--no-progress",
                 "-o", str(parallel), str(tiny)]) == 0
    for method in ("boom", "bte"):
        a = {p.name: p.read_bytes() for p in (serial / method).glob("*.txt")}
        b = {p.name: p.read_bytes() for p in (parallel / method).glob("*.txt")}
        assert a == b and a


def test_output_elsewhere_and_method_name_hook(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["extract", "-e", "versioned", "-j", "1", "--no-progress", "-o", str(out),
                 str(tiny)]) == 0
    assert (out / "versioned-20240101T000000" / "news.txt").is_file()
    assert not (tiny / "versioned-20240101T000000").exists()


def test_unknown_extractor_lists_known_names(tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["extract", "-e", "no-such-thing", "--no-progress", str(tiny)])
    assert rc == 2
    err = capsys.readouterr().err
    assert "unknown extractor 'no-such-thing'" in err
    assert "bte" in err and "justext" in err


def test_all_skips_extractors_that_need_configuration(
        tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["extract", "-e", "all", "-j", "1", "--no-progress", "--limit", "1", str(tiny)])
    assert rc == 0
    captured = capsys.readouterr()
    assert "skipped template" in captured.err
    assert (tiny / "bte").is_dir() and (tiny / "boom").is_dir()


def test_template_extractor_with_options(tiny: Path, tmp_path: Path) -> None:
    template = tmp_path / "harbour.txt"
    template.write_text("class=article\n", encoding="utf-8")
    assert main(["extract", "-e", f"template:path={template}", "-j", "1", "--no-progress",
                 str(tiny)]) == 0
    text = (tiny / "template-harbour" / "news.txt").read_text(encoding="utf-8")
    assert text.startswith("New ferry line opens")
    assert "Copyright" not in text


def test_not_a_dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", "-e", "bte", str(tmp_path)]) == 2
    assert "no html/" in capsys.readouterr().err


def test_read_only_dataset_needs_output_elsewhere(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tiny.chmod(0o555)
    try:
        assert main(["extract", "-e", "bte", "-j", "1", "--no-progress", str(tiny)]) == 2
        assert "read-only; use -o DIR" in capsys.readouterr().err
        assert not (tiny / "bte").exists()
        assert main(["extract", "-e", "bte", "-j", "1", "--no-progress", "-o",
                     str(tmp_path / "out"), str(tiny)]) == 0
    finally:
        tiny.chmod(0o755)
