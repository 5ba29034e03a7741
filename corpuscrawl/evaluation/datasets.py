"""Evaluation datasets on disk: layout, gold text, snippets, and the shared train/test split.

Layout (as in ``../shared/datasets/README.md``)::

    <dataset>/html/<id>.html[.gz]     input pages (.htm, .htm.gz accepted too)
    <dataset>/clean/<id>.txt          gold main text (gold-text datasets)
    <dataset>/snippets.jsonl          {"id", "with": [...], "without": [...]} (snippet datasets)
    <dataset>/<method>/<id>.txt       one directory per extraction method
    <dataset>/<method>/evaluation.csv written by ``corpuscrawl evaluate``

Document ids are the file stems without ``.html``/``.html.gz``.

**The split.**  Every part of the project that trains or tunes on these data
(learned extractors, their benchmarks, threshold searches) uses
:func:`split`: a document is in the test part when the SHA-1 of
``seed + "/" + id`` read as a number in [0, 1) is below ``test_fraction``.
It depends only on the id, so it is stable across machines, Python versions,
dataset growth and file order, and the same page is always on the same side.
Default: 20 % test, seed ``"corpuscrawl"``.

**Groups.**  Pages of one site must not straddle a training and a test part: a model
learns a site's template from one page and recognises it on the next.
:meth:`Dataset.group` is a page's site (the manifest's ``domain``, else its URL's
host, else the id itself) and :func:`grouped_split` / :func:`grouped_fold` split by
it, so all of a site's pages fall on one side.  The article sets keep the id split
(every shipped model and earlier figure is on it); datasets whose manifest has a
``domain`` field (:attr:`Dataset.grouped`) are split by group.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from corpuscrawl.html.content import read_bom
from corpuscrawl.html.page import Page
from corpuscrawl.net.sites import domain_of

__all__ = [
    "DATASETS_ENV",
    "HTML_SUFFIXES",
    "Dataset",
    "DatasetError",
    "Snippets",
    "datasets_root",
    "decode_text_file",
    "doc_id",
    "fold_of",
    "grouped_fold",
    "grouped_split",
    "is_method_dir",
    "is_test",
    "list_datasets",
    "split",
    "utf16le_resync",
]

#: Environment variable that points to the datasets root.
DATASETS_ENV = "CORPUSCRAWL_DATASETS"
#: Page file endings recognised in ``html/``, longest first so ".html.gz" wins over ".gz".
HTML_SUFFIXES = (".html.gz", ".htm.gz", ".html", ".htm")
#: Sub-directories of a dataset that are inputs, never method outputs.
RESERVED_DIRS = frozenset({"html", "clean"})
#: Default share of documents in the test part (a common 80/20 split).
TEST_FRACTION_DEFAULT = 0.2
#: Default split seed; change it only to deliberately draw a different split.
SPLIT_SEED_DEFAULT = "corpuscrawl"


def is_method_dir(path: Path) -> bool:
    """True when ``path`` holds extracted ``<id>.txt`` files itself (a method's outputs)."""
    return any(path.glob("*.txt"))


def decode_text_file(data: bytes) -> str:
    """A gold text file's text: UTF-8, or UTF-16/32 with a byte-order mark.

    Also undoes a mojibake found in the shared data (four dragnet gold files):
    UTF-16LE bytes with their BOM, read as Latin-1 and saved as UTF-8, with a
    byte lost here and there, so the text starts with "ÿþ" and every other
    character is NUL.  Read naively, such a file is garbage that no extraction
    can match; :func:`utf16le_resync` reads it.
    """
    codec, bom = read_bom(data)
    if codec:
        return data[len(bom):].decode(codec, errors="replace")
    text = data.decode("utf-8", errors="replace")
    if text.startswith("\xff\xfe") and "\x00" in text[:64]:
        try:
            return utf16le_resync(text[2:].encode("latin-1"))
        except UnicodeEncodeError:  # not that mojibake after all
            return text
    return text


def utf16le_resync(data: bytes) -> str:
    """Decode UTF-16LE that lost single bytes, re-aligning at the next ASCII character.

    An ASCII character is ``(byte, 0)``.  A pair of two non-NUL bytes followed
    by ``(0, byte)`` is an ASCII character that lost its NUL; a pair ``(0, byte)``
    means the stream slipped by one byte, so that NUL is skipped.  A lone last
    byte is dropped.
    """
    out: list[str] = []
    i, n = 0, len(data) - 1
    while i < n:
        lo, hi = data[i], data[i + 1]
        if lo and hi and i + 3 <= n and data[i + 2] == 0 and data[i + 3]:
            out.append(chr(lo))  # an ASCII character whose NUL was lost
            i += 1
        elif hi == 0 or lo != 0:
            code = lo | hi << 8
            out.append("\ufffd" if 0xD800 <= code <= 0xDFFF else chr(code))
            i += 2
        else:  # (0, byte): re-align
            i += 1
    return "".join(out)


class DatasetError(ValueError):
    """A directory is not a usable dataset (no html/, unreadable snippets file, ...)."""


def doc_id(path: str | Path) -> str | None:
    """The document id of a page file (its name without the HTML suffix), or None."""
    name = Path(path).name
    for suffix in HTML_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return None


def _candidate_roots() -> Iterator[Path]:
    env = os.environ.get(DATASETS_ENV)
    if env:
        yield Path(env)
        return
    repo_root = Path(__file__).resolve().parents[2]
    yield repo_root.parent / "shared" / "datasets"
    yield Path.cwd().parent / "shared" / "datasets"
    yield Path.cwd() / "shared" / "datasets"


def datasets_root(explicit: str | Path | None = None) -> Path:
    """The directory holding the datasets.

    ``explicit`` wins, then the ``CORPUSCRAWL_DATASETS`` environment variable,
    then ``../shared/datasets`` next to the repository, then relative to the
    working directory.  Raises :class:`DatasetError` naming what was tried.
    """
    tried = [Path(explicit)] if explicit else list(_candidate_roots())
    for path in tried:
        if path.is_dir():
            return path
    raise DatasetError(
        "datasets directory not found; tried "
        + ", ".join(str(p) for p in tried)
        + f" (pass a path or set {DATASETS_ENV})"
    )


def list_datasets(root: str | Path | None = None) -> list[Dataset]:
    """Every dataset (a directory with ``html/``) under the root, sorted by name."""
    base = datasets_root(root)
    return [Dataset(p) for p in sorted(base.iterdir()) if (p / "html").is_dir()]


def _unit_interval(seed: str, key: str) -> float:
    digest = hashlib.sha1(f"{seed}/{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def is_test(doc: str, test_fraction: float = TEST_FRACTION_DEFAULT,
            seed: str = SPLIT_SEED_DEFAULT) -> bool:
    """True when document ``doc`` belongs to the test part of :func:`split`."""
    return _unit_interval(seed, doc) < test_fraction


def split(ids: Iterable[str], test_fraction: float = TEST_FRACTION_DEFAULT,
          seed: str = SPLIT_SEED_DEFAULT) -> tuple[list[str], list[str]]:
    """Deterministic train/test split by document id: ``(train_ids, test_ids)``, input order kept.

    See the module docstring: a hash of the id decides, not a shuffle, so the
    split never changes when documents are added or listed in another order.
    """
    if not 0.0 <= test_fraction <= 1.0:
        raise ValueError(f"test_fraction must be within [0, 1], got {test_fraction}")
    train: list[str] = []
    test: list[str] = []
    for doc in ids:
        (test if is_test(doc, test_fraction, seed) else train).append(doc)
    return train, test


def fold_of(doc: str, folds: int, seed: str = SPLIT_SEED_DEFAULT) -> int:
    """The cross-validation fold (``0 … folds - 1``) of document ``doc``.

    The same hash as :func:`split` decides, cut into ``folds`` equal parts, so
    with ``folds = 1 / test_fraction`` (5 for the default 20 %) fold 0 is
    exactly :func:`split`'s test part and the other folds its train part.
    """
    if folds < 2:
        raise ValueError(f"folds must be at least 2, got {folds}")
    u = _unit_interval(seed, doc)
    for fold in range(folds - 1):
        if u < (fold + 1) / folds:
            return fold
    return folds - 1


def grouped_split(ids: Iterable[str], group: Callable[[str], str],
                  test_fraction: float = TEST_FRACTION_DEFAULT,
                  seed: str = SPLIT_SEED_DEFAULT) -> tuple[list[str], list[str]]:
    """:func:`split` by ``group(id)`` instead of the id: every page of a group lands on the
    same side (``(train_ids, test_ids)``, input order kept)."""
    if not 0.0 <= test_fraction <= 1.0:
        raise ValueError(f"test_fraction must be within [0, 1], got {test_fraction}")
    train: list[str] = []
    test: list[str] = []
    for doc in ids:
        (test if is_test(group(doc), test_fraction, seed) else train).append(doc)
    return train, test


def grouped_fold(doc: str, group: Callable[[str], str], folds: int,
                 seed: str = SPLIT_SEED_DEFAULT) -> int:
    """:func:`fold_of` the page's group: a site's pages share a fold."""
    return fold_of(group(doc), folds, seed)


@dataclass(frozen=True, slots=True)
class Snippets:
    """Texts that must appear (``with_``) and must not appear (``without``) in one page's output."""

    doc: str
    with_: tuple[str, ...]
    without: tuple[str, ...]
    url: str = ""


@dataclass(frozen=True)
class Dataset:
    """One dataset directory (see the module docstring for its layout)."""

    path: Path

    def __post_init__(self) -> None:
        # Absolute: pages get file:// URLs when the manifest has none.
        object.__setattr__(self, "path", Path(self.path).resolve())
        if not (self.path / "html").is_dir():
            raise DatasetError(f"{self.path}: not a dataset directory (no html/ inside)")

    @property
    def name(self) -> str:
        """The dataset's name: its directory name."""
        return self.path.name

    @cached_property
    def html_files(self) -> dict[str, Path]:
        """Document id -> page file, sorted by id."""
        found: dict[str, Path] = {}
        for path in (self.path / "html").iterdir():
            doc = doc_id(path)
            if doc is not None and path.is_file():
                found[doc] = path
        return dict(sorted(found.items()))

    def ids(self) -> list[str]:
        """Ids of every page in ``html/``, sorted."""
        return list(self.html_files)

    @cached_property
    def urls(self) -> dict[str, str]:
        """Document id -> original URL, from ``manifest.jsonl`` (empty when there is none)."""
        return {doc: str(rec["url"]) for doc, rec in self.manifest.items() if rec.get("url")}

    @cached_property
    def manifest(self) -> dict[str, dict]:
        """Document id -> its ``manifest.jsonl`` record (empty when there is no manifest)."""
        path = self.path / "manifest.jsonl"
        if not path.is_file():
            return {}
        out: dict[str, dict] = {}
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue  # the manifest is provenance only; a bad line costs one record
                if isinstance(rec, dict) and rec.get("id"):
                    out[str(rec["id"])] = rec
        return out

    @property
    def grouped(self) -> bool:
        """True when the manifest has a ``domain`` field: the dataset is split by site
        (:func:`grouped_split`), not by id (a page whose domain is blank is its own site)."""
        return any("domain" in r for r in self.manifest.values())

    def group(self, doc: str) -> str:
        """The site of document ``doc`` (``domain`` in the manifest, else its URL's host
        without ``www.``, else the id): the unit folds and splits keep together."""
        rec = self.manifest.get(doc, {})
        domain = str(rec.get("domain") or "") or domain_of(self.urls.get(doc, ""))
        return domain.lower().removeprefix("www.") or f"{self.name}/{doc}"

    def page_type(self, doc: str) -> str | None:
        """The manifest's ``page_type`` of ``doc`` (None when it records none)."""
        value = self.manifest.get(doc, {}).get("page_type")
        return str(value) if value else None

    def split(self, ids: Iterable[str]) -> tuple[list[str], list[str]]:
        """The dataset's train/test split of ``ids``: by site (:meth:`group`) for a
        :attr:`grouped` dataset, else by id (:func:`split`)."""
        if self.grouped:
            return grouped_split(ids, self.group)
        return split(ids)

    def load_page(self, doc: str) -> Page:
        """Parse the page of document ``doc`` (any encoding, gzip or not) with its original URL."""
        return Page.from_file(self.html_files[doc], url=self.urls.get(doc, ""))

    def read_html(self, doc: str) -> str:
        """The decoded HTML text of document ``doc`` (for tools that parse it themselves)."""
        return self.load_page(doc).html

    @property
    def has_gold(self) -> bool:
        """True for a gold-text dataset (it has ``clean/``)."""
        return (self.path / "clean").is_dir()

    @property
    def has_snippets(self) -> bool:
        """True for a snippet dataset (it has ``snippets.jsonl``)."""
        return (self.path / "snippets.jsonl").is_file()

    def gold_path(self, doc: str) -> Path:
        """Where the gold text of ``doc`` is (or would be)."""
        return self.path / "clean" / f"{doc}.txt"

    def gold(self, doc: str) -> str | None:
        """The gold text of ``doc``, or None when the dataset has none for it."""
        path = self.gold_path(doc)
        if not path.is_file():
            return None
        return decode_text_file(path.read_bytes())

    @cached_property
    def snippets(self) -> dict[str, Snippets]:
        """Document id -> its snippets (empty when the dataset has no ``snippets.jsonl``)."""
        path = self.path / "snippets.jsonl"
        if not path.is_file():
            return {}
        out: dict[str, Snippets] = {}
        with path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    doc = str(rec["id"])
                    out[doc] = Snippets(doc=doc, with_=tuple(rec.get("with") or ()),
                                        without=tuple(rec.get("without") or ()),
                                        url=str(rec.get("url") or ""))
                except (ValueError, KeyError, TypeError) as exc:
                    raise DatasetError(f"{path}:{lineno}: bad snippet record ({exc})") from exc
        return out

    def method_dirs(self, methods_root: str | Path | None = None) -> list[Path]:
        """Method output directories, sorted: sub-directories holding ``*.txt`` files.

        By default they are looked for inside the dataset; ``methods_root`` (e.g.
        an ``extract -o`` directory) is searched instead when given.
        """
        base = Path(methods_root) if methods_root else self.path
        if not base.is_dir():
            return []
        return [p for p in sorted(base.iterdir())
                if p.is_dir() and p.name not in RESERVED_DIRS and not p.name.startswith(".")
                and is_method_dir(p)]
