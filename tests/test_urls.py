"""URL normalization and filters."""

from corpuscrawl.net.urls import has_non_html_extension, normalize_url


def test_tracking_parameters_fragments_and_order_are_normalized():
    assert normalize_url("HTTP://Example.COM:80/a/./b/../c?utm_source=x&b=2&a=1&fbclid=z#top") == \
        "http://example.com/a/c?a=1&b=2"
    assert normalize_url("https://example.com") == "https://example.com/"
    assert normalize_url("https://example.com:8443/x/") == "https://example.com:8443/x/"


def test_non_http_urls_are_rejected():
    assert normalize_url("mailto:a@b.c") == ""
    assert normalize_url("javascript:void(0)") == ""
    assert normalize_url("http://[::1") == ""


def test_non_html_extensions():
    assert has_non_html_extension("http://a.com/report.PDF")
    assert has_non_html_extension("http://a.com/img/photo.jpg?size=2")
    assert not has_non_html_extension("http://a.com/news/story.html")
    assert not has_non_html_extension("http://a.com/v1.2/")


# --- hrefs of every kind: normalised or rejected with a reason, never an exception --------

import ipaddress  # noqa: E402
from urllib.parse import urlsplit  # noqa: E402

import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from scrapy import Request  # noqa: E402

from corpuscrawl.net.urls import check_url  # noqa: E402
from corpuscrawl.spiders.discovery import join_url  # noqa: E402


@pytest.mark.parametrize(("href", "expected"), [
    ("http://[::1]:8080/x", "http://[::1]:8080/x"),
    ("http://[0:0:0:0:0:ffff:7f00:1]/", "http://[::ffff:7f00:1]/"),
    ("http://2130706433/", "http://127.0.0.1/"),
    ("http://0177.0.0.1/", "http://127.0.0.1/"),
    ("http://0x7f.1/", "http://127.0.0.1/"),
    ("http://bücher.de/päth?q=ü", "http://xn--bcher-kva.de/p%C3%A4th?q=%C3%BC"),
    ("http://xn--bcher-kva.de/p%C3%A4th?q=%C3%BC", "http://xn--bcher-kva.de/p%C3%A4th?q=%C3%BC"),
    ("http://a.com/%7Efoo/a b", "http://a.com/~foo/a%20b"),
    (" \thttp://a.com/a\nb\r ", "http://a.com/ab"),
    ("http://user:secret@a.com/x", "http://a.com/x"),
    ("http://a.com/../../x", "http://a.com/x"),
    ("http://a.com/?%FF=1&b", "http://a.com/?b=&%FF=1"),
])
def test_hrefs_are_normalised_as_browsers_read_them(href, expected):
    assert check_url(href) == (expected, "")


@pytest.mark.parametrize("href", [
    "https:example.com/p", "https:/example.com/p", "https:///example.com/p",
    "https:\\\\example.com\\p", "https:/\\example.com/p", "HTTPS:Example.COM/p",
    "https://example.com\\p", " https:example.com/p#top",
])
def test_http_urls_without_their_two_slashes_are_read_as_browsers_read_them(href):
    """The WHATWG URL parser (browsers) and w3lib's ``safe_url_string`` read any run of
    slashes and backslashes after ``http:``/``https:`` as ``//``, and a backslash in the path
    as ``/``: one page, however the link spells it."""
    assert check_url(href) == ("https://example.com/p", "")


def test_the_slashes_rule_leaves_the_query_and_other_schemes_alone():
    assert check_url("https:example.com/a?b=\\c") == ("https://example.com/a?b=%5Cc", "")
    assert check_url("http:example.com:8080") == ("http://example.com:8080/", "")
    assert check_url("ftp:example.com") == ("", "scheme")
    assert check_url("httpsexample.com") == ("", "scheme")


def test_path_spellings_of_one_page_are_one_url():
    assert normalize_url("http://a.com/päth") == normalize_url("http://a.com/p%C3%A4th")
    assert normalize_url("http://A.com/p%c3%a4th") == normalize_url("http://a.com/p%C3%A4th")


