"""Serve the demo site on 127.0.0.1 from a background thread (no files, no network)."""

from __future__ import annotations

import argparse
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from corpuscrawl.demo.site import DemoSite


def _handler(site: DemoSite, requested: Counter[str]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _respond(self, with_body: bool) -> None:
            requested[self.path] += 1
            response = site.get(self.path)
            self.send_response(response.status)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(response.body)))
            self.end_headers()
            if with_body:
                self.wfile.write(response.body)

        def do_GET(self) -> None:  # noqa: N802 (http.server API)
            self._respond(True)

        def do_HEAD(self) -> None:  # noqa: N802
            self._respond(False)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return  # keep crawl logs readable

    return Handler


class DemoServer:
    """The demo site on an HTTP server bound to 127.0.0.1 (port 0 = any free port)."""

    def __init__(self, port: int = 0, synthetic_pages: int = 0):
        self.site = DemoSite(synthetic_pages=synthetic_pages)
        #: Requests received per path (tests check politeness: what was fetched how often).
        self.requested: Counter[str] = Counter()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler(self.site, self.requested))
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Base URL of the running server, ending with ``/``."""
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    def start(self) -> DemoServer:
        """Serve in a daemon thread; returns self."""
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True,
                                        name="corpuscrawl-demo")
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self.httpd.shutdown()
        self.httpd.server_close()


def main() -> None:
    """``python -m corpuscrawl.demo.server [--port N] [--synthetic N]``: serve until Ctrl-C."""
    parser = argparse.ArgumentParser(description="Serve the corpuscrawl demo site on 127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--synthetic", type=int, default=0, help="number of generated pages")
    args = parser.parse_args()
    server = DemoServer(args.port, args.synthetic)
    print(f"serving {server.url}", flush=True)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        server.httpd.server_close()


if __name__ == "__main__":
    main()
