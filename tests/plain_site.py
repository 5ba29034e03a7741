"""A third generated news site for the focus benchmark: a blog on WordPress's plain permalinks.

Same articles and counting as :mod:`tests.focus_site` (a fifth of the site's pages are
articles, found only through listings), but every page is the site root with a query
string, so URL paths tell nothing, and the traps are those of a default blog install:

* articles ``/?p=1234``, each with a print view ``/?p=1234&print=1`` (the same text) and,
  for articles with comments, one ``/?p=1234&replytocom=5678`` page per comment (the
  article again, with a reply form);
* listings by tag ``/?tag=x``, category ``/?cat=3``, author ``/?author=2``, month
  ``/?m=202405`` and day ``/?m=20240513`` (one parameter for both), paged only by
  "Older posts" / "Newer posts" links (``&paged=2``) and, when they list more than one
  post, each also oldest first (``&order=asc``);
* every page has a breadcrumb, a "Most read" box (the same five articles), the category
  menu, the tag cloud, the month archive list and a calendar of the page's month whose
  days with posts are linked and whose previous/next links reach two empty months past
  either end of the archive.

The home page shows no teaser; the "Most read" box is the only list of articles on it.
"""

from __future__ import annotations

import datetime as dt
import math
from html import escape
from urllib.parse import parse_qs, urlsplit

from tests.bulletin_site import _month_shift as _month_shift_by
from tests.focus_site import FocusSite

#: Teasers per listing page.
PER_PAGE = 10
#: Categories of the blog (each article is in one).
CATEGORIES = ("News", "Region", "Opinion", "Business", "Life", "Sport")
#: Empty calendar months reachable past either end of the archive.
EMPTY_MONTHS = 2


