"""Scrapy settings of the corpuscrawl project.

Every ``CORPUSCRAWL_*`` key is documented here, next to its default.  Each
component reads its keys once at start-up (``from_crawler``) into a typed
config and fails naming the key when a value is invalid.
"""

from pathlib import Path

BOT_NAME = "corpuscrawl"
SPIDER_MODULES = ["corpuscrawl.spiders"]
NEWSPIDER_MODULE = "corpuscrawl.spiders"

USER_AGENT = "corpuscrawl/0.1 (+focused corpus crawler; respects robots.txt)"
ROBOTSTXT_OBEY = True
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 8
DOWNLOAD_TIMEOUT = 30
RETRY_TIMES = 2
COOKIES_ENABLED = True
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"
FEED_EXPORT_ENCODING = "utf-8"
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
# Pages over this size are skipped (SPEC §1: "skips ... oversized pages").
DOWNLOAD_MAXSIZE = 10 * 1024 * 1024
DOWNLOAD_WARNSIZE = 0
# The crawl is focused: requests carry a relevance priority; breadth-first among equals.
SCHEDULER_PRIORITY_QUEUE = "scrapy.pqueues.DownloaderAwarePriorityQueue"

ITEM_PIPELINES = {
    "corpuscrawl.pipelines.ExtractionPipeline": 300,
}

FEED_EXPORTERS = {
    "txtdir": "corpuscrawl.exporters.TextDirectoryExporter",
}

# --- extraction -------------------------------------------------------------
#: Name of the default extractor (see ``corpuscrawl.extract.EXTRACTORS_BASE``).
CORPUSCRAWL_EXTRACTOR = "bte"
#: Extra or replacement extractors: name -> "module:Class" (None removes a name).
CORPUSCRAWL_EXTRACTORS: dict = {}
#: Keyword options per extractor name, e.g. {"justext": {"language": "hr"}}.
CORPUSCRAWL_EXTRACTOR_OPTIONS: dict = {}
#: Directory of per-site templates named ``<domain>.txt``.
CORPUSCRAWL_TEMPLATES_DIR = str(Path("templates"))
#: Per-domain rules: {"example.com": {"template": ..., "extractor": ..., "render": ...}}.
CORPUSCRAWL_DOMAINS: dict = {}
#: Optional TOML file with ``[domains."example.com"]`` tables (same keys as above).
CORPUSCRAWL_RULES_FILE = None
#: Where the raw HTML of pages whose extraction failed is kept ("" = do not keep).
CORPUSCRAWL_FAILED_DIR = "failed_pages"
#: Documents whose extracted text is shorter than this (characters) are not written.
CORPUSCRAWL_MIN_TEXT_CHARS = 1

# --- focus ------------------------------------------------------------------
#: Target languages (ISO 639-1); pages in them are preferred. Empty = any language.
CORPUSCRAWL_LANGUAGES: list = []
#: Keywords that make a page or link relevant (case-insensitive). Empty = none.
CORPUSCRAWL_KEYWORDS: list = []
#: Only documents in a target language are exported (otherwise they only lower priority).
CORPUSCRAWL_LANGUAGE_FILTER = False
