"""Waiting until a live page has settled: its own pending work counted, the wait done in the page.

A page has settled when no request is in flight (seen by Playwright and by the
page's own ``fetch``/XHR), no short ``setTimeout`` is pending (a reveal that
waits before fetching, a debounced scroll handler, a modal shown after a
delay) and nothing has happened for a quiet window — no DOM mutation, no
request answered, no tracked timer run.  Waiting for the page's own pending
work rather than for a pause is what makes the interaction loop give the same
result on a loaded machine.

The counters (:data:`PENDING_JS`) are installed before the page's scripts run
(:func:`prepare_page`, scrapy-playwright's ``playwright_page_init_callback``)
and again after load when that did not happen.  The wait itself
(:data:`SETTLE_JS`) is one ``evaluate`` call whose promise the page resolves
once it has been calm for the quiet window, polling with its own timers: no
round trip to the page per check, so a settle costs the page's own work plus
the quiet window and one round trip.  :class:`Settler` adds Playwright's view
of the network (requests the page's scripts did not make: iframes, script
tags, stylesheets) and survives a navigation in the middle of a wait.

Uses the Playwright async API only; no Scrapy.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

#: The page counts as settled after this long (ms) without any activity — DOM mutation,
#: request answered, tracked timer run — once no request and no short timer is pending
#: (those are tracked, so this only covers rendering after them): six animation frames.
QUIET_MS_DEFAULT = 100
#: Upper bound of one wait for the page to settle (ms): pages with endless tickers or
#: long-polling never go quiet, and we move on after this.  A reveal that waits 1.5 s
#: before a fetch answered in 1.5 s must fit, on a machine loaded 2-3 times over.
SETTLE_MAX_MS_DEFAULT = 10_000
#: Longest wait for two animation frames at the start of a settle (ms).
FRAMES_LIMIT_MS_DEFAULT = 500
#: A timer overdue by this much (ms) no longer counts as pending (a throttled page).
TIMER_SLACK_MS_DEFAULT = 3000
#: Interval of the in-page calm checks (ms); two calm checks in a row end the wait.
CHECK_MS_DEFAULT = 15

#: Installed before the page's own scripts (``page.add_init_script``) and again after load
#: (idempotent): counts the page's pending work so that waiting ends when the page is done,
#: not after a fixed pause.  Pending work is ``fetch``/XHR calls not yet answered and
#: ``setTimeout`` timers due within ``HORIZON`` ms.  Timers scheduled by a chain of more than
#: ``MAX_CHAIN`` timers (a ticker or poller re-arming itself) and ``setInterval`` are not
#: counted: they never end.  ``lastEnd`` is when pending work last ended (a request answered
#: and read, a tracked timer run or cleared); ``rawSetTimeout`` is the page's own
#: ``setTimeout``, for the crawler's checks, which must not count as the page's work.
PENDING_JS = """
(() => {
  if (window.__corpuscrawlPending) return true;
  const setT = window.setTimeout, clearT = window.clearTimeout;
  const st = window.__corpuscrawlPending = {timers: new Map(), requests: 0,
    lastEnd: performance.now(), rawSetTimeout: (fn, ms) => setT.call(window, fn, ms)};
  const HORIZON = 4000, MAX_CHAIN = 3;
  let chain = 0;
  window.setTimeout = function (fn, ms, ...args) {
    if (typeof fn !== 'function') return setT.call(window, fn, ms, ...args);
    const delay = Math.max(0, Number(ms) || 0), depth = chain + 1;
    let id = 0;
    const run = function () {
      const tracked = st.timers.delete(id); const outer = chain; chain = depth;
      try { return fn.apply(this, args); } finally {
        chain = outer; if (tracked) st.lastEnd = performance.now(); }
    };
    id = setT.call(window, run, ms);
    if (delay <= HORIZON && depth <= MAX_CHAIN) st.timers.set(id, performance.now() + delay);
    return id;
  };
  window.clearTimeout = function (id) {
    if (st.timers.delete(id)) st.lastEnd = performance.now();
    return clearT.call(window, id);
  };
  const ended = () => { st.requests = Math.max(0, st.requests - 1);
                        st.lastEnd = performance.now(); };
  const origFetch = window.fetch;
  if (origFetch) {
    window.fetch = function (...args) {
      st.requests += 1;
      const p = origFetch.apply(this, args);
      p.then((r) => { if (r && r.clone) { r.clone().arrayBuffer().then(ended, ended); }
                      else ended(); }, ended);
      return p;
    };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    st.requests += 1;
    this.addEventListener('loadend', ended, {once: true});
    return send.apply(this, args);
  };
  return true;
})()
"""

#: Resolves after two animation frames (at most ``limit`` ms): scroll events and
#: IntersectionObserver callbacks are delivered by the rendering steps, which a loaded
#: machine runs late; waiting for them lets the work they start be seen as pending.
FRAMES_JS = """
(limit) => new Promise((done) => {
  let finished = false;
  const end = () => { if (!finished) { finished = true; done(true); } };
  requestAnimationFrame(() => requestAnimationFrame(end));
  const pending = window.__corpuscrawlPending;
  (pending ? pending.rawSetTimeout : setTimeout)(end, limit);
})
"""

#: Resolves ``[settled, ms waited, pending work]`` once the page has had no pending work and
#: no activity for ``quiet`` ms at two checks in a row (``step`` ms apart), the first no
#: earlier than ``minWait`` ms after the call; or after ``limit`` ms.  Activity: the last DOM
#: mutation (``window.__corpuscrawl``, :data:`corpuscrawl.browse.dom_scripts.INSTALL_JS`)
#: and the end of the last pending work.  Timers overdue by more than ``slack`` ms are dropped.
SETTLE_JS = """
(o) => new Promise((done) => {
  const pending = window.__corpuscrawlPending;
  const later = pending ? pending.rawSetTimeout : (fn, ms) => setTimeout(fn, ms);
  const start = performance.now();
  let calm = 0;
  const check = () => {
    const now = performance.now();
    const st = window.__corpuscrawl;
    let busy = 0, last = st ? st.lastMutation : 0;
    if (pending) {
      for (const [id, due] of pending.timers) {
        if (now > due + o.slack) pending.timers.delete(id); else busy += 1;
      }
      busy += pending.requests;
      last = Math.max(last, pending.lastEnd);
    }
    calm = (busy === 0 && now - last >= o.quiet && now - start >= o.minWait) ? calm + 1 : 0;
    if (calm >= 2 || now - start >= o.limit) { done([calm >= 2, now - start, busy]); return; }
    later(check, o.step);
  };
  check();
})
"""


class NetworkWatch:
    """Playwright's view of the page's requests: how many are in flight, when the last ended."""

    def __init__(self, page: PlaywrightPage):
        self.inflight = 0
        self.last_end = time.monotonic()
        page.on("request", self._start)
        page.on("requestfinished", self._end)
        page.on("requestfailed", self._end)

    def _start(self, _request: object) -> None:
        self.inflight += 1

    def _end(self, _request: object) -> None:
        self.inflight = max(0, self.inflight - 1)
        self.last_end = time.monotonic()


class Settler:
    """Waits until one page has settled (see the module docstring); one per page."""

    def __init__(self, page: PlaywrightPage, quiet_ms: int = QUIET_MS_DEFAULT,
                 max_ms: int = SETTLE_MAX_MS_DEFAULT,
                 note: Callable[[str], None] | None = None):
        self.page = page
        self.quiet_ms = quiet_ms
        self.max_ms = max_ms
        self.network = NetworkWatch(page)
        self._note = note or (lambda _message: None)

    async def settle(self, frames: bool = False) -> bool:
        """Wait until the page has no pending work and has been quiet for ``quiet_ms``.

        ``frames``: first let two animation frames pass (after scrolling: scroll events
        and IntersectionObserver callbacks are delivered by the rendering steps).
        The quiet window starts no earlier than the call, so what an action set off
        has time to show.  Returns False when the page did not settle within ``max_ms``
        (the wait is then given up and the caller moves on).
        """
        began = time.monotonic()
        deadline = began + self.max_ms / 1000
        quiet = self.quiet_ms / 1000
        if frames:
            await self._evaluate(FRAMES_JS, FRAMES_LIMIT_MS_DEFAULT)
        while True:
            left_ms = max(0.0, (deadline - time.monotonic()) * 1000)
            min_wait = max(0.0, self.quiet_ms - (time.monotonic() - began) * 1000)
            result = await self._evaluate(SETTLE_JS, {
                "quiet": self.quiet_ms, "minWait": min_wait, "limit": left_ms,
                "step": CHECK_MS_DEFAULT, "slack": TIMER_SLACK_MS_DEFAULT})
            page_calm = bool(result and result[0])
            now = time.monotonic()
            if page_calm and self.network.inflight == 0 and \
                    now - self.network.last_end >= quiet:
                return True
            if now >= deadline:
                self._note(f"page did not settle within {self.max_ms} ms")
                return False
            if page_calm:  # only the browser's own requests are still loading
                wait = quiet if self.network.inflight else quiet - (now - self.network.last_end)
                await asyncio.sleep(max(CHECK_MS_DEFAULT / 1000, wait))

    async def _evaluate(self, script: str, arg: object) -> object:
        """Evaluate in the page; a navigation during the wait waits for the new document."""
        try:
            return await self.page.evaluate(script, arg)
        except PlaywrightError as exc:
            message = str(exc)
            if "context was destroyed" not in message and "navigat" not in message:
                raise
            self._note("page navigated while settling")
            try:
                await self.page.wait_for_load_state("load", timeout=self.max_ms)
            except PlaywrightError:
                return None
            return None


async def prepare_page(page: PlaywrightPage, request: object = None) -> None:
    """Install the pending-work counters before the page's own scripts run.

    Call before navigating (also usable as scrapy-playwright's
    ``playwright_page_init_callback``, which passes the request too).
    """
    await page.add_init_script(PENDING_JS)
