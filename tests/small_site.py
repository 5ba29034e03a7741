"""A small news site served on 127.0.0.1 for crawl-level tests (summary, Scrapyd).

Pages (texts differ between site variants): a front page linking to ``ARTICLES`` articles, a near-duplicate of the
first article under another URL, a page with no text, and a dead link (404).
Every article carries the same footer paragraph (domain boilerplate).
``robots.txt`` and ``sitemap.xml`` answer 404.
"""

from __future__ import annotations

import http.server
import threading
from functools import partial
from typing import Any

ARTICLES = 4
FOOTER = "Small Site News is published by the Small Site cooperative, all rights reserved."
_TOPICS = ("harbour", "library", "orchard", "railway", "festival", "bridge")
#: One town per site variant: every paragraph names it (masked numbers alone do not differ).
_TOWNS = ("Ashford", "Brightwater", "Coldmoor", "Dunmere")


def article_text(index: int, variant: int = 0) -> list[str]:
    """The body paragraphs of article ``index`` (distinct words per article and site variant)."""
    topic = f"{_TOPICS[index % len(_TOPICS)]} of {_TOWNS[variant % len(_TOWNS)]}"
    index += 100 * variant
    return [f"The {topic} committee met on day {index} to discuss the plans for the coming "
            f"season, and the members agreed that the {topic} needs {index + 3} new volunteers "
            "before the spring market opens in the old town square near the river.",
            f"Residents who want to help with the {topic} can write to the committee, which "
            f"answers every letter within {index + 2} weeks and publishes its minutes online.",
            f"Article number {index} ends with a note about the {topic} budget, which grew by "
            f"{index * 7 + 5} percent after a long debate in the council chamber last year."]


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html><html><head><title>{title} | Small Site News</title></head><body>"
            "<nav><a href='/'>Home</a> <a href='/a0.html'>Latest</a></nav>"
            f"<main>{body}</main><footer><p>{FOOTER}</p></footer></body></html>")


def article_html(index: int, variant: int = 0) -> str:
    """Article ``index``: headline, paragraphs, the site footer."""
    paragraphs = "".join(f"<p>{p}</p>" for p in article_text(index, variant))
    return _page(f"Story {index}", f"<article><h1>Story {index}</h1>{paragraphs}</article>")


def pages(variant: int = 0) -> dict[str, str]:
    """Path -> HTML of every page that exists (``variant`` n: another site, other texts)."""
    links = "".join(f"<li><a href='/a{i}.html'>Story {i}</a></li>" for i in range(ARTICLES))
    site = {"/": _page("Front page", f"<ul>{links}</ul><a href='/copy-of-a0.html'>Again</a>"
                                    "<a href='/gone.html'>Gone</a> <a href='/blank.html'>?</a>"),
            "/copy-of-a0.html": article_html(0, variant),
            "/blank.html": "<!DOCTYPE html><html><head><title></title></head><body></body></html>"}
    site.update({f"/a{i}.html": article_html(i, variant) for i in range(ARTICLES)})
    return site


class _Handler(http.server.BaseHTTPRequestHandler):
    site: dict[str, str] = {}

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        body = self.site.get(self.path.split("?")[0])
        data = (body if body is not None else "<html><body>Not found</body></html>").encode()
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        """Quiet."""


class SmallSite:
    """The site on a free port of 127.0.0.1 (a context manager)."""

    def __init__(self, variant: int = 0) -> None:
        handler = type("Handler", (_Handler,), {"site": pages(variant)})
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(handler))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> SmallSite:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
