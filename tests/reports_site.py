"""A synthetic evening paper whose stories carry the day's figures in the same sentences.

Used by tests/test_history_reports.py (served on 127.0.0.1) and benchmarks/headlines.py.
It is shaped unlike tests/figures_site.py, where each formulaic sentence is in two or
three stories: here three report sentences are each in 40-60 % of the stories, far
above any share a history threshold could spare, and differ from story to story only
in their figures:

* a market line in the middle of half the stories, a weather line in most of them
  (sometimes right after the market line), a match result as the *last* paragraph of
  every third story (:data:`REPORT_SENTENCES`);
* notices a corpus must lose from the first page: a copyright line whose year changes
  from page to page, a share line and a newsletter box (the prior's kinds), and a
  publisher line of the footer, the same on every page (the history's)
  (:data:`NOTICES`);
* headlines that are the same after number folding ("Evening market report, week 3"
  / "week 12"), written in an ``<h3 class="entry-title">`` (no ``<h1>`` on a story), on
  the front page and in other stories' "Also today" lists;
* titles: two stories in three have nothing but the paper's name in ``<title>`` (its
  logo is an image, ``og:site_name`` on some pages only).

Every story must keep every sentence, start with its headline and be titled by it,
whatever order the pages arrive in.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from html import escape

PAPER = "Northfield Evening Post"
STORIES = 36
PUBLISHER = ("The Northfield Evening Post is published by Northfield News Group from its "
             "offices on Quay Street and printed in Easthaven.")
SHARE = "Share this article on Facebook, on X or by email"
NEWSLETTER = "Get the Evening Post newsletter in your inbox every weekday."
#: Marks of the notices (a substring each) that no document may keep.
NOTICES = ("Northfield Evening Post. All rights reserved", PUBLISHER, SHARE, NEWSLETTER)

MARKET = ("The Northfield share index closed at {a}{b}{c} points on the day, {d} points "
          "above last week's close, as dealers bought shipping and timber stocks.")
WEATHER = ("Forecasters expect highs of {d} degrees tomorrow and up to {a}{b} millimetres of "
           "rain over the hills, with gusts of {c}{b} kilometres an hour along the coast.")
RESULT = ("Northfield Rovers beat the visitors {a}-{b} in front of {c}{d}{a} supporters, their "
          "{d}th win in {c}{b} league matches this season.")
_TOPICS = ("the harbour wall", "the old tram depot", "the school orchestra", "the river ferry",
           "the night market", "the town archive", "the swimming baths", "the cycle lanes",
           "the timber yard", "the lifeboat crew", "the mill chimney", "the library roof")
_ACTORS = ("The district council", "Local traders", "A neighbourhood group", "The port authority",
           "Volunteers from the rowing club", "The regional museum", "Parents and teachers",
           "The transport board")
_ACTIONS = ("agreed on a plan for", "asked for more money to look after", "opened a debate on",
            "published a long report about", "started a survey of", "raised concerns about")
_CLOSES = ("and a decision is expected before the summer.", "though not everyone is convinced.",
           "after months of quiet negotiation.", "which drew a large crowd to the town hall.",
           "and the work should take most of the year.", "as the season's first visitors arrived.")


@dataclass(frozen=True)
class Story:
    """One story: address, headline, paragraphs and how its page names it."""

    index: int
    slug: str
    headline: str
    paragraphs: tuple[str, ...]
    #: The ``<title>`` is only the paper's name.
    bare_title: bool
    #: The page states ``og:site_name``.
    site_name_meta: bool


def _sentence(rng: random.Random) -> str:
    return f"{rng.choice(_ACTORS)} {rng.choice(_ACTIONS)} {rng.choice(_TOPICS)}, {rng.choice(_CLOSES)}"


def _figures(rng: random.Random, template: str) -> str:
    return template.format(a=rng.randint(1, 9), b=rng.randint(0, 9), c=rng.randint(1, 9),
                           d=rng.randint(2, 9))


def make_story(index: int) -> Story:
    """Story ``index``: 3-5 paragraphs of prose and its report sentences."""
    rng = random.Random(1000 + index)
    paragraphs = [" ".join(_sentence(rng) for _ in range(rng.randint(2, 3)))
                  for _ in range(rng.randint(3, 5))]
    if index % 2 == 0:  # the market line, in the middle
        paragraphs.insert(2, _figures(rng, MARKET))
    if index % 5 != 1:  # the weather line, after the market line when there is one
        paragraphs.insert(3, _figures(rng, WEATHER))
    if index % 3 == 0:  # the result, as the story's last paragraph
        paragraphs.append(_figures(rng, RESULT))
    if index % 4 == 0:
        headline = f"Evening market report, week {index + 1}"
    else:
        headline = f"{rng.choice(_ACTORS)} and {rng.choice(_TOPICS)}: day {index + 1}"
    return Story(index, f"story-{index}.html", headline, tuple(paragraphs),
                 bare_title=index % 3 != 0, site_name_meta=index % 3 == 1)


ALL_STORIES = [make_story(i) for i in range(STORIES)]
#: Every report sentence as printed, with its story's address.
REPORT_SENTENCES = [(s.slug, p) for s in ALL_STORIES for p in s.paragraphs
                    if any(p.startswith(t.split("{")[0]) for t in (MARKET, WEATHER, RESULT))]


def _page(title: str, main: str, year: int, head: str = "") -> str:
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{escape(title)}"
        f"</title>{head}</head><body><div id='site-logo'><a href='/'><img src='/logo.png' "
        f"alt='{PAPER}'></a></div><div class='menu'><a href='/'>Today</a> "
        f"<a href='/archive.html'>Archive</a></div>{main}"
        f"<div class='signup'><p>{escape(NEWSLETTER)}</p></div>"
        f"<div class='footer'><p>{escape(PUBLISHER)}</p>"
        f"<p>© {year} {PAPER}. All rights reserved.</p></div></body></html>")


def story_html(story: Story) -> str:
    """A story page: kicker, headline in an ``<h3>``, paragraphs, share line, "Also today"."""
    others = [s for s in ALL_STORIES if s.index != story.index]
    also = others[story.index % len(others):][:3] + others[:max(0, 3 - len(others))]
    items = "".join(f"<li><a href='/{s.slug}'>{escape(s.headline)}</a></li>" for s in also)
    body = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs)
    main = (f"<div class='content'><div class='post'><span class='kicker'>Today</span>"
            f"<h3 class='entry-title'>{escape(story.headline)}</h3>{body}"
            f"<p class='share'>{escape(SHARE)}</p></div>"
            f"<div class='also'><h4>Also today</h4><ul>{items}</ul></div></div>")
    head = f"<meta property='og:site_name' content='{PAPER}'>" if story.site_name_meta else ""
    title = PAPER if story.bare_title else f"{story.headline} - {PAPER}"
    return _page(title, main, 2016 + story.index % 9, head)


def front_html() -> str:
    """The front page: every headline with its lede cut short."""
    cards = "".join(
        f"<div class='card'><a href='/{s.slug}'>{escape(s.headline)}</a>"
        f"<p>{escape(s.paragraphs[0][:80].rsplit(' ', 1)[0])}…</p></div>" for s in ALL_STORIES)
    return _page(PAPER, f"<div class='content'>{cards}</div>", 2025)


def site_files() -> dict[str, str]:
    """Path (with the leading slash) -> HTML of every page."""
    files = {"/": front_html()}
    files.update({f"/{s.slug}": story_html(s) for s in ALL_STORIES})
    return files
