"""Listings: pages whose text is teasers of other pages of their site (front and section pages).

A front page, a section page, a tag or archive page, a product category: its text is a run
of items, each a headline linking to another page of the same site, with at most a short
teaser under it (a lede cut short or whole, a price line, a date).  A corpus wants the
pages the items link to, not the listing: the crawl drops it with reason ``listing``
(:mod:`corpuscrawl.report.scrapy_glue.dropped`).

The verdict reads the extracted text against the page's links (:func:`listing_shape`):

* a line of the text of two words or more is *linked* when it is the text of a link (or of
  a part of a card link: a ``<a>`` around headline and lede) to another page of the page's
  site (another document of the crawl; fragments of the same page do not count);
* a linked line opens an item; the unlinked lines after it, up to the next linked line,
  are its teaser; the unlinked lines before the first item are the preamble (the section's
  title and introduction).

A page is a listing (:func:`is_listing`) when it has at least :data:`MIN_ITEMS_DEFAULT`
items, its teasers are short (:data:`TEASER_MAX_WORDS_DEFAULT` in the mean,
:data:`TEASER_LONGEST_WORDS_DEFAULT` at most), its preamble is short
(:data:`PREAMBLE_MAX_WORDS_DEFAULT`), and its predicted page type is not ``forum``: a
thread's posts are linked user names each followed by a short post, the same shape, and
they are the page's text.  An article keeps its body above or between its links (a long
preamble or teaser), so a list of related links under it never makes it a listing.
Thresholds and what they cost on the gold data: ``benchmarks/results/wholeweb.md``.

Plain library code: no Scrapy.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin, urlsplit

from corpuscrawl.html.page import Page
from corpuscrawl.net.sites import same_site

#: Fewest items a listing has (a page with one or two linked lines is an article with a
#: "read next" link, or a short notice).
MIN_ITEMS_DEFAULT = 3
#: Longest mean teaser (words of unlinked text per item).  A news lede is one to three
#: sentences (25-70 words); an article's paragraphs between two inline links run longer.
TEASER_MAX_WORDS_DEFAULT = 60
#: Longest single teaser: a lead story may carry two paragraphs, never a whole article.
TEASER_LONGEST_WORDS_DEFAULT = 150
#: Longest preamble: a section's title and a short introduction above its items.
PREAMBLE_MAX_WORDS_DEFAULT = 60
#: A linked line opens an item only with at least this many words: a headline has two or
#: more, a one-word link ("Details", "Tantra", a menu entry the extractor kept) is a control.
#: On ``auto``'s text of the gold pages it moves one article-set page and one wcxb listing.
ITEM_MIN_WORDS = 2
#: A line this short (words) is linked only when it is a link's whole text: a short line
#: inside a card link's text ("More", "Video") says nothing.
_PART_MIN_WORDS = 3
#: Page types whose item-shaped text is the page's text, never a listing.
NOT_LISTINGS = frozenset(("forum",))


@dataclass(frozen=True)
class ListingShape:
    """How a text reads against its page's links: ``items`` (linked lines), the words of
    the ``preamble`` before the first, of all ``teasers`` and of the ``longest`` one."""

    items: int = 0
    preamble: int = 0
    teasers: int = 0
    longest: int = 0

    def describe(self) -> str:
        """One line for the list of dropped documents."""
        mean = self.teasers / self.items if self.items else 0.0
        return (f"{self.items} linked items of other pages, teasers of {mean:.0f} words "
                f"on average (longest {self.longest}), {self.preamble} words before them")


def _key(text: str) -> str:
    return " ".join(text.split()).lower()


def site_link_texts(page: Page, own_site: bool = True) -> tuple[set[str], str]:
    """The texts of the page's links to other pages of its site: the set of whole link
    texts, and all of them joined by a separator (for lines that are part of a card link's
    text).  A page without a URL counts its relative links as its site's.  With
    ``own_site`` False, every link but a fragment or script link counts (cheaper: no URL is
    resolved)."""
    own = urldefrag(page.url)[0] if page.url else ""
    whole: set[str] = set()
    for a in page.clean_tree.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "mailto:", "tel:")):
            continue
        if own_site:
            target = urldefrag(urljoin(page.url, href) if page.url else href)[0]
            if target == own:
                continue
            if page.url and not same_site(page.url, target):
                continue
            if not page.url and urlsplit(target).netloc:
                continue
        text = _key(a.text_content())
        if text:
            whole.add(text)
    return whole, "\x00".join(whole)


def shape_of(text: str, whole: set[str], joined: str) -> ListingShape:
    """The items, preamble and teasers of ``text`` given the link texts that make items."""
    items = preamble = teasers = longest = run = 0
    for line in text.split("\n"):
        key = _key(line)
        if not key:
            continue
        words = key.count(" ") + 1
        if words >= ITEM_MIN_WORDS and (key in whole
                                        or (words >= _PART_MIN_WORDS and key in joined)):
            items += 1
            longest = max(longest, run)
            run = 0
        elif items:
            teasers += words
            run += words
        else:
            preamble += words
    return ListingShape(items, preamble, teasers, max(longest, run))


def listing_shape(page: Page, text: str) -> ListingShape:
    """The items, preamble and teasers of ``text`` (an extractor's output for ``page``)."""
    return shape_of(text, *site_link_texts(page))


def is_listing(shape: ListingShape, page_type: str = "",
               min_items: int = MIN_ITEMS_DEFAULT,
               teaser_max_words: int = TEASER_MAX_WORDS_DEFAULT,
               teaser_longest_words: int = TEASER_LONGEST_WORDS_DEFAULT,
               preamble_max_words: int = PREAMBLE_MAX_WORDS_DEFAULT) -> bool:
    """Whether a text of this ``shape`` on a page of ``page_type`` is a listing (see the
    module docstring)."""
    return (page_type not in NOT_LISTINGS and shape.items >= min_items
            and shape.teasers <= teaser_max_words * shape.items
            and shape.longest <= teaser_longest_words
            and shape.preamble <= preamble_max_words)


def listing_verdict(page: Page, text: str, page_type: str = "") -> str:
    """Why ``text`` of ``page`` is a listing (:meth:`ListingShape.describe`), "" when not."""
    if not text or page_type in NOT_LISTINGS:
        return ""
    # Every link first, no URL resolved: fewer links make fewer items and longer teasers
    # and preamble, so a text that is no listing with them all is none with the site's
    # alone (most pages stop here; the site's links cost ~3 ms on a page of many links).
    if not is_listing(shape_of(text, *site_link_texts(page, own_site=False)), page_type):
        return ""
    shape = listing_shape(page, text)
    return shape.describe() if is_listing(shape, page_type) else ""


__all__ = ["ITEM_MIN_WORDS", "MIN_ITEMS_DEFAULT", "NOT_LISTINGS", "PREAMBLE_MAX_WORDS_DEFAULT",
           "TEASER_LONGEST_WORDS_DEFAULT", "TEASER_MAX_WORDS_DEFAULT", "ListingShape",
           "is_listing", "listing_shape", "listing_verdict", "shape_of", "site_link_texts"]
