"""Dataset directories: ids, gold, snippets, method dirs, the datasets root and the shared split."""

from __future__ import annotations

import codecs
import gzip
import shutil
from pathlib import Path

import pytest

from corpuscrawl.evaluation.datasets import (
    Dataset,
    DatasetError,
    datasets_root,
    decode_text_file,
    doc_id,
    fold_of,
    grouped_fold,
    grouped_split,
    is_test,
    list_datasets,
    split,
)


def test_doc_id_strips_html_suffixes() -> None:
    assert doc_id("a/b/dev-1.html.gz") == "dev-1"
    assert doc_id("x.html") == "x"
    assert doc_id("x.htm.gz") == "x"
    assert doc_id("notes.txt") is None
    assert doc_id(".html") is None


def test_dataset_layout(data_dir: Path, tmp_path: Path) -> None:
    root = tmp_path / "tiny"
    shutil.copytree(data_dir / "evaluation" / "tiny", root)
    (root / "html" / "z.html.gz").write_bytes(gzip.compress(b"<p>zipped</p>"))
    ds = Dataset(root)
    assert ds.name == "tiny"
    assert ds.ids() == ["boom", "latin", "news", "nogold", "z"]
    assert ds.has_gold and not ds.has_snippets
    assert ds.gold("nogold") is None
    assert (ds.gold("news") or "").startswith("New ferry line opens")
    assert "zipped" in ds.load_page("z").html
    assert ds.method_dirs() == []
    (root / "bte").mkdir()
    (root / "bte" / "news.txt").write_text("x", encoding="utf-8")
    (root / "empty").mkdir()
    assert [p.name for p in ds.method_dirs()] == ["bte"]


def test_snippets_are_read(data_dir: Path) -> None:
    ds = Dataset(data_dir / "evaluation" / "snippets")
    assert ds.has_snippets and not ds.has_gold
    s1 = ds.snippets["s1"]
    assert s1.with_ == ("museum reopened its glass hall", "the whale   skeleton")
    assert s1.without == ("Subscribe now to read on",)


