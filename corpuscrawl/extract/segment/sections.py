"""Section cuts after the article: reader comments and related-content regions.

Why: the block model scores a reader comment or a teaser of another story by what the block
looks like, and inside a news or blog page both look like article text (same container tags,
classes, sentence lengths).  What gives them away is the short heading that introduces them
("12 Comments", "Also on HuffPost:", "Related Coverage").  These functions take the labels
decoded by ``auto`` (:mod:`corpuscrawl.extract.learned.auto`) and drop what such a heading introduces; the thresholds were
chosen on the training split's out-of-fold predictions (numbers at each constant and in
``benchmarks/results/learned.md``).

* :func:`cut_comments`: after the first comment heading (text, not a link) that follows
  enough kept text, kept blocks outside the element holding most of the kept text before it
  are dropped (a thread rarely comes back to the article); when the heading introduces a
  thread — signature lines such as "Posted by Ellen at September 10, 2012 11:40 AM" or
  "Report this comment" follow it — every kept block after it is dropped, since such
  threads often sit in the article's own element.
* :func:`cut_related`: after a related-content heading, the kept blocks that follow it
  outside that element are dropped until the page returns to that element or reaches a link
  list.  A related box inside an article ("Related" and three links, then the article goes
  on) introduces a link list, which the model does not keep, so the cut stops at once; a
  slideshow or teaser block ("Also on HuffPost:" and 3 000 words of captions) introduces
  text, which the model kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from corpuscrawl.extract.segment.cdom import CLASS_KEYWORDS, TAG_BIT, Block

#: A comment-section heading: a short block starting with one of these (independent of the sources;
#: the phrases are the usual CMS headings seen on the training pages).  "Discussion" counts
#: only after a number ("12 discussions"): alone it is the section of a paper (a CleanEval
#: paper would be cut after its table of contents; measured in
#: ``benchmarks/results/learned.md``).
COMMENT_HEADING_RE = re.compile(
    r"^\W*(\d+\s+)?(comments?|responses?|replies|reader comments|leave a (reply|comment)"
    r"|post a comment|add (a|your) comment|join the discussion|(?<=\d\s)discussions?"
    r"|\d+ thoughts on"
    r"|what do you think\??$|have your say|your comments?|readers'? comments?"
    r"|comment on this|trackbacks?"
    # The same headings in the languages of WordPress's and the large news sites' commonest
    # localisations (German, French, Spanish, Italian, Portuguese, Dutch, Polish, Czech and
    # Slovak, the South Slavic languages, Hungarian, the Scandinavian languages, Finnish,
    # Romanian, Turkish, Russian and Ukrainian): plurals only, since the singular also names
    # a genre there (German "Kommentar", an opinion piece, cut an article on the snippet pages).
    r"|(leser)?kommentare|schreibe(n sie)? einen kommentar"
    r"|commentaires|laisser un commentaire|laissez un commentaire|réactions"
    r"|comentarios|deja (un|tu) comentario|dejar un comentario"
    r"|commenti|lascia un commento|coment[aá]rios|deixe (um|seu|o seu) coment[aá]rio"
    r"|deixe uma resposta|reacties|laat een reactie achter|plaats een reactie"
    r"|komentarze|dodaj komentarz|zostaw komentarz|koment[aá]ře|koment[aá]re|komentari|komentarji"
    r"|ostavite komentar|hozzász[oó]l[aá]sok|kommentek|sz[oó]lj hozz[aá]"
    r"|kommentarer|l[äa]mna en kommentar|legg igjen en kommentar|skriv en kommentar|kommentit"
    r"|comentarii|las[ăa] un comentariu|yorumlar|комментарии|оставить комментарий"
    r"|коментарі|залишити коментар)\b", re.I)
#: A heading block has at most this many words (chosen on the inner validation part:
#: ``benchmarks/results/learned.md``).
COMMENT_HEADING_MAX_WORDS_DEFAULT = 10
#: The cut applies only after this share of the page's kept words (chosen on the inner
#: validation part, ``benchmarks/results/learned.md``; lower values cut pages whose text
#: follows a "Comments" link near the top).
COMMENT_MIN_BEFORE_DEFAULT = 0.15
#: ... or after this many kept words.  The share alone counts the comments themselves, so a
#: long thread hides the "Comments (408)" heading of the article above it.  Chosen on the
#: out-of-fold predictions of cross-validation folds 1-4 (the train split,
#: ``benchmarks/crossval.py``); measured in ``benchmarks/results/learned.md`` and
#: ``benchmarks/results/crossval.md``.
COMMENT_MIN_BEFORE_WORDS_DEFAULT: int | None = 100
#: A heading the block model itself scores at least this likely to be content starts no cut:
#: "Response" as a section of an API article, "Comment" heading a blog's own commentary,
#: CleanEval threads whose gold keeps the comments.  Chosen on the out-of-fold predictions of
#: cross-validation folds 1-4 (train split), the threshold picked inside each fold's other
#: three folds; measured in ``benchmarks/results/learned.md``.
COMMENT_HEADING_MAX_PROBABILITY_DEFAULT = 0.5
#: The markup's word overrides the model's on a comment heading: a heading inside an element
#: whose class or id names comments (``<section class="comments">``, ``#disqus_thread``,
#: ``.comment-respond``: the class keyword bit :data:`COMMENT_CLASS_BIT`), when at most this
#: share of the kept words before it carries that bit too (a page-wide class such as
#: ``<body class="comments-open">`` is no evidence), starts the cut however likely the block
#: model scores it to be content.  A model that learned from whole-web gold (forum posts and
#: section headings are content there) scores a "Comments" heading inside an ``<article>``
#: 0.6-0.7, above :data:`COMMENT_HEADING_MAX_PROBABILITY_DEFAULT`, where the article-set model
#: scored it under 0.15; the guard's cases (an API article's "Response" section, a blog's
#: own "Comment" section) sit in no comment-named element.  Measured in
#: ``benchmarks/results/comments.md``.
COMMENT_MARKUP_MAX_SHARE_BEFORE = 0.5
#: The class/id keyword bit of comment containers (``comment``, ``disqus``, ``repl...``).
COMMENT_CLASS_BIT = 1 << (len(TAG_BIT) + [k for k, _ in CLASS_KEYWORDS].index("comment"))
#: Whether a block that is mostly link text ("Comments" in a share bar, "174 comments" next
#: to a headline) can be a comment heading; no: only text that is not a link is one, as for
#: related-content headings.  Taken for one, a "Comments" link in a share bar after a
#: story's first paragraphs cuts the rest of the story (dragnet ``R166``, ``R168``).  Chosen
#: on the out-of-fold decoding of the train split (``benchmarks/page_wide_bits.py
#: --comment-links``); measured in ``benchmarks/results/learned.md``.
COMMENT_LINK_HEADINGS_DEFAULT = False
#: A comment's signature line (at most :data:`THREAD_SIGNATURE_MAX_WORDS` words): "Posted by X
#: on <date>", "Report this comment", "Report abuse", "Reply", "Flag", "Permalink".
THREAD_SIGNATURE_RE = re.compile(
    r"^\W*(posted|submitted|written) by\b.*\d|^\W*report (this )?(comment|abuse)\W*$"
    r"|^\W*(reply|flag|permalink)\W*$", re.I)
THREAD_SIGNATURE_MAX_WORDS = 15
#: A comment heading introduces a thread when at least this many signature lines follow it,
#: the first within :data:`THREAD_MAX_GAP_WORDS_DEFAULT` words (a "Comments" link in a share
#: bar above the article is followed by the whole article first), and no more than
#: :data:`THREAD_MAX_HEADINGS_DEFAULT` further comment headings (a blog's front page repeats
#: "Comments (3)" and "posted by Aaron @ 9:43 AM" under every post: CleanEval ``final-179``).
#: Then every kept block after the heading is dropped, not only those outside the article's
#: element: Telegraph, Movable Type and TypePad threads sit in the article's own element.
#: Chosen on the out-of-fold predictions of cross-validation folds 1-4 (train split; λ and
#: bias chosen inside each fold's other three folds); measured in
#: ``benchmarks/results/learned.md``.
THREAD_MIN_SIGNATURES_DEFAULT = 2
THREAD_MAX_GAP_WORDS_DEFAULT = 300
THREAD_MAX_HEADINGS_DEFAULT = 2
#: A related-content heading: a short block, not a link, starting with one of these.  "Read
#: more" is not one: it also heads an inline box in the middle of articles whose text goes on
#: in another element.  The cut stops where the article's own element goes on or at a link
#: list (:func:`cut_related`): inline boxes of news sites sit in the middle of the article,
#: whose text goes on after them.  Chosen on the
#: out-of-fold predictions of cross-validation folds 1-4 (the train split; λ and bias chosen
#: inside each fold's other three folds); measured in ``benchmarks/results/learned.md``.
RELATED_HEADING_RE = re.compile(
    r"^\W*(also on\b|related\b|more (from|on|in|stories|news|articles)\b"
    r"|you (may|might) (also )?(like|enjoy|be interested)|recommended\b|further reading"
    r"|most (read|popular|viewed|shared)\b|popular (stories|posts|articles)"
    r"|other (stories|news|articles)|in other news|around the web|from around the web"
    r"|trending\b|what'?s popular)", re.I)


def _enough(blocks: Sequence[Block], labels: Sequence[int], min_before: float,
            min_before_words: int | None) -> float:
    """Kept words that must precede a heading for it to count (see the constants)."""
    total = sum(b.words for b, lab in zip(blocks, labels, strict=True) if lab)
    return min(min_before * total, min_before_words) if min_before_words else min_before * total


def _main_parent(blocks: Sequence[Block], labels: Sequence[int], end: int) -> int:
    """The parent element holding most of the kept words before block ``end``."""
    weight: dict[int, int] = {}
    for b, lab in zip(blocks[:end], labels[:end], strict=True):
        if lab:
            weight[_parent(b)] = weight.get(_parent(b), 0) + b.words
    return max(weight, key=weight.__getitem__)


def _parent(block: Block) -> int:
    return block.path[1] if len(block.path) > 1 else block.path[0]


def _is_link(block: Block) -> bool:
    """More than half of the block's words are link text (an entry of a link list)."""
    return block.link_words * 2 > block.words


