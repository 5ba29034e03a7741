"""Typos and bad values are refused before the crawl, in one line, by both crawl commands."""

from __future__ import annotations

import pytest
from scrapy.settings import Settings

from corpuscrawl.config.crawl_checks import (
    CrawlSetupError,
    check_setting_names,
    did_you_mean,
    is_user_error,
    known_settings,
    one_line,
)
from corpuscrawl.config.scrapy_glue import check_scrapy_setting_values
from corpuscrawl.pagetext.rules import RulesError
from corpuscrawl.spiders.arguments import SeedError, check_argument_names, read_seeds
from corpuscrawl.spiders.corpus import spider_arguments
from tests.command_runs import COMMANDS, crawl
from tests.small_site import SmallSite


def test_did_you_mean_names_the_closest_known_name():
    assert did_you_mean("seed", ["seeds", "depth"]) == "; did you mean 'seeds'?"
    assert did_you_mean("CORPUSCRAWL_EXTRACTER", known_settings()) == (
        "; did you mean 'CORPUSCRAWL_EXTRACTOR'?")
    assert did_you_mean("zzz", ["seeds"]) == ""


def test_unknown_spider_arguments_are_refused_but_tool_arguments_pass():
    with pytest.raises(SeedError, match="unknown spider argument 'max_page'; did you mean "
                                        "'max_pages'?"):
        check_argument_names(["max_page"], spider_arguments())
    with pytest.raises(SeedError, match=r"unknown spider argument 'qqq' \(known: allow, any_domain, "):
        check_argument_names(["qqq"], spider_arguments())
    check_argument_names(["_job", "seeds", "name"], spider_arguments())  # Scrapyd adds _job


def test_a_seed_argument_given_empty_is_an_error_not_the_demo(tmp_path):
    assert read_seeds() == []  # no seed argument at all: the demo site
    with pytest.raises(SeedError, match="argument seeds is empty"):
        read_seeds(seeds=" ")
    with pytest.raises(SeedError, match="argument seeds_file is empty"):
        read_seeds(seeds_file="")
    empty = tmp_path / "seeds.txt"
    empty.write_text("# nothing yet\n")
    with pytest.raises(SeedError, match="lists no URL"):
        read_seeds(seeds_file=str(empty))


def test_seeds_are_read_as_browsers_read_them_and_garbage_is_named(tmp_path):
    """``https:example.com/p`` (no slashes) is the page a browser opens; one seed however
    spelled; a seed with no host or an impossible one is an error naming it."""
    assert read_seeds(seeds="https:example.com/p,https://example.com/p") == \
        ["https://example.com/p"]
    listed = tmp_path / "seeds.txt"
    listed.write_text("http:\\\\example.org\\a\nhttps:/example.net\n")
    assert read_seeds(seeds_file=str(listed)) == ["http://example.org/a", "https://example.net/"]
    with pytest.raises(SeedError, match=r"seed 'https:' is not an http\(s\) URL .*\(no_host\)"):
        read_seeds(seeds="https:")
    with pytest.raises(SeedError, match=r"seed 'https:exa mple\.com' .*\(bad_host\)"):
        read_seeds(seeds="https:exa mple.com")


def test_unknown_corpuscrawl_settings_are_refused():
    settings = Settings()
    settings.setmodule("corpuscrawl.settings")
    check_setting_names(settings)  # every shipped setting is known
    settings.set("CORPUSCRAWL_EXTRACTER", "bte", priority="project")  # e.g. from a settings file
    with pytest.raises(CrawlSetupError, match="unknown setting 'CORPUSCRAWL_EXTRACTER'; did you "
                                              "mean 'CORPUSCRAWL_EXTRACTOR'?"):
        check_setting_names(settings)


@pytest.mark.parametrize(("name", "value", "expected"), [
    ("CONCURRENT_REQUESTS", "abc", "setting CONCURRENT_REQUESTS='abc': expected a number"),
    ("ROBOTSTXT_OBEY", "maybe", "setting ROBOTSTXT_OBEY='maybe': expected True or False"),
    ("DOWNLOAD_DELAY", "x", "setting DOWNLOAD_DELAY='x': expected a number"),
])
def test_a_scrapy_setting_that_cannot_be_read_names_the_setting(name, value, expected):
    settings = Settings()
    settings.set(name, value, priority="cmdline")
    with pytest.raises(CrawlSetupError) as err:
        check_scrapy_setting_values(settings)
    assert str(err.value).startswith(expected)


