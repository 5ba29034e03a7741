"""A synthetic regional daily on a WordPress-like CMS, shaped unlike the other news sites.

Used by tests/test_chronicle_crawl.py (served on 127.0.0.1) and benchmarks/headlines.py.
What sets it apart from :mod:`tests.figures_site` and :mod:`tests.reports_site`:

* **Markup**: stories at dated directory URLs (``/2025/03/14/slug/``) under
  ``<main>``/``<article>``, sections at ``/category/NAME/`` with ``/page/2/``
  pagination.  Two themes alternate: one puts the headline in ``<header
  class="entry-header"><h1 class="entry-title">``, the other makes the site's logo
  the page's ``<h1 class="site-title">`` and the headline an ``<h2
  class="entry-title">``.  Every story has a kicker, a standfirst (dek), a byline
  with a ``<time>``, a figure with a caption and a dateline opening its first
  paragraph.
* **Titles**: ``Headline | Site``, ``Site - Headline``, ``Site`` alone with an
  ``og:title``, ``Site`` alone with nothing but the page's heading, ``Headline |
  Section | Site`` with an ``og:title`` and ``Section - Headline - Site`` without.
* **Report sentences**: a market line, a fuel-price line and a six-word exchange
  rate ("The euro stood at 1.84 dollars.") in every business and news story, a weather line in every weather story and every fourth other one, a
  match result in every sport story — each with other figures, in 20-45 % of the
  domain's documents (:data:`REPORT_SENTENCES`).
* **Notices** (:data:`NOTICES`): a cookie banner, a consent line, a newsletter box,
  a "Share this:" block with its network labels, copyright lines whose form and
  years change from page to page ("© 2019–2026 …", "Copyright © 2025 …",
  "(c) 2024 …"), "All rights reserved" on its own line, a corrections notice, and
  "This article was updated on …" with the story's own date and time on every sixth
  story only (13 % of the domain's documents: below any share a sentence of prose
  must reach to be history boilerplate).
* **Robots** (:data:`ROBOTS_PAGES`): pages marked ``noindex, nofollow`` in several
  ways (lower case, ``NOINDEX,NOFOLLOW`` with upper-case attributes, ``none``, the
  ``X-Robots-Tag`` header only, two tags that add up, a space instead of a comma),
  each linking a page that nothing else links (:data:`ONLY_BEHIND`); a page for
  ``googlebot`` only (not ours: exported and followed), and ``noindex`` /
  ``nofollow`` alone.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from html import escape

SITE = "Neckar Valley Chronicle"
PUBLISHER = "Chronicle Media GmbH"
SECTIONS = ("news", "business", "sport", "weather", "culture")
STORIES = 48
PER_PAGE = 6
CITIES = ("MANNHEIM", "HEIDELBERG", "LADENBURG", "SCHWETZINGEN", "WEINHEIM", "EBERBACH")
AUTHORS = ("Miriam Kessler", "Jonas Albrecht", "Sofia Brandt", "Felix Okafor", "Hanna Lindqvist")
MONTHS = ("January", "February", "March", "April", "May", "June")

COOKIE = ("We use cookies to personalise content and to analyse our traffic. By clicking "
          "Accept you agree to our use of cookies.")
CONSENT = ("We value your privacy: we and our partners store and access information on "
           "your device, such as unique identifiers.")
NEWSLETTER = ("The Morning Chronicle: the editors' pick of the day's news, in your inbox "
              "every weekday at 6am. Sign up free.")
SHARE_LABELS = ("Share this:", "Facebook", "WhatsApp", "Email", "Print")
CORRECTIONS = ("Spotted a mistake in this article? Write to corrections@chronicle.example "
               "and our readers' editor will look into it.")
RIGHTS = "All rights reserved."
#: Marks of the notices (one substring each) that no document may keep.
NOTICES = (COOKIE[:40], CONSENT[:40], NEWSLETTER[:40], "Share this:", CORRECTIONS[:40],
           "This article was updated on", PUBLISHER, RIGHTS, "©", "(c) 20")

MARKET = ("The DAX closed {a}.{b} percent higher at {c}{d},{e}{a}{b} points on the day, "
          "while the euro traded at 1.{d}{e} dollars in late Frankfurt business.")
FUEL = ("A litre of diesel cost 1.{c}{d} euros on average across the region this week, "
        "{a} cents more than a month earlier, the motoring club said.")
WEATHER = ("Highs of {c}{a} degrees are expected along the river, with up to {b} "
           "millimetres of rain and gusts of {d}{e} kilometres an hour in the hills.")
RESULT = ("The home side won {a}-{b} in front of {c},{d}{e}{a} spectators and climbed to "
          "{b}th place in the regional league table.")
EURO = "The euro stood at 1.{d}{e} dollars."
_TEMPLATES = (MARKET, FUEL, WEATHER, RESULT, EURO)

_SUBJECTS = ("The city council", "A group of residents", "The regional transport office",
             "Shop owners in the old town", "The university hospital", "Local farmers",
             "The river authority", "Teachers at the vocational school", "The fire brigade",
             "A neighbourhood association", "The chamber of commerce", "Museum curators")
_VERBS = ("has presented plans for", "raised new questions about", "voted to extend",
          "called for an urgent review of", "celebrated the reopening of",
          "warned of rising costs for", "began consultations on", "asked for volunteers for")
_OBJECTS = ("the tram line along the river", "the castle gardens", "the old tobacco warehouse",
            "the market square", "the cycle bridge", "the youth orchestra's rehearsal rooms",
            "the night bus service", "the community vineyards", "the public library",
            "the allotments by the harbour", "the swimming pool on the island",
            "the repair café in the station")
_TAILS = ("after a long debate that lasted well into the evening.",
          "although the final cost is still unclear.", "with work due to start in the autumn.",
          "following complaints from people living nearby.",
          "and expects a decision before the summer break.",
          "in a meeting that drew more visitors than usual.",
          "as part of a wider programme for the district.",
          "despite objections from two opposition groups.")
_HEAD_WORDS = ("Bridge", "Vineyard", "Tram", "Library", "Harbour", "Orchestra", "Castle",
               "Market", "Festival", "Hospital", "Warehouse", "Island", "School", "Station")
_HEAD_FORMS = ("{w} reopens early", "{w} plan wins backing", "Residents divided over {l} project",
               "{w} closes for repairs", "Council backs new {l} rules",
               "Why the {l} matters to the valley", "{w} volunteers wanted",
               "Neighbours fight {l} cuts", "{w} gets a second chance")


@dataclass(frozen=True)
class Story:
    """One story and how its page is written."""

    index: int
    section: str
    path: str
    headline: str
    dek: str
    caption: str
    paragraphs: tuple[str, ...]
    author: str
    date: str
    #: 0 ``Headline | Site``, 1 ``Site - Headline``, 2 ``Site`` with og:title, 3 ``Site`` alone,
    #: 4 ``Headline | Section | Site`` with og:title, 5 ``Section - Headline - Site``.
    title_form: int
    #: True: the logo is the page's ``<h1>``, the headline an ``<h2 class="entry-title">``.
    logo_h1: bool
    updated: str


def _sentence(rng: random.Random) -> str:
    return f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {rng.choice(_TAILS)}"


def _report(rng: random.Random, template: str) -> str:
    return template.format(a=rng.randint(1, 9), b=rng.randint(2, 9), c=rng.randint(1, 9),
                           d=rng.randint(0, 9), e=rng.randint(0, 9))


def _reports_of(index: int, section: str) -> list[str]:
    out = []
    if section in ("business", "news"):
        out += [MARKET, FUEL, EURO]
    if section == "weather" or index % 4 == 0:
        out.append(WEATHER)
    if section == "sport":
        out.append(RESULT)
    return out


def make_story(index: int) -> Story:
    """Story ``index``: dek, caption, dateline, 3-5 paragraphs of prose and its report lines."""
    rng = random.Random(5000 + index)
    section = SECTIONS[index % len(SECTIONS)]
    month, day = 1 + index % len(MONTHS), 1 + (index * 7) % 28
    date = f"2025/{month:02d}/{day:02d}"
    word = _HEAD_WORDS[index % len(_HEAD_WORDS)]
    headline = rng.choice(_HEAD_FORMS).format(w=word, l=word.lower())
    if index >= len(_HEAD_WORDS):
        headline = f"{headline} in {CITIES[index % len(CITIES)].capitalize()}"
    paragraphs = [" ".join(_sentence(rng) for _ in range(rng.randint(2, 3)))
                  for _ in range(rng.randint(3, 5))]
    paragraphs[0] = f"{CITIES[index % len(CITIES)]} — {paragraphs[0]}"
    for template in _reports_of(index, section):
        paragraphs.insert(rng.randint(1, len(paragraphs)), _report(rng, template))
    slug = "-".join(headline.lower().split())
    updated = (f"This article was updated on {day} {MONTHS[month - 1]} 2025 at "
               f"{8 + index % 10}:{(index * 13) % 60:02d}." if index % 6 == 2 else "")
    return Story(
        index=index, section=section, path=f"/{date}/{slug}/", headline=headline,
        dek=f"{_sentence(rng)[:-1]}, and not everyone is happy about it.",
        caption=f"{rng.choice(_OBJECTS).capitalize()} on a spring morning. Photo: "
                f"{AUTHORS[(index + 2) % len(AUTHORS)]}",
        paragraphs=tuple(paragraphs), author=AUTHORS[index % len(AUTHORS)],
        date=f"{day} {MONTHS[month - 1]} 2025", title_form=index % 6, logo_h1=index % 2 == 1,
        updated=updated)


ALL_STORIES = [make_story(i) for i in range(STORIES)]
#: Every report sentence as printed, with its story's path.
REPORT_SENTENCES = [(s.path, p) for s in ALL_STORIES for p in s.paragraphs
                    if any(p.startswith(t.split("{")[0]) for t in _TEMPLATES)]


def _copyright(page: int) -> str:
    year = 2023 + page % 4
    return (f"© 2019–{year} {PUBLISHER}", f"Copyright © {year} {PUBLISHER}",
            f"(c) {year} {PUBLISHER}")[page % 3]


def _page(title: str, main: str, page: int, head: str = "", logo_h1: bool = False) -> str:
    logo = (f"<h1 class='site-title'><a href='/' rel='home'>{SITE}</a></h1>" if logo_h1
            else f"<p class='site-title'><a href='/' rel='home'>{SITE}</a></p>")
    menu = "".join(f"<li><a href='/category/{s}/'>{s.capitalize()}</a></li>" for s in SECTIONS)
    return (
        f"<!DOCTYPE html><html lang='en-GB'><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title>{head}</head><body class='wp-theme'>"
        f"<div id='cookie-banner' role='dialog'><p>{escape(COOKIE)}</p>"
        f"<p>{escape(CONSENT)}</p><button>Accept</button></div>"
        f"<header id='masthead' class='site-header'>{logo}"
        f"<nav class='main-navigation'><ul>{menu}</ul></nav></header>"
        f"<div id='primary' class='content-area'>{main}"
        f"<aside class='widget newsletter-signup'><p>{escape(NEWSLETTER)}</p></aside></div>"
        f"<footer id='colophon' class='site-footer'><p>{escape(_copyright(page))}</p>"
        f"<p>{RIGHTS}</p><p><a href='/about/'>About</a> <a href='/imprint/'>Imprint</a></p>"
        f"</footer></body></html>")


def _title(story: Story) -> tuple[str, str]:
    """The ``<title>`` and extra head markup of a story page."""
    og = f"<meta property='og:title' content='{escape(story.headline)}'>"
    section = story.section.capitalize()
    return ((f"{story.headline} | {SITE}", og), (f"{SITE} - {story.headline}", ""),
            (SITE, og), (SITE, ""), (f"{story.headline} | {section} | {SITE}", og),
            (f"{section} - {story.headline} - {SITE}", ""))[story.title_form]


def story_html(story: Story, robots_head: str = "", extra_links: str = "") -> str:
    """A story page in one of the two themes."""
    tag = "h2" if story.logo_h1 else "h1"
    body = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs)
    updated = f"<p class='updated'><em>{escape(story.updated)}</em></p>" if story.updated else ""
    share = "".join(f"<li><a href='#'>{label}</a></li>" for label in SHARE_LABELS[1:])
    others = [s for s in ALL_STORIES if s.section == story.section and s.index != story.index]
    related = "".join(f"<li><a href='{s.path}'>{escape(s.headline)}</a></li>" for s in others[:3])
    main = (
        f"<main id='main' class='site-main'><article class='post type-post'>"
        f"<header class='entry-header'><span class='cat-links'><a href='/category/{story.section}/'>"
        f"{story.section.capitalize()}</a></span><{tag} class='entry-title'>{escape(story.headline)}"
        f"</{tag}><p class='standfirst'>{escape(story.dek)}</p><div class='entry-meta'>By "
        f"<a rel='author' href='/author/{story.index % len(AUTHORS)}/'>{story.author}</a> · "
        f"<time datetime='{story.date}'>{story.date}</time></div></header>"
        f"<figure class='wp-block-image'><img src='/img/{story.index}.jpg' alt=''>"
        f"<figcaption>{escape(story.caption)}</figcaption></figure>"
        f"<div class='entry-content'>{body}{updated}</div>"
        f"<footer class='entry-footer'><div class='sharedaddy'><h3 class='sd-title'>"
        f"{SHARE_LABELS[0]}</h3><ul>{share}</ul></div>"
        f"<p class='corrections'>{escape(CORRECTIONS)}</p></footer></article>"
        f"<nav class='related'><h2>More from {story.section}</h2><ul>{related}</ul>{extra_links}"
        f"</nav></main>")
    title, head = _title(story)
    return _page(title, main, story.index, head + robots_head, story.logo_h1)


def _teasers(stories: list[Story]) -> str:
    return "".join(
        f"<article class='teaser'><h2 class='entry-title'><a href='{s.path}'>"
        f"{escape(s.headline)}</a></h2><p class='excerpt'>{escape(s.dek[:90].rsplit(' ', 1)[0])} "
        f"[…]</p></article>" for s in stories)


def section_pages(section: str) -> dict[str, str]:
    """The section's listing pages: ``/category/NAME/`` and ``/page/N/`` after it."""
    stories = [s for s in ALL_STORIES if s.section == section]
    pages = [stories[i:i + PER_PAGE] for i in range(0, len(stories), PER_PAGE)]
    out = {}
    for number, chunk in enumerate(pages, 1):
        path = f"/category/{section}/" + (f"page/{number}/" if number > 1 else "")
        nav = (f"<a class='next' href='/category/{section}/page/{number + 1}/'>Older posts</a>"
               if number < len(pages) else "")
        main = (f"<main id='main'><header class='page-header'><h1 class='page-title'>"
                f"{section.capitalize()}</h1></header>{_teasers(chunk)}{nav}</main>")
        out[path] = _page(f"{section.capitalize()} Archives - {SITE}", main, 100 + number)
    return out