def _is_comment_heading(block: Block, max_words: int) -> bool:
    return block.words <= max_words and COMMENT_HEADING_RE.search(block.text) is not None


def in_comment_markup(blocks: Sequence[Block], labels: Sequence[int], i: int) -> bool:
    """Whether block ``i`` sits in a comment-named element (:data:`COMMENT_CLASS_BIT`) that
    the kept text before it is mostly outside (see :data:`COMMENT_MARKUP_MAX_SHARE_BEFORE`)."""
    if not blocks[i].mask & COMMENT_CLASS_BIT:
        return False
    kept = marked = 0
    for block, label in zip(blocks[:i], labels[:i], strict=True):
        if label:
            kept += block.words
            marked += block.words if block.mask & COMMENT_CLASS_BIT else 0
    return marked <= COMMENT_MARKUP_MAX_SHARE_BEFORE * kept


def _thread_follows(after: Sequence[Block], max_words: int, min_signatures: int,
                    max_gap_words: int, max_headings: int) -> bool:
    """Whether the blocks after a comment heading are a thread (see
    :data:`THREAD_MIN_SIGNATURES_DEFAULT`)."""
    signatures = [k for k, b in enumerate(after) if b.words <= THREAD_SIGNATURE_MAX_WORDS
                  and THREAD_SIGNATURE_RE.search(b.text)]
    gap = sum(b.words for b in after[:signatures[0]]) if signatures else 0
    return (len(signatures) >= min_signatures and gap <= max_gap_words
            and sum(_is_comment_heading(b, max_words) for b in after) <= max_headings)


