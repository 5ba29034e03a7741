"""Element records, href kinds (with redirect-proxy decoding) and the feature vector."""

from __future__ import annotations

import pytest

from corpuscrawl.browse.elements import (
    FEATURE_NAMES,
    ElementRecord,
    decode_proxy,
    feature_matrix,
    features,
    href_kind,
    is_clickable_in_place,
    language_switch_code,
    navigation_target,
)

INDEX = "http://index.hu/tudomany/2017/03/06/cikk/"
# The seed's two dex.hu examples (Komporday's thesis §9.1): an inner and an outer link through one proxy.
DEX_INNER = ("http://dex.hu/x.php?id=inxcl&url=http%3A%2F%2Findex.hu%2Ftudomany%2F2017%2F03%2F06"
             "%2Fnem_periodikusan_csapodnak_a_foldre_az_aszteroidak%2F")
DEX_OUTER = ("http://dex.hu/x.php?id=inxpfb&url=http%3A%2F%2Fwww.portfolio.hu%2Fgazdasag%2F"
             "az_egesz_vilagot_pofon_vagna_a_fed_egy_ujabb_emelessel.245090.html")


def link(href: str | None, page: str = INDEX, **attrs: str) -> ElementRecord:
    attributes = dict(attrs)
    if href is not None:
        attributes["href"] = href
    return ElementRecord(tag="a", attributes=attributes, page_url=page)


@pytest.mark.parametrize(("href", "kind"), [
    (None, "none"), ("#", "fragment"), ("#comments", "fragment"), ("", "fragment"),
    ("javascript:void(0)", "javascript"), ("mailto:a@b.hu", "other_scheme"),
    ("/belfold/", "inner"), ("https://totalcar.index.hu/", "inner"),
    ("https://www.portfolio.hu/", "outer"), (DEX_INNER, "proxy_inner"), (DEX_OUTER, "proxy_outer"),
    (INDEX + "#comments", "fragment"),
])
def test_href_kind(href: str | None, kind: str) -> None:
    assert href_kind(link(href))[0] == kind


def test_proxy_target_is_decoded_and_judged_by_target() -> None:
    kind, target = href_kind(link(DEX_INNER))
    assert kind == "proxy_inner"
    assert target.startswith("http://index.hu/tudomany/2017/03/06/nem_periodikusan")
    assert navigation_target(link(DEX_OUTER))[0] == "outer"
    assert navigation_target(link(DEX_INNER)) == ("inner", target)


def test_decode_proxy_variants() -> None:
    assert decode_proxy("https://l.facebook.com/l.php?u=https%3A%2F%2Fexample.org%2Fa&h=AT0") == \
        "https://example.org/a"
    double = "https://t.example/r?target=https%253A%252F%252Fexample.org%252Fb"
    assert decode_proxy(double) == "https://example.org/b"
    assert decode_proxy("https://example.org/search?q=cats") is None
    assert decode_proxy("https://example.org/") is None


def test_redirect_endpoint_on_own_site_is_judged_by_its_target() -> None:
    out = link("/redirect?url=http%3A%2F%2Fexample.org%2F", page="http://index.hu/")
    assert href_kind(out) == ("proxy_outer", "http://example.org/")
    back = link("/redirect?url=http%3A%2F%2Findex.hu%2Fa", page="http://index.hu/")
    assert href_kind(back)[0] == "inner"


@pytest.mark.parametrize(("target", "code"), [
    ("http://hu.euronews.com/2017/03/06/merkel", "hu"),
    ("https://example.org/de/artikel.html", "de"),
    ("https://example.org/forum/thread?lang=pl", "pl"),
    ("https://example.org/news/today.html", ""),
])
def test_language_switch_code(target: str, code: str) -> None:
    assert language_switch_code(target, "http://www.euronews.com/2017/03/06/merkel") == code


def test_features_cover_seed_examples() -> None:
    pager = ElementRecord(tag="a", attributes={"class": "UFIPagerLink", "href": "#",
                                                "role": "button"},
                          text="View previous replies", page_url="https://facebook.com/p/1")
    f = features(pager)
    assert f["href_fragment"] == 1 and f["leads_inner"] == 0 and f["role_button"] == 1 and f["reveal_text"] >= 2
    euronews = link("http://hu.euronews.com/2017/03/06/merkel-nem-turi-ha-lenacizzak",
                    page="http://www.euronews.com/2017/03/06/merkel", lang="hu-HU", hreflang="hu")
    euronews.text = "Magyar"
    f = features(euronews)
    assert f["has_hreflang"] == 1 and f["text_is_language"] == 1
    assert f["target_language_switch"] == 1
    tweets_bar = ElementRecord(tag="div", attributes={"class": "new-tweets-bar js-new-tweets-bar",
                                                     "data-item-count": "5"},
                               text="View 5 new Tweets", layout={"cursor_pointer": True})
    f = features(tweets_bar)
    assert f["data_attrs"] == 1 and f["tag_div"] == 1 and f["cursor_pointer"] == 1


def test_feature_matrix_has_one_column_per_name() -> None:
    rows = feature_matrix([link("#"), link("/x")])
    assert len(rows) == 2 and all(len(r) == len(FEATURE_NAMES) for r in rows)


def test_close_words_match_whole_short_tokens_only() -> None:
    close = ElementRecord(tag="button", text="×", attributes={"aria-label": "Close"})
    box = ElementRecord(tag="button", text="Xbox deals")
    assert features(close)["close_text"] >= 1
    assert features(box)["close_text"] == 0


def test_record_round_trip_and_errors() -> None:
    record = link("/a", **{"data-x": "1"})
    record.label = "Inner"
    again = ElementRecord.from_dict(record.to_dict())
    assert again == record
    with pytest.raises(ValueError, match="unknown label 'Link'.*Revealer"):
        ElementRecord.from_dict({"tag": "a", "label": "Link"}, "set.jsonl:3")
    with pytest.raises(ValueError, match="set.jsonl:4: element record needs a string 'tag'"):
        ElementRecord.from_dict({"text": "x"}, "set.jsonl:4")


def test_clickable_in_place() -> None:
    assert is_clickable_in_place(ElementRecord(tag="button"))
    assert is_clickable_in_place(link("javascript:void(0)"))
    assert not is_clickable_in_place(link("/next-page"))