class PlainSite(FocusSite):
    """The generated site (deterministic for a ``seed``); served like :class:`FocusSite`."""

    def __init__(self, articles: int = 200, seed: int = 1) -> None:
        super().__init__(articles, "wordpress", seed)
        self.style = "plain"
        self.by_category: dict[int, list[int]] = {}
        for a in self.articles:
            self.by_category.setdefault(self.category(a.number), []).append(a.number)
        ranked = sorted(self.articles, key=lambda a: (len(a.paragraphs), a.number), reverse=True)
        self.popular = [a.number for a in ranked[:5]]

    @staticmethod
    def _listing_pages(articles: int, tags: int, authors: int) -> int:
        # Listings in two orders (tags, authors, categories, about 8 months), print views,
        # comment replies and the other pages; the rest are day archives (a day with posts
        # is a page, an empty day is not linked).
        def pages(lists: int, items: float) -> int:
            return lists * math.ceil(items / lists / PER_PAGE)
        listings = (pages(tags, articles * 3) + pages(authors, articles)
                    + pages(len(CATEGORIES), articles) + pages(8, articles))
        return 2 * listings + articles + _replies(articles) + 2 * EMPTY_MONTHS + 3

    # --- what is where -------------------------------------------------------------------

    @staticmethod
    def category(n: int) -> int:
        """Category of article ``n``."""
        return (n * 7 + n // 5) % len(CATEGORIES)

    @staticmethod
    def comments(n: int) -> list[int]:
        """Comment ids of article ``n``."""
        count = (n % 3) if n % 2 == 0 else 0
        return [5000 + n * 4 + i for i in range(count)]

    def _post_id(self, n: int) -> int:
        return 101 + 3 * n

    def article_url(self, n: int) -> str:
        """Path of article ``n``."""
        return f"/?p={self._post_id(n)}"

    def _listing_url(self, key: str, value: str, page: int = 1, order: str = "") -> str:
        query = [f"{key}={value}"] + ([f"paged={page}"] if page > 1 else []) \
            + ([f"order={order}"] if order else [])
        return "/?" + "&amp;".join(query)

    def tag_url(self, t: int, page: int = 1, order: str = "") -> str:
        """Path of page ``page`` of tag ``t``."""
        return self._listing_url("tag", self.tags[t], page, order)

    def author_url(self, i: int, page: int = 1, order: str = "") -> str:
        """Path of page ``page`` of author ``i``."""
        return self._listing_url("author", str(i + 1), page, order)

    def category_url(self, c: int, page: int = 1, order: str = "") -> str:
        """Path of page ``page`` of category ``c``."""
        return self._listing_url("cat", str(c + 1), page, order)

    def day_url(self, day: dt.date, page: int = 1, order: str = "") -> str:
        """Path of a day archive."""
        return self._listing_url("m", f"{day:%Y%m%d}", page, order)

    def month_url(self, ym: tuple[int, int], page: int = 1, order: str = "") -> str:
        """Path of page ``page`` of a month archive."""
        return self._listing_url("m", f"{ym[0]}{ym[1]:02d}", page, order)

    # --- pages --------------------------------------------------------------------------

    def _calendar(self, month: tuple[int, int]) -> str:
        first = dt.date(*month, 1)
        last = dt.date(*_month_shift_by(month, 1), 1) - dt.timedelta(days=1)
        cells = []
        for i in range(last.day):
            day = first + dt.timedelta(days=i)
            cells.append(f'<td><a href="{self.day_url(day)}">{i + 1}</a></td>'
                         if self.by_day.get(day) else f"<td>{i + 1}</td>")
        reach = [_month_shift_by(self.months[0], -EMPTY_MONTHS),
                 _month_shift_by(self.months[-1], EMPTY_MONTHS)]
        links = "".join(f'<a href="{self.month_url(m)}">{label}</a> '
                        for m, label in ((_month_shift_by(month, -1), "&laquo; Prev"),
                                         (_month_shift_by(month, 1), "Next &raquo;"))
                        if reach[0] <= m <= reach[1])
        return (f'<div class="widget calendar"><table><caption>{first:%B %Y}</caption>'
                f'<tr>{"".join(cells)}</tr></table>{links}</div>')

    def _sidebar(self, month: tuple[int, int]) -> str:
        popular = "".join(f'<li><a href="{self.article_url(n)}">{escape(self.articles[n].title)}'
                          "</a></li>" for n in self.popular)
        cloud = " ".join(f'<a href="{self.tag_url(t)}">{escape(name)}</a>'
                         for t, name in enumerate(self.tags))
        archive = "".join(f'<li><a href="{self.month_url(m)}">{dt.date(*m, 1):%B %Y}</a></li>'
                          for m in reversed(self.months))
        return (f'<aside id="secondary"><section class="widget"><h2>Most read</h2><ol>{popular}'
                f'</ol></section>{self._calendar(month)}<section class="widget"><h2>Tags</h2>'
                f'{cloud}</section><section class="widget"><h2>Archives</h2><ul>{archive}</ul>'
                '</section><section class="widget"><h2>Meta</h2><ul><li><a href="/wp-login.php">'
                "Log in</a></li></ul></section></aside>")

    def _frame(self, title: str, main: str, month: tuple[int, int], crumbs: str = "") -> str:
        menu = "".join(f'<li><a href="{self.category_url(c)}">{name}</a></li>'
                       for c, name in enumerate(CATEGORIES))
        trail = (f'<nav class="breadcrumbs"><a href="/">Home</a> &raquo; {crumbs}</nav>'
                 if crumbs else "")
        return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{escape(title)} &#8211; Coastline Notes</title></head><body>"
                f'<header id="masthead"><p class="site-title"><a href="/">Coastline Notes</a></p>'
                f'<nav id="site-navigation"><ul>{menu}<li><a href="/?page_id=2">About</a></li>'
                f"</ul></nav></header>{trail}<main id=\"main\">{main}</main>"
                f"{self._sidebar(month)}<footer>Proudly powered by a blog engine</footer>"
                "</body></html>")

    def _byline(self, n: int) -> str:
        a = self.articles[n]
        c = self.category(n)
        return (f'<div class="entry-meta">Posted on <a href="{self.day_url(a.day)}">'
                f'{a.day:%B %d, %Y}</a> by <a href="{self.author_url(a.author)}">'
                f'{escape(self.authors[a.author])}</a> in <a href="{self.category_url(c)}">'
                f"{CATEGORIES[c]}</a></div>")

    def _teaser(self, n: int) -> str:
        a = self.articles[n]
        excerpt = " ".join(a.paragraphs[0].split()[:40])
        replies = len(self.comments(n))
        return (f'<article class="post"><h2 class="entry-title"><a href="{self.article_url(n)}">'
                f"{escape(a.title)}</a></h2>{self._byline(n)}<div class=\"entry-summary\"><p>"
                f'{escape(excerpt)} [&hellip;]</p><a class="more-link" href="{self.article_url(n)}">'
                'Continue reading <span class="meta-nav">&rarr;</span></a></div>'
                f'<a href="{self.article_url(n)}#comments">{replies or "Leave a"} comment'
                f'{"s" if replies > 1 else ""}</a></article>')

    def _archive(self, title: str, items: list[int], page: int, order: str, url_of,
                 month: tuple[int, int]) -> str | None:
        ordered = list(reversed(items)) if order == "asc" else items
        pages = max(1, math.ceil(len(ordered) / PER_PAGE))
        if page > pages:
            return None
        shown = ordered[(page - 1) * PER_PAGE: page * PER_PAGE]
        teasers = "".join(self._teaser(n) for n in shown) or (
            "<section class=\"no-results\"><h1>Nothing Found</h1><p>It seems we can&rsquo;t "
            "find what you&rsquo;re looking for.</p></section>")
        older = f'<a href="{url_of(page + 1, order)}">&larr; Older posts</a>' if page < pages else ""
        newer = f'<a href="{url_of(page - 1, order)}">Newer posts &rarr;</a>' if page > 1 else ""
        orders = (f'<p class="sorting">Show: <a href="{url_of(1, "")}">newest first</a> | '
                  f'<a href="{url_of(1, "asc")}">oldest first</a></p>') if len(items) > 1 else ""
        return self._frame(title, f'<header class="page-header"><h1>{escape(title)}</h1></header>'
                                  f'{orders}{teasers}<nav class="nav-links">{older} {newer}</nav>',
                           month, escape(title))

    def _article_page(self, n: int, reply_to: int = 0) -> str:
        a = self.articles[n]
        body = "".join(f"<p>{escape(p)}</p>" for p in a.paragraphs)
        tags = ", ".join(f'<a href="{self.tag_url(t)}" rel="tag">{escape(self.tags[t])}</a>'
                         for t in a.tags)
        comments = "".join(
            f'<li id="comment-{c}"><b>Reader {c % 97}</b> says: I remember the {a.title.split()[-1]}'
            f' story well. <a class="comment-reply-link" href="{self.article_url(n)}&amp;'
            f'replytocom={c}#respond">Reply</a></li>' for c in self.comments(n))
        form = (f"<h3>Leave a Reply to Reader {reply_to % 97}</h3>" if reply_to
                else "<h3>Leave a Reply</h3>") + "<p>Your email address will not be published.</p>"
        c = self.category(n)
        main = (f'<article><h1 class="entry-title">{escape(a.title)}</h1>{self._byline(n)}'
                f'<div class="entry-content">{body}</div><footer class="entry-footer">Tagged '
                f'{tags} <a href="{self.article_url(n)}&amp;print=1">Print this article</a>'
                f'</footer></article><div id="comments"><ol>{comments}</ol><div id="respond">'
                f"{form}</div></div>")
        return self._frame(a.title, main, (a.day.year, a.day.month),
                           f'<a href="{self.category_url(c)}">{CATEGORIES[c]}</a> &raquo; '
                           f"{escape(a.title)}")

    def _print_page(self, n: int) -> str:
        a = self.articles[n]
        body = "".join(f"<p>{escape(p)}</p>" for p in a.paragraphs)
        return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{escape(a.title)}</title></head><body class=\"print\">"
                f"<h1>{escape(a.title)}</h1><p>{a.day:%B %d, %Y}, "
                f"{escape(self.authors[a.author])}</p>{body}"
                f'<p><a href="{self.article_url(n)}">Back to the article</a></p></body></html>')

    def page(self, path: str) -> str | None:
        """The HTML of ``path``, or None (404)."""
        parts = urlsplit(path)
        if parts.path == "/wp-login.php":
            return self._frame("Log In", "<h1>Log In</h1><p>Username or Email Address</p>",
                               self.months[-1])
        if parts.path != "/":
            return None
        q = {k: v[0] for k, v in parse_qs(parts.query).items()}
        page = int(q["paged"]) if q.get("paged", "").isdigit() else 1
        order = q.get("order", "") if q.get("order") == "asc" else ""
        try:
            if not q:
                return self._frame("Coastline Notes", "<h1>Coastline Notes</h1><p>Notes and "
                                   "news from the coast, written by our readers.</p>",
                                   self.months[-1])
            if q.get("page_id") == "2":
                return self._frame("About", "<h1>About</h1><p>Coastline Notes is a community "
                                   "blog.</p>", self.months[-1], "About")
            if "p" in q:
                return self._post(q)
            if "tag" in q and q["tag"] in self.tags:
                t = self.tags.index(q["tag"])
                return self._archive(f"Tag: {q['tag']}", self.by_tag[t], page, order,
                                     lambda p, o: self.tag_url(t, p, o), self.months[-1])
            if q.get("author", "").isdigit() and 0 < int(q["author"]) <= len(self.authors):
                i = int(q["author"]) - 1
                return self._archive(f"Author: {self.authors[i]}", self.by_author[i], page,
                                     order, lambda p, o: self.author_url(i, p, o), self.months[-1])
            if q.get("cat", "").isdigit() and 0 < int(q["cat"]) <= len(CATEGORIES):
                c = int(q["cat"]) - 1
                return self._archive(f"Category: {CATEGORIES[c]}", self.by_category.get(c, []),
                                     page, order, lambda p, o: self.category_url(c, p, o),
                                     self.months[-1])
            if q.get("m", "").isdigit() and len(q["m"]) == 8:
                day = dt.datetime.strptime(q["m"], "%Y%m%d").date()
                return self._archive(f"Daily Archives: {day:%B %d, %Y}", self.by_day.get(day, []),
                                     page, order, lambda p, o: self.day_url(day, p, o),
                                     (day.year, day.month))
            if q.get("m", "").isdigit() and len(q["m"]) == 6:
                ym = (int(q["m"][:4]), int(q["m"][4:]))
                dt.date(*ym, 1)  # a real month, or ValueError
                reach = (_month_shift_by(self.months[0], -EMPTY_MONTHS),
                         _month_shift_by(self.months[-1], EMPTY_MONTHS))
                if not reach[0] <= ym <= reach[1]:
                    return None
                return self._archive(f"Monthly Archives: {dt.date(*ym, 1):%B %Y}",
                                     self.by_month.get(ym, []), page, order,
                                     lambda p, o: self.month_url(ym, p, o), ym)
        except ValueError:
            return None
        return None

    def _post(self, q: dict[str, str]) -> str | None:
        if not q["p"].isdigit() or (int(q["p"]) - 101) % 3:
            return None
        n = (int(q["p"]) - 101) // 3
        if not 0 <= n < len(self.articles):
            return None
        if q.get("print") == "1":
            return self._print_page(n)
        reply = q.get("replytocom", "")
        if reply:
            return self._article_page(n, int(reply)) if reply.isdigit() \
                and int(reply) in self.comments(n) else None
        return self._article_page(n)

    def page_counts(self) -> dict[str, int]:
        """How many pages of each kind the site has (articles are a fifth)."""
        def views(lists: list[list[int]]) -> int:
            return sum((2 if len(items) > 1 else 1) * max(1, math.ceil(len(items) / PER_PAGE))
                       for items in lists)
        reach = [_month_shift_by(self.months[0], -EMPTY_MONTHS + i)
                 for i in range(len(self.months) + 2 * EMPTY_MONTHS)]
        return {"articles": len(self.articles), "print": len(self.articles),
                "replies": sum(len(self.comments(a.number)) for a in self.articles),
                "tags": views([self.by_tag[t] for t in range(len(self.tags))]),
                "authors": views([self.by_author[i] for i in range(len(self.authors))]),
                "categories": views(list(self.by_category.values())),
                "months": views([self.by_month.get(m, []) for m in reach]),
                "days": views([items for items in self.by_day.values() if items]),
                "other": 3}


def _replies(articles: int) -> int:
    return sum(len(PlainSite.comments(n)) for n in range(articles))
