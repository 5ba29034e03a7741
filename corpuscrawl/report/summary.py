"""The end-of-crawl summary: what a crawl fetched, extracted, exported and what went wrong.

Built from a crawl's stats (Scrapy's and the ``corpuscrawl/*`` counters of the
spider, the pipeline and the export stage) and the per-domain counts the
summary extension (:mod:`corpuscrawl.extensions`) keeps.  The JSON written
beside each feed (``<feed>.summary.json``) is :func:`build_summary`'s dict; the
lines logged at the end of the crawl are :func:`human_summary`'s.  Plain
library code: no Scrapy.

What the figures mean (keys of the JSON):

* ``pages.fetched`` — HTML pages the crawl received (plain or rendered; a page
  re-rendered by ``render=auto`` counts once); ``pages.rendered`` — through
  Chromium; ``pages.extracted`` — documents the extractors produced;
  ``pages.empty`` — pages with no main text; ``pages.failed`` — requests that
  failed for good (network errors, HTTP errors after retries), extractions
  that raised, renderings that failed; ``pages.not_modified`` — 304 answers
  of a recrawl.
* ``documents`` — ``exported`` (written to the feeds), ``new`` / ``changed`` /
  ``unchanged`` / ``not_modified`` (the recrawl's verdicts, 0 on a first crawl).
  ``dropped_language`` — documents not in a target language, dropped by
  ``CORPUSCRAWL_LANGUAGE_FILTER``.
* ``robots_meta`` — pages whose robots meta tag or ``X-Robots-Tag`` said
  ``noindex`` (fetched, not exported) and ``nofollow`` (links not followed);
  ``none`` counts in both.
* ``boilerplate`` — paragraphs removed as domain boilerplate, documents
  cleaned, documents dropped because nothing but boilerplate was left;
  ``duplicates_dropped`` — near-duplicates not written.
* ``page_types`` — extracted documents by page type (article, forum, documentation,
  service, product, listing, collection, other; :mod:`corpuscrawl.extract.page_typing.page_type`).
* ``dropped`` — documents not written, by reason (``duplicate``,
  ``boilerplate``, ``listing``, ``too_short``, ``empty``, ``language``,
  ``binary``, ``charset_undecodable``, ``truncated``, ``extraction_error``, ``robots``): the
  counts of the records in
  ``<feed>.dropped.jsonl`` (:mod:`corpuscrawl.report.scrapy_glue.dropped`), which name each URL.
* ``sources`` — sitemaps and feeds read, the URLs they listed that were queued
  (``urls``), and the sources cut at ``CORPUSCRAWL_MAX_URLS_PER_SOURCE`` (``capped``).
* ``errors`` — by type: requests that failed for good (``http <status>`` or
  the exception's class name, e.g. ``DownloadConnectionRefusedError``),
  ``spider <exception>``, ``extraction`` and ``rendering`` failures.
  ``pages.ignored`` counts requests not fetched on purpose (robots.txt, guards).
* ``domains`` — per domain: responses, HTTP errors, download errors,
  documents extracted and exported, near-duplicates dropped, documents dropped as
  boilerplate only, boilerplate paragraphs removed.
* ``recrawl`` — the collection's run generation and what the recrawl did:
  ``conditional`` requests sent with validators, ``not_modified`` (304),
  ``gone`` (404/410 of known pages), ``moved`` (301/308), known pages
  ``revisited`` (``revisited_hubs``, ``revisited_sources``).
* ``warc`` — when ``CORPUSCRAWL_WARC_DIR`` is set: ``records``, ``bytes``,
  ``files`` written, ``write_errors`` (a full disk) and ``record_errors``.
* ``net`` — requests refused by the private-network guard: ``blocked``, the
  hosts concerned (``blocked_hosts``) and counts ``by_reason`` (loopback,
  private, link-local, ...).
* ``scope`` — what the crawl's scope rules (:mod:`corpuscrawl.net.scope`) dropped: ``dropped``
  (links not followed, seeds not fetched, in-flight pages not extracted) and ``by_rule``
  (``allow``: matched no allow rule, ``deny``, ``blocklist``, ``domain_cap``: the domain
  had its ``max_pages_per_domain`` documents).
* ``cluster`` — in cluster mode (``CORPUSCRAWL_REDIS_URL``): the run
  ``generation`` and whether this worker ``joined`` it (else it started it);
  the generation's totals over all workers when this worker closed
  (``responses_all``, ``exported_all``, ``not_modified_all``; the last worker
  to close sees them complete) next to this worker's share;
  ``recovered_requests`` (dead workers' leases it put back into the queue),
  ``heartbeat_lost`` and ``unserializable`` requests.  None on one machine.
* ``timeline`` — ``columns`` (seconds since the start, pages fetched, documents exported,
  errors, frontier size) and ``rows``, sampled every ``CORPUSCRAWL_PROGRESS_INTERVAL``
  seconds by :mod:`corpuscrawl.report.scrapy_glue.progress` (at most 720 rows, thinned evenly): what the crawl
  report plots over time.
* ``nothing_fetched`` — true when not one page could be fetched (every seed
  failing; in cluster mode, by any worker of the generation): ``corpuscrawl
  crawl`` and ``scrapy crawl`` then exit with :data:`EXIT_NOTHING_FETCHED`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from corpuscrawl.net.scope import REASONS as SCOPE_REASONS
from corpuscrawl.net.scope import STATS_PREFIX as SCOPE_PREFIX

#: Format tag and version written into every summary.
SUMMARY_FORMAT = "corpuscrawl-crawl-summary"
SUMMARY_VERSION = 1
#: Suffix appended to a feed file's name for its summary.
SUMMARY_SUFFIX = ".summary.json"
#: File name of the summary in a collection's state directory (crawls without a local feed).
STATE_SUMMARY_FILE = "last-crawl.summary.json"
#: Exit status of ``corpuscrawl crawl`` / ``scrapy crawl`` when nothing could be fetched.
EXIT_NOTHING_FETCHED = 3
#: Domains named in the logged summary (all of them are in the JSON).
LOGGED_DOMAINS_DEFAULT = 5
#: Error types named in the logged summary.
LOGGED_ERRORS_DEFAULT = 5

RECRAWL_PREFIX = "corpuscrawl/recrawl/"
#: Pages kept out by their robots meta tags / X-Robots-Tag (``noindex``, ``nofollow``).
ROBOTS_META_PREFIX = "corpuscrawl/robots_meta/"
WARC_PREFIX = "corpuscrawl/warc/"
BLOCKED = "corpuscrawl/net/blocked"
CLUSTER_PREFIX = "corpuscrawl/cluster/"
#: Totals over all workers of a cluster generation (set by the lease scheduler at close).
CLUSTER_ALL_PREFIX = CLUSTER_PREFIX + "all/"
EXPORT_PREFIX = "corpuscrawl/export/"
#: Documents dropped, by reason (corpuscrawl.report.scrapy_glue.dropped.STATS_PREFIX).
DROPS_PREFIX = "corpuscrawl/drops/"
#: Final request failures by type (the spider's errback; after retries).
REQUEST_ERROR_PREFIX = "corpuscrawl/request_errors/"
#: The type of requests not fetched on purpose (robots.txt, a guard, a middleware's choice).
IGNORED = "IgnoreRequest"
SPIDER_EXCEPTION_PREFIX = "spider_exceptions/"
#: Extracted documents by page type (``corpuscrawl/page_type/<type>``, the pipeline's count).
PAGE_TYPE_PREFIX = "corpuscrawl/page_type/"


@dataclass
class DomainCounts:
    """What happened on one domain."""

    responses: int = 0
    http_errors: int = 0
    download_errors: int = 0
    documents: int = 0
    exported: int = 0
    #: Near-duplicates not exported, documents dropped as nothing but boilerplate, and
    #: boilerplate paragraphs removed (the export stage's per-domain figures).
    duplicates_dropped: int = 0
    boilerplate_dropped: int = 0
    boilerplate_paragraphs: int = 0


def _int(stats: Mapping[str, Any], key: str) -> int:
    value = stats.get(key, 0)
    return int(value) if isinstance(value, int | float) else 0


def _iso(value: Any) -> str | None:
    return value.isoformat(timespec="seconds") if isinstance(value, datetime) else None


def error_type(exc: BaseException) -> str:
    """The type a failed request is counted under: ``http <status>`` or the exception's class;
    a page not fetched because its host's robots.txt could not be read, under that failure's
    (``corpuscrawl.net.scrapy_glue.robots.HostClosedByRobots.cause``)."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, str) and cause:
        return cause
    status = getattr(getattr(exc, "response", None), "status", None)
    return f"http {status}" if isinstance(status, int) else type(exc).__name__


