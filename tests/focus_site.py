"""A generated news/blog site where articles are a fifth of the pages, hidden among listings.

Used by tests/test_focus_crawl.py and benchmarks/focus.py to measure how many
articles a focused crawl fetches within a page budget.  The site is shaped like
a real CMS (WordPress, a newspaper) rather than like our heuristics:

* the home page links sections, a tag cloud, this month's calendar, the month
  archive and the authors, but no article;
* every listing (tag pages, author pages, month archives, each paginated, and
  one calendar page per day, most of them empty) shows up to ``PER_PAGE``
  teasers (headline link, excerpt, "Read more", author and date links) beside
  a sidebar repeating the whole tag cloud, the month's calendar (every day
  linked), the archive months and the authors;
* articles link back to their tags, author, day and month, and nothing else
  (optionally ``related`` teasers of other articles), so articles are found
  only through the link-heavy pages;
* ``style`` changes every URL scheme (``wordpress``: ``/2024/05/13/slug/``,
  ``/tag/x/page/2/``; ``portal``: ``/article.php?id=123``,
  ``/index.php?view=tag&t=x&p=2``, ``/calendar?d=2024-05-13``), so a crawler
  cannot rely on one URL shape.

Pages are 20 % articles (``articles`` of them; the number of calendar days
is chosen so the other pages make up the remaining 80 %).
"""

from __future__ import annotations

import datetime as dt
import http.server
import json
import math
import random
import signal
import sys
import tempfile
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from tests.crawl_helpers import REPO, TEST_CRAWL_OPTIONS, run_interrupted
from tests.local_server import ServedSite

#: Teasers per listing page.
PER_PAGE = 10
#: Tags per article.
TAGS_PER_ARTICLE = 3
STYLES = ("wordpress", "portal")
_WORDS = (
    "the council said on monday that new budget for harbour works would be approved after "
    "engineers finished their survey of the old bridge and village school while museum staff "
    "prepared a festival for farmers who reported that weather in the region had been unusual "
    "this year with a long winter and a late harvest residents asked the mayor about railway "
    "services hospital waiting times and the future of the local library which volunteers "
    "have kept open since students began a research project on the coastline and forest"
).split()
_TAG_NAMES = (
    "politics economy sport culture science health travel weather business education "
    "technology music film books environment transport housing crime energy farming food "
    "history religion fashion media law tourism football tennis elections markets space "
    "climate art theatre cycling gardening opinion letters obituaries"
).split()
_FIRST = "Ana Marko Ivana Luka Petra Josip Maja Tomislav Sara Nikola Eva Filip".split()
_LAST = "Horvat Kovac Babic Maric Juric Novak Vukovic Knezevic Markovic Petrovic".split()


@dataclass
class Article:
    """One article: its number, day, author, tags and text."""

    number: int
    day: dt.date
    author: int
    tags: list[int]
    title: str
    paragraphs: list[str]
    related: list[int] = field(default_factory=list)


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(9, 18))]
    return " ".join(words).capitalize() + "."


class _QuietServer(http.server.ThreadingHTTPServer):
    """A server that does not print the connections a killed crawler dropped."""

    def handle_error(self, request: object, client_address: object) -> None:
        return


