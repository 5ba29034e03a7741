"""Scrapy settings of the corpuscrawl project.

The project's own keys only: its name, its spiders, its commands, its log level and
``ADDONS``.  Every component of a crawl (middlewares, pipelines, extensions, feed
formats, scheduler) and the Scrapy settings it runs with are installed by
:class:`corpuscrawl.Addon` (``corpuscrawl/addon.py``), at add-on priority, so another
Scrapy project gets the same crawl from ``ADDONS = {"corpuscrawl.Addon": 0}``.

Every ``CORPUSCRAWL_*`` key is documented here, next to its default; the add-on gives
these defaults to a project that does not set them.  Each component reads its keys
once at start-up (``from_crawler``) into a typed config and fails naming the key when a
value is invalid.  The keys assigned here are the known ones: any other
``CORPUSCRAWL_*`` setting (a typo) stops the crawl at start, naming the closest known
key (:mod:`corpuscrawl.config.crawl_checks`).
"""

from pathlib import Path

BOT_NAME = "corpuscrawl"
SPIDER_MODULES = ["corpuscrawl.spiders"]
NEWSPIDER_MODULE = "corpuscrawl.spiders"
LOG_LEVEL = "INFO"
# `scrapy crawl` exits with status 3 when nothing could be fetched (corpuscrawl.scrapy_commands);
# read before any crawler exists, so it stays a project key.
COMMANDS_MODULE = "corpuscrawl.scrapy_commands"
# Every component of a corpus crawl, in its place (corpuscrawl/addon.py; the table is in
# docs/architecture.md).
ADDONS = {"corpuscrawl.Addon": 0}

#: Obey a page's robots meta tags (``<meta name="robots">`` and ``<meta name="TOKEN">`` with
#: TOKEN our User-Agent's product token) and ``X-Robots-Tag`` headers: ``noindex`` pages are
#: not exported, ``nofollow`` pages' links are not followed, ``none`` is both (counted under
#: corpuscrawl/robots_meta/*, the summary's robots_meta). False ignores them.
CORPUSCRAWL_ROBOTS_META_OBEY = True

# --- extraction -------------------------------------------------------------
#: Name of the default extractor (see ``corpuscrawl.extract.EXTRACTORS_BASE``): ``auto``, the
#: learned block labeller (best pooled F1 and fewest lost articles on the test split and under
#: cross-validation, benchmarks/results/learned.md); its reader comments go where
#: CORPUSCRAWL_COMMENTS says.  "bte" is the fastest classic one.
CORPUSCRAWL_EXTRACTOR = "auto"
#: Extra or replacement extractors: name -> "module:Class" (None removes a name).
CORPUSCRAWL_EXTRACTORS: dict = {}
#: Keyword options per extractor name, e.g. {"justext": {"language": "hr"}}.
CORPUSCRAWL_EXTRACTOR_OPTIONS: dict = {}
#: Directory of per-site templates named ``<domain>.txt``, searched before the shipped
#: templates (the installed package's copy of templates/; see corpuscrawl.resources.shipped).
CORPUSCRAWL_TEMPLATES_DIR = str(Path("templates"))
#: Per-domain rules: {"example.com": {"template": ..., "extractor": ..., "render": ...}}.
CORPUSCRAWL_DOMAINS: dict = {}
#: Optional TOML file with ``[domains."example.com"]`` tables (same keys as above).
CORPUSCRAWL_RULES_FILE = None
#: Where the raw HTML of pages whose extraction failed is kept ("" = do not keep).
CORPUSCRAWL_FAILED_DIR = "failed_pages"
#: Write each coherent text of a page (Dorosz's coherent-text paper: title+teaser units, article body, ...) as a
#: document of its own instead of one main text per page.
CORPUSCRAWL_SPLIT_COHERENT = False
#: How pages are split into coherent texts: "linkblocks" (link-position rules) or "energy".
CORPUSCRAWL_SPLIT_METHOD = "linkblocks"
#: Documents whose extracted text is shorter than this (characters) are not written.
CORPUSCRAWL_MIN_TEXT_CHARS = 1
#: Documents with fewer words than this once cleaned of boilerplate are not written (a
#: front page reduced to "Front page", a caption); counted and listed as "too_short".
#: 0 = any length.
CORPUSCRAWL_MIN_WORDS = 15
#: Drop listings: front, section, tag and category pages, whose text is teasers of other
#: pages of the site (corpuscrawl.extract.page_typing.listing); listed as "listing" in the dropped
#: documents. False keeps them as documents (their page_type says what they are).
CORPUSCRAWL_DROP_LISTINGS = True
#: Worker processes that parse and extract pages off the reactor (corpuscrawl.spiders.workers):
#: "auto" = one per CPU core but one (none on a single core); 0 = in the crawl process.
#: Pages rendered in Chromium are always extracted in the crawl process.  Same documents
#: either way; items, the export stage, the ledger and the feeds stay in the crawl process.
CORPUSCRAWL_WORKERS = "auto"

