"""Text normalisation (corpuscrawl.html.text) and text rendering: one rule per test.

Every extractor built through the registry, every template and every crawl
extraction returns normalised text; the renderers never split a sentence at an
inline (phrasing) element and break lines at ``<br>`` only between lines of text.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpuscrawl.evaluation.datasets import Dataset
from corpuscrawl.evaluation.runner import ExtractorSpec, run_extraction
from corpuscrawl.extract import get_extractor, names
from corpuscrawl.extract.base import NormalizedExtractor
from corpuscrawl.extract.classic.linkblocks import segments as link_segments
from corpuscrawl.extract.segment.blocks import text_blocks
from corpuscrawl.extract.segment.cdom import page_blocks
from corpuscrawl.extract.segment.segments import segment_page
from corpuscrawl.html.dom import render_text
from corpuscrawl.html.page import Page
from corpuscrawl.html.text import (
    INVISIBLE_CHARS,
    normalize_lines,
    normalize_text,
    resolve_zero_width,
)
from corpuscrawl.pagetext.extraction import Extraction
from corpuscrawl.pagetext.rules import DomainRules

BODY = " ".join(f"Paragraph sentence {i} tells the reader about the harbour and its ships." for i in range(10))


def article(inner: str, title: str = "A story") -> str:
    """A news-like page: navigation, an article with ``inner`` between two long paragraphs, footer."""
    return (f"<html><head><title>{title}</title></head><body>"
            "<nav><ul><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li></ul></nav>"
            f"<article><h1>{title}</h1><p>{BODY}</p>{inner}<p>{BODY}</p></article>"
            "<footer><a href='/imprint'>Imprint</a> © 2024 Example Media</footer></body></html>")


def registered() -> list[str]:
    """Every registered extractor that builds without options (template needs a file)."""
    out = []
    for name in names():
        try:
            get_extractor(name)
        except Exception:
            continue
        out.append(name)
    return out


EXTRACTORS = registered()


# ---- the normalisation rules ----------------------------------------------------------

def test_nfc_composes_decomposed_umlauts() -> None:
    nfd = unicodedata.normalize("NFD", "Größere Männer fahren über Brücken")
    assert nfd != "Größere Männer fahren über Brücken"
    assert normalize_text(nfd) == "Größere Männer fahren über Brücken"


def test_nfc_keeps_compatibility_forms() -> None:
    # NFC, not NFKC: a ligature, a superscript and full-width letters are text, not noise.
    assert normalize_text("ﬁnance x² ＡＢＣ") == "ﬁnance x² ＡＢＣ"


def test_soft_hyphens_are_removed() -> None:
    assert normalize_text("Die Ver\u00adsiche\u00adrungs\u00adgesellschaft") == "Die Versicherungsgesellschaft"


def test_soft_hyphen_before_combining_mark_then_composes() -> None:
    assert normalize_text("Bru\u00ad\u0308cke") == "Brücke"


def test_byte_order_mark_and_word_joiner_are_removed() -> None:
    assert normalize_text("\ufeffStart of the text\u2060.") == "Start of the text."
    assert set(INVISIBLE_CHARS) == {"\u00ad", "\u2060", "\ufeff"}


def test_zero_width_space_removed_between_latin_words_and_in_urls() -> None:
    assert normalize_text("see https://exa\u200bmple.com/very\u200blong\u200b path") == \
        "see https://example.com/verylong path"


def test_zero_width_space_kept_as_word_boundary_in_thai() -> None:
    thai = "ภาษาไทย\u200bเขียน\u200bติดกัน"
    assert normalize_text(thai) == thai


def test_zwnj_kept_in_persian_and_removed_in_latin() -> None:
    persian = "می\u200cخواهم کتاب\u200cها را بخوانم"
    assert normalize_text(persian) == persian
    assert normalize_text("Auf\u200clage") == "Auflage"


def test_zwj_kept_in_devanagari_conjuncts_and_emoji_sequences() -> None:
    assert normalize_text("क्\u200dष") == "क्\u200dष"
    for emoji in ("👩\u200d💻", "👩🏽\u200d💻", "🏳\ufe0f\u200d🌈", "🏃\u200d♀\ufe0f"):
        assert normalize_text(f"coder {emoji} here") == f"coder {emoji} here"


def test_stray_joiners_at_word_edges_are_removed() -> None:
    assert resolve_zero_width("\u200dword\u200c \u200bnext\u200d") == "word next"
    assert normalize_text("😀\u200d") == "😀"


def test_unicode_spaces_and_tabs_become_one_space() -> None:
    spaced = "10\u00a0km\u2009north\u202fof\u3000the\tcity\u2003centre \u205f now"
    assert normalize_text(spaced) == "10 km north of the city centre now"


def test_every_unicode_space_separator_is_a_space() -> None:
    zs = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Zs"]
    assert len(zs) >= 17
    assert normalize_text("a" + "".join(zs) + "b") == "a b"


def test_already_normal_text_is_recognised_exactly() -> None:
    from corpuscrawl.html.text import _ODD_SPACE_RE, _lines_normal
    spaces = {chr(c) for c in range(0x110000) if chr(c).isspace()} - {" ", "\n"}
    assert {c for c in spaces if _ODD_SPACE_RE.fullmatch(c)} == spaces
    for text in ("a b\nc", "a  b", "a\n\nb", "a \nb", "a\n b", " a", "a\n", "a\u2009b", "a\rb"):
        assert _lines_normal(text) == (normalize_lines(text) == text), repr(text)


def test_every_kind_of_line_break_is_a_newline() -> None:
    text = "one\r\ntwo\rthree\u2028four\u2029five\x85six\x0bseven\x0ceight"
    assert normalize_text(text) == "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight"


def test_blank_lines_and_edge_whitespace_dropped() -> None:
    assert normalize_lines("\n\n  first   line  \n \u00a0\n\n\tsecond\n\n") == "first line\nsecond"


def test_ascii_text_takes_the_fast_path_to_the_same_result() -> None:
    assert normalize_text("  a  b \n\n c ") == "a b\nc"
    assert normalize_text("") == ""


weird = st.text(alphabet=st.sampled_from(
    list("abc xyzäöü\n\t") + ["\u00ad", "\u200b", "\u200c", "\u200d", "\ufeff", "\u2060",
                              "\u0308", "\u0301", "\u00a0", "\u2009", "\u3000", "\r", "\u2028",
                              "ک", "ی", "क", "्", "ष", "👩", "💻", "🏽", "ภ", "า"]),
    max_size=60)


@given(weird)
def test_normalisation_is_idempotent_and_clean(text: str) -> None:
    once = normalize_text(text)
    assert normalize_text(once) == once
    assert unicodedata.is_normalized("NFC", once)
    assert not set(INVISIBLE_CHARS) & set(once)
    assert all(line == line.strip() and line and "  " not in line for line in once.split("\n")) \
        or once == ""
    assert "\t" not in once and "\u00a0" not in once and "\r" not in once


# ---- rendering from the tree: inline elements and <br> --------------------------------

MICRODATA = ('<p>Written by <span itemscope itemtype="https://schema.org/Person">'
             '<meta itemprop="url" content="https://example.com/jane"><span itemprop="name">'
             'Jane Doe</span></span> on <time datetime="2024-05-02">2 May</time> in Berlin.</p>')
SENTENCE = "Written by Jane Doe on 2 May in Berlin."


def _p(html: str) -> Page:
    return Page.from_html(html, url="https://example.com/news/story")


def test_render_text_keeps_microdata_sentence_on_one_line() -> None:
    page = _p(article(MICRODATA))
    assert SENTENCE in render_text(page.body).split("\n")


@pytest.mark.parametrize("inner, line", [
    ('<p>The <abbr title="World Health Organization">WHO</abbr> said <em>no</em> to '
     '<a href="/x">the plan</a>.</p>', "The WHO said no to the plan."),
    ('<p>Great news <img class="emoji" alt="🎉" src="/e.png"> for every<wbr>body today.</p>',
     "Great news for everybody today."),
    ('<p>Price: <data value="12">twelve</data> <small>euros</small>, <mark>see</mark> '
     '<ruby>漢<rt>kan</rt></ruby> list.</p>', "Price: twelve euros, see 漢kan list."),
])
def test_inline_elements_never_split_a_line(inner: str, line: str) -> None:
    page = _p(article(inner))
    assert line in render_text(page.body).split("\n")
    assert line in [b.text for b in text_blocks(page.body)]
    assert line in [b.text for b in page_blocks(page)]


def test_block_segmenters_keep_microdata_sentence_in_one_block() -> None:
    page = _p(article(MICRODATA))
    assert SENTENCE in [b.text for b in text_blocks(page.clean_tree.find("body"))]
    assert SENTENCE in [b.text for b in page_blocks(page)]


def test_sibling_run_renderers_keep_inline_elements_in_the_line() -> None:
    # linkblocks and the thesis segmentation render runs of sibling nodes: text, <b>, text, <a>.
    html = ("<html><body><div><p>Read <b>this</b> and <i>that</i> first, then <a href='/a'>one</a>"
            " and <a href='/b'>two</a> links.</p></div><div><ul>"
            + "".join(f"<li><a href='/{i}'>Link {i}</a></li>" for i in range(6))
            + "</ul></div></body></html>")
    page = _p(html)
    texts = [s.text for s in link_segments(page)]
    assert any("Read this and that first, then" in t.split("\n")[0] for t in texts), texts
    seg_texts = [s.text for s in segment_page(page)]
    assert any("Read this and that first, then one and two links." in t for t in seg_texts), seg_texts


def test_br_breaks_lines_only_between_text() -> None:
    page = _p("<html><body><p><br>Jane Doe<br>12 Harbour Road<br><br>Portsmouth<br></p>"
              "<p><br><br></p></body></html>")
    assert render_text(page.body) == "Jane Doe\n12 Harbour Road\nPortsmouth"


def test_justext_keeps_single_br_as_a_line_break() -> None:
    poem = "<p>The sea is calm tonight,<br>The tide is full, the moon lies fair<br></p>"
    text = get_extractor("justext").extract(_p(article(poem)))
    assert "The sea is calm tonight,\nThe tide is full, the moon lies fair" in text


# ---- one place: every extractor, template and crawl path ------------------------------

def test_registry_wraps_every_extractor_once() -> None:
    ex = get_extractor("bte")
    assert isinstance(ex, NormalizedExtractor)
    assert ex.name == "bte" and type(ex.inner).__name__ == "BTEExtractor"
    hybrid = get_extractor("hybrid-a")
    assert hybrid.choose.__self__ is hybrid.inner  # other attributes are the extractor's


HYGIENE_PAGE = article(
    "<p>Die Ver&shy;siche&shy;rung zahlt f\u0075\u0308r den Scha\u0308den\u200b am Hafen\u00a0 "
    "und\tam Ufer.</p>" + MICRODATA, title="Sto\u0308rung am Hafen")


@pytest.mark.parametrize("name", EXTRACTORS)
def test_every_registered_extractor_output_is_normalised(name: str) -> None:
    text = get_extractor(name).extract(_p(HYGIENE_PAGE))
    assert text == normalize_text(text)
    assert "\u00ad" not in text and "\u200b" not in text and "\u00a0" not in text
    for line in text.split("\n"):
        if "Jane Doe" in line or "Written by" in line:
            assert SENTENCE in line, (name, line)


def _garnished(words: list[str], marks: list[str]) -> str:
    out = []
    for i, w in enumerate(words):
        mark = marks[i % len(marks)]
        out.append(w[:2] + mark + w[2:] if len(w) > 2 else w)
    return " ".join(out)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(st.sampled_from(
    ["Versicherung", "Brücke", "harbour", "Mädchen", "quay", "ships", "évènement", "crane"]),
    min_size=60, max_size=120),
    marks=st.lists(st.sampled_from(["\u00ad", "\u200b", "\u0308", "\u00a0", "\ufeff", "\u200c"]),
                   min_size=1, max_size=4))
def test_every_extractor_normalises_random_text(words: list[str], marks: list[str]) -> None:
    body = _garnished(words, marks)
    nfd = unicodedata.normalize("NFD", body)
    page = _p(f"<html><body><article><h1>Title</h1><p>{nfd}</p><p>{body}</p>"
              f"<p>{nfd}</p></article></body></html>")
    for name in EXTRACTORS:
        text = get_extractor(name).extract(page)
        assert text == normalize_text(text), name
        assert unicodedata.is_normalized("NFC", text), name


def test_template_and_crawl_extraction_are_normalised(tmp_path: Path) -> None:
    template = tmp_path / "example.com.txt"
    template.write_text("article\n", encoding="utf-8")
    rules = DomainRules({}, [tmp_path])
    result = Extraction(rules=rules).run(_p(HYGIENE_PAGE))
    assert result.extractor == "template-example.com" and result.ok
    assert "Die Versicherung zahlt für den Schäden am Hafen und am Ufer." in result.text.split("\n")
    assert SENTENCE in result.text.split("\n")
    assert result.title == "Störung am Hafen"
    other = Extraction().run(Page.from_html(HYGIENE_PAGE, url="https://other.org/a"))
    assert "Die Versicherung zahlt für den Schäden am Hafen und am Ufer." in other.text


def test_corpuscrawl_extract_writes_normalised_text(tmp_path: Path) -> None:
    (tmp_path / "html").mkdir()
    (tmp_path / "html" / "p1.html").write_text(HYGIENE_PAGE, encoding="utf-8")
    out = tmp_path / "out"
    run_extraction(Dataset(tmp_path), [ExtractorSpec("bte")], out_dir=out, jobs=1, progress=False)
    text = (out / "bte" / "p1.txt").read_text(encoding="utf-8")
    assert "Die Versicherung zahlt für den Schäden am Hafen und am Ufer." in text


def test_warc_replay_writes_normalised_text(tmp_path: Path) -> None:
    import json
    from io import BytesIO

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    from corpuscrawl.cli import main

    warc = tmp_path / "crawl.warc.gz"
    body = HYGIENE_PAGE.encode("utf-8")
    with open(warc, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")],
                                   protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record(
            "http://example.org/hafen", "response", payload=BytesIO(body), length=len(body),
            http_headers=headers))
    out = tmp_path / "out.jsonl"
    assert main(["extract", "-e", "readability", str(warc), "-o", str(out)]) == 0
    [doc] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert "Die Versicherung zahlt für den Schäden am Hafen und am Ufer." in doc["text"].split("\n")
    assert SENTENCE in doc["text"].split("\n")
    assert doc["title"] == "Störung am Hafen"