def errors_by_type(stats: Mapping[str, Any]) -> dict[str, int]:
    """Error counts by type, largest first (see the module docstring for the types)."""
    errors: dict[str, int] = {}
    for key, value in stats.items():
        if not isinstance(value, int):
            continue
        if key.startswith(REQUEST_ERROR_PREFIX):
            name = key[len(REQUEST_ERROR_PREFIX):]
            if name == IGNORED:
                continue  # not fetched on purpose (robots.txt, a guard): not an error
        elif (key.startswith(SPIDER_EXCEPTION_PREFIX) and key.count("/") == 1
              and key != SPIDER_EXCEPTION_PREFIX + "count"):
            name = f"spider {key[len(SPIDER_EXCEPTION_PREFIX):]}"
        else:
            continue
        errors[name] = errors.get(name, 0) + value
    for key, name in (("corpuscrawl/extraction_errors", "extraction"),
                      ("corpuscrawl/render/failures", "rendering")):
        if _int(stats, key):
            errors[name] = _int(stats, key)
    return dict(sorted(errors.items(), key=lambda kv: (-kv[1], kv[0])))


def build_summary(stats: Mapping[str, Any], domains: Mapping[str, DomainCounts] | None = None,
                  *, spider: str = "", collection: str = "", job: str = "",
                  seeds: int = 0, outputs: Iterable[str] = ()) -> dict[str, Any]:
    """The summary dict of a finished crawl (the JSON written beside the feeds)."""
    plain, rendered = _int(stats, "corpuscrawl/fetch/plain"), _int(stats, "corpuscrawl/fetch/rendered")
    not_modified = _int(stats, RECRAWL_PREFIX + "not_modified")
    fetched = max(0, plain + rendered - _int(stats, "corpuscrawl/render/auto_rerender"))
    ignored = _int(stats, REQUEST_ERROR_PREFIX + IGNORED)
    failed = (_int(stats, "corpuscrawl/request_errors") - ignored
              + _int(stats, "corpuscrawl/extraction_errors")
              + _int(stats, "corpuscrawl/render/failures"))
    extracted = _int(stats, "corpuscrawl/documents")
    exported = (_int(stats, EXPORT_PREFIX + "exported") if EXPORT_PREFIX + "documents" in stats
                else _int(stats, "item_scraped_count"))
    errors = errors_by_type(stats)
    elapsed = stats.get("elapsed_time_seconds")
    cluster = _cluster(stats)
    nothing = fetched == 0 and not_modified == 0
    if cluster is not None and CLUSTER_ALL_PREFIX + "responses" in stats:
        # a worker that got no share of the queue is no failure
        nothing = cluster["responses_all"] + cluster["not_modified_all"] == 0
    return {
        "format": SUMMARY_FORMAT,
        "version": SUMMARY_VERSION,
        "spider": spider,
        "collection": collection,
        "job": job,
        "seeds": seeds,
        "started_at": _iso(stats.get("start_time")),
        "finished_at": _iso(stats.get("finish_time")),
        "elapsed_seconds": round(float(elapsed), 3) if isinstance(elapsed, int | float) else None,
        "finish_reason": stats.get("finish_reason"),
        "nothing_fetched": nothing,
        "requests": {"sent": _int(stats, "downloader/request_count"),
                     "responses": _int(stats, "response_received_count"),
                     "bytes_received": _int(stats, "downloader/response_bytes")},
        "pages": {"fetched": fetched, "rendered": rendered, "extracted": extracted,
                  "empty": _int(stats, "corpuscrawl/empty_extractions"), "failed": max(0, failed),
                  "not_modified": not_modified, "ignored": ignored},
        "documents": {"exported": exported,
                      **{k: _int(stats, RECRAWL_PREFIX + k)
                         for k in ("new", "changed", "unchanged", "not_modified")},
                      "dropped_language": _int(stats, "corpuscrawl/dropped_language")},
        "robots_meta": {k: _int(stats, ROBOTS_META_PREFIX + k) for k in ("noindex", "nofollow")},
        "boilerplate": {"paragraphs_removed": _int(stats, EXPORT_PREFIX + "paragraphs_removed"),
                        "documents_cleaned": _int(stats, EXPORT_PREFIX + "documents_cleaned"),
                        "documents_dropped": _int(stats, EXPORT_PREFIX + "dropped_boilerplate")},
        "duplicates_dropped": _int(stats, EXPORT_PREFIX + "dropped_duplicates"),
        "page_types": {key[len(PAGE_TYPE_PREFIX):]: _int(stats, key) for key in sorted(stats)
                       if key.startswith(PAGE_TYPE_PREFIX)},
        "dropped": {key[len(DROPS_PREFIX):]: _int(stats, key) for key in sorted(stats)
                    if key.startswith(DROPS_PREFIX)},
        "sources": {"sitemaps": _int(stats, "corpuscrawl/sitemaps"),
                    "feeds": _int(stats, "corpuscrawl/feeds"),
                    "urls": (_int(stats, "corpuscrawl/urls_from_sitemaps")
                             + _int(stats, "corpuscrawl/urls_from_feeds")),
                    "capped": _int(stats, "corpuscrawl/sources/capped")},
        "errors": {"total": sum(errors.values()), "by_type": errors},
        "domains": {d: asdict(c) for d, c in sorted((domains or {}).items())},
        "recrawl": {k: _int(stats, RECRAWL_PREFIX + k) for k in RECRAWL_FIGURES},
        "warc": ({k: _int(stats, WARC_PREFIX + k) for k in WARC_FIGURES}
                 if any(key.startswith(WARC_PREFIX) for key in stats) else None),
        "net": {"blocked": _int(stats, BLOCKED), "blocked_hosts": _int(stats, BLOCKED + "_hosts"),
                "by_reason": {key[len(BLOCKED) + 1:]: _int(stats, key) for key in sorted(stats)
                              if key.startswith(BLOCKED + "/")}},
        "cluster": cluster,
        "scope": {"dropped": sum(_int(stats, SCOPE_PREFIX + r) for r in SCOPE_REASONS),
                  "by_rule": {r: _int(stats, SCOPE_PREFIX + r) for r in SCOPE_REASONS
                              if _int(stats, SCOPE_PREFIX + r)}},
        "outputs": list(outputs),
    }


