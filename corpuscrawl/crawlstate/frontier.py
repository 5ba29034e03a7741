"""The durable frontier's queue: the ``requests`` table of the state database, plain code.

Every request the crawl schedules is a row of the ``requests`` table of the
collection's state database (:mod:`corpuscrawl.crawlstate.store`), with its state:

* **pending** (0) — waiting; handed out from the download slot (host) with the
  fewest active downloads (round-robin among equals), and within it the highest
  ``priority`` first, first-in first-out among equal priorities; only to a slot
  that can start it now.  What the focused crawl learns re-ranks pending rows
  (``shape`` and ``prior`` columns, :meth:`Frontier.rerank`);
* **in flight** (1) — handed out; the row is deleted (*done*) once the request and
  everything it produced are durable (:mod:`corpuscrawl.crawlstate.completion`).

The queue is the database itself: memory does not grow with the frontier (only a
count of pending requests per download slot is kept).  The focus's learning per URL
shape and its memory of text lines are kept in the same database.  Scrapy's
scheduler and duplicate filter over it are in
:mod:`corpuscrawl.crawlstate.scrapy_glue.frontier`.  Plain library code: no Scrapy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from corpuscrawl.crawlstate.store import StateStore

__all__ = ["IN_FLIGHT", "PENDING", "RERANK_HIGH_PRIOR", "Frontier"]

PENDING, IN_FLIGHT = 0, 1
#: A high prior score of a link (an in-content link of a long page): with the rank at
#: prior 0, the two points that tell whether a shape's ranks moved.
RERANK_HIGH_PRIOR = 1.5


class Frontier:
    """The ``requests`` table: push, pop by slot and priority, finish (plain code over SQLite)."""

    def __init__(self, store: StateStore) -> None:
        self.store = store
        self._slots: Counter[str] = Counter()
        self._recount()
        self._last_slot: str | None = None

    def _recount(self) -> None:
        self._slots = Counter(dict(self.store.read(
            "SELECT slot, COUNT(*) FROM requests WHERE state = 0 GROUP BY slot").fetchall()))
        #: Requests waiting to be handed out.
        self.pending = sum(self._slots.values())

    def push(self, priority: int, url: str, data: str, slot: str = "", shape: str = "",
             prior: float | None = None) -> int:
        """Add a pending request for download slot ``slot``; return its row id.

        ``shape`` and ``prior``: the focus's URL shape and prior score of a followed
        link, by which :meth:`rerank` re-ranks it when the crawl learns more.
        """
        cursor = self.store.write(
            "INSERT INTO requests (state, priority, url, slot, data, shape, prior) "
            "VALUES (0, ?, ?, ?, ?, ?, ?)", (priority, url, slot, data, shape, prior))
        self._slots[slot] += 1
        self.pending += 1
        return int(cursor.lastrowid or 0)

    def requeue(self, row_id: int, priority: int, url: str, data: str, slot: str = "",
                shape: str = "", prior: float | None = None) -> None:
        """Make an in-flight row pending again with a new request (a redirect or retry of it)."""
        self.store.write("UPDATE requests SET state = 0, priority = ?, url = ?, slot = ?, "
                         "data = ?, shape = ?, prior = ? WHERE id = ?",
                         (priority, url, slot, data, shape, prior, row_id))
        self._slots[slot] += 1
        self.pending += 1

    def rerank(self, shape: str, rank: Callable[[float], int]) -> int:
        """Give the pending requests of URL shape ``shape`` the priority ``rank(prior)``.

        Called when the focus learned more about the shape; ``rank`` must be
        monotonic in the prior.  Rows already at their rank are not written.
        Returns the number of requests whose priority changed.
        """
        self.store.db.create_function("corpuscrawl_rank", 1, rank, deterministic=True)
        cursor = self.store.write(
            "UPDATE requests SET priority = corpuscrawl_rank(prior) WHERE shape = ? AND state = 0 "
            "AND prior IS NOT NULL AND priority != corpuscrawl_rank(prior)", (shape,))
        return max(0, cursor.rowcount)

    def save_learned(self, shape: str, pages: int, total: float,
                     squares: float | None = None) -> None:
        """Keep what the focus learned of ``shape`` for a resumed run (``squares``: the sum
        of its pages' squared scores)."""
        self.store.write("INSERT OR REPLACE INTO focus_shapes (shape, pages, total, squares) "
                         "VALUES (?, ?, ?, ?)", (shape, pages, total, squares))

    def learned(self) -> dict[str, tuple[int, float]]:
        """What the focus learned per URL shape in this generation's earlier runs."""
        return {str(shape): (int(pages), float(total)) for shape, pages, total in
                self.store.read("SELECT shape, pages, total FROM focus_shapes").fetchall()}

    def learned_squares(self) -> dict[str, float]:
        """Per URL shape, the sum of its pages' squared scores (shapes that have it)."""
        return {str(shape): float(squares) for shape, squares in self.store.read(
            "SELECT shape, squares FROM focus_shapes WHERE squares IS NOT NULL").fetchall()}

    def save_misses(self, checked: int, errors: float) -> None:
        """Keep how far the focus's link priors missed: pages checked, sum of squared errors."""
        self.store.write("INSERT OR REPLACE INTO focus_priors VALUES ('links', ?, ?)",
                         (checked, errors))

    def learned_misses(self) -> tuple[int, float] | None:
        """What :meth:`save_misses` kept in this generation's earlier runs, or None."""
        row = self.store.read("SELECT checked, errors FROM focus_priors WHERE key = 'links'").fetchone()
        return (int(row[0]), float(row[1])) if row is not None else None

    def first_pages(self, hashes: list[int], page: int) -> dict[int, int]:
        """Per text-line hash, the page that showed it first, ``page`` for those not recorded
        before (the memory of :class:`corpuscrawl.focus.TextNovelty` in a durable crawl)."""
        found = {}
        for h in hashes:
            self.store.write("INSERT OR IGNORE INTO focus_lines VALUES (?, ?)", (h, page))
            found[h] = int(self.store.read("SELECT page FROM focus_lines WHERE hash = ?",
                                           (h,)).fetchone()[0])
        return found

    def pop(self, active: Callable[[str], int] | None = None,
            full: Callable[[str], bool] | None = None) -> tuple[int, str] | None:
        """The next request (row id, data), now in flight; None when none is pending.

        ``active(slot)`` gives a slot's active downloads: the slot with the
        fewest is served (round-robin among equals); without it, or with one
        slot, simply the highest priority.  ``full(slot)``: the slot cannot
        start another download now; its requests wait (None when all are full).
        """
        if not self._slots:
            return None
        slots = [slot for slot in self._slots if full is None or not full(slot)]
        if not slots:
            return None
        if active is None or len(self._slots) == 1:
            row = self.store.read("SELECT id, data, slot FROM requests WHERE state = 0 "
                                  "ORDER BY priority DESC, id LIMIT 1").fetchone()
        else:
            row = self.store.read("SELECT id, data, slot FROM requests WHERE state = 0 AND "
                                  "slot = ? ORDER BY priority DESC, id LIMIT 1",
                                  (self._next_slot(active, slots),)).fetchone()
        if row is None:  # counts out of step with the table: recount
            self._recount()
            return self.pop(None) if self._slots else None
        self.store.write("UPDATE requests SET state = 1 WHERE id = ?", (row[0],))
        slot = str(row[2])
        self.pending -= 1
        self._slots[slot] -= 1
        if self._slots[slot] <= 0:
            del self._slots[slot]
        return int(row[0]), str(row[1])

    def _next_slot(self, active: Callable[[str], int], slots: list[str]) -> str:
        """The slot with the fewest active downloads; among equals the next after the last one."""
        counts = {slot: active(slot) for slot in slots}
        fewest = min(counts.values())
        candidates = sorted(slot for slot, n in counts.items() if n == fewest)
        last = self._last_slot
        after = [slot for slot in candidates if last is not None and slot > last]
        self._last_slot = after[0] if after else candidates[0]
        return self._last_slot

    def done(self, row_id: int) -> None:
        """Forget a finished request (the seen-set still knows it)."""
        self.store.write("DELETE FROM requests WHERE id = ?", (row_id,))

    def in_flight(self) -> int:
        """Rows handed out and not done."""
        return self.store.read("SELECT COUNT(*) FROM requests WHERE state = 1").fetchone()[0]