@dataclass(frozen=True)
class CommentCut:
    """Where :func:`cut_comments` cuts a page: the ``heading`` block's index, the parent
    element ``main`` holding most of the kept words before it, and whether a ``thread``
    follows (then every block after the heading is cut, else those outside ``main``)."""

    heading: int
    main: int
    thread: bool

    def cuts(self, j: int, block: Block) -> bool:
        """Whether block ``j`` (``block``) is in what the cut removes."""
        return j == self.heading or (j > self.heading
                                     and (self.thread or _parent(block) != self.main))


def find_comment_cut(blocks: Sequence[Block], labels: Sequence[int],
                     probabilities: Sequence[float] | None = None,
                     max_words: int = COMMENT_HEADING_MAX_WORDS_DEFAULT,
                     min_before: float = COMMENT_MIN_BEFORE_DEFAULT,
                     min_before_words: int | None = COMMENT_MIN_BEFORE_WORDS_DEFAULT,
                     max_probability: float = COMMENT_HEADING_MAX_PROBABILITY_DEFAULT,
                     min_signatures: int | None = THREAD_MIN_SIGNATURES_DEFAULT,
                     max_gap_words: int = THREAD_MAX_GAP_WORDS_DEFAULT,
                     max_headings: int = THREAD_MAX_HEADINGS_DEFAULT,
                     link_headings: bool = COMMENT_LINK_HEADINGS_DEFAULT) -> CommentCut | None:
    """The comment cut of a page (see :func:`cut_comments` for the rule), or None."""
    enough = _enough(blocks, labels, min_before, min_before_words)
    before = 0
    for i, block in enumerate(blocks):
        if (before and before >= enough
                and (link_headings or not _is_link(block))
                and _is_comment_heading(block, max_words)
                and (probabilities is None or probabilities[i] < max_probability
                     or in_comment_markup(blocks, labels, i))):
            thread = min_signatures is not None and _thread_follows(
                blocks[i + 1:], max_words, min_signatures, max_gap_words, max_headings)
            return CommentCut(i, _main_parent(blocks, labels, i), thread)
        if labels[i]:
            before += block.words
    return None


