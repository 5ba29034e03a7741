"""A synthetic news domain with a site-wide copyright notice and rotating share prompts.

Used by tests/test_boilerplate_crawl.py (served on 127.0.0.1) and by
benchmarks/boilerplate.py.  Every article carries, inside its ``<article>``
element (so an extractor takes them as body text, as NewsFeed did):

* the same long copyright notice with a changing year range (longer than the
  built-in prior's word limit, so only the domain history can find it);
* one of four share prompts, rotating.

``legal.html`` is nothing but the notice (a page that must be dropped), and
``hidden.html`` is an article no page links to (to crawl it alone).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from html import escape

ARTICLES = 50
NOTICE = (
    "Copyright 2003-{year} Daily Example Media Group Limited, registered in England and "
    "Wales under number 04512345, whose registered office is at 1 Example Street, London. "
    "The material on this site may not be reproduced, distributed, transmitted, cached or "
    "otherwise used, except with the prior written permission of Daily Example Media Group "
    "Limited. Content licensing enquiries should be sent to our syndication department, "
    "which answers requests within ten working days."
)
SHARE_PROMPTS = (
    "Enjoyed this story? Share it with your friends on Facebook and Twitter.",
    "Know someone who would like this article? Send it to them by email today.",
    "Follow Daily Example on social media for the latest news as it happens.",
    "Sign up for our morning newsletter and never miss an important story again.",
)
NAV = ("Home", "World", "Business", "Science", "Sport", "Culture")
_WORDS = (
    "river council budget harbour engineers survey village school museum railway "
    "festival farmers weather bridge library orchestra election hospital scientists "
    "archive forest island market students volunteers coastline mayor report project "
    "winter harvest community research vaccine stadium ferry theatre bakery factory"
).split()
_VERBS = "announced reported opened rejected approved discovered measured restored".split()


@dataclass(frozen=True)
class Article:
    """One generated article: its file name, title, body paragraphs and boilerplate year."""

    slug: str
    title: str
    paragraphs: tuple[str, ...]
    year: int
    share: str


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(6, 12))]
    words.insert(2, rng.choice(_VERBS))
    return " ".join(words).capitalize() + "."


def make_article(index: int, slug: str | None = None) -> Article:
    """The deterministic article number ``index``."""
    rng = random.Random(index)
    paragraphs = tuple(" ".join(_sentence(rng) for _ in range(rng.randint(3, 5)))
                       for _ in range(rng.randint(3, 5)))
    title = f"Story {index}: the {rng.choice(_WORDS)} and the {rng.choice(_WORDS)}"
    return Article(slug or f"article-{index}.html", title, paragraphs,
                   year=2010 + index % 15, share=SHARE_PROMPTS[index % len(SHARE_PROMPTS)])


ALL_ARTICLES = [make_article(i) for i in range(1, ARTICLES + 1)]
HIDDEN = make_article(999, "hidden.html")


def _page(title: str, body: str, year: int) -> str:
    nav = "".join(f'<li><a href="/index.html">{n}</a></li>' for n in NAV)
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
        f"</head><body><header><ul>{nav}</ul></header>{body}"
        f"<footer><p>Contact us</p></footer></body></html>"
    )


def article_html(article: Article) -> str:
    """The article page: paragraphs, then the share prompt and the notice inside <article>."""
    paras = "".join(f"<p>{escape(p)}</p>" for p in article.paragraphs)
    body = (f"<article><h1>{escape(article.title)}</h1>{paras}"
            f"<p>{escape(article.share)}</p><p>{escape(NOTICE.format(year=article.year))}</p>"
            "</article>")
    return _page(article.title, body, article.year)


def legal_html() -> str:
    """A page whose only text is the notice."""
    return _page("Legal", f"<article><p>{escape(NOTICE.format(year=2024))}</p></article>", 2024)


def index_html() -> str:
    """Links to every article and to the legal page (not to the hidden article)."""
    links = "".join(f'<li><a href="/{a.slug}">{escape(a.title)}</a></li>' for a in ALL_ARTICLES)
    return _page("Daily Example", f'<ul>{links}<li><a href="/legal.html">Legal</a></li></ul>',
                 2024)


def error_html(with_notice: bool) -> str:
    """The site's 404 page: its template (navigation, footer) and optionally the notice."""
    notice = f"<p>{escape(NOTICE.format(year=2024))}</p>" if with_notice else ""
    return _page("Not found", f"<h1>Page not found</h1>{notice}", 2024)


def site_files() -> dict[str, str]:
    """Path -> HTML of every page of the site."""
    files = {"index.html": index_html(), "legal.html": legal_html(),
             HIDDEN.slug: article_html(HIDDEN)}
    files.update({a.slug: article_html(a) for a in ALL_ARTICLES})
    return files