@pytest.mark.parametrize(("href", "reason"), [
    ("javascript:void(0)", "scheme"), ("data:text/html,<p>x", "scheme"),
    ("mailto:a@b.c", "scheme"), ("tel:+123", "scheme"), ("ftp://a.com/x", "scheme"),
    ("http://a.com:99999/", "bad_port"), ("http://a.com:x/", "bad_port"),
    ("http://a.com:0/", "bad_port"), ("http://a.com:80:80/", "bad_port"),
    ("http://[::1", "unparsable"), ("http://[zz::1]/", "unparsable"),
    ("http://a\x01b.com/", "bad_host"), ("http://a b.com/", "bad_host"),
    ("http://1.2.3.4.5/", "bad_host"), ("http://0x1ff.1/", "bad_host"),
    ("http://a..com/", "bad_host"), ("http://-a.com/", "bad_host"),
    ("http:///", "no_host"), ("https:", "no_host"), ("https:/?q", "no_host"),
    ("https:\\\\#x", "no_host"), ("https:://a.com/", "no_host"), ("https:exa mple.com", "bad_host"),
    ("http://a.com/" + "x" * 100_000, "too_long"),
    ("http://a.com/" + "x" * 3000, "too_long"), ("", "empty"), ("   ", "empty"),
])
def test_unusable_hrefs_are_rejected_with_a_reason(href, reason):
    assert check_url(href) == ("", reason)


_HOST_PARTS = st.sampled_from([
    "a.com", "WWW.Example.ORG", "bücher.de", "раураl.com", "ΑΒΓ.gr", "日本.jp", "xn--zca.de",
    "127.0.0.1", "2130706433", "0x7f.1", "0177.0.0.1", "[::1]", "[::ffff:10.0.0.1]", "[fe80::1%25eth0]",
    "[zz]", "[::1", "a..b", "-x.com", "a_b.c", "a%2eb.com", "%00.com", "", " ", "\x00", "é.", "x" * 300,
])
_PORTS = st.sampled_from(["", ":", ":80", ":8080", ":99999", ":-1", ":0", ":x", ":80:80", ":٣"])
_SCHEMES = st.sampled_from(["http://", "HTTPS://", "//", "javascript:", "data:", "mailto:", "ftp://",
                            "", "http:", "h\ttp://", "\x00http://"])
_TEXT = st.text(st.characters(codec="utf-8"), max_size=40)


@st.composite
def hrefs(draw: st.DrawFn) -> str:
    """Absolute, relative and broken hrefs mixing schemes, hosts, ports, paths and junk."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(_TEXT)
    href = draw(_SCHEMES) + draw(_HOST_PARTS) + draw(_PORTS)
    href += draw(st.sampled_from(["", "/", "/päth", "/p%C3%A4th", "/./a/../b", "/%", "/%zz",
                                  "/\u202e", "/a b"])) + draw(_TEXT)
    href += draw(st.sampled_from(["", "?utm_source=x&b=2&a", "?q=%FF", "?=&&=", "#frag"]))
    if kind == 3:
        href += "x" * draw(st.sampled_from([0, 2100, 100_000]))
    return href


@settings(max_examples=400, deadline=None)
@given(href=hrefs(), base=st.sampled_from(["http://a.com/dir/page", "https://[::1]:8443/",
                                           "http://bücher.de/x?y#z"]))
def test_any_href_gives_a_request_scrapy_accepts_or_a_reason(href, base):
    url, reason = check_url(join_url(base, href))
    assert bool(url) != bool(reason)
    if not url:
        return
    parts = urlsplit(url)
    assert parts.scheme in ("http", "https") and parts.hostname and url.isascii()
    assert parts.port is None or 0 < parts.port < 65536
    host = parts.hostname
    if ":" in host:
        ipaddress.IPv6Address(host)
    assert Request(url).url == url  # Scrapy's own escaping changes nothing
    assert check_url(url) == (url, "")  # idempotent
