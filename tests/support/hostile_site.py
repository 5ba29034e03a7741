"""A hostile web site on 127.0.0.1: every way a server can misbehave, beside good pages.

The index links to five good articles and to every hostile case; robots.txt
names a good sitemap and a gzip-bomb sitemap.  Used by the hostile-server crawl
test and ``benchmarks/hostile.py``: the crawl must count each case, stay
bounded in time and memory, and still export every good page.

Cases (path: what the server does):

* ``/redirect-loop/a`` → ``/b`` → ``/a`` …; ``/redirect-chain/0`` → ``/1`` → … forever
* ``/slow``: headers, then one byte every half second, forever (slowloris)
* ``/cl-long``: Content-Length larger than the body, then the connection closes
* ``/cl-short``: Content-Length smaller than the body (the rest is junk on the wire)
* ``/bomb/gzip``, ``/bomb/deflate``, ``/bomb/br``: 64 MB of zeros, compressed to kilobytes
* ``/sitemap-bomb.xml.gz``: a gzipped sitemap that inflates to 64 MB
* ``/big``: a 50 MB body with its Content-Length; ``/big-stream``: 50 MB without one
* ``/calendar?month=N``: a calendar whose every month links to the next (infinite)
* ``/links``: a page with 5,000 links (to ``/flood/N``)
* ``/octet-html``: an HTML article served as ``application/octet-stream``
* ``/binary-html``: 2 MB of random bytes served as ``text/html``
* ``/lying-charset``: Latin-1 bytes whose ``<meta>`` says UTF-16
* ``/deep``: an article inside 100,000 nested ``<div>``s
"""

from __future__ import annotations

import gzip
import random
import re
import threading
import time
import zlib
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from tests.support.hostile_pages import ACCENTED, ARTICLE

BOMB_BYTES = 64 << 20
BIG_BYTES = 50 << 20
GOOD_PAGES = 5
FLOOD_LINKS = 5000
#: Hostile paths linked from the index (the crawl reaches each one by a link).
HOSTILE_LINKS = ("/redirect-loop/a", "/redirect-chain/0", "/slow", "/cl-long", "/cl-short",
                 "/bomb/gzip", "/bomb/deflate", "/bomb/br", "/big", "/big-stream",
                 "/calendar?month=1", "/links", "/octet-html", "/binary-html",
                 "/lying-charset", "/deep")


_WORDS = re.sub(r"<[^>]+>", " ", ARTICLE).replace(",", "").replace(".", "").lower().split()


def unique_text(seed: str, paragraphs: int = 2, words: int = 70) -> str:
    """Paragraphs of sentences drawn from the article's words, different for every ``seed``.

    Every page of the site has its own text, so neither the near-duplicate
    filter nor the domain boilerplate stage removes the pages a test expects.
    """
    rng = random.Random(seed)
    out = []
    for _ in range(paragraphs):
        sentences = []
        for _ in range(words // 10):
            sentence = " ".join(rng.choice(_WORDS) for _ in range(10))
            sentences.append(sentence[0].upper() + sentence[1:] + ".")
        out.append("<p>" + " ".join(sentences) + "</p>")
    return "".join(out)


def good_text(n: int) -> str:
    """The article of good page ``n``: a numbered first sentence and text of its own."""
    return f"<p>Good article number {n} starts here.</p>" + unique_text(f"good-{n}")


def _page(title: str, body: str) -> bytes:
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head>"
            f"<body>{body}</body></html>").encode()


@cache
def _compressed(kind: str) -> bytes:
    zeros = b"\0" * BOMB_BYTES
    if kind == "gzip":
        return gzip.compress(zeros, compresslevel=1)
    if kind == "deflate":
        return zlib.compress(zeros, 1)
    import brotli

    return brotli.compress(zeros, quality=1)


@cache
def _sitemap_bomb() -> bytes:
    head = b'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    return gzip.compress(head + b" " * BOMB_BYTES + b"</urlset>", compresslevel=1)


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 handler that logs nothing and sends a body with any Content-Length (also a lie)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        return

    def _send(self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8",
              headers: dict[str, str] | None = None, length: int | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)


