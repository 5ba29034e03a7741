"""Page: decoding, parsing once, cleaned copy, files."""

import gzip

import pytest

from corpuscrawl.html.page import Page, PageError
from corpuscrawl.net.sites import domain_of


def test_bytes_are_decoded_by_meta_charset():
    html = '<html><head><meta charset="windows-1250"></head><body>Žuta kuća</body></html>'
    page = Page.from_html(html.encode("windows-1250"))
    assert "Žuta kuća" in page.body.text_content()


def test_bom_wins_and_xml_declaration_is_accepted():
    page = Page.from_html('\ufeff<?xml version="1.0" encoding="utf-8"?><html><body>ok č</body></html>'
                          .encode("utf-8"))
    assert page.body.text_content().strip() == "ok č"


def test_clean_tree_drops_scripts_and_comments_but_keeps_tails():
    page = Page.from_html("<html><body><p>a<script>x()</script>b<!-- c -->d</p></body></html>")
    assert page.clean_tree.find(".//p").text_content() == "abd"
    assert "x()" in page.tree.find(".//p").text_content()  # original untouched


def test_copy_tree_is_private():
    page = Page.from_html("<html><body><p>a</p></body></html>")
    copy = page.copy_tree()
    copy.find(".//p").text = "changed"
    assert page.clean_tree.find(".//p").text == "a"


def test_junk_and_empty_input_still_give_a_tree():
    assert Page.from_html("").body is not None
    assert Page.from_html("\x00\x00 not html").body.text_content().strip() == "not html"


def test_from_file_reads_gzip_and_rejects_broken_gzip(tmp_path):
    path = tmp_path / "a.html.gz"
    path.write_bytes(gzip.compress(b"<html><body>zipped</body></html>"))
    assert Page.from_file(path).body.text_content() == "zipped"
    bad = tmp_path / "b.html.gz"
    bad.write_bytes(b"\x1f\x8bnot really gzip")
    with pytest.raises(PageError, match="b.html.gz"):
        Page.from_file(bad)


def test_domain_of():
    assert domain_of("https://WWW.Example.com:8080/a") == "example.com"
    assert domain_of("not a url") == ""


def test_from_file_accepts_relative_paths(tmp_path, monkeypatch):
    (tmp_path / "rel.html").write_text("<html><body>relative</body></html>")
    monkeypatch.chdir(tmp_path)
    page = Page.from_file("rel.html")
    assert page.url.startswith("file://") and page.body.text_content() == "relative"


def test_an_unclosed_title_is_closed_so_the_body_survives():
    # A truncated head (as in 4 l3s-gn1 pages): without </title> the whole page is title.
    page = Page.from_html("<html><head><title>Broken page\n<script>var x = 1;</script>"
                          "</head><body><p>Article text here</p></body></html>")
    assert page.tree.findtext(".//title") == "Broken page"
    assert page.body.tag == "body" and page.body.text_content() == "Article text here"
    malformed_end = Page.from_html('<head><title>News</titlevalue="true" -->\n</head>'
                                   "<body><p>Body text</p></body>")  # one l3s-gn1 page
    assert malformed_end.body.text_content() == "Body text"
    same_line = Page.from_html("<title>Spliced<div><p>Body text</p></div>")
    assert same_line.tree.findtext(".//title") == "Spliced"
    assert "Body text" in same_line.body.text_content()


def test_a_title_that_is_all_the_page_has_is_left_alone():
    page = Page.from_html("<html><head><title>Only a title</title></head></html>")
    assert page.tree.findtext(".//title") == "Only a title"
    lone = Page.from_html("<title>No end and nothing after it")
    assert lone.tree.findtext(".//title") == "No end and nothing after it"


ARTICLE = "<p>" + " ".join(f"word{i}" for i in range(80)) + ".</p>"


def test_a_noscript_left_open_by_the_parser_does_not_swallow_the_page():
    # libxml2 ignores </noscript> while a <div> opened inside it is open (CleanEval final-714).
    page = Page.from_html("<html><body><noscript><div id='fallback'></noscript>"
                          f"<div>{ARTICLE}</div><noscript>Enable JavaScript</noscript>"
                          "</body></html>")
    assert page.tree.find(".//noscript//p") is None
    text = page.clean_tree.find("body").text_content()
    assert "word79" in text and "Enable JavaScript" not in text


def test_a_noscript_copy_of_the_content_is_kept_a_small_one_dropped():
    copy_of_content = Page.from_html(f"<body><div id='app'></div><noscript>{ARTICLE}</noscript>"
                                     "</body>")
    assert "word0" in copy_of_content.clean_tree.text_content()
    banner = Page.from_html(f"<body>{ARTICLE}<noscript><p>{'please enable js ' * 20}</p>"
                            "</noscript></body>")
    assert "please" not in banner.clean_tree.text_content()  # 60 words, under half the page
    assert banner.tree.find(".//noscript") is not None


