"""render=auto from evidence: static overlays, reveal controls, site experience, host:port keys.

No browser: the test bed's pages are judged from their static HTML, as a plain fetch sees them.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

from corpuscrawl.browse.classifier import load_classifier
from corpuscrawl.browse.decision import RenderDecider, RenderExperience, gained
from corpuscrawl.browse.elements import ElementRecord, decode_proxy, href_kind, scripted_target
from corpuscrawl.browse.static import overlay_elements, reveal_controls, without_overlays
from corpuscrawl.html.page import Page
from corpuscrawl.net.sites import state_key
from tests.dynamic_bed import PATTERN_SPECS, TestBed


@pytest.fixture(scope="module")
def bed() -> Iterator[TestBed]:
    built = TestBed(seed=5)  # pages are built, not served
    yield built
    built.server.server_close()


@pytest.fixture(scope="module")
def decider() -> RenderDecider:
    return RenderDecider(load_classifier().predict)


def static_page(bed: TestBed, name: str) -> Page:
    return Page.from_html(bed.site.pages[f"/bed/{name}/"], url=bed.url(name))


@pytest.mark.parametrize("name", list(PATTERN_SPECS))
def test_every_pattern_is_judged_from_its_static_html(bed: TestBed, decider: RenderDecider,
                                                      name: str) -> None:
    decision = RenderDecider(decider.classify).after_plain(static_page(bed, name))
    assert decision.render == bed.patterns[name].needs_browser, decision.reason
    assert bool(decision.reason) == decision.render


def test_click_to_reveal_article_is_rendered_for_its_reveal_controls(
        bed: TestBed, decider: RenderDecider) -> None:
    page = static_page(bed, "reveal-fetch")
    decision = RenderDecider(decider.classify).after_plain(page)
    assert decision.render and "reveal-controls" in decision.kinds
    assert "Continue reading" in decision.reason
    texts = {c.text for c in reveal_controls(page, decider.classify)}
    assert texts == {"Continue reading", "Show comments"}


def test_links_in_nav_jump_links_and_popups_are_not_reveal_controls(
        decider: RenderDecider) -> None:
    html = """<html><body><nav><button>Show more sections</button></nav>
    <article><p>Text</p><a href="#comments">Read comments</a><div id="comments"><p>A comment
    </p></div><a href="javascript:popup('/calendar.jsp')">Show calendar</a>
    <a href="#missing">Read more below</a><a>Load more</a></article></body></html>"""
    assert reveal_controls(Page.from_html(html, url="http://a.example/x"), decider.classify) == []


def test_static_overlays_are_removed_from_plain_pages(bed: TestBed) -> None:
    for name in ("consent-static", "paywall-blur", "news-combo"):
        page = static_page(bed, name)
        cleaned = without_overlays(page)
        for marker in bed.patterns[name].must_not:
            if "CONSENT" in marker or "PAYWALL" in marker:
                assert marker in page.html and marker not in cleaned.html
        for marker in bed.patterns[name].must:
            if marker in page.html:
                assert marker in cleaned.html
    assert "We value your privacy" not in without_overlays(static_page(bed, "consent-static")).html


def test_an_article_named_like_an_overlay_is_kept() -> None:
    body = "".join(f"<p>Paragraph {i} of the cookie recipe with enough words.</p>"
                   for i in range(30))
    html = f"""<html><body><div class="cookie-recipe">{body}<a href="/print">Print</a></div>
    <div class="cookie-banner"><p>We use cookies.</p><button>OK</button></div></body></html>"""
    page = Page.from_html(html, url="http://a.example/x")
    assert [el.get("class") for el in overlay_elements(page)] == ["cookie-banner"]
    assert "Paragraph 29" in without_overlays(page).html
    assert page.html == html  # the shared page is not changed


def test_site_experience_renders_directly_or_stops_rendering() -> None:
    experience = RenderExperience(direct_min_pages=3, direct_share=0.8, stop_min_renders=2)
    js_site, static_site = "http://127.0.0.1:8001/a", "http://127.0.0.1:8002/a"
    for _ in range(3):
        experience.judged(js_site)
        experience.rendered(js_site, gained=True)
    assert experience.advice(js_site) == "render"
    assert experience.advice(static_site) == ""  # another port: another site
    for _ in range(2):
        experience.judged(static_site)
        experience.rendered(static_site, gained=False)
    assert experience.advice(static_site) == "plain"
    decider = RenderDecider(None, experience)
    assert decider.before_fetch(js_site + "/next").render
    assert decider.before_fetch(js_site + "/next").kinds == ("domain-experience",)
    shell = Page.from_html('<html><body><div id="app"></div><script>x()</script></body></html>',
                           url=static_site + "/app")
    decision = decider.after_plain(shell)
    assert not decision.render and decision.kinds == ("domain-experience-plain",)


def test_gain_needs_clearly_more_text() -> None:
    assert gained(500, 2000) and not gained(500, 600) and not gained(5000, 5400)


def test_state_key_includes_an_explicit_port() -> None:
    assert state_key("http://127.0.0.1:8001/x") == "127.0.0.1:8001"
    assert state_key("https://www.example.com/x") == "example.com"
    assert state_key("http://www.example.com:8080/") == "example.com:8080"
    assert state_key("") == ""


def test_script_links_and_base64_proxies_are_links() -> None:
    record = ElementRecord(tag="div", attributes={"onclick": "location.href='/story/1'"},
                           page_url="http://a.example/")
    assert href_kind(record) == ("inner", "http://a.example/story/1")
    assert scripted_target({"data-href": "/b"}) == "/b"
    assert scripted_target({"data-href": "#tab"}) == ""
    target = "http://a.example/story/2"
    encoded = base64.urlsafe_b64encode(target.encode()).decode()
    assert decode_proxy(f"http://out.example/b64?d={encoded}") == target


def test_labels_that_reveal_no_text_of_the_page_are_no_evidence(decider: RenderDecider) -> None:
    """Measured on static dataset pages: listings, sharing menus and comment counts."""
    article = "<p>" + "A sentence of the static article text. " * 40 + "</p>"
    weak = ['<button class="more">» more</button>', '<button class="more">More stories…</button>',
            '<button aria-expanded="false" aria-controls="s">Share</button><div id="s"></div>',
            '<button class="more-sharing">More sharing options</button>',
            '<a href="#" class="comments-link">4 comments</a>']
    for control in weak:
        page = Page.from_html(f"<html><body><article>{article}{control}</article></body></html>",
                              url="http://news.example/a")
        assert not reveal_controls(page, decider.classify), control
    strong = Page.from_html(f"<html><body><article>{article}<div id='c'></div>"
                            "<button class='load-comments'>Show comments</button></article>"
                            "</body></html>", url="http://news.example/a")
    assert [c.text for c in reveal_controls(strong, decider.classify)] == ["Show comments"]


def test_a_scroll_loader_is_one_small_script(decider: RenderDecider) -> None:
    article = "<p>" + "A sentence of the static article text. " * 40 + "</p>"
    feed = '<div class="feed-items"></div>'
    one = ("<script>window.addEventListener('scroll', () => fetch('/more.json')"
           ".then((r) => r.json()));</script>")
    split = ("<script>window.addEventListener('scroll', () => header.classList.add('s'));"
             "</script><script>fetch('/analytics');</script>")
    bundle = ("<script>window.addEventListener('scroll', f); fetch('/x'); /*"
              + "x" * 60_000 + "*/</script>")
    for scripts, expected in ((one, True), (split, False), (bundle, False)):
        page = Page.from_html(f"<html><body><article>{article}{feed}</article>{scripts}"
                              "</body></html>", url="http://news.example/a")
        kinds = RenderDecider(decider.classify).after_plain(page).kinds
        assert ("scroll-loading" in kinds) == expected, scripts[:60]
