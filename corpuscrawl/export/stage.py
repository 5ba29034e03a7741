"""The export stage: documents in, cleaned documents out, in a crawl's order.

This is the decision-making half of the export path (the feeds get cleaned
documents: boilerplate that repeats across a domain's history is detected and
removed); the Scrapy half (:mod:`corpuscrawl.export.scrapy_glue.stage_pipeline`,
:mod:`corpuscrawl.export.scrapy_glue.exporters`) only feeds it and writes what it releases.
Plain library code: no Scrapy.

For every submitted document, in order:

1. **same page, richer version** — a document whose URL (without fragment) was
   submitted before is a second version of that page (fetched plainly and
   rendered, or reached again through a redirect): the version with more
   words wins.  A poorer later version is dropped as a duplicate; a richer one
   replaces an earlier version that is still held (which then ends as a
   duplicate) and is exported after one already released (counted as
   ``richer_after_export``).  The same holds for a near-duplicate (step 2) of a
   held document: the richer text is kept.
2. **near-duplicate check** — the text (without the paragraphs the built-in
   prior flags) is compared with every document kept so far
   (:class:`corpuscrawl.export.dedup.NearDuplicateIndex`); a near-duplicate is
   dropped at once and is *not* added to the history.  This must come before
   step 3: the same article reachable under two URLs would otherwise count
   each of its paragraphs twice and look like site boilerplate.  The history's
   verdicts are deliberately not used here: they change as the crawl goes on,
   and signatures taken under different evidence do not compare.  The cost:
   two different pages whose text is mostly the same long notice (notice at
   least ~8 times longer than the body, for the 0.8 default) count as
   duplicates — such pages are nearly pure boilerplate anyway.
3. **observe** — the document's paragraphs are counted in the domain history.
4. **hold or judge** — while the domain is cold (fewer than
   ``warm_documents`` documents in the history) the document is held; when
   the domain becomes warm all its held documents are judged and released in
   arrival order.  The buffer is bounded (``buffer_size`` documents over all
   domains): when it overflows, the domain holding the oldest document is
   released early with the evidence it has (counted as ``released_early``).
   :meth:`ExportStage.flush` judges and releases everything still held (the
   end of a crawl) — so a held document is never exported with boilerplate
   that the evidence gathered later in the crawl would have removed.
5. **clean** — boilerplate paragraphs are removed (never the document's own
   headline: :func:`own_headline`, its title or a top line the title holds), the document
   gets ``removed_boilerplate`` and ``boilerplate_hashes``; a document with
   nothing left is dropped (NewsFeed's "garbage": a page that is only a
   notice), one left with nothing but teasers cut short with an ellipsis is a
   listing and dropped, and one with fewer than ``min_words`` words left is
   dropped as too short (a front page reduced to "Front page", a section page
   with one teaser).

Each call returns the :class:`Outcome` list that became final, so a caller
writes ``exported`` outcomes and counts the others.  :attr:`ExportStage.stats`
counts ``documents``, ``exported``, ``dropped_boilerplate``,
``dropped_duplicates``, ``dropped_empty``, ``dropped_listing``, ``dropped_short``,
``documents_cleaned``, ``paragraphs_removed`` and ``released_early``.
"""

from __future__ import annotations

import dataclasses
from collections import Counter, OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from corpuscrawl.boilerplate.detector import Detector
from corpuscrawl.boilerplate.history import ParagraphStats, document_key
from corpuscrawl.boilerplate.normalize import Paragraph, split_paragraphs
from corpuscrawl.export.dedup import NearDuplicateIndex
from corpuscrawl.items import Document, content_hash
from corpuscrawl.net.sites import state_key

__all__ = ["BUFFER_SIZE_DEFAULT", "EXPORTED", "BOILERPLATE", "DUPLICATE", "EMPTY", "LISTING",
           "MIN_WORDS_DEFAULT", "STAT_NAMES", "TOO_SHORT", "ExportStage", "Outcome",
           "is_teaser", "own_headline"]