def test_bad_snippet_line_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "html").mkdir()
    (tmp_path / "snippets.jsonl").write_text('{"id": "a", "with": []}\n{broken\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"snippets.jsonl:2"):
        _ = Dataset(tmp_path).snippets


def test_not_a_dataset(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no html/"):
        Dataset(tmp_path)


def test_datasets_root_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "one" / "html").mkdir(parents=True)
    (tmp_path / "not-a-dataset").mkdir()
    monkeypatch.setenv("CORPUSCRAWL_DATASETS", str(tmp_path))
    assert datasets_root() == tmp_path
    assert [d.name for d in list_datasets()] == ["one"]
    monkeypatch.setenv("CORPUSCRAWL_DATASETS", str(tmp_path / "missing"))
    with pytest.raises(DatasetError, match="CORPUSCRAWL_DATASETS"):
        datasets_root()


def test_split_is_deterministic_disjoint_and_order_independent() -> None:
    ids = [f"doc-{i}" for i in range(2000)]
    train, test = split(ids)
    assert set(train) | set(test) == set(ids) and not set(train) & set(test)
    assert 0.17 < len(test) / len(ids) < 0.23
    train2, test2 = split(list(reversed(ids)))
    assert set(test2) == set(test) and set(train2) == set(train)
    assert all(is_test(d) for d in test)
    # A document keeps its side when others are added.
    _, test_more = split([*ids, "new-1", "new-2"])
    assert set(test) <= set(test_more)


def test_split_pins_known_assignments() -> None:
    """The split is a contract shared by training and benchmarks: it must never drift."""
    _, test = split([f"dev-{i}" for i in range(40)])
    assert test == PINNED_TEST


def test_split_seed_and_fraction() -> None:
    ids = [str(i) for i in range(500)]
    assert split(ids, test_fraction=0.0) == (ids, [])
    assert split(ids, test_fraction=1.0) == ([], ids)
    assert split(ids, seed="other")[1] != split(ids)[1]
    with pytest.raises(ValueError):
        split(ids, test_fraction=1.5)


def test_folds_partition_the_ids_and_fold_zero_is_the_test_split() -> None:
    """Cross-validation (benchmarks/crossval.py) relies on fold 0 of 5 being the test part."""
    ids = [f"doc-{i}" for i in range(3000)]
    folds = {d: fold_of(d, 5) for d in ids}
    assert set(folds.values()) == {0, 1, 2, 3, 4}
    assert all(550 < list(folds.values()).count(f) < 650 for f in range(5))
    _, test = split(ids)
    assert [d for d in ids if folds[d] == 0] == test
    assert [d for d in ids if fold_of(d, 2) == 0] == split(ids, test_fraction=0.5)[1]
    assert fold_of("doc-1", 5, seed="other") in range(5)
    with pytest.raises(ValueError, match="at least 2"):
        fold_of("doc-1", 1)


def test_real_datasets_are_found(datasets_dir: Path) -> None:
    names = {d.name for d in list_datasets(datasets_dir)}
    assert {"cleaneval", "trafilatura"} <= names


#: Test ids of dev-0..dev-39 under the default split (sha1("corpuscrawl/" + id) < 0.2).
PINNED_TEST = ["dev-0", "dev-1", "dev-4", "dev-10", "dev-14", "dev-28", "dev-33", "dev-36"]


def test_gold_in_utf16_with_a_bom_is_read() -> None:
    text = "Zagreb – grad\nsecond line ’quoted’"
    assert decode_text_file(codecs.BOM_UTF16_LE + text.encode("utf-16-le")) == text
    assert decode_text_file(codecs.BOM_UTF16_BE + text.encode("utf-16-be")) == text
    assert decode_text_file(codecs.BOM_UTF8 + text.encode("utf-8")) == text


def test_utf16_read_as_latin1_and_saved_as_utf8_is_repaired() -> None:
    # The shape of dragnet's clean/27.txt and friends: UTF-16LE + BOM, decoded as
    # Latin-1, written as UTF-8, with one byte lost in the middle.
    raw = codecs.BOM_UTF16_LE + "Paulo’s blog & more\n\nby Paulo".encode("utf-16-le")
    lost = raw[:29] + raw[30:]  # drops the NUL after "&"
    mojibake = lost.decode("latin-1").encode("utf-8")
    assert decode_text_file(mojibake) == "Paulo’s blog & more\n\nby Paulo"


def test_latin1_text_that_merely_starts_like_a_bom_is_left_alone() -> None:
    text = "ÿþ are two letters, no NUL here"
    assert decode_text_file(text.encode("utf-8")) == text


def grouped_dataset(tmp_path: Path, manifest: list[str]) -> Dataset:
    """A dataset of pages p0..p11 with the given manifest lines."""
    root = tmp_path / "sites"
    (root / "html").mkdir(parents=True)
    for i in range(12):
        (root / "html" / f"p{i}.html").write_text("<p>x</p>")
    (root / "manifest.jsonl").write_text("\n".join(manifest) + "\n")
    return Dataset(root)


def test_a_dataset_with_domains_is_split_by_site(tmp_path: Path) -> None:
    import json

    lines = [json.dumps({"id": f"p{i}", "domain": f"site{i % 3}.example",
                         "page_type": "forum" if i % 2 else "article"}) for i in range(11)]
    lines.append(json.dumps({"id": "p11", "domain": "", "url": ""}))
    ds = grouped_dataset(tmp_path, lines)
    assert ds.grouped
    assert ds.group("p4") == "site1.example" and ds.group("p11") == "sites/p11"
    assert ds.page_type("p3") == "forum" and ds.page_type("p11") is None
    for fraction in (0.3, 0.5, 0.7):
        train, test = grouped_split(ds.ids(), ds.group, fraction)
        assert sorted(train + test) == sorted(ds.ids())
        assert not {ds.group(i) for i in train} & {ds.group(i) for i in test}
    assert ds.split(ds.ids()) == grouped_split(ds.ids(), ds.group)
    folds = {grouped_fold(i, ds.group, 4) for i in ("p0", "p3", "p6", "p9")}
    assert len(folds) == 1  # site0's pages share a fold


def test_a_dataset_without_domains_keeps_the_id_split(tmp_path: Path) -> None:
    import json

    ds = grouped_dataset(tmp_path, [json.dumps({"id": f"p{i}", "url": f"https://s{i}.example/"})
                                    for i in range(12)])
    assert not ds.grouped
    assert ds.group("p5") == "s5.example"
    assert ds.split(ds.ids()) == split(ds.ids())
