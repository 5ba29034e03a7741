"""A second generated news site for the focus floor, shaped unlike :mod:`tests.focus_site`.

Same articles and counting (a fifth of the finite pages are articles, found only through
listings), but other URL patterns and other traps, so a focus that learned one site's
shapes is checked on another:

* articles by query-string id: ``/news/item?aid=4711``; each teaser and article also links
  its comment view ``/news/item?aid=4711&view=comments`` (a short page, same path and id);
* listings: sections ``/section/<name>/?page=2`` and topics ``/topics/<name>?page=2``, each
  also under ``&sort=oldest`` (the same teasers in the other order), 8 teasers a page;
* dated paths: day archives ``/archive/2024-05-13`` (most of them empty) and an endless
  month calendar ``/calendar/2024/05`` whose previous/next links never run out (months
  outside the site's year are empty calendars);
* every page repeats the whole topic cloud, the month's calendar (every day linked), the
  previous and next month, the sections and both sort orders.

The home page links sections, topics and the calendar, but no article.
"""

from __future__ import annotations

import datetime as dt
import math
from html import escape
from urllib.parse import parse_qs, urlsplit

from tests.focus_site import FocusSite

#: Teasers per listing page.
PER_PAGE = 8


def _month_shift(ym: tuple[int, int], by: int) -> tuple[int, int]:
    index = ym[0] * 12 + ym[1] - 1 + by
    return index // 12, index % 12 + 1


