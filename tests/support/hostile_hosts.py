"""Hostile hosts on 127.0.0.1, one misbehaviour per host: robots.txt, charsets, short bodies, stalls.

:class:`HostileHost` serves an index linking to public and private articles,
pages in lying charsets and pages cut short by their Content-Length; its
robots.txt disallows ``/private/`` and is served the way ``robots`` names
(:data:`ROBOTS_CASES`); ``stall`` makes every article answer 429 with a
Retry-After, or never answer.  Used by ``tests/test_hostile_hosts.py`` and
``benchmarks/hostile.py``: a case is one crawl, because robots.txt is per host.
"""

from __future__ import annotations

import gzip
import socket
import struct
import threading
import time
from functools import cache
from http.server import ThreadingHTTPServer

from tests.support.hostile_site import QuietHandler, unique_text

RULES = b"User-agent: *\nDisallow: /private/\n"
#: Padding of the oversized robots.txt files: comment lines (11 MB, over DOWNLOAD_MAXSIZE).
BIG_ROBOTS_BYTES = 11 << 20
#: How each robots case serves /robots.txt.
ROBOTS_CASES = {
    "plain": "the rules, nothing else",
    "big-rules-first": "the rules, then 11 MB of comments (Content-Length announced)",
    "big-rules-last": "11 MB of comments, then the rules",
    "big-stream": "the rules, then 11 MB of comments, no Content-Length",
    "prefix-sized": "the rules, then 600 kB of comments (over 500 KiB, under DOWNLOAD_MAXSIZE)",
    "gzip-bomb": "gzip-encoded: the rules, then 64 MB of comments",
    "cut-short": "Content-Length 5,000, the rules, then the connection closes",
    "hang": "headers never come",
    "reset": "the connection is reset",
    "503": "503 Service Unavailable",
    "404": "404 (no rules: everything allowed)",
}
PUBLIC = 3
PRIVATE = 3
#: Text of the lying-charset pages: (name, article text, bytes encoding, label, label place).
CYRILLIC = ("Совет небольшого портового города во вторник проголосовал за то, чтобы старый паром "
            "продолжал работать ещё пять лет, после того как более двух тысяч жителей подписали "
            "петицию. Ремонт двигателя и причала обойдётся городу дешевле нового моста.")
WESTERN = ("Le café du port reste ouvert : une décision naïve selon certains, mais le résumé du "
           "conseil municipal montre que les habitants tiennent à leur vieux bateau, à la crêperie "
           "et à la fête d'été qui attire chaque année des milliers de visiteurs étrangers.")
JAPANESE = ("港町の議会は火曜日、古いフェリーをさらに五年間運航し続けることを決めた。二千人以上の住民が"
            "請願に署名し、夏には多くの観光客が崖沿いを散歩し、桟橋近くの魚料理店で食事をする。")
CHINESE = ("这个小港口城镇的议会周二投票决定让旧渡轮再运行五年，此前有两千多名居民签署了请愿书。"
           "市长说，修理发动机和码头的费用比建造一座新桥要少，资金将来自地区交通基金。")
CHARSET_PAGES = {
    "utf8-labelled-latin1": (CYRILLIC, "utf-8", "iso-8859-1", "header"),
    "cp1251-labelled-utf8": (CYRILLIC, "cp1251", "utf-8", "header"),
    "cp1252-labelled-utf8": (WESTERN, "cp1252", "utf-8", "header"),
    "utf8-labelled-cp1252-meta": (WESTERN, "utf-8", "windows-1252", "meta"),
    "sjis-labelled-utf8": (JAPANESE, "shift_jis", "utf-8", "header"),
    "gb18030-labelled-latin1": (CHINESE, "gb18030", "iso-8859-1", "header"),
    "cp1251-labelled-latin1-meta": (CYRILLIC, "cp1251", "iso-8859-1", "meta"),
}
#: Pages whose body the Content-Length cuts: (announced length, body).
SHORT_PAGES = {
    "one-byte": 1,       # Content-Length 1 on a whole page: the body is "<"
    "in-a-tag": 120,     # cut inside the <head>
}


def _page(title: str, body: str, head: str = "<meta charset='utf-8'>") -> str:
    return (f"<!DOCTYPE html><html><head>{head}<title>{title}</title></head>"
            f"<body>{body}</body></html>")


def article(name: str) -> str:
    """The HTML of an ordinary article of its own text."""
    return _page(name, f"<h1>Article {name}</h1><p>Article {name} starts here.</p>"
                 + unique_text(name))


def charset_page(name: str) -> tuple[bytes, str]:
    """(bytes, Content-Type) of the lying-charset page ``name``."""
    text, encoding, label, place = CHARSET_PAGES[name]
    paragraphs = "".join(f"<p>{text}</p>" for _ in range(3)) + unique_text(name)  # no near-dup
    head = f"<meta charset='{label}'>" if place == "meta" else ""
    body = _page(f"Charset {name}", f"<h1>{name}</h1>{paragraphs}", head).encode(encoding)
    content_type = "text/html" + (f"; charset={label}" if place == "header" else "")
    return body, content_type


