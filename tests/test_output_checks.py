"""Outputs are checked before the crawl: an output that cannot be written fails at once, in
one line, and nothing is recorded, so a rerun with a good path exports every article."""

from __future__ import annotations

import re

import pytest
from scrapy.settings import Settings

from corpuscrawl import Addon
from corpuscrawl.config.crawl_checks import CrawlSetupError
from corpuscrawl.export.scrapy_glue.output_checks import check_outputs, existing_corpus
from tests.command_runs import COMMANDS, crawl, documents
from tests.small_site import ARTICLES, SmallSite


def settings_with(feeds: dict) -> Settings:
    settings = Settings()
    settings.setmodule("corpuscrawl.settings")
    Addon.update_pre_crawler_settings(settings)  # as Scrapy's crawler runner does: the formats
    settings.set("FEEDS", feeds, priority="cmdline")
    return settings


@pytest.mark.parametrize(("uri", "message"), [
    ("/proc/corpuscrawl-out.jsonl", "cannot write output /proc/corpuscrawl-out.jsonl: "),
    ("/etc/passwd/out.jsonl", "/etc/passwd is a file, not a directory"),
    ("out.parquet", "unknown format 'parquet'"),
    ("out.jsonlines.gz", "unknown format 'gz'"),
    ("ftpx://host/out.jsonl", "unsupported URI scheme 'ftpx'; did you mean 'ftp'?"),
])
def test_an_output_that_cannot_be_written_is_refused(uri, message):
    with pytest.raises(CrawlSetupError, match=None) as err:
        check_outputs(settings_with({uri: {}}))
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_a_directory_given_as_the_file_is_refused(tmp_path):
    with pytest.raises(CrawlSetupError, match="is a directory; name a file in it"):
        check_outputs(settings_with({str(tmp_path): {"format": "jsonl"}}))


def test_batches_need_a_placeholder(tmp_path):
    with pytest.raises(CrawlSetupError, match="batch_id"):
        check_outputs(settings_with({str(tmp_path / "b.jsonl"): {"batch_item_count": 5}}))
    check_outputs(settings_with({str(tmp_path / "b-%(batch_id)d.jsonl"): {"batch_item_count": 5}}))


def test_a_good_output_is_left_as_it_was(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"url": "u"}\n')
    new = tmp_path / "new" / "sub" / "out.jsonl"
    check_outputs(settings_with({str(corpus): {}, str(new): {}, "stdout:": {"format": "jsonl"},
                                 str(tmp_path / "txt" / "index.tsv"): {"format": "txtdir"}}))
    assert corpus.read_text() == '{"url": "u"}\n'
    assert not (tmp_path / "new").exists() and not (tmp_path / "txt").exists()


def test_existing_corpus_is_an_output_file_with_data(tmp_path):
    empty, full = tmp_path / "empty.jsonl", tmp_path / "full.jsonl"
    empty.touch()
    assert existing_corpus(settings_with({str(empty): {}})) is None
    full.write_text('{"url": "https://example.org/a"}\n')
    assert existing_corpus(settings_with({str(empty): {}, str(full): {}})) == full
    demo = tmp_path / "demo.jsonl"  # an earlier demo crawl: crawled again on request
    demo.write_text('{"url": "http://127.0.0.1:8123/news/a.html"}\n')
    assert existing_corpus(settings_with({str(demo): {}})) is None


# --- end to end -------------------------------------------------------------------------



# session scope: a server no test changes or inspects, one per xdist worker, so the tests
# that use it are not bound to one worker (tests/conftest.py groups module-scoped ones)
@pytest.fixture(scope="session")
def site():
    with SmallSite() as running:
        yield running


def _articles(docs: list[dict]) -> set[str]:
    """The articles' file names (``copy-of-a0.html`` is a0 under another URL: whichever of
    the two the crawl reaches first is exported, the other dropped as a duplicate)."""
    names = (d["url"].rsplit("/", 1)[-1].removeprefix("copy-of-") for d in docs)
    return {name for name in names if re.fullmatch(r"a\d+\.html", name)}


EXPECTED = {f"a{i}.html" for i in range(ARTICLES)}


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("bad", "message"), [
    ("/proc/corpuscrawl-out.jsonl", "cannot write output /proc/corpuscrawl-out.jsonl"),
    ("/etc/passwd/out.jsonl", "is a file, not a directory"),
    ("{tmp}", "is a directory"),
    ("{tmp}/out.parquet", "output format 'parquet'"),
])
def test_a_bad_output_fails_before_the_crawl_and_a_rerun_exports_every_article(
        site, tmp_path, command, bad, message):
    bad = bad.format(tmp=tmp_path)
    flag = "-a" if command == "scrapy" else "--seeds"
    seeds = f"seeds={site.url}" if command == "scrapy" else site.url
    run = crawl(command, tmp_path, flag, seeds, "-O", bad)
    assert run.code == 2, run.stderr[-3000:]
    assert run.last_line.startswith("corpuscrawl crawl: error: ") and message in run.last_line
    assert "Traceback" not in run.stderr and "never retrieved" not in run.stderr
    good = tmp_path / "good.jsonl"
    run = crawl(command, tmp_path, flag, seeds, "-O", str(good))
    assert run.code == 0, run.stderr[-3000:]
    assert _articles(documents(good)) == EXPECTED


@pytest.mark.slow
def test_corpuscrawl_crawl_o_appends_and_O_overwrites(tmp_path):
    out = tmp_path / "out.jsonl"
    with SmallSite(variant=1) as first:
        assert crawl("corpuscrawl", tmp_path, "--seeds", first.url, "-o", str(out)).code == 0
    with SmallSite(variant=2) as second:  # another site: other texts, same paths
        run = crawl("corpuscrawl", tmp_path, "--seeds", second.url, "-o", str(out))
        assert run.code == 0, run.stderr[-3000:]
    docs = documents(out)
    assert {d["url"].split("/")[2] for d in docs} == {first.url.split("/")[2],
                                                       second.url.split("/")[2]}
    assert len(_articles(docs)) == len(EXPECTED) and len(docs) >= 2 * ARTICLES
    with SmallSite(variant=3) as third:
        run = crawl("corpuscrawl", tmp_path, "--seeds", third.url, "-O", str(out))
        assert run.code == 0, run.stderr[-3000:]
    assert {d["url"].split("/")[2] for d in documents(out)} == {third.url.split("/")[2]}


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_a_crawl_without_seeds_does_not_write_the_demo_into_an_existing_corpus(tmp_path,
                                                                               command):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"url": "https://example.org/a", "text": "kept"}\n')
    run = crawl(command, tmp_path, "-o", str(corpus))
    assert run.code == 2
    assert "no seeds given, and the output" in run.last_line and str(corpus) in run.last_line
    assert corpus.read_text() == '{"url": "https://example.org/a", "text": "kept"}\n'