def test_good_scrapy_settings_pass():
    settings = Settings()
    settings.setmodule("corpuscrawl.settings")
    settings.setdict({"DOWNLOAD_DELAY": "0.5", "CONCURRENT_REQUESTS": "4",
                      "ROBOTSTXT_OBEY": "False"}, priority="cmdline")
    check_scrapy_setting_values(settings)


def test_user_errors_are_corpuscrawl_errors_and_bugs_are_not():
    assert is_user_error(RulesError("x")) and is_user_error(CrawlSetupError("x"))
    assert not is_user_error(AttributeError("x")) and not is_user_error(ValueError("x"))
    assert one_line(KeyError("unknown 'x'\n known: a")) == "unknown 'x' known: a"


# --- end to end: the same line and exit status from both commands -----------------------


# session scope: a server no test changes or inspects, one per xdist worker, so the tests
# that use it are not bound to one worker (tests/conftest.py groups module-scoped ones)
@pytest.fixture(scope="session")
def site():
    with SmallSite() as running:
        yield running


CASES = [
    (["-a", "seed={url}"], "unknown spider argument 'seed'; did you mean 'seeds'?"),
    (["-a", "seeds={url}", "-a", "max_page=3"],
     "unknown spider argument 'max_page'; did you mean 'max_pages'?"),
    (["-a", "seeds={url}", "-s", "CORPUSCRAWL_EXTRACTER=bte"],
     "unknown setting 'CORPUSCRAWL_EXTRACTER'; did you mean 'CORPUSCRAWL_EXTRACTOR'?"),
    (["-a", "seeds={url}", "-s", "CONCURRENT_REQUESTS=abc"],
     "setting CONCURRENT_REQUESTS='abc': expected a number"),
    (["-a", "seeds={url}", "-a", "depth=abc"], "argument depth='abc': expected a whole number"),
    (["-a", "seeds={url}", "-a", "extractor=nosuch"],
     "spider argument extractor: unknown extractor 'nosuch'; known extractors:"),
    (["-a", "seeds="], "argument seeds is empty"),
    (["-a", "seeds={url}", "-a", "recrawl=sometimes"], "CORPUSCRAWL_RECRAWL / recrawl="),
    (["-a", "seeds={url}", "-s", "ITEM_PIPELINES={{not json"], "setting ITEM_PIPELINES="),
]


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("args", "message"), CASES)
def test_a_bad_argument_or_setting_is_one_line_and_exit_2(site, tmp_path, command, args,
                                                           message):
    out = tmp_path / "out.jsonl"
    run = crawl(command, tmp_path, *[a.format(url=site.url) for a in args], "-O", str(out))
    assert run.code == 2, run.stderr[-3000:]
    assert run.last_line.startswith(f"corpuscrawl crawl: error: {message}"), run.stderr[-3000:]
    assert "Traceback" not in run.stderr and "never retrieved" not in run.stderr
    assert not out.exists() or not out.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_a_broken_template_stops_the_crawl_at_start_naming_file_and_line(site, tmp_path,
                                                                         command):
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "example.org.txt").write_text("# article bodies\narticle\ndiv.main > p\n")
    out = tmp_path / "out.jsonl"
    run = crawl(command, tmp_path, "-a", f"seeds={site.url}", "-O", str(out),
                settings={"CORPUSCRAWL_TEMPLATES_DIR": str(templates)})
    assert run.code == 2, run.stderr[-3000:]
    assert run.last_line.startswith(f"corpuscrawl crawl: error: template {templates}/"
                                    "example.org.txt:3: "), run.last_line
    assert "'div.main > p'" in run.last_line and "Traceback" not in run.stderr
    assert not out.exists() or not out.read_text()


def test_corpuscrawl_environment_variables_nothing_reads_are_named():
    from corpuscrawl.config.crawl_checks import environment_warnings

    lines = environment_warnings({"CORPUSCRAWL_MODELS_DIRS": "/x", "CORPUSCRAWL_EXTRACTOR": "bte",
                                  "CORPUSCRAWL_MODELS_DIR": "/m", "PATH": "/bin"})
    assert lines == [
        "environment variable CORPUSCRAWL_EXTRACTOR is ignored: settings are not read from the "
        "environment; give -s CORPUSCRAWL_EXTRACTOR=... or set it in the settings module",
        "environment variable CORPUSCRAWL_MODELS_DIRS is not one corpuscrawl reads; did you "
        "mean 'CORPUSCRAWL_MODELS_DIR'?"]