class _Handler(QuietHandler):
    def _redirect(self, location: str) -> None:
        self._send(302, b"", headers={"Location": location})

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        """Serve the case named by the path (see the module docstring)."""
        self.server.requested.append(self.path)  # type: ignore[attr-defined]
        self.server.times.append((time.monotonic(), self.path))  # type: ignore[attr-defined]
        url = urlsplit(self.path)
        path, query = url.path, parse_qs(url.query)
        try:
            self._route(path, query)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _route(self, path: str, query: dict[str, list[str]]) -> None:
        if path == "/":
            links = [f"<li><a href='/good/{i}'>Good article {i}</a></li>"
                     for i in range(1, GOOD_PAGES + 1)]
            links += [f"<li><a href='{p}'>case {p}</a></li>" for p in HOSTILE_LINKS]
            self._send(200, _page("Hostile site", "<ul>" + "".join(links) + "</ul>"
                                  + unique_text("index")))
        elif path.startswith("/good/"):
            n = int(path.rsplit("/", 1)[1] or 0)
            self._send(200, _page(f"Good {n}", good_text(n)))
        elif path == "/robots.txt":
            self._send(200, b"User-agent: *\nAllow: /\nSitemap: /sitemap.xml\n"
                       b"Sitemap: /sitemap-bomb.xml.gz\n", "text/plain")
        elif path == "/sitemap.xml":
            base = f"http://{self.headers['Host']}"
            urls = "".join(f"<url><loc>{base}/good/{i}</loc></url>"
                           for i in range(1, GOOD_PAGES + 1))
            self._send(200, ('<?xml version="1.0" encoding="UTF-8"?><urlset xmlns='
                             f'"http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
                             ).encode(), "application/xml")
        elif path == "/sitemap-bomb.xml.gz":
            self._send(200, _sitemap_bomb(), "application/x-gzip")
        elif path == "/redirect-loop/a":
            self._redirect("/redirect-loop/b")
        elif path == "/redirect-loop/b":
            self._redirect("/redirect-loop/a")
        elif path.startswith("/redirect-chain/"):
            self._redirect(f"/redirect-chain/{int(path.rsplit('/', 1)[1]) + 1}")
        elif path == "/slow":
            self._trickle()
        elif path == "/cl-long":
            self._send(200, _page("Short", "<p>This body is shorter than announced.</p>"),
                       length=100_000)
            self.close_connection = True
        elif path == "/cl-short":
            body = _page("Long", "<p>This body is longer than announced.</p>" + "x" * 5000)
            self._send(200, body, length=60)
        elif path.startswith("/bomb/"):
            kind = path.rsplit("/", 1)[1]
            self._send(200, _compressed(kind), headers={"Content-Encoding": kind})
        elif path == "/big":
            self._stream(BIG_BYTES, with_length=True)
        elif path == "/big-stream":
            self._stream(BIG_BYTES, with_length=False)
        elif path == "/calendar":
            month = int((query.get("month") or ["1"])[0])
            self._send(200, _page(f"Calendar {month}", (
                f"<p>Events in month {month}: none planned yet.</p>"
                f"<a href='/calendar?month={month - 1}'>previous</a> "
                f"<a href='/calendar?month={month + 1}'>next</a>")))
        elif path == "/links":
            links = "".join(f"<a href='/flood/{i}'>item {i}</a> " for i in range(FLOOD_LINKS))
            self._send(200, _page("Many links", links))
        elif path.startswith("/flood/"):
            self._send(200, _page("Flood", f"<p>Flood item {path.rsplit('/', 1)[1]}.</p>"))
        elif path == "/octet-html":
            self._send(200, _page("Octet", "<p>Octet stream article.</p>"
                                  + unique_text("octet")), "application/octet-stream")
        elif path == "/binary-html":
            self._send(200, random.Random(1).randbytes(2 << 20), "text/html")
        elif path == "/lying-charset":
            body = (f"<html><head><meta charset='utf-16'><title>Charset</title></head><body>"
                    f"{ACCENTED}{unique_text('charset')}</body></html>").encode("latin-1")
            self._send(200, body, "text/html")
        elif path == "/deep":
            self._send(200, _page("Deep", "<div>" * 100_000 + "<p>Deep article.</p>"
                                  + unique_text("deep") + "</div>" * 100_000))
        else:
            self._send(404, _page("Not found", "<p>No such page.</p>"))

    def _trickle(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", "1000000")
        self.end_headers()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not self.server.stopping.is_set():  # type: ignore[attr-defined]
            self.wfile.write(b"<")
            self.wfile.flush()
            time.sleep(0.5)
        self.close_connection = True

    def _stream(self, size: int, with_length: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        if with_length:
            self.send_header("Content-Length", str(size))
        self.end_headers()
        chunk = (b"<p>" + b"filler " * 9000 + b"</p>\n")
        sent = 0
        while sent < size and not self.server.stopping.is_set():  # type: ignore[attr-defined]
            self.wfile.write(chunk)
            sent += len(chunk)
        self.close_connection = True


class HostileServer:
    """The hostile site on 127.0.0.1 (port 0 = any free port), served from daemon threads."""

    def __init__(self, port: int = 0):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.requested = []  # type: ignore[attr-defined]
        self.httpd.times = []  # type: ignore[attr-defined]
        self.httpd.stopping = threading.Event()  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Base URL, ending with ``/``."""
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    @property
    def requested(self) -> list[str]:
        """Paths requested so far, in order."""
        return self.httpd.requested  # type: ignore[attr-defined]

    @property
    def times(self) -> list[tuple[float, str]]:
        """(time.monotonic(), path) of every request so far."""
        return self.httpd.times  # type: ignore[attr-defined]

    def start(self) -> HostileServer:
        """Build the bombs (about a second), then serve in a daemon thread; returns self."""
        for kind in ("gzip", "deflate", "br"):
            _compressed(kind)
        _sitemap_bomb()
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True,
                                        name="corpuscrawl-hostile")
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving (slow and streaming responses end too)."""
        self.httpd.stopping.set()  # type: ignore[attr-defined]
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> HostileServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
