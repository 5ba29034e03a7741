"""Scrapy side of WARC writing: every fetched response, and the rendered DOM of browser pages.

``-s CORPUSCRAWL_WARC_DIR=DIR`` turns it on (both middlewares raise
``NotConfigured`` while the setting is empty).

* :class:`WarcMiddleware` (downloader middleware, order 950: after every
  built-in one, next to the download handler) writes a response, request and
  metadata record for each response that comes back from the network —
  pages, redirects, robots.txt, sitemaps, feeds, error pages and the
  boilerplate stage's 404 probes alike (robots.txt and sitemaps document the
  crawl; the 404 pages seed the domain's boilerplate template, so an offline
  re-extraction needs them).  The order matters: ``process_response`` runs
  from the highest order to the lowest, so at 950 the response is seen before
  ``HttpCompressionMiddleware`` (590) decodes it — the body is stored as the
  server sent it, with its ``Content-Encoding`` — and before
  ``RedirectMiddleware`` (600) or ``HttpErrorMiddleware`` discard it; its
  ``process_request`` runs last, so the request headers are those sent
  (cookies, user agent, ``Accept-Encoding``).  Responses answered from
  Scrapy's HTTP cache (flag ``cached``) are not written: they were fetched,
  and archived, by an earlier crawl.
* For a browser fetch (scrapy-playwright) the middleware listens to the
  page's main-frame navigation responses (:mod:`~corpuscrawl.archive.navigation`)
  and writes those — the HTML the
  server sent (decoded by the browser: the headers say so, see
  :mod:`~corpuscrawl.archive.records`), redirects included — instead of the
  DOM scrapy-playwright serialised at the load event.
* :class:`WarcConversionMiddleware` (spider middleware) writes, for each
  rendered page the spider yields, the final DOM after the interaction loop
  as a ``conversion`` record referring to the response record (and one per
  ``extract_continuously`` snapshot), with its depth and translations.

Both share one :class:`WarcArchive` per crawler: the rotating files, the
``warcinfo`` contents, the repair of a killed predecessor's ``.open`` files
and the ``corpuscrawl/warc/*`` stats.  A write error (disk full) is logged and
counted; the crawl goes on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import scrapy
import warcio
from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response
from scrapy.http.request import NO_CALLBACK

import corpuscrawl
from corpuscrawl.archive.files import (
    MAX_SIZE_DEFAULT,
    RotatingWarcWriter,
    parse_size,
    recover_unfinished,
    safe_name,
)
from corpuscrawl.archive.navigation import captured, listen, stop_listening
from corpuscrawl.archive.records import (
    Exchange,
    conversion_records,
    exchange_records,
    header_pairs,
    warc_date,
)
from corpuscrawl.config.crawl_checks import CrawlSetupError
from corpuscrawl.export.scrapy_glue.stage_pipeline import PROBE_META
from corpuscrawl.pagetext.crawled import CrawledPage

__all__ = ["WarcArchive", "WarcConfig", "WarcConfigError", "WarcConversionMiddleware",
           "WarcMiddleware", "archive_for"]

logger = logging.getLogger("corpuscrawl.archive")

#: Request meta key: WARC-Record-ID of the response record written for this request.
RESPONSE_ID_META = "corpuscrawl_warc_response_id"
#: Request meta key: conversions already written for this response (internal).
CONVERTED_META = "corpuscrawl_warc_converted"
#: Callback names written in the metadata record (``callback`` field).
CALLBACK_NONE = "none"
CALLBACK_PROBE = "error-probe"
STATS_PREFIX = "corpuscrawl/warc/"


class WarcConfigError(CrawlSetupError):
    """A ``CORPUSCRAWL_WARC_*`` setting is invalid; the message names it."""


@dataclass(frozen=True)
class WarcConfig:
    """The WARC settings, read once and validated (documented in corpuscrawl/settings.py)."""

    directory: str = ""
    max_size: int = MAX_SIZE_DEFAULT
    prefix: str = "corpuscrawl"

    @classmethod
    def from_settings(cls, settings: Any) -> WarcConfig:
        """Read ``CORPUSCRAWL_WARC_DIR``, ``CORPUSCRAWL_WARC_MAX_SIZE``, ``CORPUSCRAWL_WARC_PREFIX``."""
        raw_size = settings.get("CORPUSCRAWL_WARC_MAX_SIZE", MAX_SIZE_DEFAULT)
        try:
            max_size = parse_size(raw_size)
        except ValueError as exc:
            raise WarcConfigError(f"CORPUSCRAWL_WARC_MAX_SIZE: {exc}") from None
        if max_size < 1:
            raise WarcConfigError(f"CORPUSCRAWL_WARC_MAX_SIZE must be > 0, got {raw_size!r}")
        prefix = str(settings.get("CORPUSCRAWL_WARC_PREFIX") or "corpuscrawl")
        if safe_name(prefix) != prefix:
            raise WarcConfigError(f"CORPUSCRAWL_WARC_PREFIX={prefix!r}: use only letters, "
                                  "digits, '.', '_' and '-'")
        return cls(directory=str(settings.get("CORPUSCRAWL_WARC_DIR") or ""),
                   max_size=max_size, prefix=prefix)


class WarcArchive:
    """The WARC files of one crawl (see the module docstring)."""

    def __init__(self, crawler: Crawler, config: WarcConfig) -> None:
        self.crawler = crawler
        self.config = config
        directory = Path(config.directory)
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WarcConfigError(f"CORPUSCRAWL_WARC_DIR={config.directory!r}: cannot create "
                                  f"the directory: {exc.strerror or exc}") from None
        if not os.access(directory, os.W_OK | os.X_OK):
            raise WarcConfigError(f"CORPUSCRAWL_WARC_DIR={config.directory!r}: not writable")
        for path in recover_unfinished(config.directory, config.prefix):
            logger.warning("WARC file of an earlier, interrupted crawl closed: %s", path)
        self.writer = RotatingWarcWriter(config.directory, config.prefix, config.max_size,
                                         warcinfo(crawler))
        self.errors = 0
        crawler.signals.connect(self.close, signal=signals.spider_closed)

    def write(self, build: Callable[[], list[Any]]) -> str:
        """Build one group of records and write it whole; returns the first record's id.

        "" when it failed: a write error (disk full) or a fetch whose records
        cannot be built is logged and counted, and the crawl goes on.  The CPU
        time spent (building, digests, compression, writing; the reactor thread's,
        so other processes on the machine do not inflate it) is summed in the
        ``corpuscrawl/warc/cpu_seconds`` stat.
        """
        started = time.thread_time()
        try:
            written = self.writer.write(build())
        except OSError as exc:
            self._failed("write_errors", "cannot write WARC records to %s: %s",
                         self.config.directory, exc)
            return ""
        except Exception as exc:  # a record warcio cannot build must not fail the fetch
            self._failed("record_errors", "cannot build WARC records: %r", exc)
            return ""
        finally:
            self._inc("cpu_seconds", time.thread_time() - started)
        self._inc("records", len(written.record_ids))
        self._inc("bytes", written.length)
        return written.record_ids[0]

    def _failed(self, key: str, message: str, *args: object) -> None:
        self.errors += 1
        self._inc(key)
        if self.errors == 1 or self.errors % 100 == 0:  # a full disk fails every fetch
            logger.error(message + " (%d WARC failures so far)", *args, self.errors)

    def close(self) -> None:
        """Finish the current file (idempotent)."""
        try:
            self.writer.close()
        except OSError as exc:
            logger.error("cannot finish WARC file %s: %s", self.writer.current, exc)
        files = len(self.writer.files)
        stats = self.crawler.stats
        if stats is not None:
            stats.set_value(STATS_PREFIX + "files", files)

    def _inc(self, key: str, count: float = 1) -> None:
        stats = self.crawler.stats
        if stats is not None:
            stats.inc_value(STATS_PREFIX + key, count)


def warcinfo(crawler: Crawler) -> dict[str, object]:
    """The ``warcinfo`` fields of this crawl (WARC/1.1 §6.2's suggested names)."""
    settings = crawler.settings
    spider = getattr(crawler.spidercls, "name", "") or ""
    return {
        "software": f"corpuscrawl/{getattr(corpuscrawl, '__version__', '')} "
                    f"(Scrapy {scrapy.__version__}, warcio {_version(warcio)})",
        "hostname": platform.node(),
        "isPartOf": settings.get("CORPUSCRAWL_COLLECTION") or spider,
        "description": f"corpuscrawl crawl by spider {spider!r}",
        "robots": "obey" if settings.getbool("ROBOTSTXT_OBEY") else "ignore",
        "http-header-user-agent": settings.get("USER_AGENT") or "",
        "conformsTo": "https://iipc.github.io/warc-specifications/specifications/"
                      "warc-format/warc-1.1/",
    }


def _version(module: Any) -> str:
    try:
        from importlib.metadata import version

        return version(module.__name__)
    except Exception:  # an uninstalled copy: the version is only informative
        return ""


_ARCHIVES: weakref.WeakKeyDictionary[Crawler, WarcArchive] = weakref.WeakKeyDictionary()


def archive_for(crawler: Crawler) -> WarcArchive:
    """The crawl's archive; NotConfigured while ``CORPUSCRAWL_WARC_DIR`` is empty."""
    archive = _ARCHIVES.get(crawler)
    if archive is None:
        config = WarcConfig.from_settings(crawler.settings)
        if not config.directory:
            raise NotConfigured("CORPUSCRAWL_WARC_DIR is empty: no WARC files written")
        archive = _ARCHIVES[crawler] = WarcArchive(crawler, config)
    return archive


def callback_name(request: Request) -> str:
    """The name of the spider method that handles ``request`` (``parse`` by default)."""
    if request.meta.get(PROBE_META):
        return CALLBACK_PROBE
    callback = request.callback
    if callback is None:
        return "parse"
    if callback is NO_CALLBACK:
        return CALLBACK_NONE
    return str(getattr(callback, "__name__", callback))


def request_metadata(request: Request, browser: bool = False) -> dict[str, object]:
    """Crawl facts of a fetch for its metadata record."""
    meta = request.meta
    referer = request.headers.get("Referer")
    latency = meta.get("download_latency")
    return {
        "via": referer.decode("latin-1") if referer else "",
        "depth": meta.get("corpuscrawl_depth", meta.get("depth", 0)),
        "callback": callback_name(request),
        "fetchTimeMs": int(latency * 1000) if isinstance(latency, int | float) else "",
        "fetcher": "browser" if browser else "http",
    }


class WarcMiddleware:
    """Downloader middleware: a response, request and metadata record per fetched response."""

    def __init__(self, archive: WarcArchive) -> None:
        self.archive = archive

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> WarcMiddleware:
        """Build from settings; NotConfigured while ``CORPUSCRAWL_WARC_DIR`` is empty."""
        return cls(archive_for(crawler))

    def process_request(self, request: Request) -> None:
        """Browser fetches: listen to the page's navigation responses."""
        if request.meta.get("playwright"):
            listen(request.meta)

    def process_response(self, request: Request, response: Response) -> Any:
        """Write the records of ``response``; browser fetches are written once captured."""
        if "cached" in response.flags:
            return response
        if "playwright" in response.flags:
            return self._write_browser(request, response)
        stop_listening(request.meta)
        self._write(request, lambda: self._exchange(request, response))
        return response

    def process_exception(self, request: Request, exception: BaseException) -> None:
        """Drop the browser listener state of a failed request (nothing to write)."""
        stop_listening(request.meta)

    def _write(self, request: Request, exchange: Callable[[], Exchange]) -> str:
        record_id = self.archive.write(lambda: exchange_records(exchange()))
        if record_id:
            request.meta[RESPONSE_ID_META] = record_id
        return record_id

    @staticmethod
    def _exchange(request: Request, response: Response, **extra: Any) -> Exchange:
        """The exchange as Scrapy holds it (``extra``: Exchange fields to override)."""
        fields: dict[str, Any] = {
            "url": response.url, "status": response.status,
            "response_headers": header_pairs(response.headers.items()), "body": response.body,
            "method": request.method, "request_headers": header_pairs(request.headers.items()),
            "request_body": request.body or b"", "protocol": response.protocol or "HTTP/1.1",
            "ip_address": str(response.ip_address or ""), "date": _fetch_date(request),
            "metadata": request_metadata(request)}
        fields.update(extra)
        return Exchange(**fields)

    async def _write_browser(self, request: Request, response: Response) -> Response:
        """Write the navigation responses the browser received (redirects first)."""
        navigations = await captured(stop_listening(request.meta))
        metadata = request_metadata(request, browser=True)
        for number, navigation in enumerate(navigations):
            last = number == len(navigations) - 1
            self._write(request, lambda n=navigation, last=last: n.exchange(
                metadata if last else {**metadata, "callback": "redirect"}))
        if not navigations:  # nothing captured: keep what the browser gave Scrapy, and say so
            self._write(request, lambda: self._exchange(
                request, response, decoded=True, metadata={**metadata, "payload": "dom-at-load"}))
        return response


def _fetch_date(request: Request) -> str:
    latency = request.meta.get("download_latency")
    started = time.time() - (latency if isinstance(latency, int | float) else 0.0)
    return warc_date(started)


class WarcConversionMiddleware:
    """Spider middleware: the rendered DOM of each browser page as a ``conversion`` record."""

    def __init__(self, archive: WarcArchive) -> None:
        self.archive = archive

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> WarcConversionMiddleware:
        """Build from settings; NotConfigured while ``CORPUSCRAWL_WARC_DIR`` is empty."""
        return cls(archive_for(crawler))

    def process_spider_output(self, response: Response, result: Iterable[Any]) -> Iterator[Any]:
        """Pass everything on; write a conversion record for each rendered page."""
        for item in result:
            self._see(response, item)
            yield item

    async def process_spider_output_async(self, response: Response,
                                          result: AsyncIterator[Any]) -> AsyncIterator[Any]:
        """The same for asynchronous callbacks (``parse_rendered``)."""
        async for item in result:
            self._see(response, item)
            yield item

    def _see(self, response: Response, item: Any) -> None:
        if not isinstance(item, CrawledPage) or not item.rendered:
            return
        key = (item.url, hashlib.blake2b(item.html.encode("utf-8"), digest_size=8).digest())
        done = response.meta.setdefault(CONVERTED_META, set())
        if key in done:  # split mode: one page, several documents
            return
        done.add(key)
        self.archive.write(lambda: conversion_records(
            item.url, item.html, response.meta.get(RESPONSE_ID_META, ""),
            warc_date(time.time()),
            {"depth": item.depth, "status": item.status,
             "alternates": json.dumps(item.alternates, ensure_ascii=False, sort_keys=True)
             if item.alternates else "", "render_reason": item.render_reason}))