def test_an_xml_declaration_without_its_end_keeps_the_page():
    # One l3s-gn1 page: a garbage encoding attribute and no "?>" anywhere.
    page = Page.from_html('<?xml version="1.0" encoding="junk, more junk">\n'
                          "<html><body><p>Article text here</p></body></html>")
    assert page.body.text_content() == "Article text here"


def test_content_after_an_early_body_end_joins_the_body():
    # CleanEval dev-49: "</body>" after a first table, then a whole second document.
    page = Page.from_html("<table><tr><td>menu</td></tr></table></body>"
                          "<html><head></head><body><p>Article text</p><p>More text</p>"
                          "</body></html>")
    assert page.body.text_content() == "menuArticle textMore text"
    assert page.tree.find("body").getnext() is None


def test_an_unknown_element_in_the_head_does_not_swallow_the_page():
    # l3s-gn1 f3d9f7be: <mbox> in the head kept the whole page there, with no body.
    page = Page.from_html("<html><head><title>Harry Potter tops list</title>"
                          '<meta name="robots" content="all"><mbox><table><tr><td>'
                          "<p>London: Harry Potter has topped the list.</p></td></tr></table>"
                          "</body></html>")
    assert page.body.tag == "body"
    assert page.body.text_content() == "London: Harry Potter has topped the list."
    assert page.tree.findtext(".//title") == "Harry Potter tops list"
    head_only = Page.from_html("<html><head><title>Only a title</title><meta name='x'></head>"
                               "</html>")
    assert head_only.tree.find("body") is None


#: Texts whose tree from their UTF-8 bytes must be the tree from the text itself.
PARSE_CASES = [
    "", "   ", "<p>ascii only</p>", "<p>caf\u00e9 latin-1</p>", "<p>\u4e2d\u6587 and \u20ac</p>",
    "<p>emoji \U0001F600 beyond the BMP</p>", "\ufeff<p>a byte-order mark first</p>",
    "<meta charset='iso-8859-1'><p>\u00fcber, declared latin-1</p>",
    "<meta http-equiv='Content-Type' content='text/html; charset=shift_jis'><p>\u00e9</p>",
    "<html><head><title>t</title></head><body><p>x<!-- c --><![CDATA[ d ]]></p></body></html>",
    "<title>unclosed title\n<p>body", "<p>&amp; &eacute; &#233; &#x1F600; &bogus;</p>",
    "<div>" * 300 + "deep" + "</div>" * 300, "<p>tab\tand\r\nnewlines</p>",
    "<svg><text>svg \u00e9</text></svg><math><mi>x</mi></math>",
    "<p>" + "<span>" * 3000 + "kept beyond the nesting limit</p>",
]


@pytest.mark.parametrize("html", PARSE_CASES)
def test_the_utf8_parse_gives_the_tree_of_the_text(html):
    from lxml import etree

    from corpuscrawl.html.content import plain_text_utf8
    from corpuscrawl.html.page import parse_html_noted

    data = plain_text_utf8(html)
    assert data is not None
    text_tree, text_repair = parse_html_noted(html)
    bytes_tree, bytes_repair = parse_html_noted(html, data)
    assert etree.tostring(bytes_tree, encoding="unicode") == \
        etree.tostring(text_tree, encoding="unicode")
    assert bytes_repair == text_repair
    page = Page.from_html(html)
    assert etree.tostring(page.tree, encoding="unicode") == \
        etree.tostring(text_tree, encoding="unicode")


@pytest.mark.datasets
@pytest.mark.slow
def test_the_utf8_parse_gives_the_tree_of_the_text_on_every_dataset_page(datasets_dir):
    from lxml import etree

    from corpuscrawl.evaluation.names import GOLD_DATASETS
    from corpuscrawl.html.content import plain_text_utf8
    from corpuscrawl.html.page import parse_html_noted
    from corpuscrawl.learn.trainset import documents

    pages = 0
    for ds in GOLD_DATASETS:
        for split in ("test", "train"):
            for doc in documents([datasets_dir / ds], split):
                html = doc.dataset.read_html(doc.id)
                data = plain_text_utf8(html)
                if data is None:
                    continue
                expected = etree.tostring(parse_html_noted(html)[0], encoding="unicode")
                assert etree.tostring(parse_html_noted(html, data)[0],
                                      encoding="unicode") == expected, doc.key
                pages += 1
    assert pages > 2000
