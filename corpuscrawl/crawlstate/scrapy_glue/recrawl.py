"""Incremental recrawls: Scrapy components over the collection's page store.

A crawl of a collection whose page store (:mod:`corpuscrawl.crawlstate.pages`)
already has records is a *recrawl* (a later run generation of the collection,
:mod:`corpuscrawl.crawlstate.runs`; a run resuming a killed recrawl is one
too, its durable duplicate filter dropping what was already queued).  On a
recrawl:

* the spider re-queues the known pages from the store (:func:`revisit`): hubs
  first, then every page that gave a document, so an edited article is found
  even when no page links to it any more;
* :class:`~corpuscrawl.crawlstate.scrapy_glue.conditional.ConditionalRequests`
  (downloader middleware) sends ``If-None-Match`` / ``If-Modified-Since`` with
  the stored validators of a known page; a 304 ends the request there
  (:class:`NotModified`, no body, no extraction, no links).  Seeds, sitemaps,
  feeds and hubs are always fetched unconditionally; a known page to be
  rendered in the browser is first asked with a plain conditional GET, and a
  304 saves the rendering.  A hub is a page whose links led to at least
  ``CORPUSCRAWL_RECRAWL_HUB_MIN_DOCUMENTS`` documents and that has fewer than
  ``CORPUSCRAWL_RECRAWL_HUB_WORDS_PER_DOCUMENT`` words of its own per
  document it led to (a front or section page, not an article with a
  "related" box).  A known page whose text was shaped otherwise than this
  crawl would shape it (another extractor, model file, template file or
  text setting: the page store's ``shape``) is fetched in full too, so the
  change reaches it (counted ``reshaped``).  A known page answering 404/410
  is marked gone;
* :class:`ChangeFilter` (item pipeline, before the export stage) compares the
  hash of each document's extracted text with the stored one: unchanged
  documents are counted and not exported (``recrawl=full`` exports them,
  ``change="unchanged"``); new and changed ones get ``change`` and go on.

The store learns a document's hash and validators only once the export stage
has released it (``item_scraped``, and the stage's final flush at close) or a
later pipeline dropped it (the export ledger: exported by a killed run of this
generation): a crawl killed before that leaves the page unknown, so it is
exported again instead of lost.  A generation compares with the hashes stored
before it (:meth:`~corpuscrawl.crawlstate.pages.PageRecord.baseline`), so a
run resuming a killed recrawl decides as the killed run did.
:class:`~corpuscrawl.crawlstate.scrapy_glue.conditional.FoundOn` (spider middleware)
records which page each request was found on, which is how hubs are
recognised.

A page that moved permanently (301/308) is compared with the text stored for
its old address, which is then retired (marked gone, counted ``moved``): a
site moving to https does not re-export its whole corpus.

Sitemaps and feeds that listed pages are remembered too and fetched again,
in full, by every recrawl (also those only a page now answering 304 linked).

In cluster mode (``CORPUSCRAWL_REDIS_URL``) the page store is
``corpuscrawl.cluster.redis_pages.RedisPageStore``, shared by the workers, and the
generation is the one the cluster agreed in Redis (``crawlstate.lookup.run_record``):
the known pages are re-queued by the workers that start before one of them has
queued them all (the shared seen-set drops the copies).

Stats: ``corpuscrawl/recrawl/new|changed|unchanged|not_modified|gone``, plus
``moved``, ``conditional``, ``reshaped``, ``revisited``, ``revisited_hubs``,
``revisited_sources`` and ``generation``.
"""

from __future__ import annotations

import logging
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem, IgnoreRequest, NotConfigured
from scrapy.utils.misc import load_object

from corpuscrawl.config.crawl_checks import CrawlSetupError
from corpuscrawl.crawlstate.export_state import existing_state
from corpuscrawl.crawlstate.lookup import run_info, run_record
from corpuscrawl.crawlstate.pages import PageRecord, PageStore, unit_key
from corpuscrawl.crawlstate.scrapy_glue.location import state_dir
from corpuscrawl.crawlstate.scrapy_glue.output_failure import failure_of
from corpuscrawl.crawlstate.state_paths import COLLECTION_SETTING, collection_from_seeds
from corpuscrawl.items import Document, content_hash

__all__ = ["REVISIT_PRIORITY", "ChangeFilter", "Fetched", "NotModified", "RecrawlConfig",
           "RecrawlConfigError", "RecrawlState", "collection_run", "existing_recrawl_state",
           "recrawl_state", "required_state", "revisit"]

logger = logging.getLogger("corpuscrawl.recrawl")

