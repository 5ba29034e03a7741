"""The export stage: cold-start holding, release order, drops, duplicates, stats."""

from __future__ import annotations

import pytest

from corpuscrawl.boilerplate.detector import Detector, DetectorConfig
from corpuscrawl.boilerplate.sqlite_history import SQLiteHistory
from corpuscrawl.export.dedup import NearDuplicateIndex
from corpuscrawl.export.stage import (
    BOILERPLATE,
    DUPLICATE,
    EMPTY,
    EXPORTED,
    ExportStage,
)
from corpuscrawl.items import Document, content_hash
from tests.boilerplate_site import ALL_ARTICLES, NOTICE

CONFIG = DetectorConfig(min_documents=3, min_fraction=0.1, warm_documents=5, use_patterns=False)


def doc(i: int, domain: str = "news.example") -> Document:
    a = ALL_ARTICLES[i]
    text = "\n".join([*a.paragraphs, a.share, NOTICE.format(year=a.year)])
    return Document(url=f"http://{domain}/{a.slug}", domain=domain, text=text,
                    content_hash=content_hash(text))


@pytest.fixture
def stage():
    with SQLiteHistory(":memory:") as h:
        yield ExportStage(Detector(h, CONFIG), NearDuplicateIndex())


def test_cold_domain_is_held_then_released_clean_in_order(stage):
    released = []
    for i in range(4):
        assert stage.submit(doc(i)) == []
    assert stage.held == 4
    released = stage.submit(doc(4))
    assert [o.document.url for o in released] == [doc(i).url for i in range(5)]
    for i, outcome in enumerate(released):
        assert outcome.status == EXPORTED
        assert "Copyright" not in outcome.document.text
        assert outcome.document.text.split("\n")[:-1] == list(ALL_ARTICLES[i].paragraphs)
        assert outcome.document.removed_boilerplate >= 1
        assert outcome.document.content_hash == content_hash(outcome.document.text)
    # warm now: the next document is judged at once
    (outcome,) = stage.submit(doc(5))
    assert outcome.status == EXPORTED and "Copyright" not in outcome.document.text


def test_share_prompts_rotating_over_four_variants_are_removed():
    config = DetectorConfig(min_documents=3, min_fraction=0.1, warm_documents=12,
                            use_patterns=False)
    with SQLiteHistory(":memory:") as h:
        stage = ExportStage(Detector(h, config), NearDuplicateIndex())
        outcomes = [o for i in range(20) for o in stage.submit(doc(i))] + stage.flush()
    texts = [o.document.text for o in outcomes]
    assert len(texts) == 20
    assert not any(a.share in t for a in ALL_ARTICLES for t in texts)


def test_flush_releases_a_domain_that_never_warmed_with_all_evidence(stage):
    for i in range(3):
        assert stage.submit(doc(i)) == []
    outcomes = stage.flush()
    assert len(outcomes) == 3 and stage.held == 0
    assert all("Copyright" not in o.document.text for o in outcomes)  # 3 documents >= 3


def test_a_page_that_is_only_the_notice_is_dropped(stage):
    outcomes = [o for i in range(6) for o in stage.submit(doc(i))]
    notice_only = Document(url="http://news.example/legal", domain="news.example",
                           text=NOTICE.format(year=2024))
    (outcome,) = stage.submit(notice_only)
    assert outcome.status == BOILERPLATE and not outcome.exported
    assert stage.stats["dropped_boilerplate"] == 1 and stage.stats["exported"] == len(outcomes) == 6


def test_near_duplicates_are_dropped_and_not_counted_in_the_history(stage):
    first = doc(0)
    copy = Document(url="http://news.example/amp/article-1.html", domain="news.example",
                    text=first.text.replace("Copyright", "(Copyright)"))
    stage.submit(first)
    (outcome,) = stage.submit(copy)
    assert outcome.status == DUPLICATE and outcome.duplicate_of == first.url
    assert stage.detector.history.document_count("news.example") == 1


def test_bounded_buffer_releases_the_oldest_domain_early():
    with SQLiteHistory(":memory:") as h:
        stage = ExportStage(Detector(h, CONFIG), None, buffer_size=3)
        assert stage.submit(doc(0, "a.example")) == []
        assert stage.submit(doc(1, "a.example")) == []
        assert stage.submit(doc(2, "b.example")) == []
        released = stage.submit(doc(3, "c.example"))
        assert [o.document.domain for o in released] == ["a.example", "a.example"]
        assert stage.stats["released_early"] == 2 and stage.held == 2


def test_empty_documents_and_disabled_detector():
    stage = ExportStage(None, NearDuplicateIndex())
    (empty,) = stage.submit(Document(url="http://x/1", text="  \n "))
    assert empty.status == EMPTY
    (passed,) = stage.submit(doc(0))
    assert passed.status == EXPORTED and passed.document.text == doc(0).text


def _version(url: str, paragraphs: int) -> Document:
    a = ALL_ARTICLES[0]
    text = "\n".join(a.paragraphs[:paragraphs])
    return Document(url=url, domain="news.example", text=text, content_hash=content_hash(text))


def test_a_richer_version_of_a_held_page_replaces_the_poorer_one(stage):
    url = "http://news.example/a"
    assert stage.submit(_version(url, 1)) == []          # plain fetch: headline + teaser
    assert stage.submit(_version(url, len(ALL_ARTICLES[0].paragraphs))) == []  # rendered
    outcomes = stage.flush()
    exported = [o for o in outcomes if o.exported]
    assert len(exported) == 1 and exported[0].document.text.count("\n") >= 1
    (dropped,) = [o for o in outcomes if not o.exported]
    assert dropped.status == DUPLICATE and dropped.duplicate_of == url