def cut_comments(blocks: Sequence[Block], labels: list[int],
                 probabilities: Sequence[float] | None = None,
                 max_words: int = COMMENT_HEADING_MAX_WORDS_DEFAULT,
                 min_before: float = COMMENT_MIN_BEFORE_DEFAULT,
                 min_before_words: int | None = COMMENT_MIN_BEFORE_WORDS_DEFAULT,
                 max_probability: float = COMMENT_HEADING_MAX_PROBABILITY_DEFAULT,
                 min_signatures: int | None = THREAD_MIN_SIGNATURES_DEFAULT,
                 max_gap_words: int = THREAD_MAX_GAP_WORDS_DEFAULT,
                 max_headings: int = THREAD_MAX_HEADINGS_DEFAULT,
                 link_headings: bool = COMMENT_LINK_HEADINGS_DEFAULT) -> list[int]:
    """Drop kept reader comments: after the first comment heading that follows at least
    ``min_before`` of the kept words (or at least ``min_before_words`` kept words), keep
    only blocks whose parent element is the one holding most of the kept words before the
    heading (the heading itself is dropped), or none at all when a thread of at least
    ``min_signatures`` signature lines follows (``None``: never).  With the blocks' content
    ``probabilities``, a heading scored at least ``max_probability`` is taken for article
    text, not a cut, unless it sits in a comment-named element (:func:`in_comment_markup`);
    without ``link_headings`` a link is never a heading."""
    cut = find_comment_cut(blocks, labels, probabilities, max_words, min_before,
                           min_before_words, max_probability, min_signatures, max_gap_words,
                           max_headings, link_headings)
    return labels if cut is None else apply_comment_cut(blocks, labels, cut)


def apply_comment_cut(blocks: Sequence[Block], labels: Sequence[int],
                      cut: CommentCut) -> list[int]:
    """``labels`` without what ``cut`` removes."""
    return [0 if cut.cuts(j, b) else lab
            for j, (b, lab) in enumerate(zip(blocks, labels, strict=True))]


