"""The time limit of one extraction and the markup trim (corpuscrawl.pagetext.budget)."""

from __future__ import annotations

import contextlib
import threading
import time

import pytest

from corpuscrawl.html.page import Page
from corpuscrawl.pagetext.budget import ExtractionTimeout, time_limit, trim_markup
from corpuscrawl.pagetext.extraction import Extraction, ExtractionConfig


class Spinning:
    """An extractor stuck in a loop that also swallows ordinary exceptions."""

    name = "spinning"

    def extract(self, page: Page) -> str:
        while True:
            with contextlib.suppress(Exception):  # the timeout must get through this
                sum(range(1000))


def test_time_limit_stops_python_code_and_disarms():
    start = time.perf_counter()
    with pytest.raises(ExtractionTimeout), time_limit(0.2) as armed:
        assert armed
        while True:
            pass
    assert time.perf_counter() - start < 1.5
    time.sleep(0.3)  # no late alarm


def test_a_stuck_extractor_fails_with_a_timeout_and_the_crawl_goes_on():
    extraction = Extraction(ExtractionConfig(timeout=0.3))
    extraction.default = Spinning()
    start = time.perf_counter()
    result = extraction.run(Page.from_html("<p>text</p>", url="http://a.com/"))
    assert result.error.startswith("ExtractionTimeout") and time.perf_counter() - start < 2
    assert extraction.run(Page.from_html("<p>x</p>")).error.startswith("ExtractionTimeout")


def test_time_limit_is_not_armed_off_the_main_thread():
    seen = []

    def run() -> None:
        with time_limit(1) as armed:
            seen.append(armed)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen == [False]


def test_trim_removes_markup_that_is_never_text():
    html = ('<div data-x="' + "a" * 5000 + '" id="k">x<script>var a="<p>";</script>'
            "<!-- c --><style>p{}</style><svg><text>s</text></svg> y</div>")
    assert trim_markup(html) == '<div data-x="" id="k">x y</div>'


def test_a_page_over_the_size_cap_is_trimmed_then_failed_or_routed():
    bloated = "<p>" + "word " * 50 + "</p><script>" + "x" * 20_000 + "</script>"
    trimmed = Extraction(ExtractionConfig(max_bytes=10_000)).run(Page.from_html(bloated))
    assert trimmed.ok and "trimmed" in trimmed.notes and trimmed.text.startswith("word")
    big = "<p>" + "word " * 5000 + "</p>"
    failed = Extraction(ExtractionConfig(max_bytes=10_000)).run(Page.from_html(big))
    assert failed.error.startswith("OversizedPage")
    routed = Extraction(ExtractionConfig(default_extractor="justext", max_bytes=10_000,
                                         oversized_extractor="bte")).run(Page.from_html(big))
    assert routed.extractor == "bte" and routed.text.startswith("word")


def test_budget_settings_are_validated():
    from corpuscrawl.pagetext.extraction import ConfigError

    with pytest.raises(ConfigError, match="CORPUSCRAWL_EXTRACTION_TIMEOUT"):
        ExtractionConfig.from_settings({"CORPUSCRAWL_EXTRACTION_TIMEOUT": "soon"})
    with pytest.raises(ConfigError, match="CORPUSCRAWL_EXTRACTION_MAX_BYTES"):
        ExtractionConfig.from_settings({"CORPUSCRAWL_EXTRACTION_MAX_BYTES": -1})


def test_an_outer_timer_that_fires_later_is_suspended_and_re_armed():
    import signal

    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    signal.setitimer(signal.ITIMER_REAL, 5)
    try:
        with time_limit(0.5) as armed:
            assert armed
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 4 < left <= 5 and not fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