class FocusSite(ServedSite):
    """The generated site (deterministic for a ``seed``); :meth:`start` serves it on 127.0.0.1."""

    def __init__(self, articles: int = 200, style: str = "wordpress", seed: int = 1,
                 related: int = 0) -> None:
        if style not in STYLES:
            raise ValueError(f"unknown style {style!r}; known: {', '.join(STYLES)}")
        self.style, self.rng, self.related = style, random.Random(seed), related
        n_tags = max(8, min(len(_TAG_NAMES), articles // 6))
        self.tags = _TAG_NAMES[:n_tags]
        self.authors = [f"{_FIRST[i % len(_FIRST)]} {_LAST[(i * 7) % len(_LAST)]}"
                        for i in range(max(4, articles // 25))]
        # Days are chosen so that non-article pages are four times the articles.
        listing = self._listing_pages(articles, n_tags, len(self.authors))
        days = max(30, 4 * articles - listing)
        self.start_day = dt.date(2024, 1, 1)
        self.days = [self.start_day + dt.timedelta(days=i) for i in range(days)]
        self.articles = [self._article(i, articles) for i in range(articles)]
        self.by_tag: dict[int, list[int]] = defaultdict(list)
        self.by_author: dict[int, list[int]] = defaultdict(list)
        self.by_day: dict[dt.date, list[int]] = defaultdict(list)
        self.by_month: dict[tuple[int, int], list[int]] = defaultdict(list)
        for a in self.articles:
            for t in a.tags:
                self.by_tag[t].append(a.number)
            self.by_author[a.author].append(a.number)
            self.by_day[a.day].append(a.number)
            self.by_month[(a.day.year, a.day.month)].append(a.number)
        self.months = sorted({(d.year, d.month) for d in self.days})
        self.requests: list[str] = []
        self._lock = threading.Lock()

    @staticmethod
    def _listing_pages(articles: int, tags: int, authors: int) -> int:
        per_tag = articles * TAGS_PER_ARTICLE / tags
        months = 12  # about a year of days
        return (tags * math.ceil(per_tag / PER_PAGE) + authors * math.ceil(articles / authors / PER_PAGE)
                + months * math.ceil(articles / months / PER_PAGE) + 4)

    def _article(self, number: int, total: int) -> Article:
        rng = self.rng
        day = rng.choice(self.days)
        tags = rng.sample(range(len(self.tags)), TAGS_PER_ARTICLE)
        words = [rng.choice(_WORDS) for _ in range(rng.randint(5, 9))]
        title = " ".join(words).capitalize()
        paragraphs = [" ".join(_sentence(rng) for _ in range(rng.randint(3, 6)))
                      for _ in range(rng.randint(5, 9))]
        related = rng.sample(range(total), min(total, 3))
        return Article(number, day, rng.randrange(len(self.authors)), tags, title,
                       paragraphs, related)

    # --- URLs -------------------------------------------------------------------------

    def article_url(self, n: int) -> str:
        """Path of article ``n``."""
        a = self.articles[n]
        if self.style == "portal":
            return f"/article.php?id={1000 + n}"
        slug = "-".join(a.title.lower().split()[:6])
        return f"/{a.day:%Y/%m/%d}/{slug}-{n}/"

    def tag_url(self, t: int, page: int = 1) -> str:
        """Path of page ``page`` of tag ``t``."""
        name = self.tags[t]
        if self.style == "portal":
            return f"/index.php?view=tag&t={name}" + (f"&p={page}" if page > 1 else "")
        return f"/tag/{name}/" + (f"page/{page}/" if page > 1 else "")

    def author_url(self, i: int, page: int = 1) -> str:
        """Path of page ``page`` of author ``i``."""
        slug = self.authors[i].lower().replace(" ", "-")
        if self.style == "portal":
            return f"/index.php?view=author&a={slug}" + (f"&p={page}" if page > 1 else "")
        return f"/author/{slug}/" + (f"page/{page}/" if page > 1 else "")

    def day_url(self, day: dt.date) -> str:
        """Path of a calendar day."""
        return f"/calendar?d={day:%Y-%m-%d}" if self.style == "portal" else f"/{day:%Y/%m/%d}/"

    def month_url(self, ym: tuple[int, int], page: int = 1) -> str:
        """Path of page ``page`` of a month archive."""
        if self.style == "portal":
            return f"/index.php?view=archive&m={ym[0]}-{ym[1]:02d}" + (f"&p={page}" if page > 1 else "")
        return f"/{ym[0]}/{ym[1]:02d}/" + (f"page/{page}/" if page > 1 else "")

    def is_article(self, path: str) -> bool:
        """True when ``path`` is an article's path."""
        return path in self._article_paths

    @property
    def _article_paths(self) -> set[str]:
        if not hasattr(self, "_paths_cache"):
            self._paths_cache = {self.article_url(a.number) for a in self.articles}
        return self._paths_cache

    # --- pages --------------------------------------------------------------------------

    def _sidebar(self, month: tuple[int, int]) -> str:
        cloud = " ".join(f'<a href="{self.tag_url(t)}">{escape(name)}</a>'
                         for t, name in enumerate(self.tags))
        days = [d for d in self.days if (d.year, d.month) == month]
        calendar = "".join(f'<td><a href="{self.day_url(d)}">{d.day}</a></td>'
                           + ("</tr><tr>" if d.weekday() == 6 else "") for d in days)
        i = self.months.index(month)
        prev_next = "".join(f'<a href="{self.month_url(m)}">{label}</a> '
                            for m, label in ((self.months[i - 1] if i else None, "&laquo; Prev"),
                                             (self.months[i + 1] if i + 1 < len(self.months)
                                              else None, "Next &raquo;")) if m)
        archive = "".join(f'<li><a href="{self.month_url(m)}">'
                          f'{dt.date(m[0], m[1], 1):%B %Y}</a></li>' for m in self.months)
        authors = "".join(f'<li><a href="{self.author_url(i)}">{escape(name)}</a></li>'
                          for i, name in enumerate(self.authors))
        return (f'<aside class="sidebar"><div class="widget tagcloud"><h3>Tags</h3>{cloud}</div>'
                f'<div class="widget calendar"><h3>{dt.date(*month, 1):%B %Y}</h3>'
                f'<table><tr>{calendar}</tr></table>{prev_next}</div>'
                f'<div class="widget archive"><h3>Archives</h3><ul>{archive}</ul></div>'
                f'<div class="widget authors"><h3>Authors</h3><ul>{authors}</ul></div></aside>')

    def _frame(self, title: str, main: str, month: tuple[int, int]) -> str:
        nav = "".join(f'<li><a href="{self.tag_url(t)}">{escape(self.tags[t].title())}</a></li>'
                      for t in range(min(6, len(self.tags))))
        return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{escape(title)} | The Daily Example</title></head><body>"
                f'<header><a href="/">The Daily Example</a><nav><ul>{nav}</ul></nav></header>'
                f'<div class="content">{main}</div>{self._sidebar(month)}'
                '<footer><a href="/about/">About</a> <a href="/contact/">Contact</a> '
                '<a href="/privacy/">Privacy</a> &copy; The Daily Example</footer></body></html>')

    def _teaser(self, n: int) -> str:
        a = self.articles[n]
        excerpt = " ".join(a.paragraphs[0].split()[:30])
        return (f'<div class="post"><h2><a href="{self.article_url(n)}">{escape(a.title)}</a></h2>'
                f'<div class="meta">By <a href="{self.author_url(a.author)}">'
                f'{escape(self.authors[a.author])}</a> on <a href="{self.day_url(a.day)}">'
                f'{a.day:%d %B %Y}</a></div><p>{escape(excerpt)} &hellip;</p>'
                f'<a class="more" href="{self.article_url(n)}">Read more</a></div>')

    def _listing(self, title: str, items: list[int], page: int, url_of, month) -> str:
        pages = max(1, math.ceil(len(items) / PER_PAGE))
        shown = items[(page - 1) * PER_PAGE: page * PER_PAGE]
        teasers = "".join(self._teaser(n) for n in shown) or "<p>No posts found.</p>"
        pager = " ".join(f'<a href="{url_of(p)}">{p}</a>' for p in range(1, pages + 1)
                         if p != page) if pages > 1 else ""
        return self._frame(title, f"<h1>{escape(title)}</h1>{teasers}"
                                  f'<div class="pagination">{pager}</div>', month)

    def _article_page(self, n: int) -> str:
        a = self.articles[n]
        body = "".join(f"<p>{escape(p)}</p>" for p in a.paragraphs)
        tags = " ".join(f'<a href="{self.tag_url(t)}">{escape(self.tags[t])}</a>' for t in a.tags)
        related = ""
        if self.related:
            related = '<div class="related"><h3>Related</h3>' + "".join(
                f'<a href="{self.article_url(r)}">{escape(self.articles[r].title)}</a> '
                for r in a.related[: self.related]) + "</div>"
        main = (f'<article><h1>{escape(a.title)}</h1><div class="meta">By <a href="'
                f'{self.author_url(a.author)}">{escape(self.authors[a.author])}</a> on '
                f'<a href="{self.day_url(a.day)}">{a.day:%d %B %Y}</a></div>{body}'
                f'<div class="tags">Tags: {tags}</div></article>{related}')
        return self._frame(a.title, main, (a.day.year, a.day.month))

    def page(self, path: str) -> str | None:
        """The HTML of ``path``, or None (404)."""
        parts = urlsplit(path)
        q = {k: v[0] for k, v in parse_qs(parts.query).items()}
        latest = self.months[-1]
        if path == "/":
            return self._frame("Home", "<h1>The Daily Example</h1><p>News from the region.</p>",
                               latest)
        if parts.path in ("/about/", "/contact/", "/privacy/"):
            return self._frame(parts.path.strip("/").title(),
                               f"<h1>{parts.path.strip('/').title()}</h1><p>The Daily Example is "
                               "a regional newspaper.</p>", latest)
        if path in self._article_paths:
            return self._article_page(self._number_of(path))
        route = self._portal_route(parts.path, q) if self.style == "portal" else \
            self._wordpress_route(parts.path)
        return route

    def _number_of(self, path: str) -> int:
        if not hasattr(self, "_numbers"):
            self._numbers = {self.article_url(a.number): a.number for a in self.articles}
        return self._numbers[path]

    def _tag_page(self, name: str, page: int) -> str | None:
        if name not in self.tags:
            return None
        t = self.tags.index(name)
        return self._listing(f"Tag: {name}", self.by_tag[t], page,
                             lambda p: self.tag_url(t, p), self.months[-1])

    def _author_page(self, slug: str, page: int) -> str | None:
        slugs = [a.lower().replace(" ", "-") for a in self.authors]
        if slug not in slugs:
            return None
        i = slugs.index(slug)
        return self._listing(f"Author: {self.authors[i]}", self.by_author[i], page,
                             lambda p: self.author_url(i, p), self.months[-1])

    def _day_page(self, day: dt.date) -> str | None:
        if day not in self.days:
            return None
        return self._listing(f"{day:%d %B %Y}", self.by_day[day], 1,
                             lambda p: self.day_url(day), (day.year, day.month))

    def _month_page(self, ym: tuple[int, int], page: int) -> str | None:
        if ym not in self.months:
            return None
        return self._listing(f"Archive: {dt.date(*ym, 1):%B %Y}", self.by_month[ym], page,
                             lambda p: self.month_url(ym, p), ym)

    def _wordpress_route(self, path: str) -> str | None:
        bits = [b for b in path.split("/") if b]
        page = 1
        if len(bits) >= 2 and bits[-2] == "page" and bits[-1].isdigit():
            page, bits = int(bits[-1]), bits[:-2]
        try:
            if len(bits) == 2 and bits[0] == "tag":
                return self._tag_page(bits[1], page)
            if len(bits) == 2 and bits[0] == "author":
                return self._author_page(bits[1], page)
            if len(bits) == 3 and all(b.isdigit() for b in bits):
                return self._day_page(dt.date(*map(int, bits)))
            if len(bits) == 2 and all(b.isdigit() for b in bits):
                return self._month_page((int(bits[0]), int(bits[1])), page)
        except ValueError:
            return None
        return None

    def _portal_route(self, path: str, q: dict[str, str]) -> str | None:
        page = int(q.get("p", "1")) if q.get("p", "1").isdigit() else 1
        try:
            if path == "/calendar" and "d" in q:
                return self._day_page(dt.date.fromisoformat(q["d"]))
            if path == "/index.php":
                view = q.get("view")
                if view == "tag":
                    return self._tag_page(q.get("t", ""), page)
                if view == "author":
                    return self._author_page(q.get("a", ""), page)
                if view == "archive":
                    y, _, m = q.get("m", "").partition("-")
                    return self._month_page((int(y), int(m)), page)
        except ValueError:
            return None
        return None

    # --- serving -----------------------------------------------------------------------


    def fetched_articles(self) -> int:
        """Distinct article paths requested so far."""
        with self._lock:
            return len({p for p in self.requests if p in self._article_paths})

    def start(self) -> FocusSite:
        """Serve on a free port of 127.0.0.1 from a daemon thread."""
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server API)
                with site._lock:
                    site.requests.append(self.path)
                html = site.page(self.path)
                body = (html or "not found").encode()
                self.send_response(200 if html else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8" if html else "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                return

        self.serve(Handler, _QuietServer)
        return self


    def page_counts(self) -> dict[str, int]:
        """How many pages of each kind the site has (articles are a fifth)."""
        tag_pages = sum(max(1, math.ceil(len(self.by_tag[t]) / PER_PAGE)) for t in range(len(self.tags)))
        author_pages = sum(max(1, math.ceil(len(self.by_author[i]) / PER_PAGE))
                           for i in range(len(self.authors)))
        month_pages = sum(max(1, math.ceil(len(self.by_month[m]) / PER_PAGE)) for m in self.months)
        return {"articles": len(self.articles), "tags": tag_pages, "authors": author_pages,
                "months": month_pages, "days": len(self.days), "other": 4}


# --- crawling it within a budget -------------------------------------------------------


def crawl_cmd(site: FocusSite, out: Path, state: Path, extractor: str, budget: int,
              extra: tuple[str, ...] = ()) -> list[str]:
    """The crawl command: local site, no politeness, stop after ``budget`` responses."""
    return [sys.executable, "-m", "scrapy", "crawl", "corpus", "-o", f"{out}:jsonlines",
            "-a", f"seeds={site.url}", *(["-a", f"extractor={extractor}"] if extractor else []),
            "-s", "LOG_LEVEL=INFO", "-s", "AUTOTHROTTLE_ENABLED=False",
            "-s", f"CLOSESPIDER_PAGECOUNT={budget}",
            "-s", f"CORPUSCRAWL_STATE_DIR={state}",
            "-s", f"CORPUSCRAWL_BOILERPLATE_HISTORY={state}/history.sqlite3", *extra]


def exported_articles(site: FocusSite, out: Path) -> int:
    """Distinct articles among the documents written to ``out``."""
    if not out.exists():
        return 0
    urls = set()
    for line in out.read_text(encoding="utf-8").splitlines():
        try:
            url = json.loads(line)["url"]
        except (ValueError, KeyError):
            continue  # a record cut by the kill
        parts = urlsplit(url)
        urls.add(parts.path + (f"?{parts.query}" if parts.query else ""))
    return sum(1 for u in urls if site.is_article(u))


@dataclass
class BudgetRun:
    """What a crawl of the site within a budget got."""

    exported: int  # distinct articles among the exported documents
    fetched: int  # distinct articles the site served
    requests: int  # requests the site answered
    resumed: bool  # the last run resumed the killed one (not a new generation)


#: How a crawl is interrupted half-way: killed (SIGKILL: up to a commit interval of work is
#: done again) or stopped (SIGINT, as Ctrl-C: Scrapy finishes what is in flight).
INTERRUPTIONS = {"killed": signal.SIGKILL, "stopped": signal.SIGINT}
#: ``measure``'s ``extra`` for the tests' crawls: pages extracted in the crawl process, as in
#: the other test crawls (:data:`tests.crawl_helpers.TEST_CRAWL_OPTIONS`): no extraction
#: worker, a fresh interpreter that loads the models, per run.  benchmarks/focus.py measures
#: with the shipped default.
IN_PROCESS: tuple[str, ...] = tuple(TEST_CRAWL_OPTIONS)


def measure(site: FocusSite, extractor: str = "", budget: int = 200, resume: str = "",
            repo: Path = REPO, extra: tuple[str, ...] = ()) -> BudgetRun:
    """Articles a crawl of ``site`` gets within ``budget`` responses.

    ``resume`` ("killed" or "stopped", see :data:`INTERRUPTIONS`): the crawl is
    interrupted once the site served half the budget and run again with the
    rest of it.  ``extractor`` "" is the default one.
    """
    site.requests.clear()
    with tempfile.TemporaryDirectory(prefix="focus-bench-") as tmp:
        out, state = Path(tmp) / "out.jsonl", Path(tmp) / "state"
        if not resume:
            log = run_interrupted(crawl_cmd(site, out, state, extractor, budget, extra), cwd=repo)
        else:
            half = budget // 2
            run_interrupted(crawl_cmd(site, out, state, extractor, budget, extra),
                            lambda: len(site.requests) >= half, INTERRUPTIONS[resume], repo)
            left = max(1, budget - len(site.requests))
            log = run_interrupted(crawl_cmd(site, out, state, extractor, left, extra), cwd=repo)
        return BudgetRun(exported_articles(site, out), site.fetched_articles(), len(site.requests),
                         "'corpuscrawl/state/resumed': 1" in log)
