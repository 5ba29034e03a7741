"""``corpuscrawl extract PAGE``: one page's text, Markdown, TEI or JSON document.

    corpuscrawl extract page.html                     # the main text
    corpuscrawl extract page.html.gz --format markdown
    curl -s https://example.org/ | corpuscrawl extract - --url https://example.org/
    corpuscrawl extract https://example.org/a.html --format tei -o a.xml
    corpuscrawl extract page.html --format json -e justext

The page is extracted as a crawl would extract it (the project's settings with
``-s NAME=VALUE`` on top: domain rules and templates, the default extractor or
``-e NAME``, metadata, language), so the one-page answer is the corpus's answer.
A URL is fetched by Scrapy with the crawl's own network guard
(:mod:`corpuscrawl.net.scrapy_glue.guard`: the URL's host is the seed; a redirect to another
private address is refused), robots.txt, size cap and charset handling; nothing else
of the crawl runs (no pipelines, state, summary or feeds).

Exit codes: 0 done (an empty text is an answer: a note says so on standard error),
1 the page could not be fetched or extracted, 2 bad arguments or input (no such file,
not an HTML page, unknown extractor or format).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

#: ``--format`` values: plain text, the document as JSON, Markdown, a TEI P5 document.
PAGE_FORMATS = ("txt", "json", "markdown", "tei")
#: Schemes read as a URL to fetch.
URL_SCHEMES = ("http://", "https://")


class PageInputError(Exception):
    """The page cannot be read, fetched or extracted; the message is for the user."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def is_url(value: str) -> bool:
    """True for an http(s) URL."""
    return value.lower().startswith(URL_SCHEMES)


def fetch_page(url: str, settings: Any) -> Any:
    """The Page of ``url``, fetched by a one-request Scrapy crawl with the crawl's network guard.

    Raises :class:`PageInputError` (code 1) when the fetch fails, is refused (robots.txt,
    the guard) or answers with an error status; (code 2) when the answer is not HTML.
    """
    import scrapy
    from scrapy.crawler import CrawlerProcess

    from corpuscrawl.html.scrapy_glue import body_kind, page_from_response

    fetch_settings = settings.copy()
    for name, value in {
        "ITEM_PIPELINES": {}, "SPIDER_MIDDLEWARES": {}, "ADDONS": {}, "FEEDS": {},
        "EXTENSIONS": {"corpuscrawl.extensions.CrawlSummaryExtension": None,
                       "corpuscrawl.report.scrapy_glue.progress.ProgressExtension": None},
        "DOWNLOADER_MIDDLEWARES": {"corpuscrawl.net.scrapy_glue.guard.NetworkGuardMiddleware": 560},
        "AUTOTHROTTLE_ENABLED": False, "LOGSTATS_INTERVAL": 0, "LOG_LEVEL": "ERROR",
        "RETRY_TIMES": 1, "TELNETCONSOLE_ENABLED": False, "LOG_ENABLED": False,
        "LOG_INSTALL_ROOT_HANDLER": False,
    }.items():
        fetch_settings.set(name, value, priority="cmdline")
    found: dict[str, Any] = {}

    class OnePage(scrapy.Spider):
        """Fetches one URL; its host is the seed the network guard allows."""

        name = "corpuscrawl-extract-page"

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.seed_urls = [url]

        async def start(self) -> Any:
            yield scrapy.Request(url, callback=self.parse, errback=self.failed, dont_filter=True)

        def parse(self, response: Any) -> None:
            found["response"] = response

        def failed(self, failure: Any) -> None:
            response = getattr(failure.value, "response", None)
            if response is not None:  # HttpError: an error status
                found["error"] = f"HTTP {response.status}"
            else:
                found["error"] = failure.getErrorMessage() or type(failure.value).__name__

    root = logging.getLogger()
    levels = [(h, h.level) for h in root.handlers]
    for handler, _ in levels:  # the one line below is the report; Scrapy's log is not
        handler.setLevel(logging.CRITICAL + 1)
    try:
        process = CrawlerProcess(fetch_settings)
        process.crawl(OnePage)
        process.start()
    finally:
        for handler, level in levels:
            handler.setLevel(level)
    response = found.get("response")
    if response is None:
        raise PageInputError(f"cannot fetch {url}: {found.get('error') or 'no response'}", 1)
    kind, _ = body_kind(response)
    if kind != "html":
        media = (response.headers.get("Content-Type") or b"").decode("latin-1") or "none"
        raise PageInputError(f"{url} is not an HTML page (Content-Type: {media})")
    return page_from_response(response)


