"""A time limit for one extraction, and the cheap trim that brings oversized pages under the size cap.

**Time.**  The limit is a ``SIGALRM`` timer (``setitimer``) around the call:
when it fires, Python raises :class:`ExtractionTimeout` at the next bytecode,
which unwinds the extractor like any exception.  It cannot stop a single C call
(one lxml parse, XPath or deep copy) midway: such calls finish first, so the
limit is exceeded by at most the longest C call the extraction makes.  That is
why the size cap exists: under it, the longest C call is short, and the
overshoot is measured in ``benchmarks/results/hostile.md`` together with the
alternatives: a forked process per page (killable at any moment, but costing many
times the extraction per page) and a persistent
worker (cheap per page, but
every kill reloads the models, and the crawl's own parse of the page stays in
the main process anyway).  Signals reach the main thread
only; elsewhere (extraction in a thread pool) no timer is set and only the
size cap bounds the work.

**Size.**  Pages over the size cap usually owe their size to markup, not text
(inline scripts, styles, data: URIs, megabyte attribute values);
:func:`trim_markup` removes those in linear time before anything else runs.

Plain library code: no Scrapy.
"""

from __future__ import annotations

import re
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: Attribute values longer than this (characters) are emptied by :func:`trim_markup`.
MAX_ATTRIBUTE_CHARS_DEFAULT = 2048


class ExtractionTimeout(BaseException):
    """One extraction took longer than its time budget.

    A ``BaseException``, like ``KeyboardInterrupt``: the ``except Exception``
    of an extractor's own fallbacks must not swallow it.
    """


_armed = False


def _on_alarm(signum: int, frame: object) -> None:
    if _armed:
        raise ExtractionTimeout


def can_limit_time() -> bool:
    """True where :func:`time_limit` can set a timer (the main thread, a POSIX system)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def time_limit(seconds: float) -> Iterator[bool]:
    """Raise :class:`ExtractionTimeout` in the body after ``seconds``; yields whether it is armed.

    Not armed (yields False) when ``seconds`` <= 0, off the main thread, or when
    a real-time timer already running (a test runner's, say) fires first; a
    timer that fires later is suspended meanwhile and re-armed afterwards with
    the time it had left.
    """
    global _armed
    outer = signal.getitimer(signal.ITIMER_REAL)[0] if can_limit_time() else 0.0
    if seconds <= 0 or not can_limit_time() or 0 < outer <= seconds:
        yield False
        return
    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    _armed = True
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield True
    finally:
        _armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - started), 1e-3))


_BULK_RE = re.compile(
    r"<!--.*?(?:-->|$)|<(script|style|svg|template)\b(?:[^>\"']|\"[^\"]*\"|'[^']*')*>.*?(?:</\1\s*>|$)",
    re.IGNORECASE | re.DOTALL)


def trim_markup(html: str, max_attribute_chars: int = MAX_ATTRIBUTE_CHARS_DEFAULT) -> str:
    """``html`` without comments, scripts, styles, SVG, templates and overlong attribute values.

    None of it is text a reader sees (the extractors drop it all); what stays
    is the page's text with its structure.
    """
    html = _BULK_RE.sub("", html)
    n = max_attribute_chars
    long_value = re.compile(rf"=\s*(\"[^\"]{{{n},}}\"|'[^']{{{n},}}')")
    return long_value.sub('=""', html)
