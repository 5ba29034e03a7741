"""A local news site whose answers exercise what a WARC must keep, served on 127.0.0.1.

The articles are those of tests/boilerplate_site.py (a long site-wide notice and
rotating share prompts, so the boilerplate stage has work to do), and the
server varies how it answers, as real servers do:

* every third article is sent with ``Content-Encoding: gzip``, every third+1
  with ``Transfer-Encoding: chunked`` (HTTP/1.1), the rest plainly;
* ``latin.html`` is ISO-8859-2, declared in the header only;
* ``/robots.txt`` names ``/sitemap.xml``, which lists a few articles;
* ``/old-front.html`` redirects (301) to ``/index.html``;
* ``/download`` is a binary file without extension (skipped by type);
* unknown paths get the site's 404 template.

Used by tests/test_archive_crawl.py and benchmarks/warc.py (``articles`` sets
the size; ``delay`` slows every answer down, to interrupt a crawl midway).
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.boilerplate_site import article_html, error_html, make_article

LATIN_TEXT = ("Příliš žluťoučký kůň úpěl ďábelské ódy. Zpráva o řece, mostě a knihovně "
              "v malém městě, kde se lidé scházejí každý týden na trhu a povídají si o počasí.")


def _latin_page() -> bytes:
    paragraphs = "".join(f"<p>{escape(LATIN_TEXT)} {i}</p>" for i in range(4))
    html = (f"<html><head><title>Zpráva z města</title></head><body><article>"
            f"<h1>Zpráva z města</h1>{paragraphs}</article></body></html>")
    return html.encode("iso-8859-2")


class WarcSite:
    """The site's pages by path, and a threaded HTTP server for them."""

    def __init__(self, articles: int = 30, delay: float = 0.0) -> None:
        self.articles = [make_article(i) for i in range(1, articles + 1)]
        self.delay = delay
        self.pages: dict[str, bytes] = {a.slug: article_html(a).encode() for a in self.articles}
        links = "".join(f'<li><a href="/{a.slug}">{escape(a.title)}</a></li>'
                        for a in self.articles)
        self.pages["index.html"] = (
            "<html><head><title>Daily Example</title></head><body><ul>"
            f"{links}<li><a href='/latin.html'>Zpráva</a></li>"
            "<li><a href='/download'>Data</a></li><li><a href='/missing.html'>Gone</a></li>"
            "</ul></body></html>").encode()
        self.server: ThreadingHTTPServer | None = None
        self.hits = 0

    @property
    def url(self) -> str:
        """The site's root URL."""
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def answer(self, path: str) -> tuple[int, list[tuple[str, str]], bytes, bool]:
        """(status, headers, body, chunked) for a request path."""
        html = [("Content-Type", "text/html; charset=utf-8")]
        name = path.lstrip("/").split("?", 1)[0] or "index.html"
        if name == "robots.txt":
            return 200, [("Content-Type", "text/plain")], \
                f"User-agent: *\nDisallow: /private/\nSitemap: {self.url}sitemap.xml\n".encode(), False
        if name == "sitemap.xml":
            urls = "".join(f"<url><loc>{self.url}{a.slug}</loc></url>" for a in self.articles[:5])
            return 200, [("Content-Type", "application/xml")], (
                '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns='
                f'"http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>').encode(), False
        if name == "old-front.html":
            return 301, [("Location", self.url + "index.html")], b"", False
        if name == "download":
            return 200, [("Content-Type", "application/octet-stream")], bytes(range(256)) * 8, False
        if name == "latin.html":
            return 200, [("Content-Type", "text/html; charset=iso-8859-2")], _latin_page(), False
        if name not in self.pages:
            return 404, html, error_html(True).encode(), False
        body = self.pages[name]
        number = int(name.split("-")[1].split(".")[0]) if name.startswith("article-") else 0
        if number % 3 == 0 and number:
            return 200, html + [("Content-Encoding", "gzip")], gzip.compress(body), False
        return 200, html, body, number % 3 == 1

    @contextmanager
    def serve(self) -> Iterator[WarcSite]:
        """Serve the site on 127.0.0.1 (a free port) while the block runs."""
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 - http.server API
                site.hits += 1
                if site.delay:
                    time.sleep(site.delay)
                status, headers, body, chunked = site.answer(self.path)
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                if chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for start in range(0, len(body), 700):
                        piece = body[start:start + 700]
                        self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                    self.wfile.write(b"0\r\n\r\n")
                else:
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.server.shutdown()
            self.server.server_close()
