"""A synthetic 40-story news site whose stories share sentences that differ only in figures.

Used by tests/test_history_quality.py (served on 127.0.0.1) and by
benchmarks/boilerplate.py ("figure variants") and benchmarks/headlines.py.

What a corpus must get from it, and what makes that hard:

* **Prose that repeats with other figures.**  Market reports, results and
  weather sentences recur in two or three stories with other numbers
  ("Shares of Harbour Foods rose 3.2 percent to 45.10 pounds ...").  After the
  history's number folding they are one paragraph seen in several documents;
  every one of them is article text (:data:`FIGURE_SENTENCES`).
* **Notices with changing years** ("© 2019–2024 …", "Copyright 2025 …"), a
  share bar, a rotating share prompt and a newsletter box on every story
  (:data:`NOTICES`): none may be left.
* **Headlines everywhere.**  A story's headline is its ``<h1>``, in the
  section page, on the front page and in other stories' "Related stories"
  lists, so it repeats as much as template text does; a story's lede is on its
  section page too (and, for the first stories, on the front page).  Each story
  must keep its headline and lede, whatever order the pages arrive in, and its
  title must be its own, also on the stories whose ``<title>`` is only the site
  name (every fifth: the headline is then in ``og:title`` and ``<h1>``).
* Section and front pages are listings (teasers cut with "…"), not documents.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from html import escape

SITE_NAME = "The Harbour Gazette"
STORIES = 40
SECTIONS = ("markets", "sport", "weather", "town")
AUTHORS = ("Ana Petrović", "Tom Reyes", "Lena Vogt", "Omar Haddad", "Kate Morrow")
#: Template lines a corpus must not contain (substrings of them; "{year}" varies by page).
SHARE_BAR = "Share this story: Facebook X Email"
SHARE_PROMPTS = (
    "Enjoyed this story? Share it with your friends on Facebook.",
    "Know someone who would like this article? Send it to them by email today.",
    "Follow The Harbour Gazette on social media for the latest news as it happens.",
)
NEWSLETTER = "Sign up for our morning newsletter and never miss an important story again."
#: Marks of every notice (one substring each) checked in the tests.
NOTICES = ("Harbour Gazette Ltd", "Harbour Gazette Media", SHARE_BAR, NEWSLETTER,
           *SHARE_PROMPTS)

# Formulaic sentences: each appears in two or three stories with other figures.  Lengths
# from 9 to 31 words, so a rule that only spares long sentences shows here.
FIGURE_TEMPLATES = (
    "Shares of Harbour Foods rose {a}.{b} percent to {c}.{d} pounds in morning trading, "
    "their highest level since the company reported results in {year}.",
    "The index of the hundred largest listed companies closed {a}.{b} percent higher at "
    "{c}{d} points.",
    "United won {a}-{b} at home, their {c}th win of the season.",
    "The visitors scored {a} tries in the second half and led by {c} points at the break, "
    "watched by a crowd of {c}{d} people.",
    "Temperatures will reach {c} degrees in the afternoon, with winds of {a}{b} kilometres "
    "an hour from the north-west.",
    "Rainfall at the harbour station was {c} millimetres last month, {a}{b} percent of the "
    "long-term average for the month, the meteorological office said.",
    "The council approved a budget of {c}.{a} million pounds for {year}, {b} percent more "
    "than the year before.",
    "Ferry passenger numbers fell to {c}{d} thousand in the {a} months to June.",
    "Prices at the fish market averaged {c}.{d} pounds a kilo on Tuesday, against {a}.{b} "
    "pounds a week earlier.",
    "The port handled {c}{d} containers in the quarter, up {a}.{b} percent on a year "
    "earlier and the most since records began in {year} according to the harbour board.",
    "Turnout was {c} percent.",
    "The match ended {a}-{b}.",
)
_WORDS = ("harbour quay council ferry market fishermen school library bridge storm tide "
          "festival museum railway volunteers budget report survey crane warehouse lighthouse "
          "island coastline trawler pier dock sailors engineers residents mayor plan winter "
          "summer gallery theatre orchestra bakery hospital students project").split()
_VERBS = "announced reported opened rejected approved repaired restored inspected".split()


@dataclass(frozen=True)
class Story:
    """One story: its address, headline, section, byline and paragraphs (the lede first)."""

    index: int
    slug: str
    section: str
    headline: str
    author: str
    date: str
    paragraphs: tuple[str, ...]
    #: The ``<title>`` is only the site name (the headline in og:title and <h1>).
    bare_title: bool


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(7, 14))]
    words.insert(2, rng.choice(_VERBS))
    return " ".join(words).capitalize() + "."


def figure_sentence(template: int, story: int) -> str:
    """The figure-only variant of formulaic sentence ``template`` used by ``story``."""
    rng = random.Random(template * 1000 + story)
    return FIGURE_TEMPLATES[template].format(a=rng.randint(1, 9), b=rng.randint(0, 9),
                                              c=rng.randint(10, 40), d=rng.randint(0, 9),
                                              year=rng.randint(2001, 2024))


def _figure_users(stories: int = STORIES) -> dict[int, list[int]]:
    """Story index -> formulaic templates it uses: each template in 2 or 3 stories."""
    users: dict[int, list[int]] = {}
    rng = random.Random(7)
    for template in range(len(FIGURE_TEMPLATES)):
        for story in rng.sample(range(stories), 2 + template % 2):
            users.setdefault(story, []).append(template)
    return users


def make_story(index: int, figures: list[int]) -> Story:
    """Story ``index`` with the formulaic sentences of ``figures`` among its paragraphs."""
    rng = random.Random(index)
    paragraphs = [" ".join(_sentence(rng) for _ in range(rng.randint(2, 4)))
                  for _ in range(rng.randint(3, 5))]
    for template in figures:  # alone as a paragraph, after the lede
        paragraphs.insert(rng.randint(1, len(paragraphs)), figure_sentence(template, index))
    headline = (f"{rng.choice(_WORDS).capitalize()} {rng.choice(_VERBS)} as "
                f"{rng.choice(_WORDS)} {rng.choice(_WORDS)} plan moves on ({index})")
    return Story(index, f"story-{index}.html", SECTIONS[index % len(SECTIONS)], headline,
                 AUTHORS[index % len(AUTHORS)], f"2025-03-{1 + index % 28:02d}",
                 tuple(paragraphs), bare_title=index % 5 == 0)


def make_stories(count: int = STORIES) -> list[Story]:
    """The site's ``count`` stories (the formulaic sentences spread over them)."""
    users = _figure_users(count)
    return [make_story(i, users.get(i, [])) for i in range(count)]


