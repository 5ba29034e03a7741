"""The reveal / close / scroll loop on a live Playwright page.

Source: Komporday's thesis, part III §9.3.  The thesis' loop clicks Revealers up
to a user limit while continuously checking for Closers, scrolls up to N times
to trigger infinite loading, then follows Inner (and, if allowed, Outer)
links; extraction may run after every reveal (``extract_continuously``).

Deviations, all for speed (the thesis needed 13–16 minutes per page):

* no fixed sleeps: after each action the loop waits until the page has settled
  (:mod:`corpuscrawl.browse.waiting`: no request in flight, no short timer
  pending, no activity for a quiet window — the wait runs inside the page).
  Waiting for the page's own pending work, not for a pause, is what makes the
  result the same on a loaded machine;
* clicks are the mouse's (trusted events) at the element's centre once a
  hit test found it on top, and are confirmed: a click that landed elsewhere
  (the page moved in between) is swallowed by a guard and counts as intercepted;
* overlays are handled when they matter: before every click the element is
  hit-tested and, if something covers it or the click was intercepted,
  visible Closers inside fixed/dialog layers are clicked and the click is
  retried;
* the first clicks of several Revealers share one settle, and one collection
  of the page's elements serves a round of clicks;
* a Revealer that keeps adding content ("Load more") is clicked again; one
  whose click added nothing, or that changed its own label ("Show" ->
  "Hide"), is exhausted; a second click that hides what the first showed (an
  accordion toggle) is undone at once;
* the final HTML is what a reader sees: hidden elements and overlays still open
  are left out of the snapshot (``SNAPSHOT_JS``).

The loop takes any ``classify(records) -> labels`` callable (normally
:meth:`ElementClassifier.predict`), uses the Playwright async API only and never
imports Scrapy.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from corpuscrawl.browse import dom_scripts as js
from corpuscrawl.browse.elements import ElementRecord, records_from_collection
from corpuscrawl.browse.hrefs import is_clickable_in_place
from corpuscrawl.browse.links import FoundLink, discovered_links
from corpuscrawl.browse.waiting import (
    FRAMES_JS,
    FRAMES_LIMIT_MS_DEFAULT,
    PENDING_JS,
    QUIET_MS_DEFAULT,
    SETTLE_MAX_MS_DEFAULT,
    Settler,
    prepare_page,
)
from corpuscrawl.net.sites import same_site

__all__ = ["MAX_SCROLLS_DEFAULT", "InteractionOptions", "InteractionResult", "PageInteraction",
           "interact", "prepare_page"]

logger = logging.getLogger("corpuscrawl.browse")

#: Labels elements: :meth:`ElementClassifier.predict`, or an async function (gold labels
#: read from the live page when building the training set).
Classify = Callable[[Sequence[ElementRecord]], Sequence[str] | Awaitable[Sequence[str]]]

#: Pause before the one retry of a scroll that loaded nothing (ms): longer than a
#: typical scroll-handler debounce (100-300 ms) plus a local fetch.
SCROLL_RETRY_PAUSE_MS_DEFAULT = 400
#: Scrolls to the bottom when ``max_scrolls`` is not given (the thesis' benchmark used 5).
MAX_SCROLLS_DEFAULT = 5
#: Safety cap on reveals when ``max_reveals`` is None ("all"): endless "load more" feeds.
REVEALS_CAP_DEFAULT = 200
#: Wall-clock budget for one page's interaction (s); the loop stops cleanly when exceeded.
TIME_BUDGET_S_DEFAULT = 60.0
#: Closer clicks per overlay check: enough for a consent wall, a newsletter modal and a
#: push prompt stacked on each other.
MAX_CLOSER_ROUNDS_DEFAULT = 4
#: Snapshot: a fixed layer covering at least this share of the viewport, with z-index at
#: least ``SNAPSHOT_MIN_Z`` and holding less than ``SNAPSHOT_MAX_TEXT_SHARE`` of the page's
#: text, is an overlay and is left out (values chosen on the fixtures in tests/data/dynamic).
SNAPSHOT_MIN_COVER = 0.25
SNAPSHOT_MIN_Z = 1
SNAPSHOT_MAX_TEXT_SHARE = 0.5


@dataclass
class InteractionOptions:
    """Limits and switches of the loop (spider arguments / domain rules map onto these)."""

    max_reveals: int | None = None
    max_scrolls: int = MAX_SCROLLS_DEFAULT
    snapshot_each_reveal: bool = False
    quiet_ms: int = QUIET_MS_DEFAULT
    settle_max_ms: int = SETTLE_MAX_MS_DEFAULT
    time_budget_s: float = TIME_BUDGET_S_DEFAULT

    def __post_init__(self) -> None:
        if self.max_reveals is not None and self.max_reveals < 0:
            raise ValueError("max_reveals must be >= 0 (or None for all)")
        if self.max_scrolls < 0:
            raise ValueError("max_scrolls must be >= 0")


@dataclass
class InteractionResult:
    """What the loop did and what it saw."""

    url: str
    html: str
    elements: list[ElementRecord] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    reveals: int = 0
    closes: int = 0
    scrolls: int = 0
    #: HTML after each reveal that changed the visible text (``snapshot_each_reveal``).
    snapshots: list[str] = field(default_factory=list)
    seconds: float = 0.0
    log: list[str] = field(default_factory=list)
    #: URLs that clicking a Revealer navigated to (script-driven links; the loop went back).
    navigations: list[str] = field(default_factory=list)

    def links(self) -> list[FoundLink]:
        """Inner, outer and language links among the final page's elements and navigations."""
        found = discovered_links(self.elements, self.labels)
        known = {link.url for link in found}
        for url in self.navigations:
            if url not in known:
                known.add(url)
                kind = "inner" if same_site(url, self.url) else "outer"
                found.append(FoundLink(url, kind))
        return found


