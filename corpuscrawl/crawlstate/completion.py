"""When is a request *done*?  Only when everything it produced is exported, dropped or queued.

A request handed out by the durable scheduler is *in flight* until both

1. the engine has let go of it: its download, callback or errback, and the
   item pipelines and feed writes of every item it yielded are over.  Scrapy
   has no "request finished" signal, but it holds the request object (in the
   response, the failure, the items' processing) exactly that long, so the
   tracker watches the object with :func:`weakref.finalize`; the children it
   yielded were enqueued (durably) before;
2. none of its documents is still *held* by the export stage (a cold
   domain's documents wait there for the domain's boilerplate evidence;
   :mod:`corpuscrawl.crawlstate.export_ledger` reports holds and releases).

Only then is its frontier row deleted, in the same commit that makes its
documents durable.  Being late is always safe (a kill re-runs the request
and the export ledger skips what was written), being early would lose data,
so every doubt resolves to "not done yet".

A redirect or retry of a request that has not reached the spider yet
continues the same frontier row (:meth:`CompletionTracker.continues`), so
the row is never done while its continuation is still to be fetched.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["CompletionTracker", "DocumentKey"]

#: A document's identity in the export: (URL, unit index).
DocumentKey = tuple[str, int]


@dataclass(slots=True)
class _Flight:
    lease: int = 0  # bumped at every hand-out of the row; older objects' deaths are ignored
    alive: bool = False  # the handed-out request object still exists
    reached: bool = False  # its response reached the spider (children are not continuations)
    requeued: bool = False  # a continuation of it is pending in the frontier
    held: int = 0  # its documents held by the export stage


class CompletionTracker:
    """Decides when frontier rows are done (see the module docstring); ``on_done(row_id)`` is called."""

    def __init__(self, on_done: Callable[[int], None]) -> None:
        self._on_done = on_done
        self._flights: dict[int, _Flight] = {}
        self._held_docs: dict[DocumentKey, list[int]] = {}
        self._gone: list[tuple[int, int]] = []  # filled by finalizers, drained by settle()
        # Released before their hold was reported: the export stage may release a document
        # with another item before its own item's item_scraped handlers have run.
        self._released_first: set[DocumentKey] = set()

    def __len__(self) -> int:
        return len(self._flights)

    def handed_out(self, row_id: int, request: Any) -> None:
        """The scheduler gave ``request`` (row ``row_id``) to the engine."""
        flight = self._flights.setdefault(row_id, _Flight())
        flight.lease += 1
        flight.alive, flight.reached, flight.requeued = True, False, False
        # A finalizer may run inside any code: it only records, settle() acts.
        weakref.finalize(request, self._gone.append, (row_id, flight.lease))

    def reached_spider(self, row_id: int) -> None:
        """The row's response was received: requests enqueued from now on are its children."""
        flight = self._flights.get(row_id)
        if flight is not None:
            flight.reached = True

    def continues(self, row_id: int) -> bool:
        """True (and the row marked pending again) when a request enqueued with ``row_id`` in its
        meta is a redirect or retry of the row's request rather than a child of it."""
        flight = self._flights.get(row_id)
        if flight is None or not flight.alive or flight.reached or flight.requeued:
            return False
        flight.requeued = True
        return True

    def held(self, key: DocumentKey, row_id: int) -> None:
        """A document of row ``row_id`` is held by the export stage."""
        if key in self._released_first:  # already written: nothing to wait for
            self._released_first.discard(key)
            return
        flight = self._flights.get(row_id)
        if flight is not None:
            flight.held += 1
            self._held_docs.setdefault(key, []).append(row_id)

    def released(self, key: DocumentKey) -> None:
        """A held document became final (written or dropped)."""
        rows = self._held_docs.get(key)
        if not rows:
            self._released_first.add(key)
            return
        row_id = rows.pop(0)
        if not rows:
            del self._held_docs[key]
        flight = self._flights.get(row_id)
        if flight is not None:
            flight.held -= 1
            self._maybe_done(row_id, flight)

    def account(self, key: DocumentKey, final: list[DocumentKey], row_id: Any) -> None:
        """The export stage took the document ``key`` of row ``row_id`` and made ``final``
        (written or dropped) with it: the others in ``final`` are released, and ``key``
        is held unless it is among them."""
        for other in final:
            if other != key:
                self.released(other)
        if key not in final and isinstance(row_id, int):
            self.held(key, row_id)

    def reached(self, request: Any, meta_key: str) -> None:
        """:meth:`reached_spider` for the row in meta ``meta_key`` of ``request`` (if any)."""
        row_id = request.meta.get(meta_key)
        if isinstance(row_id, int):
            self.reached_spider(row_id)

    def account_released(self, item: Any, outcomes: list[Any], response: Any,
                         meta_key: str) -> None:
        """:meth:`account` for document ``item``, which the export stage took, and the
        ``outcomes`` it released with it (each with its ``document``, written or dropped);
        the row is in meta ``meta_key`` of the response's request."""
        request = getattr(response, "request", None)
        self.account((item.url, int(item.unit_index or 0)),
                     [(o.document.url, int(o.document.unit_index or 0)) for o in outcomes],
                     request.meta.get(meta_key) if request is not None else None)

    def release_all(self) -> None:
        """The export stage released every document (the crawl's end): no hold is left."""
        self._held_docs.clear()
        for row_id, flight in list(self._flights.items()):
            flight.held = 0
            self._maybe_done(row_id, flight)

    def settle(self) -> None:
        """Act on the request objects that died since the last call."""
        while self._gone:
            row_id, lease = self._gone.pop()
            flight = self._flights.get(row_id)
            if flight is not None and flight.lease == lease and not flight.requeued:
                flight.alive = False
                self._maybe_done(row_id, flight)

    def _maybe_done(self, row_id: int, flight: _Flight) -> None:
        if not flight.alive and not flight.requeued and flight.held <= 0:
            del self._flights[row_id]
            self._on_done(row_id)