ALL_STORIES = make_stories()
#: Every formulaic sentence as printed, with the story it belongs to.
FIGURE_SENTENCES = [(s.slug, p) for s in ALL_STORIES for p in s.paragraphs
                    if any(p.startswith(t.split("{")[0]) for t in FIGURE_TEMPLATES)]


def _copyright(page: int) -> str:
    if page % 3 == 2:
        return f"Copyright {2023 + page % 3} Harbour Gazette Media"
    return f"© 2019–{2020 + page % 6} Harbour Gazette Ltd. All rights reserved."


def _page(title: str, main: str, page: int, head: str = "") -> str:
    nav = "".join(f'<li><a href="/{s}.html">{s.capitalize()}</a></li>' for s in SECTIONS)
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{escape(title)}"
        f"</title>{head}</head><body><header><div class='logo'><a href='/'>{SITE_NAME}</a></div>"
        f"<nav><ul><li><a href='/'>Home</a></li>{nav}</ul></nav></header>{main}"
        f"<div class='newsletter'><p>{escape(NEWSLETTER)}</p></div>"
        f"<footer><p>{escape(_copyright(page))}</p></footer></body></html>")


def story_html(story: Story, stories: list[Story] = ALL_STORIES) -> str:
    """The story page: headline, byline, paragraphs, share bar and prompt, related stories."""
    body = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs)
    related = [s for s in stories if s.index != story.index][story.index % 30:][:4]
    aside = "".join(f'<li><a href="/{s.slug}">{escape(s.headline)}</a></li>' for s in related)
    main = (f"<main><article><h1>{escape(story.headline)}</h1>"
            f"<p class='byline'>By {escape(story.author)} · {story.date}</p>{body}"
            f"<div class='share'><p>{escape(SHARE_BAR)}</p>"
            f"<p>{escape(SHARE_PROMPTS[story.index % len(SHARE_PROMPTS)])}</p></div>"
            f"</article></main><aside><h3>Related stories</h3><ul>{aside}</ul></aside>")
    head = f'<meta property="og:title" content="{escape(story.headline)}">'
    title = SITE_NAME if story.bare_title else f"{story.headline} | {SITE_NAME}"
    return _page(title, main, story.index, head)


def _teaser(story: Story, cut: bool) -> str:
    lede = story.paragraphs[0]
    text = lede[:120].rsplit(" ", 1)[0] + "…" if cut else lede
    return (f'<div class="teaser"><h2><a href="/{story.slug}">{escape(story.headline)}</a></h2>'
            f"<p>{escape(text)}</p></div>")


def section_html(section: str, stories: list[Story] = ALL_STORIES) -> str:
    """A section page: every story of the section with its whole lede (the newest 40)."""
    stories = [s for s in stories if s.section == section][:40]
    main = f"<main><h1>{section.capitalize()}</h1>{''.join(_teaser(s, False) for s in stories)}</main>"
    return _page(f"{section.capitalize()} | {SITE_NAME}", main, 100 + SECTIONS.index(section))


def front_html(stories: list[Story] = ALL_STORIES) -> str:
    """The front page: the first five stories with their ledes, five more cut short."""
    teasers = "".join(_teaser(s, i >= 5) for i, s in enumerate(stories[:10]))
    return _page(SITE_NAME, f"<main>{teasers}</main>", 99)


def site_files(stories: list[Story] = ALL_STORIES) -> dict[str, str]:
    """Path (with the leading slash) -> HTML of every page of the site (of ``stories``)."""
    files = {"/": front_html(stories)}
    files.update({f"/{s}.html": section_html(s, stories) for s in SECTIONS})
    files.update({f"/{s.slug}": story_html(s, stories) for s in stories})
    return files