class BulletinSite(FocusSite):
    """The generated site (deterministic for a ``seed``); served like :class:`FocusSite`."""

    def __init__(self, articles: int = 200, seed: int = 1) -> None:
        super().__init__(articles, "wordpress", seed)
        self.style = "bulletin"

    @staticmethod
    def _listing_pages(articles: int, tags: int, authors: int) -> int:
        # Topics and sections, each in two sort orders, the comment views, months and 2 more.
        per_tag = math.ceil(articles * 3 / tags / PER_PAGE)
        per_section = math.ceil(articles / authors / PER_PAGE)
        return 2 * (tags * per_tag + authors * per_section) + articles + 12 + 2

    # --- URLs -------------------------------------------------------------------------

    def article_url(self, n: int) -> str:
        """Path of article ``n``."""
        return f"/news/item?aid={4000 + n}"

    def comments_url(self, n: int) -> str:
        """Path of article ``n``'s comment view."""
        return f"/news/item?aid={4000 + n}&view=comments"

    def tag_url(self, t: int, page: int = 1, sort: str = "") -> str:
        """Path of page ``page`` of topic ``t``."""
        query = "&".join(x for x in (f"page={page}" if page > 1 else "",
                                     f"sort={sort}" if sort else "") if x)
        return f"/topics/{self.tags[t]}" + (f"?{query}" if query else "")

    def author_url(self, i: int, page: int = 1, sort: str = "") -> str:
        """Path of page ``page`` of section ``i`` (the sections play the authors' part)."""
        query = "&".join(x for x in (f"page={page}" if page > 1 else "",
                                     f"sort={sort}" if sort else "") if x)
        return f"/section/{self._section_slug(i)}/" + (f"?{query}" if query else "")

    def _section_slug(self, i: int) -> str:
        return self.authors[i].split()[1].lower() + f"-{i}"

    def day_url(self, day: dt.date) -> str:
        """Path of a day archive."""
        return f"/archive/{day:%Y-%m-%d}"

    def month_url(self, ym: tuple[int, int], page: int = 1) -> str:
        """Path of a month of the calendar (endless)."""
        return f"/calendar/{ym[0]}/{ym[1]:02d}"

    # --- pages --------------------------------------------------------------------------

    def _sidebar(self, month: tuple[int, int]) -> str:
        cloud = " ".join(f'<a href="{self.tag_url(t)}">{escape(name)}</a>'
                         for t, name in enumerate(self.tags))
        first = dt.date(*month, 1)
        last = dt.date(*_month_shift(month, 1), 1) - dt.timedelta(days=1)
        days = "".join(f'<td><a href="{self.day_url(first + dt.timedelta(days=i))}">{i + 1}</a></td>'
                       for i in range(last.day))
        sections = "".join(f'<li><a href="{self.author_url(i)}">{escape(self._section_slug(i))}'
                           f'</a></li>' for i in range(len(self.authors)))
        return (f'<div id="side"><div class="topics"><b>Topics</b> {cloud}</div>'
                f'<div class="cal"><b>{first:%B %Y}</b><table><tr>{days}</tr></table>'
                f'<a href="{self.month_url(_month_shift(month, -1))}">previous month</a> '
                f'<a href="{self.month_url(_month_shift(month, 1))}">next month</a></div>'
                f'<div class="sections"><b>Sections</b><ul>{sections}</ul></div></div>')

    def _frame(self, title: str, main: str, month: tuple[int, int]) -> str:
        return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{escape(title)} - Harbour Bulletin</title></head><body>"
                f'<div id="top"><a href="/">Harbour Bulletin</a> '
                f'<a href="{self.month_url(month)}">Calendar</a></div>'
                f'<div id="main">{main}</div>{self._sidebar(month)}'
                '<div id="foot"><a href="/imprint">Imprint</a> &copy; Harbour Bulletin</div>'
                "</body></html>")

    def _teaser(self, n: int) -> str:
        a = self.articles[n]
        excerpt = " ".join(a.paragraphs[0].split()[:25])
        return (f'<div class="item"><h3><a href="{self.article_url(n)}">{escape(a.title)}</a></h3>'
                f'<span class="when"><a href="{self.day_url(a.day)}">{a.day:%Y-%m-%d}</a></span> '
                f'<span>{escape(excerpt)} ...</span> '
                f'<a href="{self.comments_url(n)}">Comments ({n % 7})</a></div>')

    def _sorted_listing(self, title: str, items: list[int], page: int, sort: str,
                        url_of, month: tuple[int, int]) -> str:
        ordered = list(reversed(items)) if sort == "oldest" else items
        pages = max(1, math.ceil(len(ordered) / PER_PAGE))
        shown = ordered[(page - 1) * PER_PAGE: page * PER_PAGE]
        teasers = "".join(self._teaser(n) for n in shown) or "<p>Nothing here yet.</p>"
        pager = " ".join(f'<a href="{url_of(p, sort)}">{p}</a>' for p in range(1, pages + 1)
                         if p != page)
        orders = (f'Sort: <a href="{url_of(1, "")}">newest</a> '
                  f'<a href="{url_of(1, "oldest")}">oldest</a>')
        return self._frame(title, f"<h2>{escape(title)}</h2><p>{orders}</p>{teasers}"
                                  f'<p class="pages">{pager}</p>', month)

    def _article_page(self, n: int) -> str:
        a = self.articles[n]
        body = "".join(f"<p>{escape(p)}</p>" for p in a.paragraphs)
        topics = " ".join(f'<a href="{self.tag_url(t)}">{escape(self.tags[t])}</a>' for t in a.tags)
        main = (f'<h1>{escape(a.title)}</h1><p class="when"><a href="{self.day_url(a.day)}">'
                f'{a.day:%Y-%m-%d}</a> in <a href="{self.author_url(a.author)}">'
                f'{escape(self._section_slug(a.author))}</a></p>{body}<p>Topics: {topics}</p>'
                f'<p><a href="{self.comments_url(n)}">Comments ({n % 7})</a></p>')
        return self._frame(a.title, main, (a.day.year, a.day.month))

    def _comments_page(self, n: int) -> str:
        a = self.articles[n]
        comments = "".join(f"<li>Reader {i + 1}: Thanks for the report.</li>" for i in range(n % 7))
        return self._frame(f"Comments: {a.title}",
                           f'<h2>Comments on <a href="{self.article_url(n)}">{escape(a.title)}'
                           f"</a></h2><ul>{comments}</ul>", (a.day.year, a.day.month))

    def page(self, path: str) -> str | None:
        """The HTML of ``path``, or None (404)."""
        parts = urlsplit(path)
        q = {k: v[0] for k, v in parse_qs(parts.query).items()}
        latest = self.months[-1]
        bits = [b for b in parts.path.split("/") if b]
        page = int(q["page"]) if q.get("page", "").isdigit() else 1
        sort = q.get("sort", "")
        try:
            if not bits:
                return self._frame("Harbour Bulletin", "<h2>Harbour Bulletin</h2>"
                                   "<p>News from the harbour towns.</p>", latest)
            if bits == ["imprint"]:
                return self._frame("Imprint", "<h2>Imprint</h2><p>Harbour Bulletin.</p>", latest)
            if bits == ["news", "item"] and q.get("aid", "").isdigit():
                n = int(q["aid"]) - 4000
                if not 0 <= n < len(self.articles):
                    return None
                if q.get("view") == "comments":
                    return self._comments_page(n)
                return self._article_page(n) if set(q) == {"aid"} else None
            if len(bits) == 2 and bits[0] == "topics" and bits[1] in self.tags:
                t = self.tags.index(bits[1])
                return self._sorted_listing(f"Topic: {bits[1]}", self.by_tag[t], page, sort,
                                            lambda p, s: self.tag_url(t, p, s), latest)
            slugs = [self._section_slug(i) for i in range(len(self.authors))]
            if len(bits) == 2 and bits[0] == "section" and bits[1] in slugs:
                i = slugs.index(bits[1])
                return self._sorted_listing(f"Section: {bits[1]}", self.by_author[i], page, sort,
                                            lambda p, s: self.author_url(i, p, s), latest)
            if len(bits) == 2 and bits[0] == "archive":
                day = dt.date.fromisoformat(bits[1])
                return self._sorted_listing(f"{day:%d %B %Y}", self.by_day.get(day, []), 1, sort,
                                            lambda p, s: self.day_url(day), (day.year, day.month))
            if len(bits) == 3 and bits[0] == "calendar":
                ym = (int(bits[1]), int(bits[2]))
                dt.date(*ym, 1)  # a real month, or ValueError
                listed = self.by_month.get(ym, [])[:PER_PAGE]
                return self._frame(f"Calendar {ym[0]}-{ym[1]:02d}",
                                   f"<h2>Calendar {ym[0]}-{ym[1]:02d}</h2>"
                                   + "".join(self._teaser(n) for n in listed), ym)
        except ValueError:
            return None
        return None
