"""Reader comments apart from the text: the comment region of the comment cut
(:mod:`corpuscrawl.extract.segment.sections`), ``auto``'s ``extract_parts`` and the optional
parts contract of :mod:`corpuscrawl.extract.base`."""

from __future__ import annotations

import pytest

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import Extracted, NormalizedExtractor, extract_parts
from corpuscrawl.extract.segment.cdom import tree_blocks
from corpuscrawl.extract.segment.sections import (
    apply_comment_cut,
    comment_blocks,
    cut_comments,
    find_comment_cut,
    is_comment_body,
)
from corpuscrawl.html.page import Page

ARTICLE = "".join(f"<p>Paragraph {i} of the story tells how the harbour cranes were restored "
                  "by volunteers over three winters.</p>" for i in range(8))

COMMENT_BODIES = ["I walked past the cranes last week and they look wonderful again.",
                  "My grandfather worked on the left one in the fifties, thank you for this.",
                  "Thanks!"]

WORDPRESS = f"""<html><body><div id="page"><div id="main"><article>{ARTICLE}</article>
<div id="comments" class="comments-area"><h2 class="comments-title">3 thoughts on the cranes</h2>
<ol class="comment-list">
<li><div class="comment-author">Ann Lee says:</div><div class="meta">March 3, 2012 at 10:15 am</div>
<div class="body"><p>{COMMENT_BODIES[0]}</p></div><a class="reply" href="#r1">Reply</a></li>
<li><div class="comment-author">Bob says:</div><div class="meta">March 4, 2012 at 9:02 am</div>
<div class="body"><p>{COMMENT_BODIES[1]}</p></div><a class="reply" href="#r2">Reply</a></li>
<li><div class="comment-author">Cy wrote:</div><div class="meta">3 days ago</div>
<div class="body"><p>{COMMENT_BODIES[2]}</p></div></li>
</ol>
<div id="respond"><h3>Leave a Reply</h3>
<p>Your email address will not be published. Required fields are marked *</p>
<label>Name *</label><label>Email *</label><label>Website</label>
<p>Notify me of follow-up comments by email.</p><button>Post Comment</button></div>
</div></div>
<div id="sidebar"><h3>About this blog</h3><p>A blog about the harbour, its ships and the people
who keep its old machines running for everyone to see.</p></div></div></body></html>"""


def _blocks(html: str) -> list:
    return tree_blocks(Page.from_html(html).tree.find("body"))


def _comments(html: str, labels: list[int] | None = None) -> tuple[list, list[int], list[int]]:
    blocks = _blocks(html)
    labels = [1] * len(blocks) if labels is None else labels
    cut = find_comment_cut(blocks, labels)
    after = labels if cut is None else apply_comment_cut(blocks, labels, cut)
    return blocks, after, comment_blocks(blocks, after, cut)


def test_comment_bodies_without_bylines_dates_form_or_sidebar():
    blocks, after, ids = _comments(WORDPRESS)
    assert [blocks[j].text for j in ids] == COMMENT_BODIES
    assert not any(after[j] for j in ids)  # a comment is never text as well


def test_the_cut_is_unchanged_by_the_comment_region():
    blocks = _blocks(WORDPRESS)
    labels = [1] * len(blocks)
    cut = find_comment_cut(blocks, labels)
    assert cut is not None
    assert cut_comments(blocks, labels) == apply_comment_cut(blocks, labels, cut)


def test_the_region_is_found_whatever_the_model_kept():
    """The block model, trained on article-only gold, scores comments near 0: the comment
    region is found from the heading, not from the labels."""
    blocks = _blocks(WORDPRESS)
    heading = [b.text for b in blocks].index("3 thoughts on the cranes")
    labels = [1] * heading + [0] * (len(blocks) - heading)
    _, _, ids = _comments(WORDPRESS, labels)
    assert [blocks[j].text for j in ids] == COMMENT_BODIES