#: Recrawl figures of the summary (``corpuscrawl/recrawl/<name>``).
RECRAWL_FIGURES = ("generation", "conditional", "not_modified", "gone", "moved", "revisited",
                   "revisited_hubs", "revisited_sources")
#: WARC figures of the summary (``corpuscrawl/warc/<name>``).
WARC_FIGURES = ("records", "bytes", "files", "write_errors", "record_errors")


def _cluster(stats: Mapping[str, Any]) -> dict[str, Any] | None:
    """The cluster figures (None outside cluster mode)."""
    if CLUSTER_PREFIX + "generation" not in stats:
        return None
    return {"generation": _int(stats, CLUSTER_PREFIX + "generation"),
            "joined": bool(_int(stats, CLUSTER_PREFIX + "joined")),
            **{f"{k}_all": _int(stats, CLUSTER_ALL_PREFIX + k)
               for k in ("responses", "exported", "not_modified")},
            **{k: _int(stats, CLUSTER_PREFIX + k)
               for k in ("recovered_requests", "heartbeat_lost", "unserializable")}}


def human_summary(summary: Mapping[str, Any], max_domains: int = LOGGED_DOMAINS_DEFAULT,
                  max_errors: int = LOGGED_ERRORS_DEFAULT) -> str:
    """A few lines for the log: the figures a person checks after a crawl."""
    pages, docs = summary["pages"], summary["documents"]
    elapsed = summary.get("elapsed_seconds")
    head = (f"crawl {summary.get('finish_reason') or 'stopped'}"
            + (f" after {elapsed:.1f} s" if isinstance(elapsed, int | float) else ""))
    if summary["nothing_fetched"]:
        head += f": NOTHING COULD BE FETCHED ({summary.get('seeds', 0)} seed(s) all failing)"
    lines = [head,
             f"pages: {pages['fetched']} fetched ({pages['rendered']} rendered), "
             f"{pages['extracted']} extracted, {pages['empty']} empty, {pages['failed']} failed"
             + (f", {pages['not_modified']} not modified" if pages["not_modified"] else ""),
             f"documents: {docs['exported']} exported (new {docs['new']}, changed "
             f"{docs['changed']}, unchanged {docs['unchanged']}); "
             f"{summary['boilerplate']['paragraphs_removed']} boilerplate paragraphs removed, "
             f"{summary['duplicates_dropped']} duplicates dropped"]
    dropped = summary.get("dropped") or {}
    if dropped:
        lines.append("dropped: " + ", ".join(f"{reason} {n}" for reason, n in dropped.items())
                     + " (each with its URL in <feed>.dropped.jsonl)")
    lines.extend(_optional_lines(summary))
    by_type = summary["errors"]["by_type"]
    if by_type:
        shown = list(by_type.items())[:max_errors]
        lines.append("errors: " + ", ".join(f"{name} x{n}" for name, n in shown)
                     + (f", ... ({len(by_type) - len(shown)} more types)"
                        if len(by_type) > len(shown) else ""))
    domains = summary["domains"]
    if domains:
        top = sorted(domains.items(), key=lambda kv: (-kv[1]["exported"], -kv[1]["responses"],
                                                      kv[0]))[:max_domains]
        lines.append(f"domains: {len(domains)}; " + ", ".join(
            f"{d} {c['exported']}/{c['responses']}" for d, c in top)
            + " (exported/responses)" + (" ..." if len(domains) > len(top) else ""))
    return "\n".join(lines)


