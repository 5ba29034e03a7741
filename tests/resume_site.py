"""A generated news site of a few hundred articles, served on 127.0.0.1 with small delays.

Used by tests/test_resume.py: a crawl of it is killed mid-way and restarted.
``/`` links to list pages ``/list/N``; each lists ``PER_LIST`` articles
``/article/K`` and the next list; each article links home and to two other
articles (so most links are duplicates the seen-set must drop).  Article
texts are distinct random sentences, so no article is a near-duplicate of
another.  Every answer waits ``delay`` seconds, so a crawl takes long enough
for a kill to land in the middle of it.
"""

from __future__ import annotations

import collections
import http.server
import random
import threading
import time
from html import escape

from tests.local_server import ServedSite

PER_LIST = 20
_WORDS = (
    "river council budget harbour engineers survey village school museum railway festival "
    "farmers weather bridge library orchestra election hospital scientists archive forest "
    "island market students volunteers coastline mayor report project winter harvest "
    "community research vaccine stadium ferry theatre bakery factory glacier canal tower "
    "garden pilots nurses poets miners painters sailors bakers judges"
).split()
_VERBS = "announced reported opened rejected approved discovered measured restored".split()


def article_text(number: int) -> tuple[str, list[str]]:
    """Title and paragraphs of article ``number`` (deterministic)."""
    rng = random.Random(number * 7919 + 17)
    title = f"Article {number}: " + " ".join(rng.choice(_WORDS) for _ in range(4)).title()
    paragraphs = []
    for _ in range(5):
        sentences = []
        for _ in range(rng.randint(3, 5)):
            words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 14))]
            words.insert(2, rng.choice(_VERBS))
            sentences.append(" ".join(words).capitalize() + ".")
        paragraphs.append(" ".join(sentences))
    return title, paragraphs


class ResumeSite(ServedSite):
    """The site: ``articles`` articles; start() serves it on a free port of 127.0.0.1."""

    def __init__(self, articles: int = 300, delay: float = 0.02) -> None:
        self.articles = articles
        self.delay = delay
        self.lists = (articles + PER_LIST - 1) // PER_LIST
        self.requests = 0
        #: Requests per path (with its query).
        self.paths: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()

    def hits(self, prefix: str) -> int:
        """Requests for paths starting with ``prefix``."""
        with self._lock:
            return sum(n for path, n in self.paths.items() if path.startswith(prefix))

    def reply(self, path: str) -> tuple[int, str, bytes]:
        """Status, content type and body of the answer to ``path``."""
        html = self.page(path.split("?")[0])
        body = (html or "<html><body><p>Not found</p></body></html>").encode()
        return (200 if html is not None else 404), "text/html; charset=utf-8", body


    def article_urls(self) -> set[str]:
        """URLs of every article."""
        return {f"{self.url}article/{n}" for n in range(self.articles)}

    def page(self, path: str) -> str | None:
        """The HTML of ``path``, or None (404)."""
        if path == "/":
            items = "".join(f'<li><a href="/list/{i}">Section {i}</a></li>'
                            for i in range(self.lists))
            return self._html("Front page", f"<h1>Front page</h1><ul>{items}</ul>")
        if path.startswith("/list/") and path[6:].isdigit():
            i = int(path[6:])
            if i >= self.lists:
                return None
            numbers = range(i * PER_LIST, min((i + 1) * PER_LIST, self.articles))
            items = "".join(f'<li><a href="/article/{n}">{escape(article_text(n)[0])}</a></li>'
                            for n in numbers)
            more = f'<a href="/list/{i + 1}">More</a>' if i + 1 < self.lists else ""
            return self._html(f"Section {i}", f"<h1>Section {i}</h1><ul>{items}</ul>{more}")
        if path.startswith("/article/") and path[9:].isdigit():
            n = int(path[9:])
            if n >= self.articles:
                return None
            title, paragraphs = article_text(n)
            body = "".join(f"<p>{escape(p)}</p>" for p in paragraphs)
            related = "".join(f'<a href="/article/{(n + k) % self.articles}">Related {k}</a> '
                              for k in (1, 7))
            return self._html(title, f"<article><h1>{escape(title)}</h1>{body}</article>"
                                     f"<aside>{related}</aside>")
        return None

    @staticmethod
    def _html(title: str, main: str) -> str:
        return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{escape(title)}"
                f"</title></head><body><nav><a href='/'>Home</a></nav><main>{main}</main>"
                "<footer>Resume Gazette</footer></body></html>")

    def start(self) -> ResumeSite:
        """Serve on 127.0.0.1 in a daemon thread."""
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                with site._lock:
                    site.requests += 1
                    site.paths[self.path] += 1
                time.sleep(site.delay)
                status, content_type, body = site.reply(self.path)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the crawler was killed mid-answer

        self.serve(Handler)
        return self

