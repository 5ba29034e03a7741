"""A local news site that changes between crawls and honours conditional requests.

A front page links to section pages; each section lists its articles (newest
first, ``per_section`` to a page) and every article links to two older ones
("related", kept as they were when it was written) and announces the RSS feed
of the ten newest stories, which also lists stories no section lists.  Every
page carries an ``ETag`` (hash of the body) and a ``Last-Modified`` (the
page's modification time) and answers ``If-None-Match`` /
``If-Modified-Since`` with 304 as a web server does
(``If-None-Match`` wins when both are sent).  The server counts what it sent:
full bodies per path, 304s, the body bytes, and the requests that carried a
validator — so a test can say which bodies a recrawl downloaded.

Used by tests/test_recrawl.py and benchmarks/recrawl.py.
"""

from __future__ import annotations

import hashlib
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from email.utils import formatdate, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_SYLLABLES = ["ka", "lo", "mi", "ra", "te", "su", "ne", "po", "vi", "da", "ge", "ru",
              "zo", "fa", "bi", "ha", "ju", "ke", "no", "pa", "si", "to", "we", "ya"]
#: Stories in the RSS feed (the newest, listed on a section page or not).
FEED_ITEMS = 10
NOTICE = "Copyright Riverside Gazette Media. All rights reserved. Do not reproduce."


def _words(rng: random.Random, count: int) -> str:
    return " ".join("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 4)))
                    for _ in range(count))


def paragraphs(seed: str, count: int = 4) -> list[str]:
    """Distinct, deterministic article paragraphs (40-70 pseudo-words each)."""
    rng = random.Random(seed)
    return [_words(rng, rng.randint(40, 70)).capitalize() + "." for _ in range(count)]


@dataclass
class Article:
    """One article: its section, title, paragraphs and modification time."""

    number: int
    section: int
    title: str
    body: list[str]
    modified: float
    linked: bool = True  # listed on its section page

    @property
    def path(self) -> str:
        """The article's URL path."""
        return f"/news/{self.number:05d}.html"


@dataclass
class ChangingSite:
    """The site's content; :meth:`edit`, :meth:`add`, :meth:`delete`, :meth:`unlink` change it."""

    articles: dict[int, Article] = field(default_factory=dict)
    sections: int = 4
    per_section: int = 25
    clock: float = 1_700_000_000.0
    #: Bytes of inline script added to every HTML page (real pages are mostly markup).
    padding: int = 0

    @classmethod
    def build(cls, count: int, sections: int = 4, per_section: int = 25,
              padding: int = 0) -> ChangingSite:
        """A site of ``count`` articles spread over ``sections`` sections."""
        site = cls(sections=sections, per_section=per_section, padding=padding)
        for number in range(1, count + 1):
            site.add(number)
        return site

    def tick(self) -> float:
        """Advance the site's clock by an hour (so Last-Modified dates differ)."""
        self.clock += 3600
        return self.clock

    def add(self, number: int) -> Article:
        """A new article (listed on its section)."""
        article = Article(number, number % self.sections, f"Story number {number} of the day",
                          paragraphs(f"article-{number}"), self.tick())
        self.articles[number] = article
        return article

    def edit(self, number: int) -> None:
        """Rewrite the second paragraph of an article."""
        article = self.articles[number]
        article.body[1] = paragraphs(f"edit-{number}-{article.modified}", 1)[0]
        article.modified = self.tick()

    def delete(self, number: int) -> None:
        """Remove an article: its URL answers 404 and nothing links to it."""
        del self.articles[number]

    def unlink(self, number: int) -> None:
        """Keep an article online but list it nowhere."""
        self.articles[number].linked = False

    # --- pages ----------------------------------------------------------------

    def _layout(self, title: str, main: str, head: str = "") -> str:
        nav = " ".join(f'<a href="/section/{s}/1.html">Section {s}</a>'
                       for s in range(self.sections))
        script = (f"<script>var tracking = '{'x' * self.padding}';</script>"
                  if self.padding else "")
        return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title} - "
                f"Riverside Gazette</title>{head}{script}</head><body><header><nav>{nav}</nav></header>"
                f"<main>{main}</main><footer><p>{NOTICE}</p></footer></body></html>")

    def _section_lists(self, section: int) -> list[list[Article]]:
        listed = sorted((a for a in self.articles.values() if a.section == section and a.linked),
                        key=lambda a: -a.number)
        return [listed[i:i + self.per_section]
                for i in range(0, len(listed), self.per_section)] or [[]]

    def page(self, path: str) -> tuple[bytes, float] | None:
        """Body and modification time of ``path``, or None (404)."""
        if path in ("/", "/index.html"):
            links = "".join(f'<li><a href="/section/{s}/1.html">Section {s} news</a></li>'
                            for s in range(self.sections))
            return self._layout("Front page", f"<h1>Riverside Gazette</h1><ul>{links}</ul>") \
                .encode(), self._newest()
        if path.startswith("/section/"):
            try:
                section, number = path[len("/section/"):].removesuffix(".html").split("/")
                section_no, page_no = int(section), int(number)
            except ValueError:
                return None
            if not 0 <= section_no < self.sections:
                return None
            lists = self._section_lists(section_no)
            if not 1 <= page_no <= len(lists):
                return None
            items = "".join(f'<li><a href="{a.path}">{a.title}</a></li>'
                            for a in lists[page_no - 1])
            more = (f'<a href="/section/{section_no}/{page_no + 1}.html">Older stories</a>'
                    if page_no < len(lists) else "")
            modified = max((a.modified for a in lists[page_no - 1]), default=self.clock)
            return self._layout(f"Section {section_no}", f"<ul>{items}</ul>{more}").encode(), \
                modified
        if path.startswith("/news/"):
            try:
                number = int(path[len("/news/"):].removesuffix(".html"))
            except ValueError:
                return None
            article = self.articles.get(number)
            if article is None:
                return None
            body = "".join(f"<p>{p}</p>" for p in article.body)
            # the two previous stories, as written when the article was (dead links stay)
            related = "".join(f'<li><a href="/news/{n:05d}.html">Story number {n} of the day'
                              "</a></li>" for n in range(number - 1, max(0, number - 3), -1))
            main = (f"<article><h1>{article.title}</h1>{body}</article>"
                    f"<aside><h2>Related</h2><ul>{related}</ul></aside>")
            feed = '<link rel="alternate" type="application/rss+xml" href="/feed.xml">'
            return self._layout(article.title, main, feed).encode(), article.modified
        if path == "/feed.xml":
            newest = sorted(self.articles.values(), key=lambda a: -a.number)[:FEED_ITEMS]
            items = "".join(f"<item><title>{a.title}</title><link>{a.path}</link></item>"
                            for a in newest)
            return (f'<?xml version="1.0"?><rss version="2.0"><channel><title>Riverside '
                    f"Gazette</title>{items}</channel></rss>").encode(), self._newest()
        if path == "/robots.txt":
            return b"User-agent: *\nDisallow:\n", self.clock
        return None

    def _newest(self) -> float:
        return max((a.modified for a in self.articles.values()), default=self.clock)