#: Documents held over all cold domains at most.  A held document keeps its text, the
#: normalized copy and one tuple per line, so this bounds the buffer's memory while 50 new
#: domains warm up (20 documents each) at once (sizes: benchmarks/results/boilerplate.md).
BUFFER_SIZE_DEFAULT = 1000

EXPORTED = "exported"
BOILERPLATE = "boilerplate"  # nothing left after removing the domain's boilerplate
DUPLICATE = "duplicate"  # near-duplicate of an earlier document
EMPTY = "empty"  # no text to begin with
LISTING = "listing"  # nothing left but teasers cut short: a front or section page
TOO_SHORT = "too_short"  # fewer than min_words words left
#: Counter name of each outcome in :attr:`ExportStage.stats`.
STAT_NAMES = {EXPORTED: "exported", BOILERPLATE: "dropped_boilerplate",
              DUPLICATE: "dropped_duplicates", EMPTY: "dropped_empty",
              LISTING: "dropped_listing", TOO_SHORT: "dropped_short"}
#: Fewest words a document must keep to be exported.  Below 15 words a text is a
#: heading, a caption or a link label ("Front page", "Culture", "Read more about the
#: orchard"), not a text a corpus wants; the shortest real pages of the synthetic sites
#: and the demo (an "About us" text) have 20.
MIN_WORDS_DEFAULT = 15
#: Endings of a teaser cut short (the listing's "read more" ellipsis).
_TEASER_ENDS = ("…", "...")


