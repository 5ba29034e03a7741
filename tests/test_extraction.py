"""Extractor choice: template beats domain extractor beats default; errors never escape."""

import pytest

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import UnknownExtractorError
from corpuscrawl.html.page import Page
from corpuscrawl.pagetext.extraction import ConfigError, Extraction, ExtractionConfig
from corpuscrawl.pagetext.rules import DomainRules, parse_rule

HTML = ("<html><head><title>Story | Site</title></head><body><nav><a href='/'>Site</a></nav>"
        "<article class='story'><p>" + "Council approves the late-night bus trial. " * 20 +
        "</p></article></body></html>")


def make(tmp_path, domains=None, default="bte"):
    (tmp_path / "templated.org.txt").write_text("class=story\n")
    rules = {d: parse_rule(d, r) for d, r in (domains or {}).items()}
    return Extraction(ExtractionConfig(default_extractor=default), DomainRules(rules, tmp_path))


def test_template_beats_domain_extractor_beats_default(tmp_path):
    ex = make(tmp_path, {"templated.org": {"extractor": "justext"}, "chosen.org": {"extractor": "justext"}})
    assert ex.extractor_for("http://templated.org/a").name == "template-templated.org"
    assert ex.extractor_for("http://chosen.org/a").name == "justext"
    assert ex.extractor_for("http://other.org/a").name == "bte"


def test_run_returns_text_title_language(tmp_path):
    result = make(tmp_path).run(Page.from_html(HTML, url="http://templated.org/story"))
    assert result.ok and result.extractor == "template-templated.org"
    assert result.text.startswith("Council approves") and result.title == "Story"
    assert result.language == "en"


class Exploding:
    name = "exploding"

    def extract(self, page):
        raise RuntimeError("boom")


def test_an_extractor_error_is_returned_not_raised(tmp_path):
    ex = Extraction(ExtractionConfig(default_extractor="exploding",
                                     extractors={"exploding": "tests.test_extraction:Exploding"}))
    result = ex.run(Page.from_html(HTML, url="http://x.org/"))
    assert not result.ok and "boom" in result.error and result.text == ""


def test_unknown_default_extractor_fails_at_start_listing_names():
    with pytest.raises(ConfigError, match="CORPUSCRAWL_EXTRACTOR: unknown extractor 'nope'.*bte"):
        Extraction(ExtractionConfig(default_extractor="nope"))
    with pytest.raises(UnknownExtractorError):
        get_extractor("nope")


def test_bad_domain_rule_fails_at_start_naming_the_domain(tmp_path):
    with pytest.raises(ConfigError, match="'bad.org'"):
        make(tmp_path, {"bad.org": {"extractor": "nope"}})
    (tmp_path / "broken.org.txt").write_text("not valid!\n")
    with pytest.raises(ConfigError, match=r"broken.org.txt:1"):
        make(tmp_path, {"broken.org": {"render": "never"}})


def test_the_shape_of_a_text_follows_extractor_template_model_and_settings(
        tmp_path, monkeypatch):
    ex = make(tmp_path, {"chosen.org": {"extractor": "justext"}})
    plain, chosen = ex.shape_for("http://other.org/a"), ex.shape_for("http://chosen.org/a")
    templated = ex.shape_for("http://templated.org/a")
    assert len({plain, chosen, templated}) == 3
    assert ex.shape_for("http://other.org/b") == plain  # per domain rule, not per page
    # the same configuration built again shapes alike
    assert make(tmp_path, {"chosen.org": {"extractor": "justext"}}).shape_for(
        "http://other.org/a") == plain
    # the template file's content, not its name
    (tmp_path / "templated.org.txt").write_text("class=story\nclass=more\n")
    edited = Extraction(ExtractionConfig(default_extractor="bte"), DomainRules({}, tmp_path))
    assert edited.shape_for("http://templated.org/a") != templated
    # a setting that changes the text: where comments go
    comments = Extraction(ExtractionConfig(default_extractor="bte", comments="text"),
                          DomainRules({}, tmp_path))
    assert comments.shape_for("http://other.org/a") != plain
    # a learned extractor's model file
    auto = Extraction(ExtractionConfig(default_extractor="auto"))
    shape = auto.shape_for("http://other.org/a")
    model = auto.shapes._extractor_shape("auto")["model"]
    assert model and shape != plain
    assert auto.shapes._extractor_shape("auto")["other_models"]["page-type.json"]
    monkeypatch.setattr(auto.shapes, "_file_digests",
                        {k: "another model" for k in auto.shapes._file_digests})
    auto.shapes._shapes.clear()
    auto.shapes._extractors.clear()
    assert auto.shape_for("http://other.org/a") != shape


@pytest.mark.parametrize(("value", "wanted"), [(True, True), ("on", True), ("1", True),
                                               ("yes", True), ("off", False), ("0", False),
                                               (False, False)])
def test_boolean_settings_read_text_alike(value, wanted):
    settings = {"CORPUSCRAWL_MARKDOWN": value, "CORPUSCRAWL_SPLIT_COHERENT": value,
                "CORPUSCRAWL_HEADLINE_IN_TEXT": value}
    config = ExtractionConfig.from_settings(settings)
    assert (config.structure, config.split_coherent, config.headline_in_text) == (wanted,) * 3


@pytest.mark.parametrize("key", ["CORPUSCRAWL_HEADLINE_IN_TEXT", "CORPUSCRAWL_SPLIT_COHERENT",
                                 "CORPUSCRAWL_MARKDOWN"])
def test_a_typo_in_a_switch_stops_the_crawl_naming_the_key(key: str) -> None:
    with pytest.raises(ConfigError, match=f"{key}='ture': expected 1/0"):
        ExtractionConfig.from_settings({key: "ture"})



@pytest.mark.parametrize("text", ["yes", "on", "1", "True", "no", "off", "0", "false", ""])
def test_the_feed_reads_markdown_as_the_extraction_does(text: str) -> None:
    from corpuscrawl.export.scrapy_glue.exporters import markdown_setting

    settings = {"CORPUSCRAWL_MARKDOWN": text}
    assert markdown_setting(settings) is ExtractionConfig.from_settings(settings).structure
