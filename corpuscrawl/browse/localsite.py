"""Serve a directory of hand-written dynamic pages on 127.0.0.1 (tests, training, benchmarks).

The pages under ``tests/data/dynamic/`` imitate real sites' scripts (comment
pagers, "load more", consent walls, infinite feeds, redirect proxies).  They
need absolute URLs to other hosts and a redirect proxy, so the server:

* replaces ``{{ORIGIN}}`` with ``http://127.0.0.1:<port>`` (``{{ORIGIN_ENC}}``: the
  same, percent-encoded for a proxy's ``url=`` parameter) and ``{{ALT_ORIGIN}}``
  with ``http://localhost:<port>`` in HTML, JS and JSON files — two host names
  for one server, i.e. two different *sites* as far as the crawler can tell;
* answers ``/x.php?...&url=<encoded URL>`` (dex.hu's redirect proxy) with a 302
  to the decoded URL;
* delays JSON responses by ``latency`` seconds, like a real feed API, so that
  the interaction loop's waiting is exercised.

Plain ``http.server`` in a daemon thread; no Scrapy.
"""

from __future__ import annotations

import http.server
import threading
import time
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qsl, quote, urlsplit

#: Default delay of JSON responses (seconds): a quick API on a local network.
LATENCY_DEFAULT = 0.05
_TEXT_TYPES = {".html": "text/html; charset=utf-8", ".js": "application/javascript",
               ".json": "application/json", ".css": "text/css", ".txt": "text/plain"}


class LocalSite:
    """A threaded HTTP server for one directory; use as a context manager."""

    def __init__(self, root: str | Path, port: int = 0, latency: float = LATENCY_DEFAULT):
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise FileNotFoundError(f"site directory {self.root} does not exist")
        self.latency = latency
        self.hits: dict[str, int] = {}
        handler = _make_handler(self)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
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

    def start(self) -> LocalSite:
        """Start serving in a background thread."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> LocalSite:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


def _make_handler(site: LocalSite) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        """Static files with origin placeholders, plus the ``/x.php`` redirect proxy."""

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return  # keep test output quiet

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            parts = urlsplit(self.path)
            site.hits[parts.path] = site.hits.get(parts.path, 0) + 1
            if parts.path.endswith("/x.php"):
                target = dict(parse_qsl(parts.query)).get("url", "")
                if not target.startswith(("http://", "https://")):
                    self.send_error(400, "x.php needs an absolute url= parameter")
                    return
                self.send_response(302)
                self.send_header("Location", target)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            rel = parts.path.lstrip("/") or "index.html"
            path = (site.root / rel).resolve()
            if path.is_dir():
                path = path / "index.html"
            if site.root not in path.parents or not path.is_file():
                self.send_error(404)
                return
            body = path.read_bytes()
            ctype = _TEXT_TYPES.get(path.suffix, "application/octet-stream")
            if path.suffix in _TEXT_TYPES:
                host = self.headers.get("Host", "")
                body = (body.replace(b"{{ORIGIN_ENC}}", quote(site.origin, safe="").encode())
                        .replace(b"{{ORIGIN}}", site.origin.encode())
                        .replace(b"{{ALT_ORIGIN}}", site.alt_origin.encode())
                        .replace(b"{{HOST}}", host.encode()))
            if path.suffix == ".json" and site.latency:
                time.sleep(site.latency)
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

    return Handler