STATS_PREFIX = "corpuscrawl/recrawl/"
#: Setting naming the page store backend (a PageStore subclass), and its default.
STORE_CLASS_SETTING = "CORPUSCRAWL_PAGE_STORE_CLASS"
STORE_CLASS_DEFAULT = "corpuscrawl.crawlstate.pages.SQLitePageStore"
#: Scrapy priority of the known pages a recrawl re-queues (not hubs): below every link
#: found on the way (focus priorities are >= 0), so new pages come first.
REVISIT_PRIORITY = -1
#: Recrawl modes: export new and changed documents, export all, or keep no page store.
MODES = ("changed", "full", "off")
#: A page whose links led to this many documents may be a hub (refetched unconditionally).
#: Three: an article's "previous / next" or two "related" links are not enough; a
#: listing or front page leads to many.
HUB_MIN_DOCUMENTS_DEFAULT = 3
#: ... when it has fewer words of its own than this per document it led to: a section page
#: of titles, or of teasers up to ~100 words each, qualifies; a 600-word article whose
#: "related" box led to five stories does not.
HUB_WORDS_PER_DOCUMENT_DEFAULT = 100
#: Responses whose validators are kept until their documents are released.  Only
#: responses in flight or held by the export stage need them; beyond this bound the
#: oldest are forgotten (their pages are then fetched unconditionally next time).
PENDING_MAX = 20_000


class RecrawlConfigError(CrawlSetupError):
    """A CORPUSCRAWL_RECRAWL* setting or the ``recrawl`` argument is invalid."""


class NotModified(IgnoreRequest):
    """A known page answered 304 to a conditional request: nothing to extract."""


@dataclass(frozen=True)
class RecrawlConfig:
    """The recrawl settings, read once (names in corpuscrawl/settings.py)."""

    mode: str = "changed"
    hub_min_documents: int = HUB_MIN_DOCUMENTS_DEFAULT
    hub_words_per_document: int = HUB_WORDS_PER_DOCUMENT_DEFAULT

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RecrawlConfig:
        """``CORPUSCRAWL_RECRAWL`` (or the spider argument ``recrawl``) and the hub threshold."""
        settings = crawler.settings
        mode = str(getattr(crawler.spider, "recrawl", "") or settings.get("CORPUSCRAWL_RECRAWL")
                   or "changed").strip().lower()
        if mode not in MODES:
            raise RecrawlConfigError(f"CORPUSCRAWL_RECRAWL / recrawl={mode!r}: expected one of "
                                     + ", ".join(MODES))
        return cls(mode=mode,
                   hub_min_documents=_whole(settings, "CORPUSCRAWL_RECRAWL_HUB_MIN_DOCUMENTS",
                                            HUB_MIN_DOCUMENTS_DEFAULT, 1),
                   hub_words_per_document=_whole(
                       settings, "CORPUSCRAWL_RECRAWL_HUB_WORDS_PER_DOCUMENT",
                       HUB_WORDS_PER_DOCUMENT_DEFAULT, 0))


def _whole(settings: Any, key: str, default: int, low: int) -> int:
    raw = settings.get(key, default)
    try:
        value = int(raw)
    except (TypeError, ValueError):
        value = low - 1
    if value < low:
        raise RecrawlConfigError(f"{key} must be a whole number >= {low}, got {raw!r}")
    return value


@dataclass(frozen=True, slots=True)
class Fetched:
    """What a 2xx response said about a page, kept until its documents are released."""

    status: int
    etag: str
    last_modified: str
    found_on: str
    #: The URL this page permanently moved from (301/308 redirects only), else "".
    moved_from: str = ""


@dataclass(frozen=True, slots=True)
class _Decided:
    """A document on its way through the export stage: the hash to store once released."""

    text_hash: str
    words: int
    fetched: Fetched | None
    shape: str = ""


def _collection(crawler: Crawler) -> str:
    settings = crawler.settings
    name = settings.get(COLLECTION_SETTING) or getattr(crawler.spider, "collection", "")
    if not name:
        seeds = list(getattr(crawler.spider, "seed_urls", []) or [])
        name = collection_from_seeds(seeds)
    return str(name)