# --- focus ------------------------------------------------------------------
#: Target languages (ISO 639-1); pages in them are preferred. Empty = any language.
#: The spider argument ``languages`` sets it (the argument wins over this setting).
CORPUSCRAWL_LANGUAGES: list = []
#: Keywords that make a page or link relevant (case-insensitive). Empty = none.
CORPUSCRAWL_KEYWORDS: list = []
#: Only documents in a target language are exported (otherwise they only lower priority);
#: dropped ones are counted (corpuscrawl/dropped_language, the summary's
#: documents.dropped_language). The spider argument ``language_filter=1`` sets it.
CORPUSCRAWL_LANGUAGE_FILTER = False

# --- export: domain boilerplate and near-duplicates (corpuscrawl.boilerplate) ---
#: Remove paragraphs that repeat across a domain's history (and drop pure-boilerplate pages).
CORPUSCRAWL_BOILERPLATE_ENABLED = True
#: History store: a SQLite path or a redis:// URL (shared by parallel crawlers).
#: "" = corpuscrawl-history.sqlite3 in the collection's state directory (see CORPUSCRAWL_STATE_DIR).
CORPUSCRAWL_BOILERPLATE_HISTORY = ""
#: Key prefix of the Redis history.
CORPUSCRAWL_BOILERPLATE_REDIS_PREFIX = "corpuscrawl:bp:"
#: A paragraph is boilerplate when seen in at least this many distinct documents of its domain...
CORPUSCRAWL_BOILERPLATE_MIN_DOCUMENTS = 2
#: ... and in at least this share of them (see benchmarks/results/boilerplate.md).
CORPUSCRAWL_BOILERPLATE_MIN_FRACTION = 0.05
#: Documents of a new domain are held until its history has this many documents.
CORPUSCRAWL_BOILERPLATE_WARM_DOCUMENTS = 20
#: Most documents held for cold domains at once (overflow releases the oldest domain early).
CORPUSCRAWL_BOILERPLATE_BUFFER_SIZE = 1000
#: A sentence of prose (this many words or more, ending like a sentence) is boilerplate only
#: when seen in at least CORPUSCRAWL_BOILERPLATE_PROSE_MIN_DOCUMENTS documents and in
#: CORPUSCRAWL_BOILERPLATE_PROSE_MIN_FRACTION of the domain's documents: sentences that
#: differ only in figures (market reports, results, weather) repeat in a few stories.
CORPUSCRAWL_BOILERPLATE_PROSE_WORDS = 4
CORPUSCRAWL_BOILERPLATE_PROSE_MIN_DOCUMENTS = 2
CORPUSCRAWL_BOILERPLATE_PROSE_MIN_FRACTION = 0.2
#: A sentence of prose of this many words or more whose figures are its own (too few
#: documents have it with the same figures for template text; years do not count) and that stands between the
#: text's sentences is never domain boilerplate, however many stories repeat it with other
#: figures (a market, weather or results line); 0 turns this off.
CORPUSCRAWL_BOILERPLATE_FIGURES_WORDS = 6
#: Built-in prior: short copyright / rights-reserved / cookie lines, share prompts and
#: newsletter boxes are boilerplate at once (a domain's first page included).
CORPUSCRAWL_BOILERPLATE_PATTERNS = True
#: Longest paragraph (words) the prior may remove.
CORPUSCRAWL_BOILERPLATE_PATTERN_MAX_WORDS = 60
#: Fetch one non-existent page per new domain; its 404 page seeds the domain's template.
CORPUSCRAWL_BOILERPLATE_ERROR_PAGES = True
#: Skip documents that near-duplicate an already exported one (first one wins).
CORPUSCRAWL_DEDUP_ENABLED = True
#: Estimated Jaccard similarity of word shingles at and above which a document is a duplicate.
CORPUSCRAWL_DEDUP_THRESHOLD = 0.8
#: Words per shingle.
CORPUSCRAWL_DEDUP_SHINGLE_WORDS = 5
#: MinHash functions per signature.
CORPUSCRAWL_DEDUP_NUM_PERM = 128

