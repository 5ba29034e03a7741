"""The bundled demo site: a small local newspaper with real boilerplate around its articles.

Every page shares a header menu, a search box, a related-stories list, a
newsletter prompt, share links and a copyright footer — the boilerplate a
corpus must not contain.  Discovery is exercised too: one article is linked
only from the gzipped sitemap, one only from the RSS feed, a ``/private/``
page is disallowed by robots.txt, and a PDF and an external link must be
skipped.  ``synthetic_pages=N`` adds N generated articles for benchmarks.
"""

from __future__ import annotations

import gzip
import html
import random
from collections.abc import Sequence
from dataclasses import dataclass

from corpuscrawl.demo.articles import ARTICLES, Article

SITE_NAME = "The Alder Valley Chronicle"
SECTIONS = (("town", "Town"), ("culture", "Culture"), ("business", "Business"))
#: Articles linked only from the sitemap / only from the feed (discovery must find them).
SITEMAP_ONLY = "night-buses"
FEED_ONLY = "zagreb-suradnja"
COPYRIGHT = ("© 2024 Alder Valley Media Ltd. All rights reserved. No part of this site may be "
             "reproduced without written permission.")
NEWSLETTER = "Sign up for our weekly newsletter and never miss a story from the valley."

_WORDS = ("river valley town council market library bridge school orchard bakery festival "
          "winter summer volunteers harvest museum railway station garden meadow village "
          "teacher farmer history music theatre evening morning weather road hill street "
          "community project report budget plan visitors families children workers").split()


@dataclass(frozen=True)
class Response:
    """A rendered response: status, content type and body bytes."""

    status: int
    content_type: str
    body: bytes


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def synthetic_article(i: int, n_pages: int) -> Article:
    """A generated article (deterministic from ``i``) for throughput benchmarks."""
    rng = random.Random(i)
    paragraphs = tuple(
        " ".join(rng.choice(_WORDS) for _ in range(rng.randint(40, 90))).capitalize() + "."
        for _ in range(rng.randint(3, 6))
    )
    title = " ".join(rng.choice(_WORDS) for _ in range(5)).capitalize()
    return Article(f"s{i}", "town", title, "2024-01-01", "Generator", "en", paragraphs)


class DemoSite:
    """Renders every URL of the demo site."""

    def __init__(self, synthetic_pages: int = 0):
        self.synthetic_pages = synthetic_pages
        self.articles = {a.slug: a for a in ARTICLES}

    # --- layout -----------------------------------------------------------------

    def layout(self, title: str, main: str, lang: str = "en", head: str = "") -> str:
        """The page frame: header menu, main content, newsletter box, footer."""
        menu = "".join(f'<li><a href="/section/{key}.html">{name}</a></li>'
                       for key, name in SECTIONS)
        return f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8">