def is_teaser(text: str) -> bool:
    """True for a paragraph cut short with an ellipsis (a listing's teaser)."""
    return text.rstrip().endswith(_TEASER_ENDS)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The final decision for one document: the document to write (cleaned) and its status."""

    document: Document
    status: str
    duplicate_of: str = ""

    @property
    def exported(self) -> bool:
        """True when the document is to be written."""
        return self.status == EXPORTED


@dataclass(slots=True)
class _Held:
    document: Document
    domain: str
    paragraphs: list[Paragraph]
    notices: list[str | None]
    #: Fingerprints of the document's own headline (never removed as boilerplate).
    keep: frozenset[int] = frozenset()
    #: URL of the richer version that replaced this one while it was held ("" if none).
    replaced_by: str = ""


def _body(title: str, text: str) -> str:
    """``text`` without a first line that is the document's ``title`` (its headline, which
    the text opens with: :func:`corpuscrawl.extract.meta.title.with_headline`), stripped:
    a headline alone is no content, and a section page's headline over its teasers is
    still a listing."""
    first, _, rest = text.strip().partition("\n")
    return rest.strip() if title and first.strip().lower() == title.strip().lower() else text.strip()


#: Lines at the top of a document that may be its headline.
HEADLINE_LINES = 3


def own_headline(title: str, paragraphs: list[Paragraph]) -> frozenset[int]:
    """Fingerprints of a document's own headline: its title, and a line among its first
    :data:`HEADLINE_LINES` that the title holds with at least half of its words (the
    ``<h1>`` of a page whose title kept a site name: "Budget approved" in "Budget
    approved - Gazette Daily")."""
    if not title:
        return frozenset()
    own = Paragraph.of(title)
    keep = {own.fingerprint}
    padded = f" {own.normalized} "
    for p in paragraphs[:HEADLINE_LINES]:
        if p.normalized and 2 * p.words >= own.words and f" {p.normalized} " in padded:
            keep.add(p.fingerprint)
    return frozenset(keep)


def _page_key(url: str, unit: int = 0) -> str:
    """One version slot per page (and per coherent unit of a split page)."""
    page = url.split("#", 1)[0]
    return f"{page}#unit-{unit}" if unit else page


def _words(text: str) -> int:
    return len(text.split())


class ExportStage:
    """Cleans, deduplicates and orders documents for export (see the module docstring).

    ``detector=None`` disables boilerplate removal (documents pass through
    unchanged apart from the duplicate check and the length floor);
    ``dedup=None`` disables the duplicate check; ``min_words=0`` exports
    documents of any length; ``drop_listings=False`` exports documents left with nothing
    but teasers cut short.
    """

    def __init__(self, detector: Detector | None, dedup: NearDuplicateIndex | None = None,
                 buffer_size: int = BUFFER_SIZE_DEFAULT,
                 min_words: int = MIN_WORDS_DEFAULT, versions: Any = None,
                 drop_listings: bool = True) -> None:
        self.detector = detector
        self.drop_listings = drop_listings
        self.dedup = dedup
        self.buffer_size = max(0, buffer_size)
        self.min_words = max(0, min_words)
        self.stats: Counter[str] = Counter()
        self._held: OrderedDict[str, list[_Held]] = OrderedDict()
        self._held_count = 0
        # Per page URL: words of the version kept, and the held item while it is held
        # (``versions``: a store with the dict's get and item assignment, e.g. on disk).
        self._versions: dict[str, tuple[int, _Held | None]] = {} if versions is None else versions

    @property
    def held(self) -> int:
        """Documents currently held for cold domains."""
        return self._held_count

    def submit(self, doc: Document) -> list[Outcome]:
        """Take one document; return the outcomes that became final (possibly earlier ones)."""
        self.stats["documents"] += 1
        # History is per site: host:port when the URL names a port (the document's
        # ``domain`` field is the host alone).
        domain = state_key(doc.url) if doc.url else doc.domain
        paragraphs = split_paragraphs(doc.text)
        if not paragraphs:
            return [self._count(Outcome(doc, EMPTY))]
        notices: list[str | None] = (self.detector.notices(paragraphs)
                                     if self.detector is not None else [None] * len(paragraphs))
        words = _words(doc.text)
        slot = _page_key(doc.url, doc.unit_index)
        earlier = self._versions.get(slot) if doc.url else None
        if earlier is not None:
            if words <= earlier[0]:
                return [self._count(Outcome(doc, DUPLICATE, doc.url.split("#", 1)[0]))]
            self._supersede(earlier[1], doc)
        duplicate = self._duplicate_of(doc, paragraphs, notices)
        if duplicate is not None:
            same_page = earlier is not None and _page_key(str(duplicate)) == _page_key(doc.url)
            kept = self._versions.get(_page_key(str(duplicate)))
            if not same_page and (kept is None or kept[1] is None or words <= kept[0]):
                return [self._count(Outcome(doc, DUPLICATE, str(duplicate)))]
            if same_page:  # the poorer version of this page, already released
                assert self.dedup is not None
                self.dedup.remove(duplicate)
            else:
                self._supersede(kept[1], doc)  # type: ignore[index]
            self._duplicate_of(doc, paragraphs, notices)  # now kept in its place
        keep = own_headline(doc.title, paragraphs)
        item = _Held(doc, domain, paragraphs, notices, keep)
        if doc.url:
            self._versions[slot] = (words, item if self.detector else None)
        if self.detector is None:
            return [self._count(self._final(doc))]
        # The count read while counting the document serves every later use (warm?
        # history floor), so the history is not asked for it again; a document of a warm
        # domain with nothing held is judged at once (as if held, then released), with
        # the stats the history found while counting it.
        documents, stats = self.detector.record(domain, document_key(doc.url, doc.text),
                                                paragraphs, judge=domain not in self._held)
        if stats is not None:
            return [self._judge(item, stats, documents)]
        warm = self.detector.is_warm(domain, documents)
        self._held.setdefault(domain, []).append(item)
        self._held_count += 1
        if warm:
            return list(self._release(domain, documents))
        out: list[Outcome] = []
        while self._held_count > self.buffer_size:
            oldest = next(iter(self._held))
            self.stats["released_early"] += len(self._held[oldest])
            out.extend(self._release(oldest))
        return out

    def remember(self, doc: Document) -> None:
        """Add a document exported by an earlier run of the same crawl to the near-duplicate
        index (a crawl resumed after a kill), so a later copy of it is still a duplicate."""
        if doc.url:  # a poorer version of it later is a duplicate too
            self._versions[_page_key(doc.url, doc.unit_index)] = (_words(doc.text), None)
        if self.dedup is None:
            return
        paragraphs = split_paragraphs(doc.text)
        if paragraphs:
            notices: list[str | None] = (self.detector.notices(paragraphs)
                                         if self.detector is not None
                                         else [None] * len(paragraphs))
            self._duplicate_of(doc, paragraphs, notices)

    def _supersede(self, held: _Held | None, richer: Document) -> None:
        """A richer version of a document arrived: the held one ends as its duplicate."""
        if held is None:
            self.stats["richer_after_export"] += 1
            return
        held.replaced_by = richer.url
        if self.dedup is not None:
            self.dedup.remove(held.document.url or content_hash(held.document.text))

    def flush(self) -> list[Outcome]:
        """Judge and release every held document (call once the crawl has ended)."""
        out: list[Outcome] = []
        for domain in list(self._held):
            out.extend(self._release(domain))
        return out

    def _release(self, domain: str, documents: int | None = None) -> Iterator[Outcome]:
        items = self._held.pop(domain, [])
        self._held_count -= len(items)
        if not items:
            return
        # One look-up for all of them: judging writes nothing, so every item sees the
        # same evidence, and the domain's paragraphs they share are fetched once.
        assert self.detector is not None
        if documents is None:
            documents = self.detector.history.document_count(domain)
        stats = self.detector.boilerplate_stats(
            domain, {fp for item in items for fp in self.detector.fingerprints(item.paragraphs)},
            documents)
        for item in items:
            yield self._judge(item, stats, documents)

    def _duplicate_of(self, doc: Document, paragraphs: list[Paragraph],
                      notices: list[str | None]) -> object | None:
        if self.dedup is None:
            return None
        # Normalized words of the paragraphs the prior does not flag: a fixed function of
        # the document (the history's verdicts change as the crawl goes on, and signatures
        # taken under different evidence do not compare); masking digits and case makes a
        # copy with another date or counter still a copy.
        kept = [p.normalized for p, notice in zip(paragraphs, notices, strict=True)
                if notice is None] or [p.normalized for p in paragraphs]
        # Normalized forms are words joined by single spaces: joined again (without the
        # empty ones) they are the document's words, and need no second split.
        return self.dedup.add(doc.url or content_hash(doc.text),
                              " ".join([words for words in kept if words]), spaced=True)

    def _judge(self, item: _Held, stats: dict[int, ParagraphStats] | None = None,
               documents: int | None = None) -> Outcome:
        assert self.detector is not None
        if item.document.url:
            slot = _page_key(item.document.url, item.document.unit_index)
            version = self._versions.get(slot)
            if version is not None and version[1] is item:
                self._versions[slot] = (version[0], None)
        if item.replaced_by:
            return self._count(Outcome(item.document, DUPLICATE, item.replaced_by))
        cleaned = self.detector.clean_paragraphs(item.domain, item.paragraphs, item.notices,
                                                 stats, documents, item.keep)
        doc = item.document
        if cleaned.removed:
            doc = dataclasses.replace(
                doc, text=cleaned.text, content_hash=content_hash(cleaned.text),
                removed_boilerplate=len(cleaned.removed),
                boilerplate_hashes=cleaned.removed_hashes)
            self.stats["paragraphs_removed"] += len(cleaned.removed)
            self.stats["documents_cleaned"] += 1
        if not cleaned.text.strip() or (cleaned.removed and not _body(doc.title, cleaned.text)):
            return self._count(Outcome(doc, BOILERPLATE))
        return self._count(self._final(doc))

    def _final(self, doc: Document) -> Outcome:
        """Exported, unless only teasers (a listing) or fewer than ``min_words`` words are left."""
        text = doc.text
        # every line a teaser but the headline: the last one is (one test for nearly every
        # document)
        if (self.drop_listings and text.rstrip().endswith(_TEASER_ENDS)
                and all(map(is_teaser, _body(doc.title, text).split("\n")))):
            return Outcome(doc, LISTING)
        # extracted text is normalized (single spaces, one paragraph a line), so the
        # separators count the words; the split only settles the rare short ones
        if (self.min_words and text.count(" ") + text.count("\n") < 2 * self.min_words
                and _words(text) < self.min_words):
            return Outcome(doc, TOO_SHORT)
        return Outcome(doc, EXPORTED)

    def _count(self, outcome: Outcome) -> Outcome:
        self.stats[STAT_NAMES[outcome.status]] += 1
        return outcome