#: Pages marked for robots: path -> (the head markup saying it, what a crawler must do:
#: ``none``, ``noindex``, ``nofollow``, or ``ours`` for a tag addressed to another crawler).
ROBOTS_PAGES = {
    "/advertorial/spring-offers/": ("<meta name='robots' content='noindex, nofollow'>", "none"),
    "/members/briefing/": ("<META NAME='ROBOTS' CONTENT='NOINDEX,NOFOLLOW'>", "none"),
    "/print/weekly/": ("<meta name='robots' content='none'>", "none"),
    "/internal/staff-notes/": ("", "none"),  # X-Robots-Tag header only
    "/partners/fair/": ("<meta name='robots' content='noindex'><meta name='robots' "
                        "content='nofollow'>", "none"),
    "/archive/old-site/": ("<meta name='robots' content='noindex nofollow'>", "none"),
    "/drafts/preview/": ("<meta name='googlebot' content='noindex, nofollow'>", "ours"),
    "/tips/reader-tips/": ("<meta name='robots' content='noindex'>", "noindex"),
    "/events/calendar-note/": ("<meta name='robots' content='nofollow'>", "nofollow"),
}
#: Headers of the pages that say it in ``X-Robots-Tag``.
ROBOTS_HEADERS = {"/internal/staff-notes/": {"X-Robots-Tag": "noindex, nofollow"}}
#: The page each robots page alone links to.
ONLY_BEHIND = {path: f"/hidden{path}" for path in ROBOTS_PAGES}