class RecrawlState:
    """The page store of the crawl's collection and the run's bookkeeping around it."""

    def __init__(self, crawler: Crawler, config: RecrawlConfig, store: PageStore,
                 generation: int, resumed: bool) -> None:
        self.crawler = crawler
        self.config = config
        self.store = store
        self.generation = generation
        self.resumed = resumed
        #: A later generation of a collection: re-queue its known pages.  Also when the run
        #: resumes one: the kill may have come before all of them were queued, and the
        #: durable duplicate filter drops those that were.
        self.recrawl = generation > 1
        #: The run record this state follows (crawl state or cluster generation), if any.
        self.run: Any = None
        self._fetched: OrderedDict[str, Fetched] = OrderedDict()
        self._decided: dict[str, _Decided] = {}
        self._closed = False
        crawler.stats.set_value(STATS_PREFIX + "generation", generation)
        crawler.signals.connect(self._item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self._item_dropped, signal=signals.item_dropped)
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.close, signal=signals.engine_stopped)  # a safety net

    @classmethod
    def from_crawler(cls, crawler: Crawler, config: RecrawlConfig) -> RecrawlState:
        """Open the collection's page store and place this run among its generations."""
        run = collection_run(crawler)
        directory = (Path(run.state_dir) if run is not None and run.state_dir
                     else state_dir(crawler.settings, _collection(crawler), create=False))
        store = _store_class(crawler.settings).from_settings(crawler.settings, directory)
        if run is not None:
            generation, resumed = int(run.generation), bool(run.resumed)
        else:  # no run state kept: every run is a new generation after the store's last
            generation, resumed = store.last_generation() + 1, False
        logger.info("collection state in %s: generation %d%s, %d known pages",
                    getattr(store, "key", directory), generation,
                    " (resumed)" if resumed else "", len(store))
        state = cls(crawler, config, store, generation, resumed)
        state.run = run
        return state

    def revisit_needed(self) -> bool:
        """True when this run should re-queue the collection's known pages: a recrawl, unless
        another worker of a cluster already queued them all for this generation."""
        if not self.recrawl:
            return False
        check = getattr(self.run, "revisit_needed", None)
        return check() if check is not None else True

    def revisited(self) -> None:
        """Every known page was re-queued (recorded for the other workers of a cluster)."""
        done = getattr(self.run, "revisited", None)
        if done is not None:
            done()

    def inc(self, key: str, count: int = 1) -> None:
        """Increase ``corpuscrawl/recrawl/<key>``."""
        self.crawler.stats.inc_value(STATS_PREFIX + key, count)

    # --- fetching -----------------------------------------------------------

    def is_hub(self, record: PageRecord) -> bool:
        """True when the stored page is a hub (refetched unconditionally)."""
        return record.is_hub(self.config.hub_min_documents, self.config.hub_words_per_document)

    def shape_for(self, url: str) -> str:
        """What shapes the text of ``url`` in this crawl (the spider's extraction's
        :meth:`~corpuscrawl.pagetext.extraction.Extraction.shape_for`; "" without one)."""
        extraction = getattr(self.crawler.spider, "extraction", None)
        shape_for = getattr(extraction, "shape_for", None)
        return shape_for(url) if shape_for is not None else ""

    def fetched(self, url: str, fetched: Fetched) -> None:
        """Remember a 2xx response's validators until its documents are released."""
        self._fetched[url] = fetched
        self._fetched.move_to_end(url)
        while len(self._fetched) > PENDING_MAX:
            self._fetched.popitem(last=False)

    # --- documents ----------------------------------------------------------

    def decide(self, doc: Document) -> str:
        """``new``, ``changed`` or ``unchanged`` for a document, remembering what to store."""
        key = unit_key(doc.url, doc.unit_index)
        text_hash = content_hash(doc.text)
        record = self.store.get(key)
        fetched = self._fetched.pop(doc.url, None) if doc.unit_index == 0 else None
        if record is None and fetched is not None and fetched.moved_from:
            record = self.store.get(fetched.moved_from)  # the same page at its old address
        baseline = record.baseline(self.generation) if record is not None else ""
        if not baseline:
            change = "new"
        elif baseline == text_hash:
            change = "unchanged"
        else:
            change = "changed"
        self._decided[key] = _Decided(text_hash, len(doc.text.split()), fetched,
                                      self.shape_for(doc.url))
        return change

    def commit(self, doc: Document) -> None:
        """The export stage released ``doc``: store its hash, validators and discoverer."""
        key = unit_key(doc.url, doc.unit_index)
        decided = self._decided.pop(key, None)
        if decided is None:
            return
        fetched = decided.fetched
        self.store.record_text(key, decided.text_hash, self.generation,
                               fetched.status if fetched else doc.status or 200,
                               fetched.etag if fetched else "",
                               fetched.last_modified if fetched else "", decided.words,
                               decided.shape)
        if fetched and fetched.found_on and fetched.found_on != doc.url:
            self.store.credit(fetched.found_on, self.generation)
        if fetched and fetched.moved_from and self.store.mark_gone(
                fetched.moved_from, self.generation, 301):
            self.inc("moved")  # the old address is no longer re-queued; the new one is

    def _released(self, item: Any) -> Iterable[Any]:
        export = existing_state(self.crawler)
        outcomes = export.released_with(item) if export is not None else None
        if outcomes is None:
            return [item]
        return [outcome.document for outcome in outcomes]

    def _item_scraped(self, item: Any) -> None:
        if failure_of(self.crawler):  # not written: the page stays unknown, exported again
            return
        for doc in self._released(item):
            if isinstance(doc, Document):
                self.commit(doc)

    def _item_dropped(self, item: Any) -> None:
        # Dropped after its decision: by the export ledger (already exported by a killed
        # run of this generation) or by a user's pipeline (it would be dropped again).
        if isinstance(item, Document):
            self.commit(item)

    def _spider_closed(self) -> None:
        export = existing_state(self.crawler)
        if export is not None and export.final is not None and not failure_of(self.crawler):
            for outcome in export.final:
                self.commit(outcome.document)
        self.close()

    def flush(self) -> None:
        """Make the store's writes so far durable (nothing once it is closed)."""
        if not self._closed:
            self.store.flush()

    def close(self) -> None:
        """Make the store durable and close it (idempotent)."""
        if not self._closed:
            self._closed = True
            self.store.close()


