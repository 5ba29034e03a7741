"""Responses as hostile servers send them: what a body is, and what went wrong with a download.

Scrapy bounds the downloads themselves — ``DOWNLOAD_TIMEOUT`` (the whole
download, so a server trickling bytes is cut too), ``DOWNLOAD_MAXSIZE``
(announced and received size, and in ``HttpCompressionMiddleware`` the
*decompressed* size of gzip/deflate/brotli/zstd bodies), ``REDIRECT_MAX_TIMES``,
``DOWNLOAD_FAIL_ON_DATALOSS`` (a body shorter than its Content-Length) — and
hands the failures to the request's errback.  This module names them:
:func:`count_failure` counts each under ``corpuscrawl/hostile/<kind>`` with one
log line; :class:`RedirectLoopMiddleware` stops a redirect back into its own
chain at once (Scrapy would follow it until ``REDIRECT_MAX_TIMES``, or drop it
silently as a duplicate); :func:`body_kind` decides from the Content-Type and,
for unknown types, from the body (WHATWG MIME sniffing) whether a response is
a page; :func:`page_from_response` builds the :class:`~corpuscrawl.html.page.Page`
from the bytes, so the charset is decided as browsers do.
"""

from __future__ import annotations

import functools
import logging
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from w3lib.url import safe_url_string

from corpuscrawl.html.content import http_charset, sniff_markup
from corpuscrawl.html.page import Page

if TYPE_CHECKING:
    from scrapy.http import Request, Response

logger = logging.getLogger("corpuscrawl.responses")


@functools.cache
def _download_errors() -> tuple[tuple[type, ...], tuple[type, ...], tuple[type, ...]]:
    """Timeout, cancellation and data-loss exception types of a download (Scrapy and
    Twisted imported only here: the extraction workers use this module's page checks)."""
    from scrapy.exceptions import (
        DownloadCancelledError,
        DownloadTimeoutError,
        ResponseDataLossError,
    )
    from twisted.internet.defer import CancelledError
    from twisted.internet.error import TimeoutError as TwistedTimeoutError

    # Twisted's own failures: a download handler of its own (scrapy-playwright's) may still
    # let them through.
    return ((DownloadTimeoutError, TwistedTimeoutError), (DownloadCancelledError, CancelledError),
            (ResponseDataLossError,))

#: Content types treated as HTML pages.
HTML_TYPES = ("text/html", "application/xhtml+xml")
#: Content types that may be a sitemap or a feed.
XML_TYPES = ("xml", "rss", "atom")
#: Content types that say nothing about the body: sniffed (WHATWG's "unknown type").
UNKNOWN_TYPES = ("", "application/octet-stream", "application/unknown", "unknown/unknown",
                 "*/*", "binary/octet-stream", "application/x-unknown-content-type")
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})


def content_type_of(response: Response) -> str:
    """The response's media type, lower-cased, without parameters ("" when absent)."""
    raw = response.headers.get("Content-Type", b"") or b""
    return raw.decode("latin-1").split(";", 1)[0].strip().lower()


def body_kind(response: Response) -> tuple[str, bool]:
    """("html" | "xml" | "other", sniffed): what the response is, and whether the body decided.

    A declared HTML type is HTML (a binary body under it is found by the
    Page); an XML/RSS/Atom type is XML; an unknown type (none, or
    ``application/octet-stream``) is whatever the start of the body is.
    """
    media = content_type_of(response)
    if any(t in media for t in HTML_TYPES):
        return "html", False
    if any(t in media for t in XML_TYPES):
        return "xml", False
    if media in UNKNOWN_TYPES:
        sniffed = sniff_markup(response.body)
        if sniffed:
            return sniffed, True
    return "other", False


def page_from_response(response: Response) -> Page:
    """The Page of a response, decoded from its bytes with the header's charset as a hint."""
    header = response.headers.get("Content-Type", b"") or b""
    return Page.from_html(response.body, url=response.url, status=response.status,
                          encoding=http_charset(header))


#: Request meta key of the one refetch of a page whose body came cut short.
REFETCH_META = "corpuscrawl_refetched_cut_short"
#: Meta keys that Scrapy and the durable frontier set for one download: not carried into a
#: new request for the same URL (Scrapy's MetaCopyDetectionMiddleware names most of them).
DOWNLOAD_META_KEYS = frozenset({
    "download_latency", "download_slot", "depth", "retry_times", "redirect_times",
    "redirect_ttl", "redirect_urls", "redirect_reasons", "cache_timestamp",
    "corpuscrawl_frontier"})
_BODY_TAG_RE = re.compile(r"<body[\s>/]", re.IGNORECASE)
_HEAD_TAG_RE = re.compile(r"<head[\s>/]", re.IGNORECASE)