# --- rendering and page interaction (corpuscrawl.browse) -------------
# The add-on installs scrapy-playwright with Debian's Chromium only when some rendering
# can happen (CORPUSCRAWL_RENDER != "never" or a domain rule asks for it).
#: never | always | auto (auto: render only pages whose static HTML looks script-built).
CORPUSCRAWL_RENDER = "never"
#: Revealer clicks per rendered page (None = all, capped at 200 per page).
CORPUSCRAWL_MAX_REVEALS = None
#: Scrolls to the bottom per rendered page, to trigger infinite loading.
CORPUSCRAWL_MAX_SCROLLS = 5
#: Links followed from rendered pages: "inner" (same site) or "all" (also Outer links).
CORPUSCRAWL_FOLLOW = "inner"
#: Also emit a document after every reveal that changed the page (de-duplicated).
CORPUSCRAWL_EXTRACT_CONTINUOUSLY = False
#: Also crawl the LanguageSelection links (translations) of rendered pages.
CORPUSCRAWL_FOLLOW_ALTERNATES = False
#: Element classifier: a model name in models/ or a path to a .json model.
CORPUSCRAWL_ELEMENT_MODEL = "element-classifier"
#: Browser pages rendered at once (scrapy-playwright's PLAYWRIGHT_MAX_PAGES_PER_CONTEXT).
CORPUSCRAWL_RENDER_MAX_PAGES = 4

# --- crawl state (corpuscrawl.crawlstate) -------------------------------------------------
#: Parent directory of every collection's state ("" = Scrapy's project data directory,
#: ``.scrapy/corpuscrawl/``).  A collection's state lives in ``<this>/<collection>/``.
CORPUSCRAWL_STATE_DIR = ""
#: The collection this crawl builds; the spider sets it from ``-a collection=NAME`` or
#: derives it from the seeds (corpuscrawl.crawlstate.state_paths.collection_from_seeds).
CORPUSCRAWL_COLLECTION = ""

# --- end-of-crawl summary and server runs (corpuscrawl.extensions, deploy/) ----------------
#: Log and write the end-of-crawl summary: ``<feed>.summary.json`` beside every local feed
#: file, else ``last-crawl.summary.json`` in the collection's state directory.
CORPUSCRAWL_SUMMARY_ENABLED = True
#: Also write the summary to this file ("" = only the places above).
CORPUSCRAWL_SUMMARY_FILE = ""
#: List every dropped document with its URL and reason in ``<feed>.dropped.jsonl`` beside
#: every local feed file (corpuscrawl.report.scrapy_glue.dropped).
CORPUSCRAWL_DROPPED_ENABLED = True
#: Also list them in this file ("" = only beside the feeds).
CORPUSCRAWL_DROPPED_FILE = ""

# --- raw web kept as WARC (corpuscrawl.archive) ---------------------------------------
# Both components are off (NotConfigured) while CORPUSCRAWL_WARC_DIR is empty.  The
# downloader middleware sits at 950, after every built-in one: it sees each response
# before HttpCompressionMiddleware (590) decodes it and each request as it is sent.
#: Write every fetched response (and each rendered page's DOM) as WARC/1.1 records into
#: this directory ("" = no WARC).  Read them back with ``corpuscrawl extract -e NAME FILE``.
CORPUSCRAWL_WARC_DIR = ""
#: Start a new WARC file when the current one would grow past this size: bytes, or a
#: number with a decimal unit ("100M", "1G"); a single oversized fetch still goes whole.
CORPUSCRAWL_WARC_MAX_SIZE = "1G"
#: First part of the WARC file names: PREFIX-TIMESTAMP-SERIAL-HOST-PID.warc.gz.
CORPUSCRAWL_WARC_PREFIX = "corpuscrawl"

# --- network safety (corpuscrawl.net) -------------------------------------------------------
#: Refuse requests to non-public addresses (private, loopback, link-local such as the cloud
#: metadata service 169.254.169.254, CGNAT, multicast, reserved) — checked on the address
#: actually connected to.  Seed hosts are always allowed.  False switches the guard off.
CORPUSCRAWL_NETWORK_GUARD = True
#: Non-public destinations the crawl may reach anyway: host names (a name also allows its
#: subdomains) and IP addresses or CIDR networks, e.g. ["intranet.example", "10.1.0.0/16"].
CORPUSCRAWL_ALLOWED_NETWORKS: list = []
# The add-on sets TWISTED_DNS_RESOLVER to Scrapy's resolver refusing non-public answers
# and puts the guard middleware after RetryMiddleware: a refused lookup is ignored, not retried.

