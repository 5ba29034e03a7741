"""The 37-value feature vector of Bakić's thesis §4.2.1, checked against hand-computed values."""

from __future__ import annotations

import pytest

from corpuscrawl.extract.learned.features import (
    COUNTED_TAGS,
    FEATURE_NAMES,
    N_FEATURES,
    html_features,
    measure,
    strip_non_text,
)

SMALL = '<div><p>Hello world</p><a href="x">link text</a><p>abc</p></div>'


def named(vector: list[float]) -> dict[str, float]:
    return dict(zip(FEATURE_NAMES, vector, strict=True))


def test_vector_has_37_values_in_unit_interval(data_dir):
    html = (data_dir / "learned" / "segments.html").read_text()
    vector = html_features(html)
    assert N_FEATURES == 37 == len(vector) == len(FEATURE_NAMES)
    assert len(COUNTED_TAGS) == 26
    assert all(0.0 <= v <= 1.0 for v in vector)


def test_hand_computed_small_document():
    # Tags: <div>5 <p>3 </p>4 <a href="x">12 </a>4 <p>3 </p>4 </div>6 = 41 characters of
    # markup; text "Hello world" 11 + "link text" 9 + "abc" 3 = 23; total 64 characters.
    v = named(html_features(SMALL))
    assert v["size_lt_100"] == 1.0
    assert sum(v[n] for n in FEATURE_NAMES[:6]) == 1.0
    assert v["markup_ratio"] == pytest.approx(41 / 64)
    assert v["link_markup_ratio"] == pytest.approx(16 / 64)
    # Text blocks outside links: 11 and 3 characters.
    assert v["block_mean_by_max"] == pytest.approx(7 / 11)
    assert v["block_median_by_max"] == pytest.approx(7 / 11)
    assert v["block_max_by_sum"] == pytest.approx(11 / 14)
    # Counts: div 1, p 2 -> divided by the largest count, 2.
    assert v["count_p"] == 1.0
    assert v["count_div"] == 0.5
    assert v["count_table"] == 0.0


def test_size_buckets_are_bytes_and_boundaries_are_inclusive_below():
    assert named(html_features("x" * 99))["size_lt_100"] == 1.0
    assert named(html_features("x" * 100))["size_lt_1000"] == 1.0
    assert named(html_features("č" * 50))["size_lt_1000"] == 1.0  # 100 UTF-8 bytes
    assert named(html_features("x" * 1_000_000))["size_ge_1000000"] == 1.0


def test_scripts_styles_and_comments_are_not_measured():
    html = "<p>Hi</p><script>var a = '<b>';</script><!-- <br> --><style>p{}</style>"
    assert strip_non_text(html) == "<p>Hi</p>"
    stats = measure(strip_non_text(html))
    assert stats.tag_counts[COUNTED_TAGS.index("br")] == 0
    assert stats.block_lengths == [2]


def test_empty_input_gives_zeros_except_the_size_bucket():
    v = html_features("")
    assert v[0] == 1.0 and sum(v) == 1.0


def test_entities_are_unescaped_and_nested_link_text_is_excluded():
    stats = measure("<p>a&amp;b</p><a href='#'><span>menu</span></a><br/>")
    assert stats.block_lengths == [3]
    assert stats.tag_counts[COUNTED_TAGS.index("span")] == 1
    assert stats.tag_counts[COUNTED_TAGS.index("br")] == 1