def _store_class(settings: Any) -> type[PageStore]:
    path = settings.get(STORE_CLASS_SETTING) or STORE_CLASS_DEFAULT
    try:
        store_class = load_object(path)
    except (ImportError, NameError, ValueError, AttributeError) as exc:
        raise RecrawlConfigError(f"{STORE_CLASS_SETTING}={path!r}: {exc}") from exc
    if not (isinstance(store_class, type) and issubclass(store_class, PageStore)):
        raise RecrawlConfigError(f"{STORE_CLASS_SETTING}={path!r} is not a PageStore class")
    return store_class


def collection_run(crawler: Crawler) -> Any:
    """The collection's run record (generation, resumed, state_dir) when the crawl keeps one:
    the crawl state's on one machine, else the one attached to the crawler (cluster mode)."""
    info = run_info(crawler)
    return info if info is not None else run_record(crawler)


def existing_recrawl_state(crawler: Crawler) -> RecrawlState | None:
    """The crawl's recrawl state if a component built it already (never builds one)."""
    return _STATES.get(crawler)


_STATES: weakref.WeakKeyDictionary[Crawler, RecrawlState | None] = weakref.WeakKeyDictionary()


def recrawl_state(crawler: Crawler) -> RecrawlState | None:
    """The crawl's recrawl state (None with ``CORPUSCRAWL_RECRAWL = "off"``)."""
    if crawler not in _STATES:
        config = RecrawlConfig.from_crawler(crawler)
        _STATES[crawler] = (RecrawlState.from_crawler(crawler, config)
                            if config.mode != "off" else None)
    return _STATES[crawler]


def required_state(crawler: Crawler) -> RecrawlState:
    """The crawl's recrawl state for a component; NotConfigured when recrawls are off."""
    state = recrawl_state(crawler)
    if state is None:
        raise NotConfigured("incremental recrawls are off (CORPUSCRAWL_RECRAWL = 'off')")
    return state


def revisit(crawler: Crawler) -> Iterator[tuple[str, str]]:
    """``(url, kind)`` of the known pages a recrawl re-queues (none on other runs).

    ``kind`` is ``"source"`` (a sitemap or feed: parse it as one), ``"hub"``
    (fetched in full, before other pages) or ``"page"`` (a page that gave a
    document: asked conditionally, after every new page).
    """
    state = recrawl_state(crawler)
    if state is None or not state.revisit_needed():
        return
    config = state.config
    for record in state.store.revisit(config.hub_min_documents, config.hub_words_per_document):
        kind = "source" if record.source else "hub" if state.is_hub(record) else "page"
        state.inc({"source": "revisited_sources", "hub": "revisited_hubs"}.get(kind, "revisited"))
        yield record.key, kind
    state.revisited()


class ChangeFilter:
    """Item pipeline (before the export stage): new and changed documents go on, with ``change``."""

    def __init__(self, state: RecrawlState) -> None:
        self.state = state

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ChangeFilter:
        """NotConfigured with ``CORPUSCRAWL_RECRAWL = "off"``."""
        return cls(required_state(crawler))

    def process_item(self, item: Any) -> Any:
        """Set ``change``; drop an unchanged document unless ``recrawl=full``."""
        if not isinstance(item, Document):
            return item
        state = self.state
        change = state.decide(item)
        state.inc(change)
        if change == "unchanged" and state.config.mode != "full":
            state.commit(item)  # nothing to export: the new validators are stored at once
            raise DropItem(f"unchanged since the last crawl: {item.url}", log_level="DEBUG")
        item.change = change
        return item