#: The comment region (:func:`comment_region`) is the blocks after the heading inside the
#: lowest of the heading's container and its ancestors, at most this many levels up, that
#: holds later blocks other than links.  A heading often sits in a bar of its own
#: ("Comments Filter:" and sort links) or a wrapper around the count, one or two levels
#: below the element holding the thread; higher up the region would run into the page's
#: sidebar and footer.  Measured in ``benchmarks/results/comments.md``.
COMMENT_REGION_MAX_LEVELS_DEFAULT = 2
#: The comment form and the thread's controls, not what a reader wrote: "Reply", "Leave a
#: Reply", "Name (required)", "Mail (will not be published)", "Name * Email * Website"
#: (a form's labels run together), "Log in to Reply", "No
#: comments yet", "Flag as Inappropriate", "Load more comments" ...
COMMENT_UI_RE = re.compile(
    r"^\W*((cancel |log ?in to |sign ?in to )?reply( to this( parent)?)?( share)?"
    r"|leave a (reply|comment)|post( a| your)? comment|add (a |your )?comment|submit( comment)?"
    r"|((your )?(name|e-?mail|mail|e-?mail address|website|url|uri|comment|message)"
    r"( ?\(.{0,40}?\))*\W*)+"
    r"|log ?in|log ?out|sign ?(in|up)|register|share|like|flag( as inappropriate)?"
    r"|report( this comment| abuse)?|permalink|edit|subscribe"
    r"|(load|show|view|see) (more|all|older|newer|\d+)( \w+)? (comments|replies)"
    r"|no comments( found| yet)?|(there are )?no (comments|responses|replies)( yet)?"
    r"|be the first to comment.*|(click|scroll) .{0,40}(comment|reply)"
    r"|notify me of .*|subscribe to .*|you must be logged in.*|required fields .*"
    r"|your e-?mail( address)? will not be published.*)\W*$", re.I)
#: A comment's byline or time stamp line, not its text: "Paul Titov said...", "Ellen
#: wrote:", "November 9, 2012 4:29 PM", "by SteveG on April 16, 2012 at 4:56 am. Reply #",
#: "3 days ago": a short line (:data:`COMMENT_META_MAX_WORDS`) ending in "said"/"wrote" or
#: holding a date or a time of day.
COMMENT_META_RE = re.compile(
    r"\b(said|says|wrote)\W*$"
    r"|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(st|nd|rd|th)?,? \d{4}\b"
    r"|\b\d{1,2}(st|nd|rd|th)? (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,? \d{4}\b"
    r"|\b\d{1,4}[./-]\d{1,2}[./-]\d{2,4}\b|\b\d{1,2}:\d\d\b"
    r"|\b\d+ (minutes?|hours?|days?|weeks?|months?|years?) ago\b", re.I)
#: A notice about the comment system, not a comment (at most
#: :data:`COMMENT_NOTICE_MAX_WORDS` words): a short line naming comments, trackbacks or
#: replies ("All comments will be published after moderation", "No trackbacks or pings
#: yet", "Please email us to report offensive comments", "Sort comments by"), a policy line
#: ("Posting indicates you have read this site's Privacy Policy"), a form hint ("(will not
#: be displayed)", "Enter Verification code", "HTML tags allowed").  A reader's one-line
#: "Thanks for the comment!" is lost with them; such lines are rare among comments and
#: common in the forms.
COMMENT_NOTICE_RE = re.compile(
    r"\b(comments?|commenting|commenters?|trackbacks?|pings?|replies|posting)\b"
    r"|\b(moderat\w*|guidelines?|privacy|polic(y|ies)|terms of (use|service))\b"
    r"|\b(verification|captcha|anti-?spam|security (code|word)|html tags|required fields)\b"
    r"|\bnever (be )?(shared|published|displayed)\b"
    r"|^\W*\(.*\)\W*$", re.I)
COMMENT_NOTICE_MAX_WORDS = 20
#: A byline or time stamp line has at most this many words.
COMMENT_META_MAX_WORDS = 12
#: A comment body has at least this many words, or ends a sentence ("Thanks!"): a single
#: word without one is a label or a menu entry ("Podcasts", "Twitter").
COMMENT_BODY_MIN_WORDS = 2


def comment_region(blocks: Sequence[Block], cut: CommentCut,
                   max_levels: int = COMMENT_REGION_MAX_LEVELS_DEFAULT) -> range:
    """The blocks after ``cut``'s heading that its comment section holds: those inside the
    lowest of the heading's container and its first ``max_levels`` ancestors whose blocks
    after the heading are not all links (a section with no comment still holds its form or
    a notice); empty when there is none."""
    start = cut.heading + 1
    for node in blocks[cut.heading].path[:max_levels + 1]:
        end = start
        while end < len(blocks) and node in blocks[end].path:
            end += 1
        if not all(_is_link(b) for b in blocks[start:end]):
            return range(start, end)
    return range(start, start)


