"""URL normalization and filters."""

from corpuscrawl.urls import has_non_html_extension, normalize_url, same_site


def test_tracking_parameters_fragments_and_order_are_normalized():
    assert normalize_url("HTTP://Example.COM:80/a/./b/../c?utm_source=x&b=2&a=1&fbclid=z#top") == \
        "http://example.com/a/c?a=1&b=2"
    assert normalize_url("https://example.com") == "https://example.com/"
    assert normalize_url("https://example.com:8443/x/") == "https://example.com:8443/x/"


def test_non_http_urls_are_rejected():
    assert normalize_url("mailto:a@b.c") == ""
    assert normalize_url("javascript:void(0)") == ""
    assert normalize_url("http://[::1") == ""


def test_extensions_and_sites():
    assert has_non_html_extension("http://a.com/report.PDF")
    assert has_non_html_extension("http://a.com/img/photo.jpg?size=2")
    assert not has_non_html_extension("http://a.com/news/story.html")
    assert not has_non_html_extension("http://a.com/v1.2/")
    assert same_site("www.news.example.com", {"example.com"})
    assert not same_site("example.com.evil.org", {"example.com"})