def test_a_heading_in_a_bar_of_sort_links_reaches_the_thread_above_it():
    """Slashdot: "Comments Filter:" sits in a bar of filter links; the thread is in the
    bar's parent."""
    html = f"""<html><body><div id="story">{ARTICLE}</div><div id="thread">
<div class="bar"><div>Comments Filter:</div><ul><li><a href="?a">All</a></li>
<li><a href="?i">Insightful</a></li></ul></div>
<div class="c"><p>{COMMENT_BODIES[0]}</p><a href="#f">Flag as Inappropriate</a></div>
<div class="c"><p>{COMMENT_BODIES[1]}</p></div></div></body></html>"""
    blocks, _, ids = _comments(html)
    assert [blocks[j].text for j in ids] == COMMENT_BODIES[:2]


def test_a_thread_in_the_articles_own_element():
    """Telegraph style: the thread (signature lines follow the heading) is cut whole, and
    its bodies are the comments, not the signatures."""
    thread = "".join(f"<p>Reader {i} here: I think the manager will stay where he is happy.</p>"
                     f"<p>Posted by Reader {i} on January 10, 2008 5:{i:02d} PM</p>"
                     "<p>Report this comment</p>" for i in range(3))
    html = f"<html><body><div id='story'>{ARTICLE}<h3>Comments</h3>{thread}</div></body></html>"
    blocks, after, ids = _comments(html)
    assert [blocks[j].text for j in ids] == [
        f"Reader {i} here: I think the manager will stay where he is happy." for i in range(3)]
    assert sum(after) == 8


def test_an_empty_comment_section_gives_no_comments_and_no_sidebar():
    html = f"""<html><body><div id="wrap"><div id="post">{ARTICLE}
<div class="comments"><h3>Comments</h3><p>No comments yet.</p>
<p>All comments will be published after moderation.</p><label>Name (required)</label>
<label>Mail (will not be published) (required)</label></div></div>
<div id="sidebar"><p>Subscribe to our newsletter for the harbour's weekly news and events.</p>
</div></div></body></html>"""
    _, _, ids = _comments(html)
    assert ids == []


def test_no_heading_no_comments():
    blocks, _, ids = _comments(f"<html><body>{ARTICLE}</body></html>")
    assert ids == [] and blocks


@pytest.mark.parametrize("text", ["Reply", "Leave a Reply", "Name (required)", "Website",
                                  "Paul Titov said...", "November 9, 2012 4:29 PM",
                                  "by SteveG on April 16, 2012 at 4:56 am. Reply #",
                                  "Sort comments by", "Podcasts", "Load more comments",
                                  "Posting indicates you have read this site's Privacy Policy"])
def test_ui_and_bylines_are_no_comment_body(text):
    (block,) = _blocks(f"<html><body><div>{text}</div></body></html>")
    assert not is_comment_body(block)


@pytest.mark.parametrize("text", COMMENT_BODIES)
def test_what_a_reader_wrote_is_a_comment_body(text):
    (block,) = _blocks(f"<html><body><div>{text}</div></body></html>")
    assert is_comment_body(block)


class _TextOnly:
    name = "text-only"

    def extract(self, page: Page) -> str:
        return "Soft\u00adhyphen  text"


class _WithComments(_TextOnly):
    name = "with-comments"

    def extract_parts(self, page: Page) -> Extracted:
        return Extracted(self.extract(page), "A com\u00adment\n\n\nand   another")


def test_an_extractor_without_parts_gives_its_text_and_no_comments():
    page = Page.from_html("<html><body><p>x</p></body></html>")
    assert extract_parts(_TextOnly(), page) == Extracted("Soft\u00adhyphen  text", "")
    assert NormalizedExtractor(_TextOnly()).extract_parts(page) == Extracted(
        "Softhyphen text", "")


def test_normalisation_treats_comments_as_text():
    page = Page.from_html("<html><body><p>x</p></body></html>")
    parts = NormalizedExtractor(_WithComments()).extract_parts(page)
    assert parts == Extracted("Softhyphen text", "A comment\nand another")
    assert NormalizedExtractor(_WithComments()).extract(page) == "Softhyphen text"


