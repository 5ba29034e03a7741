"""Domain rules: settings and TOML, subdomains, template files, validation."""

import pytest

from corpuscrawl.pagetext.rules import DomainRules, RulesError, load_rules_file, parse_rule


class Settings(dict):
    """The part of Scrapy's Settings API the rules read."""


def test_subdomain_inherits_and_specific_domain_overrides(tmp_path):
    rules = DomainRules.from_settings(Settings(CORPUSCRAWL_DOMAINS={
        "example.com": {"extractor": "justext", "render": "auto"},
        "news.example.com": {"extractor": "bte"},
    }))
    assert rules.for_url("https://www.example.com/a").extractor == "justext"
    rule = rules.for_url("https://news.example.com/a")
    assert rule.extractor == "bte" and rule.render == "auto"
    assert rules.for_url("https://other.org/").extractor is None


def test_template_file_applies_to_domain_and_subdomains(tmp_path):
    (tmp_path / "example.com.txt").write_text("article\n")
    rules = DomainRules(templates_dir=tmp_path)
    assert rules.for_domain("blog.example.com").template == str(tmp_path / "example.com.txt")
    assert rules.for_domain("example.org").template is None


def test_configured_template_name_resolves_in_templates_dir(tmp_path):
    (tmp_path / "shared.txt").write_text("p\n")
    rules = DomainRules({"a.com": parse_rule("a.com", {"template": "shared"})}, tmp_path)
    assert rules.for_domain("a.com").template == str(tmp_path / "shared.txt")


def test_toml_file_and_settings_merge(tmp_path):
    path = tmp_path / "rules.toml"
    path.write_text('[domains."example.com"]\nextractor = "justext"\nmax_reveals = 3\n')
    rules = DomainRules.from_settings(Settings(
        CORPUSCRAWL_RULES_FILE=str(path),
        CORPUSCRAWL_DOMAINS={"example.com": {"max_scrolls": 2}}))
    rule = rules.for_domain("example.com")
    # a settings rule replaces the file's rule for the same domain
    assert (rule.extractor, rule.max_reveals, rule.max_scrolls) == (None, None, 2)
    assert load_rules_file(path)["example.com"].max_reveals == 3


@pytest.mark.parametrize("raw,message", [
    ({"extractr": "bte"}, "unknown key"),
    ({"render": "sometimes"}, "render must be one of"),
    ({"follow": "none"}, "follow must be one of"),
    ({"max_reveals": "10"}, "max_reveals must be int"),
    ({"max_reveals": -1}, "must be >= 0"),
    ({"extract_continuously": "yes"}, "must be bool"),
])
def test_invalid_rules_name_the_domain_and_key(raw, message):
    with pytest.raises(RulesError, match=message) as err:
        parse_rule("example.com", raw)
    assert "example.com" in str(err.value)


def test_bad_toml_names_the_file(tmp_path):
    path = tmp_path / "rules.toml"
    path.write_text("[domains\n")
    with pytest.raises(RulesError, match="rules.toml: invalid TOML"):
        load_rules_file(path)