# --- politeness (corpuscrawl.net.scrapy_glue.politeness; README "Politeness") ----------------------------
# The add-on turns AutoThrottle on (each host paced by its latency, about one request in
# flight per host, CONCURRENT_REQUESTS_PER_DOMAIN 2); the robots.txt Crawl-delay is a floor
# it never goes below.  The bundled demo is crawled faster.
#: A URL or e-mail address where site owners can reach whoever runs the crawl; it goes into
#: the User-Agent, ``corpuscrawl/VERSION (+CONTACT)``, unless USER_AGENT is set explicitly.
CORPUSCRAWL_CONTACT = ""
#: Longest robots.txt Crawl-delay honoured (seconds); longer ones are capped, counted, logged.
CORPUSCRAWL_MAX_CRAWL_DELAY = 60.0
#: Longest Retry-After (429/503) waited for before retrying (seconds); a longer one gives the
#: request up (corpuscrawl/politeness/retry_after_too_long).  Retries count towards RETRY_TIMES.
CORPUSCRAWL_MAX_RETRY_AFTER = 120.0

# --- incremental recrawls (corpuscrawl.crawlstate: recrawl, conditional, pages) -----------
#: What a crawl of a known collection exports: "changed" (new and changed documents; known
#: pages refetched with If-None-Match / If-Modified-Since), "full" (every document again,
#: unconditional requests) or "off" (no page store). The spider argument ``recrawl`` wins.
CORPUSCRAWL_RECRAWL = "changed"
#: A page whose links led to at least this many documents, with fewer words of its own than
#: the second setting per document it led to, is a hub: a recrawl refetches it
#: unconditionally (like seeds, sitemaps and feeds) to find new pages.
CORPUSCRAWL_RECRAWL_HUB_MIN_DOCUMENTS = 3
CORPUSCRAWL_RECRAWL_HUB_WORDS_PER_DOCUMENT = 100
#: Page store backend: a corpuscrawl.crawlstate.pages.PageStore subclass (default: SQLite,
#: ``pages.sqlite3`` in the collection's state directory).
CORPUSCRAWL_PAGE_STORE_CLASS = "corpuscrawl.crawlstate.pages.SQLitePageStore"

# --- resume after a kill (corpuscrawl.crawlstate: frontier, run generations, export ledger) ---
# The add-on plugs, at add-on priority, the durable SCHEDULER and DUPEFILTER_CLASS
# (corpuscrawl.crawlstate.scrapy_glue.frontier) and the export ledger; the collection's state is opened
# when the crawl's extensions are built (corpuscrawl.crawlstate.scrapy_glue.state_addon.CrawlStateOpener).
#: "auto": a run resumes when the previous run of the collection was killed or stopped by a
#: signal; otherwise it starts a new generation (a recrawl).  "never": always a new generation.
CORPUSCRAWL_RESUME = "auto"
#: Seconds between two commits of the crawl state (feeds fsynced first): at most this much
#: work is redone after a kill.
CORPUSCRAWL_STATE_COMMIT_INTERVAL = 1.0
#: Also commit as soon as this many requests are done since the last commit (at most 50
#: commits a second, fewer when commits are slow: they take at most 5 % of the time;
#: 0 = by time only): a kill then redoes at most this many finished
#: requests besides those in flight, on a fast site as on a slow one.
CORPUSCRAWL_STATE_COMMIT_PAGES = 1
#: A graceful stop (SIGTERM, Ctrl-C) takes the requests waiting in the downloader (e.g. behind a
#: 429's Retry-After) back into the frontier at once, and cuts downloads still running after
#: this many seconds (a server that never answers); all stay pending for the next run, and the
#: export stage's held documents are written by the normal close (corpuscrawl.crawlstate.scrapy_glue.stopping).
#: A negative value waits for every download, as Scrapy does.
CORPUSCRAWL_STOP_GRACE = 10.0
#: Keep the state in a temporary directory removed after the crawl (the spider sets it for
#: the demo crawl when no collection, CORPUSCRAWL_STATE_DIR or JOBDIR is given).
CORPUSCRAWL_STATE_TEMPORARY = False