class SiteServer:
    """Serves a :class:`ChangingSite` on 127.0.0.1 and counts what it sends."""

    def __init__(self, site: ChangingSite, delay: float = 0.0) -> None:
        self.site = site
        self.delay = delay  # seconds every answer waits (so a kill can land mid-crawl)
        self.lock = threading.Lock()
        self.reset_counts()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def reset_counts(self) -> None:
        """Zero the counters (between two crawls)."""
        self.bodies: Counter[str] = Counter()  # full-body 200 responses per path
        self.not_modified: Counter[str] = Counter()
        self.conditional: Counter[str] = Counter()  # requests carrying a validator
        self.missing: Counter[str] = Counter()
        self.body_bytes = 0

    @property
    def url(self) -> str:
        """Base URL, ending in '/'."""
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    def __enter__(self) -> SiteServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _not_modified(headers: Any, etag: str, modified: float) -> bool:
    if_none_match = headers.get("If-None-Match")
    if if_none_match is not None:
        return etag in [tag.strip() for tag in if_none_match.split(",")] or if_none_match == "*"
    since = headers.get("If-Modified-Since")
    if since:
        try:
            return int(modified) <= parsedate_to_datetime(since).timestamp()
        except (TypeError, ValueError):
            return False
    return False


def _handler(server: SiteServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server API
            path = self.path.split("?", 1)[0]
            if server.delay:
                time.sleep(server.delay)
            with server.lock:
                found = server.site.page(path)
            if found is None:
                body = b"<html><body><p>Page not found.</p></body></html>"
                with server.lock:
                    server.missing[path] += 1
                self.send_response(404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            body, modified = found
            etag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
            kind = {"/robots.txt": "text/plain", "/feed.xml": "application/rss+xml"}.get(
                path, "text/html; charset=utf-8")
            conditional = ("If-None-Match" in self.headers
                           or "If-Modified-Since" in self.headers)
            with server.lock:
                if conditional:
                    server.conditional[path] += 1
            if _not_modified(self.headers, etag, modified):
                with server.lock:
                    server.not_modified[path] += 1
                self.send_response(304)
                self.send_header("ETag", etag)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            with server.lock:
                server.bodies[path] += 1
                server.body_bytes += len(body)
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", formatdate(modified, usegmt=True))
            self.end_headers()
            self.wfile.write(body)

    return Handler
