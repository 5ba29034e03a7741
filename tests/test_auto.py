"""``auto``: fallback rule, comment and related-content cuts, decoding, train -> save ->
load -> predict, votes, errors."""

from __future__ import annotations

import numpy as np
import pytest

from corpuscrawl.evaluation.datasets import Dataset, DatasetError, datasets_root
from corpuscrawl.evaluation.metrics import score
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.extract.learned.auto import (
    PAGE_WIDE_SHARE_CHOSEN,
    PAGE_WIDE_SHARE_DEFAULT,
    AutoExtractor,
    AutoModel,
    Potentials,
    decoded_labels,
    fallback_region,
)
from corpuscrawl.extract.learned.block_features import UNARY_FEATURE_NAMES
from corpuscrawl.extract.learned.models import load_model
from corpuscrawl.extract.learned.stacking import CONTEXT_FEATURE_NAMES, context_matrix
from corpuscrawl.extract.learned.title_features import TITLE_FEATURE_NAMES
from corpuscrawl.extract.segment.cdom import tree_blocks
from corpuscrawl.extract.segment.sections import cut_comments, cut_related
from corpuscrawl.html.page import Page
from corpuscrawl.learn.auto_trainer import _held_out_probabilities
from corpuscrawl.learn.folds import out_of_fold
from corpuscrawl.learn.sequence_trainer import PageRows
from corpuscrawl.learn.training import train
from corpuscrawl.learn.trainset import documents

pytestmark = pytest.mark.usefixtures("private_cache")


def test_fallback_keeps_near_best_blocks_only_when_nothing_was_kept():
    probs = np.array([0.1, 0.35, 0.3, 0.05])
    assert fallback_region(probs, [0, 0, 0, 0]) == [0, 1, 1, 0]
    assert fallback_region(probs, [1, 0, 0, 0]) == [1, 0, 0, 0]
    assert fallback_region(np.array([0.08, 0.05]), [0, 0]) == [0, 0]  # nothing convincing
    # A page whose article the model doubts (0.1-0.2) still gives its best region.
    assert fallback_region(np.array([0.02, 0.15, 0.12, 0.01]), [0, 0, 0, 0]) == [0, 1, 1, 0]
    assert fallback_region(np.array([]), []) == []


ARTICLE_WITH_COMMENTS = """<html><body><div id="story">
<h1>Premiers meet the prime minister</h1>
<p>The economy dominated a working dinner between the premiers and the prime minister.</p>
<p>The premiers said the meeting offered them a good opportunity to raise their concerns.</p>
<div>Comments are now closed for this story</div>
<div class="c"><div>Stephen B</div>
<div>The time has come for the government to start cutting spending now.</div></div>
<p>Inside the article parent again after the heading.</p>
</div></body></html>"""


def _blocks(html: str) -> list:
    return tree_blocks(Page.from_html(html).tree.find("body"))


def test_comment_cut_drops_blocks_outside_the_main_parent_after_a_heading():
    blocks = _blocks(ARTICLE_WITH_COMMENTS)
    texts = [b.text for b in blocks]
    heading = texts.index("Comments are now closed for this story")
    kept = cut_comments(blocks, [1] * len(blocks))
    assert kept[:heading] == [1] * heading
    assert kept[heading] == 0  # the heading itself
    assert kept[texts.index("Stephen B")] == 0
    assert kept[texts.index("Inside the article parent again after the heading.")] == 1


def test_comment_cut_needs_kept_text_before_the_heading():
    blocks = _blocks(ARTICLE_WITH_COMMENTS)
    heading = [b.text for b in blocks].index("Comments are now closed for this story")
    labels = [0] * heading + [1] * (len(blocks) - heading)
    assert cut_comments(blocks, labels) == labels  # nothing kept before: no cut
    assert cut_comments(blocks, [1] * len(blocks), min_before=0.99) == [1] * len(blocks)
    assert cut_comments([], []) == []