def read_page(source: str, url: str, settings: Any) -> Any:
    """The Page of ``source``: ``-`` (standard input), an http(s) URL, or an HTML file
    (``.html.gz`` read as gzip)."""
    from corpuscrawl.html.page import Page, PageError

    if source == "-":
        data = sys.stdin.buffer.read()
        if not data.strip():
            raise PageInputError("standard input is empty: give an HTML page")
        return Page.from_html(data, url=url)
    if is_url(source):
        return fetch_page(source, settings)
    path = Path(source)
    if not path.exists():
        raise PageInputError(f"no such file or directory: {source}")
    if not path.is_file():
        raise PageInputError(f"{source} is not a file (a dataset directory needs an html/ "
                             "sub-directory)")
    if path.stat().st_size == 0:
        raise PageInputError(f"{source} is empty: give an HTML page")
    try:
        return Page.from_file(path, url=url)
    except PageError as exc:
        raise PageInputError(str(exc)) from exc
    except OSError as exc:
        raise PageInputError(f"cannot read {source}: {exc.strerror or exc}") from exc


def document_fields(page: Any, result: Any) -> dict[str, Any]:
    """The fields a crawl's document of ``page`` would have (before the export stage)."""
    from corpuscrawl.extract.meta.page_info import page_info_fields
    from corpuscrawl.items import content_hash
    from corpuscrawl.net.sites import domain_of

    fields = {"url": page.url, "domain": domain_of(page.url) if page.url else "",
              "title": result.title, "text": result.text, "comments": result.comments,
              "language": result.language, "extractor": result.extractor,
              "status": page.status, "content_hash": content_hash(result.text),
              "date": result.date, "author": result.author}
    fields.update(page_info_fields(result.info))
    return fields


def render(document: dict[str, Any], fmt: str, roles: Any, comment_roles: Any) -> str:
    """The document in ``fmt`` (:data:`PAGE_FORMATS`)."""
    if fmt == "txt":
        return document["text"]
    if fmt == "json":
        return json.dumps(document, ensure_ascii=False, indent=2)
    if fmt == "markdown":
        from corpuscrawl.formats.markdown import to_markdown

        return to_markdown(document["text"], roles)
    from corpuscrawl.formats.tei import tei_document, tei_string

    xml = tei_string(tei_document(document, roles, comment_roles)).decode("utf-8")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + xml


def run(args: argparse.Namespace) -> int:
    """Extract one page; returns the exit code."""
    from corpuscrawl.commands.extract_warc import extractor_setting, settings_from
    from corpuscrawl.config.setting_values import flag_setting
    from corpuscrawl.extract.base import ExtractorError
    from corpuscrawl.extract.lines.structure import roles_for
    from corpuscrawl.pagetext.extraction import ConfigError, Extraction

    def fail(message: str, code: int = 2) -> int:
        print(f"corpuscrawl extract: error: {message}", file=sys.stderr)
        return code

    fmt = args.format or "txt"
    if args.warcs:
        return fail("one page at a time: give one HTML file, URL or - (standard input)")
    if args.extractor and (len(args.extractor) != 1 or args.extractor[0] == "all"):
        return fail("one page takes one extractor (-e NAME once)")
    try:
        settings = settings_from(args.settings or [])
        if args.comments:
            settings.set("CORPUSCRAWL_COMMENTS", args.comments, priority="cmdline")
        name = extractor_setting(args.extractor[0], settings) if args.extractor else None
        extraction = Extraction.from_settings(settings, default_extractor=name)
        page = read_page(args.dataset, args.url or "", settings)
    except PageInputError as exc:
        return fail(str(exc), exc.code)
    except (ValueError, ConfigError, ExtractorError) as exc:
        return fail(str(exc).replace("spider argument extractor", "-e"))
    if page.binary:
        return fail(f"{args.dataset} is not an HTML page (binary data)")
    result = extraction.run(page)
    if result.error:
        return fail(f"extraction failed: {result.error}", 1)
    document = document_fields(page, result)
    roles = comment_roles = []
    if fmt in ("markdown", "tei"):
        extractor = extraction.extractor_for(page.url)
        roles = roles_for(extractor, page, result.text)
        comment_roles = roles_for(None, page, result.comments)
    elif fmt == "json" and flag_setting(settings, "CORPUSCRAWL_MARKDOWN", False):
        from corpuscrawl.formats.markdown import to_markdown

        document["markdown"] = to_markdown(result.text, roles_for(
            extraction.extractor_for(page.url), page, result.text))
    output = render(document, fmt, roles, comment_roles)
    if not result.text:
        print(f"corpuscrawl extract: no main text found in {args.dataset}", file=sys.stderr)
    if args.out:
        try:
            Path(args.out).write_text(output + ("\n" if output else ""), encoding="utf-8")
        except OSError as exc:
            return fail(f"cannot write {args.out}: {exc.strerror or exc}")
        return 0
    if output:
        sys.stdout.write(output + "\n")
    return 0