def test_auto_gives_the_comments_apart_and_its_text_unchanged():
    auto = get_extractor("auto")
    page = Page.from_html(WORDPRESS, url="http://127.0.0.1/cranes")
    parts = auto.extract_parts(page)
    assert parts.text == auto.extract(page)
    assert "Paragraph 3 of the story" in parts.text
    for body in COMMENT_BODIES:
        assert body in parts.comments and body not in parts.text
    assert "Leave a Reply" not in parts.comments and "says:" not in parts.comments


def test_classic_extractors_give_no_comments():
    page = Page.from_html(WORDPRESS, url="http://127.0.0.1/cranes")
    parts = get_extractor("bte").extract_parts(page)
    assert parts.comments == "" and parts.text == get_extractor("bte").extract(page)


@pytest.mark.parametrize("heading", ["12 Kommentare", "Commentaires", "27 commentaires",
                                     "Komentarze (4)", "Hozzászólások", "Комментарии",
                                     "Deixe uma resposta", "Reacties"])
def test_comment_headings_of_other_languages(heading):
    html = WORDPRESS.replace("3 thoughts on the cranes", heading)
    blocks, after, ids = _comments(html)
    assert [blocks[j].text for j in ids] == COMMENT_BODIES


@pytest.mark.parametrize("heading", ["Kommentar", "Réaction", "Reaction", "Comentario"])
def test_a_singular_that_names_a_genre_is_no_comment_heading(heading):
    """German "Kommentar" (an opinion piece) or a chemistry table's "Reaction" column
    heads article text: no cut, nothing in comments."""
    html = WORDPRESS.replace("3 thoughts on the cranes", heading).replace(
        "<h3>Leave a Reply</h3>", "<h3>Your details</h3>")
    blocks, after, ids = _comments(html)
    assert ids == [] and after == [1] * len(blocks)


def _heading_cut(html: str, heading_probability: float):
    """The cut when every block is kept and the block model scores the heading
    ``heading_probability`` (the rest 0.9)."""
    blocks = _blocks(html)
    heading = next(j for j, b in enumerate(blocks) if b.text == "Comments")
    probabilities = [heading_probability if j == heading else 0.9 for j in range(len(blocks))]
    return find_comment_cut(blocks, [1] * len(blocks), probabilities)


IN_ARTICLE = f"""<html><body><main><article><h1>Cranes restored</h1>{ARTICLE}
<section class="{{cls}}"><h2>Comments</h2><div class="list">
{"".join(f"<p>{c}</p>" for c in COMMENT_BODIES[:2])}</div></section>
</article></main></body></html>"""


def test_a_heading_in_a_comment_section_cuts_however_likely_the_model_scores_it():
    """A model that learned whole-web gold scores a "Comments" heading inside the
    ``<article>`` like a section heading of the text; the section's class names comments."""
    assert _heading_cut(IN_ARTICLE.replace("{cls}", "comments"), 0.1) is not None
    cut = _heading_cut(IN_ARTICLE.replace("{cls}", "comments"), 0.7)
    assert cut is not None
    blocks = _blocks(IN_ARTICLE.replace("{cls}", "comments"))
    labels = apply_comment_cut(blocks, [1] * len(blocks), cut)
    assert [blocks[j].text for j in comment_blocks(blocks, labels, cut)] == COMMENT_BODIES[:2]


def test_without_comment_markup_a_heading_scored_as_content_starts_no_cut():
    assert _heading_cut(IN_ARTICLE.replace("{cls}", "notes"), 0.1) is not None
    assert _heading_cut(IN_ARTICLE.replace("{cls}", "notes"), 0.7) is None


def test_a_page_wide_comment_class_is_no_evidence():
    """``<body class="comments-open">`` marks every block: the text before the heading
    carries the bit too, so the model's score decides."""
    page_wide = IN_ARTICLE.replace("{cls}", "comments").replace(
        "<main>", '<main class="single comments-open">')
    assert _heading_cut(page_wide, 0.7) is None
    assert _heading_cut(page_wide, 0.1) is not None