def test_a_long_thread_does_not_hide_its_heading():
    """The share of kept words before the heading counts the comments too: 40 words of
    article before 4 000 words of thread is 1 %, yet the heading is no link at the top."""
    article = "".join(f"<p>Article sentence {i} about the harbour and its old cranes.</p>"
                      for i in range(15))
    thread = "".join(f'<div class="c"><div>Reader {i}</div><div>{"so true " * 20}</div></div>'
                     for i in range(100))
    blocks = _blocks(f"<html><body><div>{article}</div><h3>Comments (100)</h3>"
                     f"<div>{thread}</div></body></html>")
    texts = [b.text for b in blocks]
    heading = texts.index("Comments (100)")
    before = sum(b.words for b in blocks[:heading])
    assert 100 <= before < 0.15 * sum(b.words for b in blocks)
    kept = cut_comments(blocks, [1] * len(blocks))
    assert kept == [1] * heading + [0] * (len(blocks) - heading)
    share_only = cut_comments(blocks, [1] * len(blocks), min_before_words=None)
    assert share_only == [1] * len(blocks)


def test_a_papers_discussion_section_is_no_comment_heading():
    """CleanEval papers: "Discussion" in the table of contents cut the whole article; a
    counted "12 discussions" still heads a thread."""
    toc = "".join(f"<li><a href='#s{i}'>{name}</a></li>" for i, name in
                  enumerate(("Abstract", "Background", "Methods", "Discussion", "References")))
    sections = "".join(f"<div class='s'><h2>Part {i}</h2><p>{'measured values agree ' * 30}</p>"
                       "</div>" for i in range(4))
    abstract = f"<div><p>{'we describe a system ' * 30}</p></div>"
    paper = _blocks(f"<html><body>{abstract}<ul>{toc}</ul>{sections}</body></html>")
    assert cut_comments(paper, [1] * len(paper)) == [1] * len(paper)
    thread = _blocks(f"<html><body>{abstract}<h3>12 discussions</h3>"
                     "<div class='c'><p>I disagree with this entirely.</p></div></body></html>")
    assert cut_comments(thread, [1] * len(thread))[-2:] == [0, 0]


def test_context_features_see_neighbours_and_regions():
    blocks = _blocks(ARTICLE_WITH_COMMENTS)
    p = np.linspace(0.9, 0.1, len(blocks))
    ctx = context_matrix(blocks, p)
    assert ctx.shape == (len(blocks), len(CONTEXT_FEATURE_NAMES))
    assert ctx[0, 0] == p[0] and ctx[0, CONTEXT_FEATURE_NAMES.index("p1-1")] == -1
    assert ctx[0, CONTEXT_FEATURE_NAMES.index("p1+1")] == p[1]
    before = CONTEXT_FEATURE_NAMES.index("content_before")
    assert ctx[0, before] == 0 and np.all(np.diff(ctx[:, before]) >= 0)
    assert context_matrix([], np.zeros(0)).shape == (0, len(CONTEXT_FEATURE_NAMES))


def test_out_of_fold_never_predicts_a_page_with_its_own_model():
    keys = [f"d/{i}" for i in range(9)]
    xs = [np.full((2, 1), float(i)) for i in range(9)]
    ys = [np.array([1, 0]) for _ in range(9)]
    seen: list[set[float]] = []

    class Memo:
        def __init__(self, x):
            seen.append(set(x[:, 0].tolist()))
            self.train = seen[-1]

        def predict_proba(self, x):
            assert not set(x[:, 0].tolist()) & self.train
            return np.tile([0.5, 0.5], (len(x), 1))

    oof = out_of_fold(keys, xs, ys, lambda x, y: Memo(x), folds=3)
    assert all(len(p) == 2 for p in oof) and len(seen) == 3


