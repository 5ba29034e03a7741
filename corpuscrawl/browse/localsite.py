"""Local HTTP servers on 127.0.0.1 for tests, training and benchmarks of dynamic pages.

:class:`LocalServer` is the one server: a threaded ``http.server`` in a daemon
thread that answers every GET with what a *respond* function returns
(:class:`Reply`: status, body, type, redirect, delay), counts hits per path and
names the two host names it can be reached by — ``127.0.0.1:<port>`` (the
site) and ``localhost:<port>`` (the same server seen as another site).  The
generated test bed (``tests/dynamic_bed.py``) serves its patterns through it.

:class:`LocalSite` serves a directory of hand-written dynamic pages
(``tests/data/dynamic/``, imitating real sites' scripts: comment pagers, "load
more", consent walls, infinite feeds, redirect proxies).  They need absolute
URLs to other hosts and a redirect proxy, so it:

* replaces ``{{ORIGIN}}`` with ``http://127.0.0.1:<port>`` (``{{ORIGIN_ENC}}``: the
  same, percent-encoded for a proxy's ``url=`` parameter) and ``{{ALT_ORIGIN}}``
  with ``http://localhost:<port>`` in HTML, JS and JSON files — two host names
  for one server, i.e. two different *sites* as far as the crawler can tell;
* answers ``/x.php?...&url=<encoded URL>`` (dex.hu's redirect proxy) with a 302
  to the decoded URL;
* delays JSON responses by ``latency`` seconds, like a real feed API, so that
  the interaction loop's waiting is exercised.

No Scrapy.
"""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qsl, quote, urlsplit

#: Default delay of JSON responses (seconds): a quick API on a local network.
LATENCY_DEFAULT = 0.05
_TEXT_TYPES = {".html": "text/html; charset=utf-8", ".js": "application/javascript",
               ".json": "application/json", ".css": "text/css", ".txt": "text/plain"}


@dataclass
class Reply:
    """What a :class:`LocalServer` answers: status, body, type, ``Location``, delay (s)."""

    status: int = 200
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    location: str = ""
    delay: float = 0.0


#: ``respond(path, query, headers) -> Reply``: the answer to one GET.
Respond = Callable[[str, dict[str, str], Mapping[str, str]], Reply]


class LocalServer:
    """A threaded HTTP server on 127.0.0.1 answering with ``respond``; a context manager."""

    def __init__(self, respond: Respond, port: int = 0):
        self.respond = respond
        self.hits: dict[str, int] = {}
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), _make_handler(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self.server.server_address[1])

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:<port>``: the site's origin."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def alt_origin(self) -> str:
        """``http://localhost:<port>``: the same server seen as another site."""
        return f"http://localhost:{self.port}"

    def url(self, path: str) -> str:
        """Absolute URL of a path on the site."""
        return self.origin + "/" + path.lstrip("/")

    def start(self) -> LocalServer:
        """Start serving in a background thread."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


class LocalSite(LocalServer):
    """A directory served with origin placeholders, the ``/x.php`` proxy and slow JSON."""

    def __init__(self, root: str | Path, port: int = 0, latency: float = LATENCY_DEFAULT):
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise FileNotFoundError(f"site directory {self.root} does not exist")
        self.latency = latency
        super().__init__(self._respond, port)

    def __enter__(self) -> LocalSite:
        self.start()
        return self

    def _respond(self, path: str, query: dict[str, str], headers: Mapping[str, str]) -> Reply:
        if path.endswith("/x.php"):
            target = query.get("url", "")
            if not target.startswith(("http://", "https://")):
                return Reply(400, b"x.php needs an absolute url= parameter", "text/plain")
            return Reply(302, location=target)
        rel = path.lstrip("/") or "index.html"
        file = (self.root / rel).resolve()
        if file.is_dir():
            file = file / "index.html"
        if self.root not in file.parents or not file.is_file():
            return Reply(404, b"<html><body><p>Not found</p></body></html>")
        body = file.read_bytes()
        ctype = _TEXT_TYPES.get(file.suffix, "application/octet-stream")
        if file.suffix in _TEXT_TYPES:
            body = (body.replace(b"{{ORIGIN_ENC}}", quote(self.origin, safe="").encode())
                    .replace(b"{{ORIGIN}}", self.origin.encode())
                    .replace(b"{{ALT_ORIGIN}}", self.alt_origin.encode())
                    .replace(b"{{HOST}}", headers.get("Host", "").encode()))
        delay = self.latency if file.suffix == ".json" else 0.0
        return Reply(200, body, ctype, delay=delay)


def _make_handler(server: LocalServer) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        """Every GET answered by the server's ``respond`` (no caching, explicit length)."""

        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return  # keep test output quiet

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            parts = urlsplit(self.path)
            server.hits[parts.path] = server.hits.get(parts.path, 0) + 1
            reply = server.respond(parts.path, dict(parse_qsl(parts.query)), self.headers)
            if reply.delay:
                time.sleep(reply.delay)
            try:
                self.send_response(reply.status)
                if reply.location:
                    self.send_header("Location", reply.location)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(reply.body)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client went away (a closed page)

    return Handler
