"""Feed exporters: JSON Lines, text directory and vertical output of cleaned documents."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from corpuscrawl.boilerplate.detector import Detector, DetectorConfig
from corpuscrawl.boilerplate.sqlite_history import SQLiteHistory
from corpuscrawl.export.dedup import NearDuplicateIndex
from corpuscrawl.export.scrapy_glue.exporters import (
    CorpusCsvExporter,
    CorpusJsonExporter,
    CorpusJsonLinesExporter,
    TextDirectoryExporter,
    VerticalExporter,
)
from corpuscrawl.export.stage import ExportStage
from corpuscrawl.items import Document
from tests.boilerplate_site import ALL_ARTICLES, NOTICE


def docs(n: int = 8) -> list[Document]:
    out = []
    for a in ALL_ARTICLES[:n]:
        text = "\n".join([*a.paragraphs, NOTICE.format(year=a.year)])
        out.append(Document(url=f"http://news.example/{a.slug}", domain="news.example",
                            title=a.title, text=text, language="en"))
    return out


def new_stage() -> ExportStage:
    config = DetectorConfig(min_documents=3, warm_documents=5, use_patterns=False)
    return ExportStage(Detector(SQLiteHistory(":memory:"), config), NearDuplicateIndex())


def run(exporter, items) -> None:
    exporter.start_exporting()
    for item in items:
        exporter.export_item(item)
    exporter.finish_exporting()


def test_jsonlines_writes_cleaned_documents_in_order_with_what_was_removed():
    out = io.BytesIO()
    run(CorpusJsonLinesExporter(out, stage=new_stage()), docs())
    rows = [json.loads(line) for line in out.getvalue().decode().splitlines()]
    assert [r["url"] for r in rows] == [d.url for d in docs()]
    for row, a in zip(rows, ALL_ARTICLES, strict=False):
        assert row["text"] == "\n".join(a.paragraphs)
        assert row["removed_boilerplate"] == 1 and len(row["boilerplate_hashes"]) == 1


def test_without_a_stage_items_are_written_as_they_are():
    out = io.BytesIO()
    run(CorpusJsonLinesExporter(out), docs(2))
    rows = [json.loads(line) for line in out.getvalue().decode().splitlines()]
    assert rows[0]["text"] == docs(2)[0].text
    out = io.BytesIO()
    run(CorpusJsonLinesExporter(out, stage=new_stage()), [{"url": "x", "text": "a dict item"}])
    assert json.loads(out.getvalue()) == {"url": "x", "text": "a dict item"}


def test_json_array_is_valid_and_cleaned():
    out = io.BytesIO()
    run(CorpusJsonExporter(out, stage=new_stage()), docs(6))
    rows = json.loads(out.getvalue())
    assert len(rows) == 6 and not any("Copyright" in r["text"] for r in rows)


def test_csv_is_cleaned_too():
    out = io.BytesIO()
    run(CorpusCsvExporter(out, stage=new_stage(), fields_to_export=["url", "text"]), docs(6))
    text = out.getvalue().decode()
    assert text.startswith("url,text") and text.count("http://news.example/") == 6
    assert "Copyright" not in text


def test_text_directory_writes_one_file_per_document_and_an_index(tmp_path: Path):
    index = tmp_path / "corpus" / "index.tsv"
    index.parent.mkdir()
    with index.open("ab") as fh:
        run(TextDirectoryExporter(fh, stage=new_stage()), docs(6))
    lines = index.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "path\turl\ttitle\tlanguage" and len(lines) == 7
    for line, a in zip(lines[1:], ALL_ARTICLES, strict=False):
        rel, url, title, language = line.split("\t")
        assert url.endswith(a.slug) and title == a.title and language == "en"
        assert (index.parent / rel).read_text(encoding="utf-8") == "\n".join(a.paragraphs) + "\n"
        assert rel.startswith("news.example/")


def test_text_directory_needs_a_directory_for_unnamed_files():
    with pytest.raises(ValueError, match="directory"):
        TextDirectoryExporter(io.BytesIO())


def test_text_directory_explicit_directory(tmp_path: Path):
    run(TextDirectoryExporter(io.BytesIO(), directory=tmp_path / "texts"), docs(1))
    assert len(list((tmp_path / "texts").rglob("*.txt"))) == 1


def test_vertical_format():
    doc = Document(url="http://x.example/a?b=1&c=2", title='Say "hi" <now>', language="en",
                   domain="x.example", text="First paragraph & more.\nSecond one.")
    out = io.BytesIO()
    run(VerticalExporter(out), [doc])
    assert out.getvalue().decode() == (
        '<doc url="http://x.example/a?b=1&amp;c=2" title="Say &quot;hi&quot; &lt;now&gt;" '
        'lang="en" domain="x.example" date="">\n'
        "<p>\nFirst paragraph &amp; more.\n</p>\n<p>\nSecond one.\n</p>\n</doc>\n")


def test_vertical_tokens_and_chosen_attributes():
    doc = Document(url="http://x.example/", language="hr", text="Dobar dan, svijete!")
    out = io.BytesIO()
    run(VerticalExporter(out, tokens=True, fields_to_export=["url", "language"]), [doc])
    assert out.getvalue().decode().splitlines() == [
        '<doc url="http://x.example/" lang="hr">', "<p>", "Dobar", "dan", ",", "svijete", "!",
        "</p>", "</doc>"]


def test_vertical_drops_pure_boilerplate_documents():
    items = [*docs(6), Document(url="http://news.example/legal", domain="news.example",
                                text=NOTICE.format(year=2024))]
    out = io.BytesIO()
    run(VerticalExporter(out, stage=new_stage()), items)
    text = out.getvalue().decode()
    assert text.count("<doc ") == 6 and "legal" not in text and "Copyright" not in text