def cut_short(page: Page, response: Response) -> str:
    """How surely the response's body was cut short: "certain", "likely" or "".

    Certain: Scrapy delivered it with its ``dataloss`` flag (when
    ``DOWNLOAD_FAIL_ON_DATALOSS`` is off), or the body ends inside a tag or a
    comment, inside the ``<head>`` (a lying Content-Length of 1 leaves
    ``"<"``), or inside a word.  Likely: it ends inside text, after
    punctuation or an entity (the page is noted ``truncated``).  Real pages do
    end in text without their closing tags: 8 of 4,567 benchmark pages, 7
    after punctuation, an entity or a zero-width space, one after a URL's
    ``pdf`` (``benchmarks/results/hostile.md``); a page cut twice inside a word
    is dropped, so such a page is lost, the rest are refetched once and kept.
    """
    return body_cut_short(page, "dataloss" in response.flags)


def body_cut_short(page: Page, dataloss: bool) -> str:
    """:func:`cut_short` of a page whose response's ``dataloss`` flag is given (a worker
    process has the page's bytes and that flag, not the response)."""
    if dataloss:
        return "certain"
    if "truncated" not in page.notes:
        return ""
    tail = page.html[-1024:].rstrip()
    if tail.rfind("<") > tail.rfind(">") or tail[-1:].isalnum() or \
            (_HEAD_TAG_RE.search(page.html) and not _BODY_TAG_RE.search(page.html)):
        return "certain"
    return "likely"


def failure_kind(exc: BaseException) -> str:
    """What a download failure says about the server ("" for ordinary network errors).

    timeout | too_large | decompression_bomb | data_loss | redirect_chain
    """
    from scrapy.exceptions import IgnoreRequest

    timeout_errors, cancelled_errors, data_loss_errors = _download_errors()
    message = str(exc)
    if isinstance(exc, timeout_errors):
        return "timeout"
    if isinstance(exc, cancelled_errors) and ("max size" in message or not message):
        return "too_large"  # announced size over DOWNLOAD_MAXSIZE, or received (no message)
    if isinstance(exc, data_loss_errors) or "_DataLoss" in repr(getattr(exc, "reasons", "")):
        return "data_loss"
    if isinstance(exc, IgnoreRequest):
        if "DOWNLOAD_MAXSIZE" in message and "decompression" in message:
            return "decompression_bomb"
        if "max redirections" in message:
            return "redirect_chain"
    return ""


def count_failure(stats: Any, failure: Any, log: logging.Logger | logging.LoggerAdapter = logger
                  ) -> str:
    """Count and log a request's failure by :func:`failure_kind`; returns the kind."""
    kind = failure_kind(failure.value)
    if kind:
        stats.inc_value(f"corpuscrawl/hostile/{kind}")
        log.warning("%s: %s (%s)", kind.replace("_", " "), failure.request.url,
                    str(failure.value)[:200] or type(failure.value).__name__)
    return kind


def _same(url: str) -> str:
    """``url`` without its fragment, spelled as requests spell it (as written when w3lib
    refuses its host, as w3lib from 2.6 on does for a space or a bad IPv4 number)."""
    url = url.split("#", 1)[0]
    try:
        return safe_url_string(url)
    except ValueError:
        return url


class RedirectLoopMiddleware:
    """Downloader middleware: a redirect to a URL already in its chain is dropped and counted.

    Placed after Scrapy's RedirectMiddleware in the response order (a higher
    number), it sees the 3xx response first.
    """

    def __init__(self, stats: Any):
        self.stats = stats
        self._logged: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Any) -> RedirectLoopMiddleware:
        """Build with the crawler's stats."""
        return cls(crawler.stats)

    def process_response(self, request: Request, response: Response, spider: Any = None
                         ) -> Response:
        """Raise IgnoreRequest for a redirect back into the chain; pass everything else."""
        location = response.headers.get("Location")
        if response.status not in REDIRECT_CODES or not location or \
                request.meta.get("dont_redirect"):
            return response
        target = _same(urljoin(request.url, location.decode("latin-1")))
        chain = {_same(u) for u in request.meta.get("redirect_urls", [])} | {_same(request.url)}
        if target not in chain:
            return response
        from scrapy.exceptions import IgnoreRequest

        self.stats.inc_value("corpuscrawl/hostile/redirect_loop")
        host = urlsplit(request.url).hostname or ""
        if host not in self._logged:
            self._logged.add(host)
            logger.warning("redirect loop: %s redirects back to %s (further loops on %s are "
                           "counted in corpuscrawl/hostile/redirect_loop)",
                           request.url, target, host)
        raise IgnoreRequest(f"redirect loop: {request.url} -> {target}")