def test_decoding_is_chosen_on_pages_the_scoring_fit_did_not_see():
    """λ and the bias are chosen on every training page, each scored by a fit without it."""
    keys = [f"d/{i}" for i in range(12)]
    xs = [np.full((2, 1), float(i)) for i in range(12)]
    ys = [np.array([1, 0]) for _ in range(12)]
    ps = [np.zeros((1, 3)) for _ in range(12)]
    blocks = [[None, None] for _ in range(12)]
    fits: list[set[int]] = []

    class Unary:
        def __init__(self, seen):
            self.seen = seen

        def predict_proba(self, x):
            assert int(x[0, 0]) not in self.seen
            return np.tile([0.4, 0.6], (len(x), 1))

    class Pairwise:
        classes_ = np.array([0, 1, 2, 3])

        def predict_proba(self, x):
            return np.full((len(x), 4), 0.25)

    def fit(indices):
        fits.append(set(indices))
        return Potentials(Unary(fits[-1]), None, Pairwise())

    rows = PageRows(xs, ys, ps, [], ("i",), ("p0", "p1", "p2"))
    held = _held_out_probabilities(keys, rows, blocks, 3, fit)
    assert len(fits) == 3 and all(p is not None for p in held)
    assert all(len(up) == 2 and pp.shape == (1, 4) for up, pp in held)
    assert set().union(*fits) == set(range(12))


@pytest.mark.parametrize("stacking", [False, True])
def test_train_save_load_predict_round_trip(data_dir, tmp_path, stacking):
    tinyset = data_dir / "learned" / "tinyset"
    options = {"stacking": True} if stacking else {}  # the default is one stage
    train("auto", [tinyset], models_dir=tmp_path / "m", show_progress=False, max_iter=20,
          **options)
    model = load_model("auto", AutoModel, tmp_path / "m")
    assert model.votes_ == () and 0.0 <= model.lambda_ <= 1.0
    assert (model.stage2_ is not None) == stacking == model.stacking
    assert 0.0 < model.fit_info_["out_of_fold_f1"] <= 1.0
    assert model.feature_names_in_ == UNARY_FEATURE_NAMES + TITLE_FEATURE_NAMES
    in_memory = AutoExtractor(estimator=model)
    loaded = AutoExtractor(models_dir=tmp_path / "m")
    for doc in documents([tinyset], "test"):
        text = loaded.extract(doc.page)
        assert text == in_memory.extract(doc.page)
        assert score(text, doc.gold).f1 > 0.95
    card = (tmp_path / "m" / "auto.md").read_text()
    assert "lambda" in card and "| tinyset |" in card


def test_votes_add_one_column_per_base_extractor(data_dir, tmp_path):
    tinyset = data_dir / "learned" / "tinyset"
    train("auto", [tinyset], base_names=["bte"], models_dir=tmp_path, show_progress=False,
          max_iter=10, decoding_folds=0)
    extractor = AutoExtractor(models_dir=tmp_path)
    assert extractor.estimator.votes_ == ("bte",)
    assert extractor.estimator.unary_.n_features_in_ == (
        len(UNARY_FEATURE_NAMES) + 1 + len(TITLE_FEATURE_NAMES))
    assert extractor.estimator.feature_names_in_ == (
        UNARY_FEATURE_NAMES + ("vote_bte",) + TITLE_FEATURE_NAMES)
    doc = documents([tinyset], "test")[0]
    assert extractor.extract(doc.page)


def test_headline_features_can_be_left_out(data_dir, tmp_path):
    tinyset = data_dir / "learned" / "tinyset"
    train("auto", [tinyset], models_dir=tmp_path, show_progress=False, max_iter=10,
          decoding_folds=0, title_features=False)
    extractor = AutoExtractor(models_dir=tmp_path)
    assert extractor.estimator.title_features is False
    assert extractor.estimator.unary_.n_features_in_ == len(UNARY_FEATURE_NAMES)
    assert extractor.extract(documents([tinyset], "test")[0].page)