<title>{_e(title)} | {SITE_NAME}</title>
<link rel="alternate" type="application/rss+xml" title="{SITE_NAME}" href="/feed.xml">
{head}<link rel="stylesheet" href="/static/site.css"><script>window.dataLayer=[];</script>
</head><body>
<header class="site-header"><div class="logo"><a href="/">{SITE_NAME}</a></div>
<nav class="menu"><ul><li><a href="/">Home</a></li>{menu}<li><a href="/about.html">About us</a></li>
<li><a href="/contact.html">Contact</a></li><li><a href="/private/drafts.html">Staff</a></li></ul></nav>
<form class="search" action="/search"><label>Search the Chronicle <input name="q"></label>
<button>Go</button></form></header>
<div class="page">{main}</div>
<div class="newsletter"><p>{NEWSLETTER}</p><a href="/newsletter.html">Subscribe</a></div>
<footer class="site-footer"><ul><li><a href="/privacy.html">Privacy</a></li>
<li><a href="/terms.html">Terms of use</a></li><li><a href="/files/annual-report.pdf">Annual report (PDF)</a></li>
<li><a href="/download/annual-data">Annual data (CSV)</a></li>
<li><a href="https://partner.example.org/">Our partners</a></li></ul>
<p class="copyright">{COPYRIGHT}</p></footer>
</body></html>"""

    def related(self, exclude: str) -> str:
        """Sidebar lists of other stories (boilerplate: it changes from page to page)."""
        linked = [a for a in ARTICLES if a.slug not in (exclude, SITEMAP_ONLY, FEED_ONLY)]
        items = "".join(f'<li><a href="/news/{a.slug}.html">{_e(a.title)}</a></li>'
                        for a in linked[:4])
        popular = "".join(f'<li><a href="/news/{a.slug}.html">{_e(a.title.split()[0])} …</a></li>'
                          for a in reversed(linked[:3]))
        return (f'<aside class="sidebar"><h3>Related stories</h3><ul>{items}</ul>'
                f'<h3>Most read</h3><ol>{popular}</ol></aside>')

    def article_page(self, a: Article) -> str:
        """An article page: headline, byline, paragraphs, share links, related stories."""
        body = "".join(f"<p>{_e(p)}</p>" for p in a.paragraphs)
        head = (f'<meta name="author" content="{_e(a.author)}">'
                f'<meta property="article:published_time" content="{a.date}">')
        main = (f'<main><article><h1>{_e(a.title)}</h1>'
                f'<p class="byline">By <a href="/authors.html">{_e(a.author)}</a> · '
                f'<time datetime="{a.date}">{a.date}</time></p>{body}'
                f'<div class="share">Share this story: <a href="#">Facebook</a> '
                f'<a href="#">X</a> <a href="#">Email</a></div></article></main>'
                + self.related(a.slug))
        return self.layout(a.title, main, a.language, head)

    def listing(self, title: str, articles: Sequence[Article]) -> str:
        """A front or section page of teasers."""
        teasers = "".join(
            f'<div class="teaser"><h2><a href="/news/{a.slug}.html">{_e(a.title)}</a></h2>'
            f'<p>{_e(a.paragraphs[0][:140])}…</p></div>' for a in articles)
        return self.layout(title, f"<main><h1>{_e(title)}</h1>{teasers}</main>")

    def synthetic_page(self, i: int) -> str:
        """A generated article linking to a few other generated articles."""
        a = synthetic_article(i, self.synthetic_pages)
        n = self.synthetic_pages
        targets = sorted({(i * 2 + 1) % n, (i * 2 + 2) % n, (i + 1) % n, (i * 7 + 3) % n})
        links = "".join(f'<li><a href="/s/{t}.html">Story {t}</a></li>' for t in targets)
        body = "".join(f"<p>{_e(p)}</p>" for p in a.paragraphs)
        main = (f"<main><article><h1>{_e(a.title)}</h1>{body}</article></main>"
                f'<aside class="sidebar"><h3>More stories</h3><ul>{links}</ul></aside>')
        return self.layout(a.title, main)

    # --- routes -----------------------------------------------------------------

    def sitemap_articles(self) -> bytes:
        """The gzipped article sitemap (includes the sitemap-only article)."""
        urls = "".join(f"<url><loc>/news/{a.slug}.html</loc><lastmod>{a.date}</lastmod></url>"
                       for a in ARTICLES if a.slug != FEED_ONLY)
        xml = ('<?xml version="1.0" encoding="UTF-8"?>'
               f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>')
        return gzip.compress(xml.encode("utf-8"), mtime=0)

    def feed(self) -> str:
        """RSS 2.0 feed of the newest articles (includes the feed-only article)."""
        items = "".join(f"<item><title>{_e(a.title)}</title><link>/news/{a.slug}.html</link>"
                        f"<pubDate>{a.date}</pubDate></item>" for a in ARTICLES[-3:])
        return ('<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>'
                f"<title>{SITE_NAME}</title><link>/</link>{items}</channel></rss>")

    def get(self, path: str, base_url: str = "") -> Response:
        """Render ``path``; unknown paths get the site's 404 page."""
        path = path.split("?", 1)[0]
        html_type = "text/html; charset=utf-8"
        listed = [a for a in ARTICLES if a.slug not in (SITEMAP_ONLY, FEED_ONLY)]
        if path in ("/", "/index.html"):
            extra = ""
            if self.synthetic_pages:
                extra = '<p><a href="/s/0.html">Archive of generated stories</a></p>'
            page = self.listing("Latest news", listed).replace("</main>", extra + "</main>")
            return Response(200, html_type, page.encode())
        if path.startswith("/section/") and path.endswith(".html"):
            key = path[len("/section/"):-5]
            names = dict(SECTIONS)
            if key in names:
                page = self.listing(names[key], [a for a in listed if a.section == key])
                return Response(200, html_type, page.encode())
        if path.startswith("/news/") and path.endswith(".html"):
            article = self.articles.get(path[len("/news/"):-5])
            if article is not None:
                return Response(200, html_type, self.article_page(article).encode())
        if path.startswith("/s/") and path.endswith(".html") and self.synthetic_pages:
            try:
                i = int(path[3:-5])
            except ValueError:
                i = -1
            if 0 <= i < self.synthetic_pages:
                return Response(200, html_type, self.synthetic_page(i).encode())
        if path == "/about.html":
            main = ("<main><h1>About us</h1><p>The Alder Valley Chronicle is an independent, "
                    "reader-funded newspaper covering the towns and villages of the Alder valley "
                    "since 1987.</p></main>")
            return Response(200, html_type, self.layout("About us", main).encode())
        if path == "/private/drafts.html":
            main = "<main><h1>Drafts</h1><p>SECRET DRAFT: must never be crawled.</p></main>"
            return Response(200, html_type, self.layout("Drafts", main).encode())
        if path == "/robots.txt":
            text = "User-agent: *\nDisallow: /private/\n\nSitemap: /sitemap_index.xml\n"
            return Response(200, "text/plain", text.encode())
        if path == "/sitemap_index.xml":
            xml = ('<?xml version="1.0" encoding="UTF-8"?>'
                   '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                   "<sitemap><loc>/sitemap-articles.xml.gz</loc></sitemap></sitemapindex>")
            return Response(200, "application/xml", xml.encode())
        if path == "/sitemap-articles.xml.gz":
            return Response(200, "application/x-gzip", self.sitemap_articles())
        if path == "/feed.xml":
            return Response(200, "application/rss+xml; charset=utf-8", self.feed().encode())
        if path == "/download/annual-data":  # no extension: only the Content-Type tells
            return Response(200, "text/csv", b"year,visitors\n2023,41000\n2024,45500\n")
        if path == "/files/annual-report.pdf":
            return Response(200, "application/pdf", b"%PDF-1.4\n% demo\n")
        main = ("<main><h1>Page not found</h1><p>Sorry, we could not find that page.</p>"
                "</main>")
        return Response(404, html_type, self.layout("Page not found", main).encode())