class PageInteraction:
    """Run the loop on one page; create one per page (it registers page listeners)."""

    def __init__(self, page: PlaywrightPage, classify: Classify,
                 options: InteractionOptions | None = None):
        self.page = page
        self.classify = classify
        self.options = options or InteractionOptions()
        self.settler = Settler(page, self.options.quiet_ms, self.options.settle_max_ms,
                               self._note)
        self.result = InteractionResult(url=page.url, html="")
        self._deadline = 0.0
        self._fingerprints: set[str] = set()
        self._last_hit = ""
        #: First clicks of several controls are batched (one settle for all of them),
        #: except when a snapshot is kept after each reveal.
        self._batching = not self.options.snapshot_each_reveal
        self._last_hit_state: list = ["", 0, 0, "", 0, None]
        page.on("popup", self._close_popup)

    def _close_popup(self, popup: PlaywrightPage) -> None:
        self.result.log.append(f"closed popup {popup.url}")
        asyncio.ensure_future(popup.close())

    def _note(self, message: str) -> None:
        self.result.log.append(message)
        logger.debug("%s: %s", self.page.url, message)

    def _time_left(self) -> bool:
        return time.monotonic() < self._deadline

    async def run(self) -> InteractionResult:
        """Reveal, close and scroll; return the final snapshot and classified elements."""
        start = time.monotonic()
        self._deadline = start + self.options.time_budget_s
        await self.page.evaluate(PENDING_JS)  # when prepare_page() did not run
        await self.page.evaluate(js.INSTALL_JS)
        await self.settle()
        self._fingerprints.add(await self.page.evaluate(js.TEXT_FINGERPRINT_JS))
        await self.close_overlays()
        await self.reveal_all()
        while self.result.scrolls < self.options.max_scrolls and self._time_left():
            if not await self.scroll_once():
                break
            await self.close_overlays()
            await self.reveal_all()
        await self.close_overlays()
        records, labels = await self.collect()
        self.result.elements, self.result.labels = records, labels
        self.result.html = await self.snapshot()
        self.result.url = self.page.url
        self.result.seconds = time.monotonic() - start
        return self.result

    # --- observing -------------------------------------------------------------------

    async def collect(self) -> tuple[list[ElementRecord], list[str]]:
        """Collect the page's candidate elements and classify them."""
        collected = await self.page.evaluate(js.COLLECT_JS, {"maxHtml": 2000, "maxText": 300,
                                                              "maxAttr": 500})
        records = records_from_collection(collected)
        if not records:
            return records, []
        labels = self.classify(records)
        if inspect.isawaitable(labels):
            labels = await labels
        return records, list(labels)

    async def settle(self, frames: bool = False) -> bool:
        """Wait until the page has settled (:meth:`corpuscrawl.browse.waiting.Settler.settle`)."""
        return await self.settler.settle(frames)

    async def snapshot(self) -> str:
        """The HTML a reader sees now (hidden elements and open overlays left out)."""
        return await self.page.evaluate(js.SNAPSHOT_JS, {
            "minCover": SNAPSHOT_MIN_COVER, "minZ": SNAPSHOT_MIN_Z,
            "maxTextShare": SNAPSHOT_MAX_TEXT_SHARE})

    # --- acting ----------------------------------------------------------------------

    async def click(self, record: ElementRecord) -> bool:
        """Click an element like a user; close overlays that intercept the click.

        Returns False when the element is gone or hidden.  When an overlay without a
        recognised Closer keeps covering the element, the click is dispatched from script.
        """
        await self._front()
        for attempt in range(2):
            if await self._pointer_click(record.index):
                return True
            hit = self._last_hit
            if hit in ("gone", "hidden"):
                return False
            self._note(f"click on {record.text[:40]!r} intercepted by an overlay")
            if attempt == 0 and await self.close_overlays(force=True):
                continue
            return bool(await self.page.evaluate(js.DOM_CLICK_JS, record.index))
        return False

    async def _pointer_click(self, index: int) -> bool:
        """A mouse click at the element's centre when the hit test finds it on top.

        True when the click reached the element; otherwise ``_last_hit`` says why not
        (``gone``, ``hidden``, ``covered``, or ``missed``: the page moved and the click
        landed elsewhere, where it was swallowed — it cannot follow a stray link).
        """
        self._last_hit_state = await self.page.evaluate(js.HIT_JS, index)
        hit, x, y = self._last_hit_state[:3]
        self._last_hit = hit
        if hit != "ok":
            return False
        try:
            await self.page.mouse.click(x, y)
        except PlaywrightError as exc:
            self._note(f"click failed ({str(exc).splitlines()[0][:120]})")
            self._last_hit = "covered"
            await self.page.evaluate(js.CLICKED_JS, index)  # lifts the guard
            return False
        if await self.page.evaluate(js.CLICKED_JS, index):
            return True
        self._last_hit = "missed"
        return False

    @staticmethod
    def _closers(records: Sequence[ElementRecord], labels: Sequence[str], force: bool,
                 tried: set[int]) -> list[ElementRecord]:
        return [r for r, label in zip(records, labels, strict=True)
                if label == "Closer" and r.index not in tried
                and r.layout.get("visible") and is_clickable_in_place(r)
                and (force or r.layout.get("fixed") or r.layout.get("in_dialog"))]

    async def close_overlays(self, force: bool = False,
                             collected: tuple[list[ElementRecord], list[str]] | None = None
                             ) -> int:
        """Click visible Closers that sit in overlays (fixed/sticky layers, dialogs).

        ``force`` also accepts Closers outside such layers (used when a click was
        intercepted); ``collected`` saves the first collection when the caller has one.
        Returns the number of Closers clicked.
        """
        closed = 0
        tried: set[int] = set()
        for _ in range(MAX_CLOSER_ROUNDS_DEFAULT):
            records, labels = collected or await self.collect()
            collected = None
            closers = self._closers(records, labels, force, tried)
            if not closers:
                break
            closer = closers[0]
            tried.add(closer.index)
            await self._front()
            if not await self._pointer_click(closer.index) and (
                    self._last_hit in ("gone", "hidden")
                    or not await self.page.evaluate(js.DOM_CLICK_JS, closer.index)):
                continue
            await self.page.evaluate(js.MARK_JS, [closer.index, True])
            closed += 1
            self._note(f"closed overlay with {closer.text[:40]!r}")
            await self.settle()
        self.result.closes += closed
        return closed

    def _reveal_budget(self) -> int:
        cap = self.options.max_reveals
        return REVEALS_CAP_DEFAULT if cap is None else cap

    async def reveal_all(self) -> None:
        """Click Revealers until none is left, the limit is reached or time runs out.

        One collection serves a round: its pending Revealers are clicked in document
        order, each after the previous one's effects have settled, and the page is
        collected again only when the round is done (new controls, "Load more" again) or
        an element of the round is no longer where it was.
        """
        url_before, _, url_fragment = self.page.url.partition("#")
        while self.result.reveals < self._reveal_budget() and self._time_left():
            records, labels = await self.collect()
            if self._closers(records, labels, False, set()) and \
                    await self.close_overlays(collected=(records, labels)):
                continue
            pending = [r for r, label in zip(records, labels, strict=True)
                       if label == "Revealer" and r.layout.get("visible")
                       and not r.layout.get("exhausted") and is_clickable_in_place(r)
                       and not _is_hash_route(r)]
            if not pending:
                return
            batch = [r for r in pending if not r.layout.get("clicks")] if self._batching else []
            batch = batch[:self._reveal_budget() - self.result.reveals]
            if len(batch) >= 2:
                if await self._reveal_batch(batch, url_before, url_fragment) == "navigated":
                    return
                continue
            for position, target in enumerate(pending):
                if self.result.reveals >= self._reveal_budget() or not self._time_left():
                    return
                outcome = await self._reveal(target, position == 0, url_before, url_fragment)
                if outcome == "navigated":
                    return
                if outcome == "recollect":
                    break

    async def _reveal_batch(self, batch: list[ElementRecord], url_before: str,
                            url_fragment: str) -> str:
        """First clicks on several Revealers, then one settle: ``recollect`` or ``navigated``.

        Controls not clicked yet are clicked one after another without waiting in between
        (each click confirmed by the hit test), and the page settles once for all of
        them.  A control that is gone or changed its label afterwards is exhausted; one
        that stayed as it was is clicked again later on its own ("Load more", a toggle),
        judged as in :meth:`_reveal`.  A batch that changes the URL ends batching for the
        page (the controls are then taken one by one).
        """
        await self._front()
        clicked: list[tuple[int, str | None]] = []
        before = ""
        for target in batch:
            ok = await self._pointer_click(target.index)
            before = before or self._last_hit_state[3]
            if ok:
                clicked.append((target.index, self._last_hit_state[5]))
        if len(clicked) < len(batch):
            self._batching = False  # covered or moving controls: one by one, overlays first
        if not clicked:
            return "recollect"
        await self.settle()
        fragment = self.page.url.partition("#")[2]
        if self.page.url.split("#")[0] != url_before or (
                fragment != url_fragment and fragment.startswith(("/", "!"))):
            self._note(f"a batch of {len(clicked)} revealers changed the URL; going back")
            self._batching = False
            if self.page.url.split("#")[0] != url_before:
                self.result.navigations.append(self.page.url)
                await self.page.go_back()
                await self.page.evaluate(js.INSTALL_JS)
                return "navigated"
            await self.page.go_back()
            await self.settle()
            return "recollect"
        after = await self.page.evaluate(js.BATCH_REVEALED_JS, clicked)
        if after != before:
            self.result.reveals += len(clicked)
            self._note(f"revealed with {len(clicked)} controls at once")
        return "recollect"

    async def _reveal(self, target: ElementRecord, fresh: bool, url_before: str,
                      url_fragment: str) -> str:
        """Click one Revealer and judge what it did: ``done``, ``recollect`` or ``navigated``.

        ``fresh``: the record comes straight from a collection (an element that cannot be
        clicked then is exhausted; one from earlier in the round is looked at again).
        """
        if not await self.click(target):
            if not fresh:
                return "recollect"
            await self.page.evaluate(js.MARK_JS, [target.index, True])
            return "done"
        _, _, _, before, length_before, own_before = self._last_hit_state
        await self.settle()
        fragment = self.page.url.partition("#")[2]
        if fragment != url_fragment and fragment.startswith(("/", "!")):
            # A hash route of a client-side app: it replaces the page's text.
            self._note(f"{target.text[:40]!r} switched to route #{fragment}; going back")
            await self.page.go_back()
            await self.settle()
            await self.page.evaluate(js.MARK_JS, [target.index, True])
            return "recollect"
        if self.page.url.split("#")[0] != url_before:
            self._note(f"revealer {target.text[:40]!r} navigated away; going back")
            self.result.navigations.append(self.page.url)
            await self.page.go_back()
            await self.page.evaluate(js.INSTALL_JS)
            return "navigated"
        after, verdict = await self.page.evaluate(js.REVEALED_JS, [
            target.index, before, length_before, own_before, target.layout.get("clicks", 0)])
        if verdict == "toggle":
            # A second click hid what the first showed (a toggle): show it again.
            self._note(f"{target.text[:40]!r} is a toggle; clicking it back")
            await self.click(target)
            await self.settle()
            await self.page.evaluate(js.MARK_JS, [target.index, True])
            return "recollect"
        if after != before:
            self.result.reveals += 1
            self._note(f"revealed with {target.text[:40]!r}")
            await self._maybe_snapshot(after)
        return "done"

    async def _maybe_snapshot(self, fingerprint: str) -> None:
        if self.options.snapshot_each_reveal and fingerprint not in self._fingerprints:
            self._fingerprints.add(fingerprint)
            self.result.snapshots.append(await self.snapshot())

    async def scroll_once(self) -> bool:
        """Scroll to the bottom once; True when the page grew or its text changed.

        When nothing arrived, the page gets one more chance (a pause, a second
        scroll, a settle) before the feed counts as exhausted: on a loaded machine
        the page's fetch can start after the first settle already ended, and a
        handler that was still busy with the previous page ignores one scroll.
        """
        before = await self.page.evaluate(js.VIEW_JS)
        await self._scroll(js.SCROLL_JS)
        await self.settle()
        self.result.scrolls += 1
        grew = await self._changed(before)
        if not grew and self._time_left():
            # Up one screen and down again: a feed watching a sentinel with an
            # IntersectionObserver loads only when the sentinel enters the viewport anew.
            await asyncio.sleep(SCROLL_RETRY_PAUSE_MS_DEFAULT / 1000)
            await self._scroll(js.SCROLL_UP_JS)
            await self.settle()
            await self._scroll(js.SCROLL_JS)
            await self.settle()
            grew = await self._changed(before)
        if grew:
            self._note(f"scroll {self.result.scrolls} loaded more")
        return grew

    async def _scroll(self, script: str) -> None:
        """Scroll in front, and stay in front for two animation frames.

        Scroll events and IntersectionObserver callbacks are delivered by the rendering
        steps, which Chromium runs for the active tab only: the pages of one browser
        context take turns (:func:`_front_lock`), so a concurrent page coming to the
        front cannot starve this one's frames.
        """
        async with _front_lock(self.page):
            await self._front()
            await self.page.evaluate(script)
            await self.page.evaluate(FRAMES_JS, FRAMES_LIMIT_MS_DEFAULT)

    async def _front(self) -> None:
        """Make the page the browser's active tab before scrolling or clicking.

        With several pages open in one context (concurrent rendering), Chromium
        runs the rendering steps for the active tab only: IntersectionObserver
        changes are not computed (a feed watching a sentinel never loads) and
        Playwright's click waits for a stable frame that never comes.
        """
        try:
            await self.page.bring_to_front()
        except PlaywrightError as exc:
            self._note(f"bring_to_front failed ({str(exc).splitlines()[0][:80]})")

    async def _changed(self, before: list) -> bool:
        """True when the page is taller or its text differs from ``before`` (``VIEW_JS``)."""
        fingerprint, height = await self.page.evaluate(js.VIEW_JS)
        return height > before[1] or fingerprint != before[0]


_FRONT_LOCKS: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()


def _front_lock(page: PlaywrightPage) -> asyncio.Lock:
    """The lock of the page's browser context for actions that need the page in front."""
    context = page.context
    lock = _FRONT_LOCKS.get(context)
    if lock is None:
        lock = _FRONT_LOCKS[context] = asyncio.Lock()
    return lock


def _is_hash_route(record: ElementRecord) -> bool:
    """A link to a client-side hash route (``#/story``, ``#!/story``): navigation, no reveal."""
    return (record.attributes.get("href") or "").strip().startswith(("#/", "#!"))


async def interact(page: PlaywrightPage, classify: Classify,
                   options: InteractionOptions | None = None) -> InteractionResult:
    """Run :class:`PageInteraction` on ``page`` (already navigated) and return its result."""
    return await PageInteraction(page, classify, options).run()
