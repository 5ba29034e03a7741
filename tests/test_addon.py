"""corpuscrawl.Addon: one add-on installs the crawl in any Scrapy project, the project's own
settings win, and add-ons only set settings (no file opened, no server contacted)."""

from __future__ import annotations

import hashlib
import socket
from pathlib import Path

import pytest
from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.settings import Settings

from corpuscrawl import Addon
from corpuscrawl.addon import COMPONENTS, FEED_FORMATS, SCRAPY_DEFAULTS, project_defaults
from tests.crawl_helpers import run_crawl


def bare_project(**project: object) -> Settings:
    """Settings of a Scrapy project whose settings.py enables only the add-on (plus ``project``)."""
    settings = Settings()
    settings.setdict({"ADDONS": {"corpuscrawl.Addon": 0}, **project}, priority="project")
    return settings


def test_every_component_is_installed_in_its_place():
    settings = bare_project()
    Addon().update_settings(settings)
    for name, path, order, replaces in COMPONENTS:
        assert settings.getdict(name)[path] == order, (name, path)
        if replaces is not None:
            assert settings.getdict(name)[replaces] is None, (name, replaces)
    for fmt, path in FEED_FORMATS.items():
        assert settings.getdict("FEED_EXPORTERS")[fmt] == path
    for name, value in {**SCRAPY_DEFAULTS, **project_defaults()}.items():
        assert settings[name] == value, name
    assert settings.getpriority("DOWNLOAD_TIMEOUT") == 15  # add-on priority, under a project's


def test_the_projects_own_settings_win():
    retry = "scrapy.downloadermiddlewares.retry.RetryMiddleware"
    settings = bare_project(
        DOWNLOAD_TIMEOUT=5, USER_AGENT="mybot/1.0 (+https://example.org/bot)",
        ROBOTSTXT_OBEY=False, CORPUSCRAWL_MIN_WORDS=3,
        ITEM_PIPELINES={"corpuscrawl.crawlstate.scrapy_glue.recrawl.ChangeFilter": None,
                        "corpuscrawl.export.scrapy_glue.pipelines.ExtractionPipeline": 310},
        DOWNLOADER_MIDDLEWARES={retry: 550},
        FEED_EXPORTERS={"csv": "scrapy.exporters.CsvItemExporter"})
    settings.set("CORPUSCRAWL_DEDUP_THRESHOLD", 0.9, priority="cmdline")
    settings.set("CORPUSCRAWL_COLLECTION", "news", priority="spider")
    settings.set("SCHEDULER", "scrapy.core.scheduler.Scheduler", priority="project")
    Addon().update_settings(settings)
    assert settings.getint("DOWNLOAD_TIMEOUT") == 5
    assert settings["USER_AGENT"] == "mybot/1.0 (+https://example.org/bot)"
    assert settings.getbool("ROBOTSTXT_OBEY") is False
    assert settings.getint("CORPUSCRAWL_MIN_WORDS") == 3
    assert settings.getfloat("CORPUSCRAWL_DEDUP_THRESHOLD") == 0.9
    pipelines = settings.getdict("ITEM_PIPELINES")
    assert pipelines["corpuscrawl.crawlstate.scrapy_glue.recrawl.ChangeFilter"] is None
    assert pipelines["corpuscrawl.export.scrapy_glue.pipelines.ExtractionPipeline"] == 310
    assert pipelines["corpuscrawl.export.scrapy_glue.stage_pipeline.ExportStagePipeline"] == 900
    middlewares = settings.getdict("DOWNLOADER_MIDDLEWARES")
    assert middlewares[retry] == 550  # the project keeps Scrapy's retry middleware on
    assert middlewares["corpuscrawl.net.scrapy_glue.politeness.PoliteRetryMiddleware"] == 550
    assert settings.getdict("FEED_EXPORTERS")["csv"] == "scrapy.exporters.CsvItemExporter"
    assert settings.getdict("FEED_EXPORTERS")["tei"] == FEED_FORMATS["tei"]
    assert settings["SCHEDULER"] == "scrapy.core.scheduler.Scheduler"
    # the crawl state's parts that do not collide with the project's choice are still there
    assert settings["DUPEFILTER_CLASS"] == "corpuscrawl.crawlstate.scrapy_glue.frontier.DurableDupeFilter"


def test_the_contact_goes_into_the_user_agent_unless_the_project_names_one():
    settings = bare_project(CORPUSCRAWL_CONTACT="https://example.org/crawler")
    Addon().update_settings(settings)
    assert settings["USER_AGENT"].startswith("corpuscrawl/")
    assert "(+https://example.org/crawler)" in settings["USER_AGENT"]


def test_pre_crawler_settings_bring_the_spider_and_the_defaults():
    settings = bare_project(SPIDER_MODULES=["myproject.spiders"], CORPUSCRAWL_RENDER="auto")
    Addon.update_pre_crawler_settings(settings)
    assert settings.getlist("SPIDER_MODULES") == ["myproject.spiders", "corpuscrawl.spiders"]
    assert settings["CORPUSCRAWL_RENDER"] == "auto"
    assert settings["CORPUSCRAWL_EXTRACTOR"] == project_defaults()["CORPUSCRAWL_EXTRACTOR"]
    assert settings.getdict("FEED_EXPORTERS")["txtdir"] == FEED_FORMATS["txtdir"]


def crawler_for(settings: Settings) -> Crawler:
    class Probe(Spider):
        name = "probe"

    return Crawler(Probe, settings)


