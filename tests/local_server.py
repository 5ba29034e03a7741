"""A scriptable HTTP server on a local address for crawl tests (links, guard, politeness).

Routes map a path to a :class:`Reply` or to a function of the hit number returning
one; every request is logged with its arrival time so tests can check what was
fetched, how often and how far apart.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    """One HTTP answer."""

    body: str | bytes = ""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


Route = Reply | Callable[[int], Reply]


class _IPv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


class LocalServer:
    """Serve ``routes`` on ``host`` (any free port) from a daemon thread.

    Paths without a route get the ``"*"`` route, or a 404.  ``host`` may be IPv6.
    """

    def __init__(self, routes: dict[str, Route], host: str = "127.0.0.1", port: int = 0):
        self.routes = routes
        #: (path, monotonic time) of every request received, in order.
        self.log: list[tuple[str, float]] = []
        #: User-Agent header of every request, in order.
        self.agents: list[str] = []
        self._lock = threading.Lock()
        server_class = _IPv6Server if ":" in host else ThreadingHTTPServer
        self.httpd = server_class((host, port), self._handler())
        self.httpd.daemon_threads = True

    @property
    def port(self) -> int:
        """The port served."""
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        """Base URL, ending with ``/``."""
        host = str(self.httpd.server_address[0])
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}/"

    def paths(self) -> list[str]:
        """Paths requested so far, in order."""
        return [p for p, _ in self.log]

    def hits(self, path: str) -> list[float]:
        """Arrival times of the requests for ``path``."""
        return [t for p, t in self.log if p == path]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server API)
                with server._lock:
                    server.log.append((self.path, time.monotonic()))
                    server.agents.append(self.headers.get("User-Agent", ""))
                    count = sum(1 for p, _ in server.log if p == self.path)
                route = server.routes.get(self.path, server.routes.get("*"))
                if route is None:
                    reply = Reply("not found", 404, "text/plain")
                else:
                    reply = route(count) if callable(route) else route
                body = reply.body.encode() if isinstance(reply.body, str) else reply.body
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(body)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                return

        return Handler

    def __enter__(self) -> LocalServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class ServedSite:
    """A generated site served on a free port of 127.0.0.1 from a daemon thread.

    Subclasses build their request handler class and call :meth:`serve` in ``start``.
    """

    _server: ThreadingHTTPServer | None = None

    def serve(self, handler: type[BaseHTTPRequestHandler],
              server_class: type[ThreadingHTTPServer] = ThreadingHTTPServer) -> None:
        """Start serving with ``handler``."""
        self._server = server_class(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        """The home page URL."""
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/"

    def start(self) -> ServedSite:  # pragma: no cover - subclasses serve
        raise NotImplementedError

    def stop(self) -> None:
        """Stop serving."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self):  # noqa: ANN204 (the subclass)
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def static_site(files: dict[str, str]) -> LocalServer:
    """A server of ``files`` (path -> HTML) whose robots.txt allows everything."""
    routes = {path: Reply(html) for path, html in files.items()}
    routes["/robots.txt"] = Reply("User-agent: *\nDisallow:\n", content_type="text/plain")
    return LocalServer(routes)


def article(title: str, links: list[str] = (), words: int = 120) -> str:  # type: ignore[assignment]
    """A small HTML article with enough text to be extracted, linking to ``links``."""
    text = " ".join(f"{title.lower()} sentence number {i} about the river and the town."
                    for i in range(words // 10))
    anchors = "".join(f'<li><a href="{href}">link {i}</a></li>' for i, href in enumerate(links))
    return (f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
            f"<p>{text}</p></article><ul>{anchors}</ul></body></html>")