def is_comment_body(block: Block, max_words: int = COMMENT_HEADING_MAX_WORDS_DEFAULT) -> bool:
    """Whether a block of a comment section is what a reader wrote: not a link, not the
    form or the thread's controls, not a byline, time stamp, signature or section heading."""
    if not block.words or _is_link(block) or COMMENT_UI_RE.search(block.text):
        return False
    if block.words < COMMENT_BODY_MIN_WORDS and not block.text.rstrip().endswith(("!", "?", ".")):
        return False
    if block.words <= THREAD_SIGNATURE_MAX_WORDS and THREAD_SIGNATURE_RE.search(block.text):
        return False
    if block.words <= COMMENT_META_MAX_WORDS and COMMENT_META_RE.search(block.text):
        return False
    if block.words <= COMMENT_NOTICE_MAX_WORDS and COMMENT_NOTICE_RE.search(block.text):
        return False
    return not _is_comment_heading(block, max_words)


def comment_blocks(blocks: Sequence[Block], labels: Sequence[int], cut: CommentCut | None,
                   max_levels: int | None = None) -> list[int]:
    """Indices of the reader comments of a page: the comment bodies of ``cut``'s region
    (:func:`comment_region`, ``max_levels`` None: :data:`COMMENT_REGION_MAX_LEVELS_DEFAULT`)
    that ``labels`` (after the cut) do not keep as text."""
    if cut is None:
        return []
    levels = COMMENT_REGION_MAX_LEVELS_DEFAULT if max_levels is None else max_levels
    return [j for j in comment_region(blocks, cut, levels)
            if not labels[j] and is_comment_body(blocks[j])]


def cut_related(blocks: Sequence[Block], labels: list[int],
                max_words: int = COMMENT_HEADING_MAX_WORDS_DEFAULT,
                min_before: float = COMMENT_MIN_BEFORE_DEFAULT,
                min_before_words: int | None = COMMENT_MIN_BEFORE_WORDS_DEFAULT) -> list[int]:
    """Drop what a related-content heading introduces: after a heading (not a link) that
    follows as much kept text as a comment heading must, the heading and the kept blocks after
    it are dropped, up to the first block in the parent element holding most of the kept
    words before it or the first link-dominated block the labels do not keep.  Every such
    heading cuts; the blocks of a cut region count neither as text before a later heading
    nor as headings."""
    enough = _enough(blocks, labels, min_before, min_before_words)
    out = list(labels)
    before = 0
    i = 0
    while i < len(blocks):
        block = blocks[i]
        if (before and before >= enough and block.words <= max_words
                and not _is_link(block)
                and RELATED_HEADING_RE.search(block.text)):
            main = _main_parent(blocks, labels, i)
            out[i] = 0
            i += 1
            while i < len(blocks) and _parent(blocks[i]) != main:
                if out[i]:
                    out[i] = 0
                elif _is_link(blocks[i]):
                    break
                i += 1
            continue
        if labels[i]:
            before += block.words
        i += 1
    return out


__all__ = [
    "COMMENT_HEADING_MAX_PROBABILITY_DEFAULT",
    "COMMENT_CLASS_BIT",
    "COMMENT_LINK_HEADINGS_DEFAULT",
    "COMMENT_MARKUP_MAX_SHARE_BEFORE",
    "COMMENT_HEADING_MAX_WORDS_DEFAULT",
    "COMMENT_BODY_MIN_WORDS",
    "COMMENT_HEADING_RE",
    "COMMENT_MIN_BEFORE_DEFAULT",
    "COMMENT_META_MAX_WORDS",
    "COMMENT_META_RE",
    "COMMENT_MIN_BEFORE_WORDS_DEFAULT",
    "COMMENT_NOTICE_MAX_WORDS",
    "COMMENT_NOTICE_RE",
    "COMMENT_REGION_MAX_LEVELS_DEFAULT",
    "COMMENT_UI_RE",
    "CommentCut",
    "RELATED_HEADING_RE",
    "THREAD_MAX_GAP_WORDS_DEFAULT",
    "THREAD_MAX_HEADINGS_DEFAULT",
    "THREAD_MIN_SIGNATURES_DEFAULT",
    "THREAD_SIGNATURE_MAX_WORDS",
    "THREAD_SIGNATURE_RE",
    "apply_comment_cut",
    "comment_blocks",
    "comment_region",
    "cut_comments",
    "find_comment_cut",
    "in_comment_markup",
    "is_comment_body",
    "cut_related",
]