def test_update_settings_touches_no_file(tmp_path):
    """The crawl state's directory is created (and locked, and its database opened) when the
    crawl's extensions are built, not when the add-on sets its settings."""
    state = tmp_path / "state"
    settings = bare_project(CORPUSCRAWL_STATE_DIR=str(state))
    settings.set("CORPUSCRAWL_COLLECTION", "news", priority="spider")
    crawler = crawler_for(settings)
    crawler.addons.load_settings(crawler.settings)
    assert not state.exists()
    assert crawler.settings["SCHEDULER"] == "corpuscrawl.crawlstate.scrapy_glue.frontier.DurableScheduler"
    opener = "corpuscrawl.crawlstate.scrapy_glue.state_addon.CrawlStateOpener"
    assert crawler.settings.getdict("EXTENSIONS")[opener] < 0  # built before the feed exporter
    from corpuscrawl.crawlstate.lookup import run_info
    from corpuscrawl.crawlstate.scrapy_glue.state_addon import CrawlStateOpener

    CrawlStateOpener.from_crawler(crawler)
    assert (state / "news").is_dir() and run_info(crawler).generation == 1
    crawler.signals.send_catch_log(signal=signals.engine_stopped)


def test_a_second_crawl_of_a_collection_fails_when_its_components_are_built(tmp_path):
    from corpuscrawl.crawlstate.runs import RunLockedError
    from corpuscrawl.crawlstate.scrapy_glue.state_addon import CrawlStateOpener

    crawlers = []
    for _ in range(2):
        settings = bare_project(CORPUSCRAWL_STATE_DIR=str(tmp_path / "state"))
        settings.set("CORPUSCRAWL_COLLECTION", "news", priority="spider")
        crawler = crawler_for(settings)
        crawler.addons.load_settings(crawler.settings)  # both: no lock taken here
        crawlers.append(crawler)
    CrawlStateOpener.from_crawler(crawlers[0])
    with pytest.raises(RunLockedError, match="is in use by") as err:
        CrawlStateOpener.from_crawler(crawlers[1])
    assert str(tmp_path / "state" / "news") in str(err.value)
    crawlers[0].signals.send_catch_log(signal=signals.engine_stopped)


def test_cluster_mode_contacts_no_redis_in_update_settings():
    """A listening socket stands for Redis: the add-on sets the cluster's settings without
    connecting; the joiner extension is what connects."""
    pytest.importorskip("scrapy_redis")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        server.setblocking(False)
        url = f"redis://127.0.0.1:{server.getsockname()[1]}/0"
        settings = bare_project(CORPUSCRAWL_REDIS_URL=url)
        settings.set("CORPUSCRAWL_COLLECTION", "news", priority="spider")
        crawler = crawler_for(settings)
        crawler.addons.load_settings(crawler.settings)
        with pytest.raises(BlockingIOError):
            server.accept()
    assert crawler.settings["SCHEDULER"] == "corpuscrawl.cluster.scrapy_glue.lease.LeasingScheduler"
    assert crawler.settings["CORPUSCRAWL_BOILERPLATE_HISTORY"] == url
    assert "corpuscrawl.cluster.scrapy_glue.cluster_addon.ClusterJoiner" in crawler.settings.getdict("EXTENSIONS")
    assert "corpuscrawl.crawlstate.scrapy_glue.state_addon.CrawlStateOpener" not in \
        crawler.settings.getdict("EXTENSIONS")


def test_an_unreachable_redis_is_reported_when_the_crawl_is_built():
    from corpuscrawl.cluster.scrapy_glue.cluster_addon import ClusterJoiner

    with socket.socket() as probe:  # a free port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = bare_project(CORPUSCRAWL_REDIS_URL=f"redis://127.0.0.1:{port}/0")
    settings.set("CORPUSCRAWL_COLLECTION", "news", priority="spider")
    crawler = crawler_for(settings)
    crawler.addons.load_settings(crawler.settings)
    with pytest.raises(RuntimeError, match=f"127.0.0.1:{port}"):
        ClusterJoiner.from_crawler(crawler)


def _digest(docs: list[dict]) -> tuple[int, str]:
    texts = sorted(d["text"] for d in docs)
    return len(docs), hashlib.sha256("\n\0".join(texts).encode()).hexdigest()


@pytest.mark.slow
def test_a_project_with_only_the_addon_crawls_as_the_repository_does(tmp_path):
    """A throwaway Scrapy project (scrapy.cfg, settings.py = ADDONS only) crawls the bundled
    demo site with the corpus spider into the same documents as ``scrapy crawl corpus``
    run in the repository."""
    project = tmp_path / "elsewhere"
    (project / "elsewhere").mkdir(parents=True)
    (project / "scrapy.cfg").write_text("[settings]\ndefault = elsewhere.settings\n")
    (project / "elsewhere" / "__init__.py").write_text("")
    (project / "elsewhere" / "settings.py").write_text('ADDONS = {"corpuscrawl.Addon": 0}\n')
    theirs, log, code = run_crawl(project / "corpus.jsonl", cwd=project)
    assert code == 0, log[-3000:]
    assert "'BOT_NAME': 'corpuscrawl'" not in log  # their project's settings, not ours
    assert "crawling the bundled demo site" in log
    ours, log_ours, code_ours = run_crawl(tmp_path / "ours.jsonl")
    assert code_ours == 0, log_ours[-3000:]
    assert len(theirs) == 7
    assert _digest(theirs) == _digest(ours)
    assert Path(project / "corpus.jsonl.summary.json").is_file()  # the summary extension ran