def test_missing_model_names_file_and_command(tmp_path):
    with pytest.raises(ExtractorError) as info:
        get_extractor("auto", models_dir=str(tmp_path))
    assert str(tmp_path / "auto.skops") in str(info.value)
    assert "corpuscrawl train auto" in str(info.value)


def test_a_heading_the_model_scores_as_content_starts_no_cut():
    """An API article's "Response" section, a blog's own "Comment" heading: when the block
    model gives the heading a high content probability, the text after it stays."""
    blocks = _blocks(ARTICLE_WITH_COMMENTS)
    texts = [b.text for b in blocks]
    heading = texts.index("Comments are now closed for this story")
    kept = [1] * len(blocks)
    unsure = [0.9] * len(blocks)
    unsure[heading] = 0.2
    assert cut_comments(blocks, kept, unsure)[texts.index("Stephen B")] == 0
    confident = [0.9] * len(blocks)
    assert cut_comments(blocks, kept, confident) == kept
    assert cut_comments(blocks, kept, confident, max_probability=0.95)[heading] == 0


THREAD = "".join(f"<p>Comment {i}: I think the manager will stay where he is happy.</p>"
                 f"<p>Posted by Reader {i} on January 10, 2008 5:{i:02d} PM</p>"
                 "<p>Report this comment</p>" for i in range(3))


def _story(thread: str = THREAD) -> str:
    article = "".join(f"<p>Sentence {i} of the story about the club and its new manager.</p>"
                      for i in range(12))
    return f"<html><body><div id='story'>{article}<h3>Comments</h3>{thread}</div></body></html>"


def test_a_thread_in_the_articles_own_element_is_dropped_whole():
    """Telegraph-style: the comments sit in the article's element, so only the signature
    lines ("Posted by ... on <date>", "Report this comment") tell the thread from the text."""
    blocks = _blocks(_story())
    heading = [b.text for b in blocks].index("Comments")
    kept = cut_comments(blocks, [1] * len(blocks))
    assert kept == [1] * heading + [0] * (len(blocks) - heading)
    # Without the signature test the main element's blocks stay, as before.
    old = cut_comments(blocks, [1] * len(blocks), min_signatures=None)
    assert old == [1] * heading + [0] + [1] * (len(blocks) - heading - 1)
    # One signature line is no thread.
    one = _blocks(_story(thread=THREAD.split("<p>Report")[0]))
    assert sum(cut_comments(one, [1] * len(one))) > heading
    # min_signatures=0: every comment heading starts a thread, signature lines or not.
    bare = _blocks(_story(thread="<p>I think the manager will stay where he is happy.</p>"))
    assert sum(cut_comments(bare, [1] * len(bare), min_signatures=0)) == heading
    assert sum(cut_comments(bare, [1] * len(bare))) == len(bare) - 1


def test_no_thread_when_signatures_come_late_or_headings_repeat():
    """A blog front page repeats "Comments (0)" and "posted by Aaron @ 9:43 AM" under every
    post (CleanEval final-179); a thread's first signature comes within a few comments."""
    posts = "".join(f"<p>Post {i} talks at length about the garden and its roses in June.</p>"
                    f"<p>Comments ({i})</p><p>// posted by Aaron @ 9:4{i} AM</p>"
                    for i in range(5))
    front = _blocks(f"<html><body><div>{posts}</div></body></html>")
    kept = [1] * len(front)
    texts = [b.text for b in front]
    assert cut_comments(front, kept, min_before_words=10)[texts.index("Post 4 talks at length "
                                                                     "about the garden and its "
                                                                     "roses in June.")] == 1
    essay = "".join(f"<p>More of the article, part {i}, goes on after the share bar here.</p>"
                    for i in range(40))
    late = _blocks(_story(thread=essay + THREAD))
    assert cut_comments(late, [1] * len(late))[[b.text for b in late].index(
        "More of the article, part 39, goes on after the share bar here.")] == 1


