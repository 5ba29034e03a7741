"""Dropped documents: every page that gave no document in the corpus, with its reason.

Beside each local feed file ``X`` the crawl writes ``X.dropped.jsonl``, one
JSON object a line::

    {"url": "https://example.org/amp/story", "reason": "duplicate",
     "detail": "near-duplicate of https://example.org/story",
     "duplicate_of": "https://example.org/story", "generation": 3,
     "time": "2026-11-27T11:40:02Z"}

(``corpuscrawl crawl`` / ``scrapy crawl`` without a local feed: only
``CORPUSCRAWL_DROPPED_FILE``, when set.)  Reasons (:data:`REASONS`):
``duplicate`` (``duplicate_of`` names the document kept), ``boilerplate``
(nothing left but the domain's boilerplate), ``listing`` (a front or section
page: its text is teasers of other pages of the site, or nothing is left but
teasers cut short), ``too_short`` (under
``CORPUSCRAWL_MIN_WORDS``), ``empty`` (no text extracted), ``language``,
``binary``, ``extraction_error`` (the raw page is kept in
``CORPUSCRAWL_FAILED_DIR``), ``robots`` (the page asked not to be indexed).
A page left out of a recrawl's export because its text did not change is not
dropped (it is in the corpus already; counted ``corpuscrawl/recrawl/unchanged``),
nor is a document a resumed crawl had written before the kill.

Any component that drops a document calls :func:`record_drop` with the
crawler, the URL, the reason and a detail; counts by reason go to the stats
(``corpuscrawl/drops/<reason>``) and to the crawl summary (``dropped``).

Resumes.  The file follows its feed: overwritten when the feed is (``-O`` on
a new generation), appended to when the feed is (``-o``, or any resumed run).
A record is written once per URL and reason within a generation: a resumed run
reads the records of its generation already in the file (cutting a torn last
line) and does not write them again, although it fetches their pages again.
Each line is flushed to the operating system as it is written, so a killed
crawl loses none that it wrote.
"""

from __future__ import annotations

import json
import logging
import weakref
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from corpuscrawl.crawlstate.feed_paths import local_feed_path
from corpuscrawl.crawlstate.scrapy_glue.recrawl import collection_run

__all__ = ["DROPPED_SUFFIX", "REASONS", "STATS_PREFIX", "DroppedLog", "dropped_path_for",
           "drop_log", "record_drop"]

logger = logging.getLogger("corpuscrawl.dropped")

#: Suffix appended to a feed file's name for its list of dropped documents.
DROPPED_SUFFIX = ".dropped.jsonl"
#: Stats prefix of the counts by reason.
STATS_PREFIX = "corpuscrawl/drops/"
#: Every reason a document is dropped for, and what it means.
REASONS = {
    "duplicate": "a near-duplicate of a document kept (duplicate_of), or a poorer version "
                 "of the same page",
    "boilerplate": "nothing left after removing the domain's boilerplate",
    "listing": "a front or section page: teasers of other pages of the site (or nothing left "
               "but teasers cut short)",
    "too_short": "fewer words left than CORPUSCRAWL_MIN_WORDS",
    "empty": "no text extracted",
    "language": "not in a target language",
    "binary": "the body is not text",
    "charset_undecodable": "its charset label does not decode it and no other charset reads it",
    "truncated": "its body came cut short twice (a lying Content-Length or a cut connection)",
    "extraction_error": "the extractor failed (the raw page is kept)",
    "robots": "the page asked not to be indexed (robots meta / X-Robots-Tag)",
}