# --- hostile servers and pages (corpuscrawl.html.content, .budget, .traps, .responses) -------------
#: Size cap of one extraction, in bytes of HTML.  A bigger page is first trimmed of markup that
#: is never text (scripts, styles, comments, long attribute values); one still over the cap goes
#: to CORPUSCRAWL_EXTRACTION_OVERSIZED, or fails and is kept in CORPUSCRAWL_FAILED_DIR.
#: 0 = no cap.  (What an uncapped extractor costs on huge pages: benchmarks/results/hostile.md.)
CORPUSCRAWL_EXTRACTION_MAX_BYTES = 4 * 1024 * 1024
#: Time budget of one extraction (extractor, metadata, language) in seconds; an extraction
#: over it fails and its page is kept in CORPUSCRAWL_FAILED_DIR.  0 = none.  A SIGALRM timer:
#: it stops Python code at once and a running C call (lxml) when that call returns.
CORPUSCRAWL_EXTRACTION_TIMEOUT = 20
#: Extractor for pages still over CORPUSCRAWL_EXTRACTION_MAX_BYTES after trimming, e.g. "bte"
#: (linear time); "" = such pages are not extracted and are kept as failed pages.
CORPUSCRAWL_EXTRACTION_OVERSIZED = ""
#: Most bytes the failed-pages store (CORPUSCRAWL_FAILED_DIR) may hold; past it failed pages are
#: counted (corpuscrawl/failed_store/full) and not kept.  0 = no limit.
CORPUSCRAWL_FAILED_MAX_BYTES = 1024 * 1024 * 1024
#: Links longer than this (characters) are not followed (URL-growing traps).
CORPUSCRAWL_MAX_URL_LENGTH = 2083
#: Links whose path repeats one segment more than this many times are not followed (/a/b/a/b/a/b).
CORPUSCRAWL_MAX_PATH_REPEATS = 3
#: Links with more path segments than this are not followed.
CORPUSCRAWL_MAX_PATH_SEGMENTS = 32
#: Consecutive hops allowed between URLs of one pattern (host, path and query keys with numbers
#: masked): a calendar's "next month" chain or endless pagination stops after this many.
CORPUSCRAWL_TRAP_MAX_RUN = 50
#: Most links followed from one page (the most relevant first); the rest are counted.
CORPUSCRAWL_MAX_LINKS_PER_PAGE = 1000
#: Most URLs taken from one sitemap or feed (the sitemap protocol's own limit per file); a
#: source listing more is read up to here, counted (corpuscrawl/sources/capped) and logged.
#: Sources are read as a stream, entry by entry, whatever their size.  0 = no cap.
CORPUSCRAWL_MAX_URLS_PER_SOURCE = 50_000
# The add-on sets REDIRECT_MAX_TIMES to 10 (Scrapy: 20) and DOWNLOAD_MAXSIZE to 10 MiB; link
# traps and floods (corpuscrawl.spiders.traps), redirect loops and robots.txt (corpuscrawl.net.scrapy_glue.robots,
# in the place of Scrapy's RobotsTxtMiddleware) have their middlewares there.
#: Most bytes of a host's robots.txt read (RFC 9309's minimum parsing limit, 500 KiB), whatever
#: DOWNLOAD_MAXSIZE, DOWNLOAD_WARNSIZE or the announced Content-Length say.
CORPUSCRAWL_ROBOTSTXT_MAX_SIZE = 500 * 1024
#: A robots.txt longer than that: "disallow" (its host is not crawled: the rules past the cut
#: are unknown) or "prefix" (the complete lines of its first part are obeyed, as RFC 9309
#: allows).  An unreachable robots.txt (network failure after retries, 5xx, 429) always means
#: complete disallow for its host (RFC 9309); a 4xx means no rules.
CORPUSCRAWL_ROBOTSTXT_OVERSIZED = "disallow"
#: Seconds a host's robots.txt, kept in the crawl state, answers for a resumed run of the same
#: generation (or another cluster worker) instead of being fetched again; at most 86400
#: (RFC 9309: a cache of at most 24 hours).  0 = fetch it in every run.
CORPUSCRAWL_ROBOTSTXT_MAX_AGE = 86400