ARTICLE = "".join(f"<p>Paragraph {i} of the story tells how the harbour cranes were restored "
                  "by volunteers over three winters.</p>" for i in range(8))


def test_related_cut_drops_the_text_a_related_heading_introduces():
    """"Also on HuffPost:" and a slideshow of captions the model kept: the captions go, the
    cut stops at the link list after them, and text after that stays."""
    captions = "".join(f"<div class='slide'><h4>Slide {i}</h4><p>A caption of twenty words "
                       f"describing photograph {i} of the parade through the old town centre "
                       "at dusk.</p></div>" for i in range(5))
    blocks = _blocks(f"<html><body><div id='story'>{ARTICLE}<p>Also on HuffPost:</p></div>"
                     f"<div class='slideshow'>{captions}</div>"
                     "<ul><li><a href='/a'>Politics</a></li><li><a href='/b'>Sports</a></li></ul>"
                     "<div class='end'><p>A closing note the model kept.</p></div></body></html>")
    texts = [b.text for b in blocks]
    links = [i for i, t in enumerate(texts) if t in ("Politics", "Sports")]
    labels = [0 if i in links else 1 for i in range(len(blocks))]
    kept = cut_related(blocks, labels)
    heading = texts.index("Also on HuffPost:")
    assert kept[:heading] == [1] * heading
    assert kept[heading:links[0]] == [0] * (links[0] - heading)
    assert kept[texts.index("A closing note the model kept.")] == 1
    assert cut_related(blocks, labels, min_before_words=None, min_before=0.99) == labels