def _optional_lines(summary: Mapping[str, Any]) -> list[str]:
    """Lines for what only some crawls have: a recrawl, WARC files, blocked requests, a cluster."""
    lines = []
    page_types = summary.get("page_types") or {}
    if page_types:
        lines.append("page types: " + ", ".join(
            f"{t} {n}" for t, n in sorted(page_types.items(), key=lambda kv: (-kv[1], kv[0]))))
    sources = summary.get("sources") or {}
    if sources.get("capped"):
        lines.append(f"sources: {sources['sitemaps']} sitemaps, {sources['feeds']} feeds, "
                     f"{sources['urls']} URLs queued; {sources['capped']} cut at "
                     "CORPUSCRAWL_MAX_URLS_PER_SOURCE")
    recrawl = summary.get("recrawl") or {}
    if recrawl.get("generation", 0) > 1 or recrawl.get("conditional"):
        lines.append(f"recrawl: generation {recrawl['generation']}, {recrawl['revisited']} "
                     f"known pages revisited, {recrawl['conditional']} conditional requests, "
                     f"{recrawl['not_modified']} not modified, {recrawl['gone']} gone")
    robots = summary.get("robots_meta") or {}
    dropped_language = (summary.get("documents") or {}).get("dropped_language", 0)
    if robots.get("noindex") or robots.get("nofollow") or dropped_language:
        lines.append(f"kept out: {robots.get('noindex', 0)} pages noindex, "
                     f"{robots.get('nofollow', 0)} pages nofollow (robots meta), "
                     f"{dropped_language} documents in other languages")
    warc = summary.get("warc")
    if warc:
        lines.append(f"warc: {warc['records']} records in {warc['files']} file(s), "
                     f"{warc['bytes'] / 2**20:.1f} MB"
                     + (f", {warc['write_errors']} WRITE ERRORS" if warc["write_errors"] else "")
                     + (f", {warc['record_errors']} record errors"
                        if warc["record_errors"] else ""))
    net = summary.get("net") or {}
    if net.get("blocked"):
        lines.append(f"blocked: {net['blocked']} requests to non-public addresses "
                     f"({net['blocked_hosts']} hosts: " + ", ".join(
                         f"{k} x{n}" for k, n in net["by_reason"].items()) + ")")
    scope = summary.get("scope") or {}
    if scope.get("dropped"):
        lines.append(f"scope: {scope['dropped']} links and pages dropped by the scope rules ("
                     + ", ".join(f"{k} x{n}" for k, n in scope["by_rule"].items()) + ")")
    cluster = summary.get("cluster")
    if cluster:
        docs = summary["documents"]["exported"]
        lines.append(f"cluster: generation {cluster['generation']} "
                     f"({'joined' if cluster['joined'] else 'started by this worker'}); this "
                     f"worker {summary['requests']['responses']} of {cluster['responses_all']} "
                     f"responses, {docs} of {cluster['exported_all']} documents exported"
                     + (f"; {cluster['recovered_requests']} requests of dead workers requeued"
                        if cluster["recovered_requests"] else "")
                     + ("; HEARTBEAT LOST (pages may be exported twice)"
                        if cluster["heartbeat_lost"] else ""))
    return lines


def write_summary(summary: Mapping[str, Any], path: str | Path) -> Path:
    """Write the summary as JSON, atomically (a reader never sees half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def summary_path_for(feed_path: str | Path) -> Path:
    """Where the summary of a feed file goes: ``<feed>.summary.json``."""
    feed_path = Path(feed_path)
    return feed_path.with_name(feed_path.name + SUMMARY_SUFFIX)


__all__ = [
    "EXIT_NOTHING_FETCHED",
    "STATE_SUMMARY_FILE",
    "SUMMARY_FORMAT",
    "SUMMARY_SUFFIX",
    "DomainCounts",
    "build_summary",
    "error_type",
    "errors_by_type",
    "human_summary",
    "summary_path_for",
    "write_summary",
]