def test_a_poorer_later_version_is_dropped_even_without_boilerplate_removal():
    stage = ExportStage(None, NearDuplicateIndex())
    url = "http://news.example/a#top"
    (first,) = stage.submit(_version(url, 2))
    (second,) = stage.submit(_version("http://news.example/a", 1))
    assert first.exported and second.status == DUPLICATE
    (third,) = stage.submit(_version("http://news.example/a", 3))
    assert third.exported and stage.stats["richer_after_export"] == 1


def test_a_richer_near_duplicate_under_another_url_replaces_a_held_one(stage):
    poorer = _version("http://news.example/b", len(ALL_ARTICLES[0].paragraphs))
    text = poorer.text + "\nThree readers wrote in to say the bridge was repaired last week."
    full = Document(url="http://news.example/a", domain="news.example", text=text)
    stage.submit(poorer)
    stage.submit(full)
    outcomes = stage.flush()
    assert [o.document.url for o in outcomes if o.exported] == ["http://news.example/a"]


def test_history_is_kept_per_host_and_port():
    with SQLiteHistory(":memory:") as h:
        stage = ExportStage(Detector(h, CONFIG), NearDuplicateIndex())
        a, b = doc(0, "127.0.0.1:8001"), doc(1, "127.0.0.1:8002")
        stage.submit(Document(**{**a.__dict__, "domain": "127.0.0.1"}))
        stage.submit(Document(**{**b.__dict__, "domain": "127.0.0.1"}))
        assert h.document_count("127.0.0.1:8001") == 1
        assert h.document_count("127.0.0.1:8002") == 1
        assert h.document_count("127.0.0.1") == 0


def test_headline_kept_teaser_listings_and_short_documents_dropped():
    from corpuscrawl.export.stage import LISTING, TOO_SHORT

    with SQLiteHistory(":memory:") as h:
        stage = ExportStage(Detector(h, DetectorConfig(warm_documents=10)), None, min_words=15)
        body = ("The council approved the new harbour budget on Tuesday after a long debate "
                "about the ferry timetable and the fish market.")
        story = Document(url="http://n.example/story", domain="n.example",
                         title="Harbour budget approved", text=f"Harbour budget approved\n{body}")
        listing = Document(url="http://n.example/", domain="n.example", title="Front page",
                           text="Harbour budget approved\nThe council approved the new "
                                "harbour budget on Tuesday after a long…")
        short = Document(url="http://n.example/about", domain="n.example", title="About",
                         text="About\nWe are a small harbour paper.")
        outcomes = [o for d in (listing, story, short) for o in stage.submit(d)] + stage.flush()
    by_url = {o.document.url: o for o in outcomes}
    # the headline is on the front page too, yet the story keeps it
    assert by_url[story.url].exported
    assert by_url[story.url].document.text.split("\n")[0] == "Harbour budget approved"
    assert by_url[listing.url].status == LISTING  # its headline line went, a teaser is left
    assert by_url[short.url].status == TOO_SHORT
    assert stage.stats["dropped_listing"] == 1 and stage.stats["dropped_short"] == 1


def test_the_own_headline_is_the_title_or_a_top_line_the_title_holds():
    from corpuscrawl.boilerplate.normalize import Paragraph, split_paragraphs
    from corpuscrawl.export.stage import own_headline

    lines = split_paragraphs("Budget approved\nBy Tom Reyes\nNews\nThe council approved it.")
    fp = {p.text: p.fingerprint for p in lines}
    # the title kept its site name: the <h1> line it holds is the headline too
    assert own_headline("Budget approved - Gazette Daily", lines) == {
        Paragraph.of("Budget approved - Gazette Daily").fingerprint, fp["Budget approved"]}
    # a one-word menu item in a three-word title is not
    assert fp["News"] not in own_headline("Latest News | Gazette", lines)
    assert own_headline("", lines) == frozenset()


def test_teaser_listings_are_exported_when_listings_are_kept():
    with SQLiteHistory(":memory:") as h:
        stage = ExportStage(Detector(h, DetectorConfig(warm_documents=0)), None, min_words=0,
                            drop_listings=False)
        listing = Document(url="http://n.example/", domain="n.example", title="Front page",
                           text="The council approved the new harbour budget on Tuesday…\n"
                                "The ferry will run every half hour from March…")
        outcomes = stage.submit(listing) + stage.flush()
    assert [o.status for o in outcomes] == ["exported"]


def test_a_headline_over_teasers_is_a_listing_and_a_headline_alone_is_boilerplate():
    """A document's text opens with its headline (``with_headline``): a section page's
    headline over teasers cut short is still a listing, and a page whose body was all
    boilerplate is dropped as such, not exported as its headline alone."""
    from corpuscrawl.export.stage import LISTING

    with SQLiteHistory(":memory:") as h:
        stage = ExportStage(Detector(h, CONFIG), None, min_words=0)
        outcomes = [o for i in range(6) for o in stage.submit(doc(i))]
        section = Document(url="http://news.example/section/town", domain="news.example",
                           title="Town", text="Town\nThe council approved the new harbour "
                           "budget on Tuesday after a long…\nFerry timetable changes from May…")
        legal = Document(url="http://news.example/legal", domain="news.example",
                         title="Legal notice", text=f"Legal notice\n{NOTICE.format(year=2024)}")
        by_url = {o.document.url: o for d in (section, legal) for o in stage.submit(d)}
    assert len(outcomes) == 6
    assert by_url[section.url].status == LISTING
    assert by_url[legal.url].status == BOILERPLATE