@cache
def _robots_body(case: str) -> bytes:
    line = b"# " + b"padding " * 12 + b"\n"
    if case in ("big-rules-first", "big-stream", "gzip-bomb"):
        size = 64 << 20 if case == "gzip-bomb" else BIG_ROBOTS_BYTES
        return RULES + line * (size // len(line))
    if case == "big-rules-last":
        return line * (BIG_ROBOTS_BYTES // len(line)) + RULES
    if case == "prefix-sized":
        return RULES + line * (600_000 // len(line))
    return RULES


class _Handler(QuietHandler):
    @property
    def host(self) -> HostileHost:
        return self.server.host  # type: ignore[attr-defined]

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        """Serve the index, articles, charset and short pages, and robots.txt by its case."""
        self.host.requested.append(self.path)
        try:
            self._route(self.path.split("?", 1)[0])
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _route(self, path: str) -> None:
        host = self.host
        if path == "/robots.txt":
            self._robots(host.robots)
        elif path == "/":
            links = [f"/public/{i}" for i in range(1, PUBLIC + 1)]
            links += [f"/private/{i}" for i in range(1, PRIVATE + 1)]
            links += [f"/charset/{name}" for name in CHARSET_PAGES]
            links += [f"/short/{name}" for name in SHORT_PAGES]
            self._send(200, _page("Hostile host", "<ul>" + "".join(
                f"<li><a href='{link}'>{link}</a></li>" for link in links) + "</ul>"
                + unique_text("hostile-host-index")).encode())
        elif path.startswith(("/public/", "/private/")) and host.stall and \
                host.answered >= host.stall_after:
            self._stall(host.stall)
        elif path.startswith(("/public/", "/private/")):
            host.answered += 1
            self._send(200, article(path.strip("/").replace("/", "-")).encode())
        elif path.startswith("/charset/") and path[9:] in CHARSET_PAGES:
            body, content_type = charset_page(path[9:])
            self._send(200, body, content_type)
        elif path.startswith("/short/") and path[7:] in SHORT_PAGES:
            self._send(200, article("short").encode(), length=SHORT_PAGES[path[7:]])
            self.close_connection = True
        else:
            self._send(404, _page("Not found", "<p>No such page.</p>").encode())

    def _robots(self, case: str) -> None:
        if case == "hang":
            self._hang()
        elif case == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
            self.close_connection = True
        elif case == "503":
            self._send(503, b"Service Unavailable", "text/plain")
        elif case == "404":
            self._send(404, b"Not Found", "text/plain")
        elif case == "cut-short":
            self._send(200, RULES, "text/plain", length=5000)
            self.close_connection = True
        elif case == "gzip-bomb":
            self._send(200, _gzipped(_robots_body(case)), "text/plain",
                       headers={"Content-Encoding": "gzip"})
        elif case == "big-stream":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Connection", "close")
            self.end_headers()
            body = _robots_body(case)
            for start in range(0, len(body), 1 << 16):
                if self.host.stopping.is_set():
                    break
                self.wfile.write(body[start:start + (1 << 16)])
            self.close_connection = True
        else:
            self._send(200, _robots_body(case), "text/plain")

    def _stall(self, how: str) -> None:
        if how == "429":
            self._send(429, b"Too Many Requests", "text/plain", headers={"Retry-After": "100"})
        else:
            self._hang()

    def _hang(self) -> None:
        """Read the request, answer nothing until the server stops."""
        self.host.stopping.wait(600)
        self.close_connection = True


@cache
def _gzipped(body: bytes) -> bytes:
    return gzip.compress(body, compresslevel=9)


class HostileHost:
    """One hostile host on 127.0.0.1 (any free port) served from daemon threads.

    ``robots``: a key of :data:`ROBOTS_CASES`.  ``stall``: "" (articles answer),
    "429" (a 429 with Retry-After 100 s) or "hang" (no answer), for every article
    after the first ``stall_after``.
    """

    def __init__(self, robots: str = "plain", stall: str = "", stall_after: int = 0):
        if robots not in ROBOTS_CASES:
            raise KeyError(f"no robots case {robots!r}; known: {', '.join(ROBOTS_CASES)}")
        self.robots = robots
        self.stall = stall
        self.stall_after = stall_after
        self.answered = 0
        self.requested: list[str] = []
        self.stopping = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.host = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Base URL, ending with ``/``."""
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    def start(self) -> HostileHost:
        """Serve in a daemon thread (bodies of the big robots cases built first); returns self."""
        _robots_body(self.robots)
        if self.robots == "gzip-bomb":
            _gzipped(_robots_body(self.robots))
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True,
                                        name="corpuscrawl-hostile-host")
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; hanging answers end too."""
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> HostileHost:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_for(self, prefix: str, timeout: float = 60.0) -> bool:
        """Wait until a path starting with ``prefix`` was requested (True) or ``timeout`` passed."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(p.startswith(prefix) for p in self.requested):
                return True
            time.sleep(0.1)
        return False