def test_an_inline_related_box_leaves_the_article_after_it():
    """"Related Coverage" and its links inside a story whose text goes on in another element
    (the New York Times' layout): the model keeps no link, so the cut stops at once."""
    half = ARTICLE[: len(ARTICLE) // 2]
    blocks = _blocks(f"<html><body><div id='a'>{ARTICLE}</div><aside><h2>Related Coverage</h2>"
                     "<h2><a href='/x'>Another story about the cranes</a></h2></aside>"
                     f"<div id='b'>{half}<p>The last word.</p></div></body></html>")
    texts = [b.text for b in blocks]
    labels = [0 if t in ("Related Coverage", "Another story about the cranes") else 1
              for t in texts]
    assert cut_related(blocks, labels) == labels
    back = _blocks(f"<html><body><div id='a'>{ARTICLE}<h3>Related</h3></div>"
                   "<div><p>A teaser of another story.</p></div></body></html>")
    back_texts = [b.text for b in back]
    kept = cut_related(back, [1] * len(back))
    assert kept[back_texts.index("A teaser of another story.")] == 0
    assert kept[: back_texts.index("Related")] == [1] * back_texts.index("Related")


def test_a_link_or_read_more_is_no_related_heading():
    for heading in ("<p><a href='/r'>Related</a></p>", "<p>Read more</p>"):
        blocks = _blocks(f"<html><body><div id='a'>{ARTICLE}</div>{heading}"
                         "<div><p>More of the article in its own element.</p></div></body></html>")
        assert cut_related(blocks, [1] * len(blocks)) == [1] * len(blocks)


def test_decoding_applies_the_related_cut_unless_switched_off():
    blocks = _blocks(f"<html><body><div id='a'>{ARTICLE}<p>Related stories</p></div>"
                     "<div><p>A teaser of another story.</p></div></body></html>")
    unary = np.full(len(blocks), 0.9)
    pairs = np.full((max(len(blocks) - 1, 0), 4), 0.25)
    cut = decoded_labels(blocks, unary, pairs, 0.0, 0.0)
    assert cut[-1] == 0 and cut[-2] == 0 and sum(cut) == len(blocks) - 2
    assert decoded_labels(blocks, unary, pairs, 0.0, 0.0, related_cut=False) == [1] * len(blocks)


def _dataset_page(dataset: str, doc: str) -> tuple[Page, str]:
    """A page of the benchmark datasets and its gold text, or a skip saying why not."""
    try:
        root = datasets_root()
    except DatasetError as exc:
        pytest.skip(f"needs the benchmark datasets (../shared/datasets): {exc}")
    if not (root / dataset / "html").is_dir():
        pytest.skip(f"needs the {dataset} dataset under {root}")
    ds = Dataset(root / dataset)
    return ds.load_page(doc), ds.gold(doc) or ""


def test_page_wide_keywords_no_longer_lose_the_lifehacker_article():
    """Every block of this page carries its ``<body>``'s classes (post, comment, footer, ad,
    hidden ...): with the page-wide bits cleared the article is kept (a model trained on the
    article sets alone, given the raw bits, kept 59 of its 2,742 words)."""
    page, gold = _dataset_page("readability", "lifehacker-post-comment-load")
    cleared = get_extractor("auto", page_wide_share=PAGE_WIDE_SHARE_CHOSEN)
    assert score(cleared.extract(page), gold, with_levenshtein=False).f1 >= 0.9


def test_page_wide_share_option_is_checked_and_overrides_the_model():
    shipped = load_model("auto", AutoModel)
    assert shipped.page_wide_share == PAGE_WIDE_SHARE_DEFAULT  # a file saved without it
    assert AutoExtractor(estimator=shipped).estimator.page_wide_share == PAGE_WIDE_SHARE_DEFAULT
    chosen = AutoExtractor(estimator=shipped, page_wide_share=0.9)
    assert chosen.estimator.page_wide_share == 0.9
    assert shipped.page_wide_share == PAGE_WIDE_SHARE_DEFAULT  # the loaded model unchanged
    assert AutoExtractor(estimator=chosen.estimator,
                         page_wide_share=None).estimator.page_wide_share is None
    assert get_extractor("auto", page_wide_share=1).estimator.page_wide_share == 1.0
    for bad in (0, 1.5, "0.9", True):
        with pytest.raises(ExtractorError, match="page_wide_share"):
            get_extractor("auto", page_wide_share=bad)


def test_a_comments_link_in_a_share_bar_is_no_comment_heading():
    """A share bar ("Comments", a link) after the first paragraphs of a story whose text goes
    on in another element (the Washington Post's layout): taken for a heading it cuts the
    rest of the article; a heading that is text still cuts the thread."""
    first = "".join(f"<p>Opening paragraph {i} tells how the harbour cranes were restored by "
                    "volunteers over three long winters in the old port.</p>" for i in range(6))
    rest = "".join(f"<p>Later paragraph {i} of the same story goes on about the cranes and the "
                   "people who saved them from the scrapyard.</p>" for i in range(6))
    blocks = _blocks(f"<html><body><div id='top'>{first}</div><ul class='share'>"
                     "<li><a href='#comments'>Comments</a></li><li><a href='/t'>Tweet</a></li>"
                     f"</ul><div id='body'>{rest}</div></body></html>")
    texts = [b.text for b in blocks]
    later = texts.index("Later paragraph 5 of the same story goes on about the cranes and the "
                        "people who saved them from the scrapyard.")
    labels = [0 if t in ("Comments", "Tweet") else 1 for t in texts]
    assert cut_comments(blocks, labels, link_headings=True)[later] == 0  # taken for a heading
    assert cut_comments(blocks, labels) == labels  # the default: a link is no heading
    probs = np.array([0.1 if lab == 0 else 0.9 for lab in labels])
    pairs = np.full((len(blocks) - 1, 4), 0.25)
    assert decoded_labels(blocks, probs, pairs, 0.0, 0.0) == labels
    assert decoded_labels(blocks, probs, pairs, 0.0, 0.0, comment_link_headings=True)[later] == 0
    thread = _blocks(ARTICLE_WITH_COMMENTS)
    thread_texts = [b.text for b in thread]
    assert cut_comments(thread, [1] * len(thread), link_headings=False)[
        thread_texts.index("Stephen B")] == 0
