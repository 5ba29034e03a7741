"""The domain history: which paragraphs each domain's documents contained, persistently.

Source: NewsFeed (Trampuš & Novak), end; Komporday's thesis §6: "make the algorithm aware, as it is
cleaning an article, of previous articles coming from that domain"; the
history "must persist between crawls and be shared by parallel crawlers".

Per domain the store keeps

* the set of documents already counted (by a 64-bit key of the URL's path
  and query), so a page crawled again — in this crawl or a later one, over
  http or https, from another port — is counted once.  A copy of a page
  under another path is kept out of the history by the export stage's
  duplicate check within a crawl; in a later crawl it would count again
  (its paragraphs then look repeated — harmless, it duplicates exported
  text);
* per paragraph fingerprint (:mod:`corpuscrawl.boilerplate.normalize`): the
  number of *distinct documents* containing it, first and last time seen, and
  a ``template`` flag set when the paragraph was seen on one of the domain's
  HTTP error pages (:meth:`DomainHistory.seed_from_error_page`).

Two backends share this module's interface:
:class:`~corpuscrawl.boilerplate.sqlite_history.SQLiteHistory` (the default,
an embedded file next to the job; no server) and
:class:`~corpuscrawl.boilerplate.redis_history.RedisHistory` (a Redis server,
so parallel crawlers share one history; a Lua script counts a document
atomically).  :func:`open_history` picks one from a path or URL.  Plain
library code: no Scrapy.
"""

from __future__ import annotations

import hashlib
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple
from urllib.parse import urlsplit

from corpuscrawl.boilerplate.normalize import Paragraph, split_paragraphs

__all__ = [
    "DomainHistory",
    "Floor",
    "HistoryError",
    "ParagraphStats",
    "document_key",
    "observation",
]

class HistoryError(RuntimeError):
    """The history store cannot be opened or used (bad path, unreachable server)."""


#: The fewest documents a paragraph must be in for :meth:`DomainHistory.record` to return
#: it, as a function of the domain's document count; None: return nothing.
Floor = Callable[[int], float | None]


class ParagraphStats(NamedTuple):
    """What the history knows of one paragraph fingerprint in one domain.

    A named tuple (immutable, like the frozen dataclass it replaced): a look-up
    builds one per paragraph, and a tuple is ~4 times cheaper to create.
    """

    documents: int = 0
    template: bool = False
    first_seen: float = 0.0
    last_seen: float = 0.0


def document_key(url: str, text: str = "") -> int:
    """The signed 64-bit identity of a document: its URL, or its text when it has no URL.

    Only the path and query count (the history is already per domain), so the
    same page fetched over http and https, with or without ``www.``, or from a
    server on another port, is one document and re-crawls never inflate counts.
    """
    if url:
        parts = urlsplit(url)
        url = (parts.path or "/") + ("?" + parts.query if parts.query else "")
    source = url or "text:" + text
    digest = hashlib.blake2b(source.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def observation(paragraphs: Iterable[Paragraph],
                 now: float | None) -> tuple[list[int], float]:
    """A document's distinct fingerprints (sorted) and the time it is counted at."""
    return sorted({p.fingerprint for p in paragraphs}), time.time() if now is None else now


class DomainHistory(ABC):
    """Paragraph fingerprints per domain with distinct-document counts (a backend interface)."""

    def observe(self, domain: str, doc_key: int, paragraphs: Iterable[Paragraph],
                now: float | None = None) -> bool:
        """Count one document's paragraphs; False (and nothing counted) if it was counted before."""
        return self._observe(domain, doc_key, *observation(paragraphs, now))

    def record(self, domain: str, doc_key: int, paragraphs: Iterable[Paragraph],
               floor: Floor | None = None,
               now: float | None = None) -> tuple[int, dict[int, ParagraphStats] | None]:
        """Count a document, then look up what its paragraphs may be, in one step if possible.

        Returns the domain's document count afterwards (read while counting
        where the backend can) and, when ``floor`` is given and
        ``floor(count)`` is not None, the :meth:`lookup` of the document's
        paragraphs with ``min_documents=floor(count)``; else None.  The export
        stage's per-document call: which paragraphs it needs depends on the
        count it is counting, so the floor is a function of it.  A document
        counted before is only looked up.
        """
        fps, when = observation(paragraphs, now)
        self._observe(domain, doc_key, fps, when)
        documents = self.document_count(domain)
        least = None if floor is None else floor(documents)
        return documents, None if least is None else self.lookup(domain, fps, least)

    def seed_from_error_page(self, domain: str, paragraphs: Iterable[str | Paragraph],
                             now: float | None = None) -> int:
        """Mark the paragraphs of one of the domain's HTTP error pages as its template.

        An error page (404 ...) of a site carries only the site's template —
        navigation, footer, notices — so every paragraph on it is boilerplate
        for that domain.  Accepts texts (split into lines) or Paragraphs and
        returns how many distinct fingerprints were marked.
        """
        fps: set[int] = set()
        for p in paragraphs:
            if isinstance(p, Paragraph):
                fps.add(p.fingerprint)
            else:
                fps.update(q.fingerprint for q in split_paragraphs(p))
        self._seed(domain, sorted(fps), time.time() if now is None else now)
        return len(fps)

    @abstractmethod
    def _observe(self, domain: str, doc_key: int, fps: Sequence[int], now: float) -> bool:
        """Backend part of :meth:`observe` (``fps`` distinct and sorted)."""

    @abstractmethod
    def _seed(self, domain: str, fps: Sequence[int], now: float) -> None:
        """Backend part of :meth:`seed_from_error_page`."""

    @abstractmethod
    def document_count(self, domain: str) -> int:
        """Number of distinct documents of ``domain`` counted so far."""

    @abstractmethod
    def error_pages(self, domain: str) -> int:
        """How many error pages have seeded ``domain``'s template."""

    @abstractmethod
    def lookup(self, domain: str, fps: Iterable[int],
               min_documents: float = 0.0) -> dict[int, ParagraphStats]:
        """Stats of the given fingerprints in ``domain`` (fingerprints never seen are absent).

        ``min_documents`` > 0 leaves out the fingerprints found in fewer
        documents and not on an error page (the detector asks only for those
        that can be boilerplate: a small share of a look-up, benchmarks/results/boilerplate.md).
        """

    def flush(self) -> None:  # noqa: B027 - optional hook, backends that buffer override it
        """Make everything recorded so far durable (no-op for write-through backends)."""

    @abstractmethod
    def close(self) -> None:
        """Flush and release the store."""

    def __enter__(self) -> DomainHistory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