def robots_page_story(path: str) -> Story:
    """The article a robots page shows (a story of its own, not in the listings)."""
    rng = random.Random(path)
    paragraphs = tuple(" ".join(_sentence(rng) for _ in range(3)) for _ in range(3))
    name = path.strip("/").split("/")[-1].replace("-", " ").capitalize()
    return Story(index=900 + len(path), section="news", path=path,
                 headline=f"{name} for the valley", dek=f"{_sentence(rng)[:-1]}, for now.",
                 caption="A view of the valley. Photo: Chronicle", paragraphs=paragraphs,
                 author=AUTHORS[0], date="1 June 2025", title_form=0, logo_h1=False,
                 updated="")


def front_html() -> str:
    """The front page: the newest story of each section with its dek, then more headlines."""
    lead = _teasers([next(s for s in ALL_STORIES if s.section == sec) for sec in SECTIONS])
    more = "".join(f"<li><a href='{s.path}'>{escape(s.headline)}</a></li>" for s in ALL_STORIES[5:20])
    specials = "".join(f"<li><a href='{p}'>{escape(robots_page_story(p).headline)}</a></li>"
                       for p in ROBOTS_PAGES)
    main = (f"<main id='main' class='site-main home'><section class='top'>{lead}</section>"
            f"<section class='more'><h2>More news</h2><ul>{more}</ul></section>"
            f"<section class='specials'><h2>Specials</h2><ul>{specials}</ul></section></main>")
    return _page(f"{SITE} – News from the Neckar valley", main, 99)


def site_files() -> dict[str, tuple[str, dict[str, str]]]:
    """Path -> (HTML, extra response headers) of every page of the site."""
    files: dict[str, tuple[str, dict[str, str]]] = {"/": (front_html(), {})}
    for section in SECTIONS:
        files.update({p: (html, {}) for p, html in section_pages(section).items()})
    files.update({s.path: (story_html(s), {}) for s in ALL_STORIES})
    for path, (head, _) in ROBOTS_PAGES.items():
        hidden = ONLY_BEHIND[path]
        link = f"<p><a href='{hidden}'>Read the full dossier</a></p>"
        files[path] = (story_html(robots_page_story(path), head, link), ROBOTS_HEADERS.get(path, {}))
        files[hidden] = (story_html(robots_page_story(hidden)), {})
    return files


#: What a crawl from the front page must do with each robots page and the page behind it.
def expected_robots() -> dict[str, tuple[bool, bool]]:
    """Robots page path -> (exported, page behind it fetched)."""
    return {path: {"none": (False, False), "ours": (True, True), "noindex": (False, True),
                   "nofollow": (True, False)}[what] for path, (_, what) in ROBOTS_PAGES.items()}