# --- cluster mode (corpuscrawl.cluster: scrapy-redis frontier, leases, shared export) ---
# With CORPUSCRAWL_REDIS_URL set the add-on plugs scrapy-redis's scheduler (with leases) and
# dupefilter, the Redis boilerplate history and the Redis de-duplication index; scrapy-redis's
# own settings (REDIS_URL, SCHEDULER_QUEUE_CLASS, SCHEDULER_PERSIST, ...) win when given.
# The run generation is agreed in Redis; CORPUSCRAWL_PAGE_STORE_CLASS becomes
# corpuscrawl.cluster.redis_pages.RedisPageStore (recrawls work as on one machine) and
# max_pages counts over all workers of the generation.
#: redis://host:port/db shared by every worker of the collection; empty: single machine.
CORPUSCRAWL_REDIS_URL = ""
#: This worker's name in the cluster (unique among live workers; a restart under the same
#: name takes its previous life's leases back at once).  Empty: HOSTNAME-PID.
CORPUSCRAWL_CLUSTER_WORKER = ""
#: Seconds without a heartbeat after which a worker counts as dead and its leased requests
#: go back into the queue.
CORPUSCRAWL_CLUSTER_LEASE_TIMEOUT = 120.0
#: Seconds between two rounds of feed flush, claim commit, lease acknowledgement, heartbeat.
CORPUSCRAWL_CLUSTER_COMMIT_INTERVAL = 0.5

# --- render experience (corpuscrawl.browse.experience: render=auto per site, across crawls) ---
#: Where render=auto keeps what rendering brought per site (host:port), so a second crawl of a
#: site whose pages needed a browser renders them directly: "state" (the collection's state
#: directory, render-experience.sqlite3; Redis under the collection's prefix in cluster mode),
#: "memory" (this crawl only), a SQLite file path, or a redis:// URL.
CORPUSCRAWL_RENDER_EXPERIENCE = "state"
#: Days after which a site's experience not updated since is forgotten (sites get rebuilt).
CORPUSCRAWL_RENDER_EXPERIENCE_MAX_AGE_DAYS = 90.0

# --- reader comments (corpuscrawl.pagetext.extraction; extractors that give them apart, e.g. auto) ---
#: Where a page's reader comments go: "field" (each document's `comments` field, "" when
#: none; `text`, `content_hash` and the recrawl's "changed" decision stay the article's, so
#: a new comment alone does not re-export a page), "text" (appended to the text after a
#: blank line, as trafilatura's include_comments; a new comment then changes the page) or
#: "drop".  Spider argument: -a comments=...  Anything else fails at start naming this key.
CORPUSCRAWL_COMMENTS = "field"

# --- a document's headline (corpuscrawl.pagetext.extraction, corpuscrawl.extract.meta.title) ---
#: True: a document's text opens with its headline (the document's title) when the
#: extractor left it out and the page shows it as a heading of its own, so every story of a
#: site starts alike whatever its extractor's convention (`auto` follows its gold sets, most
#: of which leave the headline out).  False: the text is the extractor's alone, as
#: `corpuscrawl extract DATASET_DIR` and the benchmarks score it.
CORPUSCRAWL_HEADLINE_IN_TEXT = True

# --- structured output (corpuscrawl.extract.lines.structure, corpuscrawl.formats) ---
#: True: every JSON Lines / JSON / CSV / XML document carries a `markdown` field, its text
#: with headings, lists, tables, quotations and code as Markdown (trafilatura's
#: output_format="markdown"); `text` stays plain and unchanged.  A `tei` feed
#: (-O corpus.xml:tei) finds the same structure whatever this says.
CORPUSCRAWL_MARKDOWN = False

# --- crawl scope (corpuscrawl.net.scope; spider arguments allow, deny, blocklist, max_pages_per_domain) ---
#: Regular expressions (a list, or one comma-separated string); when any is set, a discovered
#: page is followed only if one matches its URL (seeds are always fetched).
CORPUSCRAWL_ALLOW: list[str] = []
#: Regular expressions; a URL any of them matches is never fetched (seeds included).  Deny
#: beats allow.  Per domain: `allow = [...]`, `deny = [...]` in CORPUSCRAWL_RULES_FILE.
CORPUSCRAWL_DENY: list[str] = []
#: A file of URL prefixes and host names never fetched, one per line (# comments); "" = none.
CORPUSCRAWL_BLOCKLIST = ""
#: Documents per domain at most (None = no cap); per domain: `max_pages = N` in the rules file.
CORPUSCRAWL_MAX_PAGES_PER_DOMAIN = None

# --- live progress (corpuscrawl.report.scrapy_glue.progress) ---
#: "auto": a status line (pages fetched, exported, frontier, rate, errors) redrawn on a terminal,
#: progress lines every LOGSTATS_INTERVAL seconds in a log or under Scrapyd; "always": the status
#: line even without a terminal; "log": progress lines only; "off": neither.
CORPUSCRAWL_PROGRESS = "auto"
#: Seconds between two samples (status line redraws, timeline rows of the summary).
CORPUSCRAWL_PROGRESS_INTERVAL = 1.0