def dropped_path_for(feed_path: str | Path) -> Path:
    """Where the dropped documents of a feed file go: beside it, ``X.dropped.jsonl``."""
    path = Path(feed_path)
    return path.with_name(path.name + DROPPED_SUFFIX)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class DroppedLog:
    """Writes the dropped documents of one crawl to its files, once per URL and reason.

    ``targets``: (path, overwrite) per file; ``generation``: the collection's run
    generation (0 outside a collection).  Plain library code: no Scrapy.
    """

    def __init__(self, targets: Iterable[tuple[Path, bool]], generation: int = 0) -> None:
        self.generation = generation
        self.counts: Counter[str] = Counter()
        self._seen: set[tuple[str, str]] = set()
        self._files: list[tuple[Path, IO[str]]] = []
        for path, overwrite in targets:
            try:
                self._files.append((path, self._open(path, overwrite)))
            except OSError as exc:
                logger.error("cannot write the dropped documents to %s: %s", path, exc)

    @property
    def paths(self) -> list[Path]:
        """The files written."""
        return [path for path, _ in self._files]

    def _open(self, path: Path, overwrite: bool) -> IO[str]:
        path.parent.mkdir(parents=True, exist_ok=True)
        if overwrite or not path.is_file():
            return path.open("w", encoding="utf-8")
        data = path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):  # a torn last line of a killed run: cut it
            with path.open("r+b") as fh:
                fh.truncate(end)
        for line in data[:end].decode("utf-8", "replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("generation") == self.generation:
                self._seen.add((str(record.get("url")), str(record.get("reason"))))
        return path.open("a", encoding="utf-8")

    def record(self, url: str, reason: str, detail: str = "", **fields: Any) -> bool:
        """Write one dropped document (False when this URL was dropped for this reason
        already in this generation); ``fields`` are added to the record."""
        key = (url, reason)
        if key in self._seen:
            return False
        self._seen.add(key)
        self.counts[reason] += 1
        line = json.dumps({"url": url, "reason": reason, "detail": detail, **fields,
                           "generation": self.generation, "time": _now()},
                          ensure_ascii=False) + "\n"
        for path, fh in self._files:
            try:
                fh.write(line)
                fh.flush()
            except OSError as exc:
                logger.error("cannot write the dropped documents to %s: %s", path, exc)
        return True

    def close(self) -> None:
        """Close the files (idempotent)."""
        for _, fh in self._files:
            fh.close()
        self._files = []


_LOGS: weakref.WeakKeyDictionary[Any, DroppedLog | None] = weakref.WeakKeyDictionary()


def _targets(settings: Any) -> list[tuple[Path, bool]]:
    """(path, overwrite) of the dropped file of every local feed, and CORPUSCRAWL_DROPPED_FILE."""
    out = []
    for uri, options in dict(settings.getdict("FEEDS")).items():
        path = local_feed_path(str(uri))
        if path is not None:
            out.append((dropped_path_for(path), bool(dict(options or {}).get("overwrite"))))
    extra = settings.get("CORPUSCRAWL_DROPPED_FILE")
    if extra:
        out.append((Path(str(extra)).resolve(), False))
    return out


def _generation(crawler: Any) -> int:
    """The collection's run generation (the crawl state's, else the cluster's), else 0."""
    run = collection_run(crawler)
    return int(getattr(run, "generation", 0) or 0) if run is not None else 0


def drop_log(crawler: Any) -> DroppedLog | None:
    """The crawl's log of dropped documents, opened on first use (None when
    ``CORPUSCRAWL_DROPPED_ENABLED`` is off)."""
    if crawler not in _LOGS:
        log = None
        if crawler.settings.getbool("CORPUSCRAWL_DROPPED_ENABLED", True):
            log = DroppedLog(_targets(crawler.settings), _generation(crawler))
            from scrapy import signals

            crawler.signals.connect(log.close, signal=signals.engine_stopped)
        _LOGS[crawler] = log
    return _LOGS[crawler]


def record_drop(crawler: Any, url: str, reason: str, detail: str = "", **fields: Any) -> None:
    """Record that the page ``url`` gave no document, and why (the hook every drop point calls).

    ``reason`` is one of :data:`REASONS` (another name is written as given);
    ``detail`` says more (the duplicate's original, the language found, the
    error); ``fields`` are added to the record as they are (JSON values).
    """
    if crawler is None:
        return
    log = drop_log(crawler)
    written = log.record(url, reason, detail, **fields) if log is not None else True
    if written and crawler.stats is not None:
        crawler.stats.inc_value(STATS_PREFIX + reason)
