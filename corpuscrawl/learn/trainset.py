"""Documents for training and testing learned extractors, and cached base-extractor outputs.

Every learned extractor trains on the *train* part and is scored on the
*test* part of :func:`corpuscrawl.evaluation.datasets.split` (by document id,
the project's one split); only gold-text datasets take part.

Running the base extractors over ~2 000 pages takes minutes, so their outputs
are cached as text files under ``$CORPUSCRAWL_CACHE`` (default
``~/.cache/corpuscrawl``), keyed by dataset, extractor name, a hash of the
extractor's source file and of the package's source (so an edited extractor, or
an edit of the parsing and block code every extractor shares, re-runs it) and
document id.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from corpuscrawl.evaluation.datasets import Dataset
from corpuscrawl.evaluation.metrics import tokenize
from corpuscrawl.evaluation.names import THESIS_BASE
from corpuscrawl.extract import get_extractor, names
from corpuscrawl.extract.base import Extractor
from corpuscrawl.html.page import Page

logger = logging.getLogger("corpuscrawl.train")

#: Environment variable naming the cache directory.
CACHE_ENV = "CORPUSCRAWL_CACHE"
#: Base extractors of the thesis' hybrids (Bakić's thesis §4.2.2: BTE, Readability, Boilerpipe DE/AE).
THESIS_BASE_DEFAULT = THESIS_BASE


def cache_dir() -> Path:
    """The cache directory (``$CORPUSCRAWL_CACHE`` or ``~/.cache/corpuscrawl``)."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path.home() / ".cache" / "corpuscrawl"


def available_base(wanted: Sequence[str] = THESIS_BASE_DEFAULT) -> tuple[str, ...]:
    """The wanted base extractors that are registered and importable, in order."""
    known = set(names())
    out = []
    for name in wanted:
        if name not in known:
            continue
        try:
            get_extractor(name)
        except Exception as exc:  # a base extractor still being written, a missing library
            logger.warning("base extractor %s unavailable: %s", name, exc)
            continue
        out.append(name)
    return tuple(out)


def required_base(wanted: Sequence[str]) -> tuple[str, ...]:
    """``wanted`` when every one of them is available (:func:`available_base`); else a
    ValueError naming the ones that are not (a model asked for them by name)."""
    found = available_base(wanted)
    missing = [n for n in wanted if n not in found]
    if missing:
        raise ValueError(f"base extractors {', '.join(missing)} are not available; known: "
                         f"{', '.join(names())}")
    return tuple(wanted)


@dataclass
class Doc:
    """One gold-text document of a dataset."""

    dataset: Dataset
    id: str

    @property
    def key(self) -> str:
        """``dataset/id``, unique across datasets."""
        return f"{self.dataset.name}/{self.id}"

    @property
    def group(self) -> str:
        """The page's site (:meth:`Dataset.group`): cross-validation folds keep a site's
        pages together."""
        return self.dataset.group(self.id)

    @cached_property
    def page(self) -> Page:
        """The parsed page (parsed once, on first use)."""
        return self.dataset.load_page(self.id)

    @cached_property
    def gold(self) -> str:
        """The gold text."""
        return self.dataset.gold(self.id) or ""

    @cached_property
    def gold_words(self) -> list[str]:
        """The gold words as the evaluation tokenizes them."""
        return tokenize(self.gold)

    def release(self) -> None:
        """Drop the parsed page to free memory after use."""
        self.__dict__.pop("page", None)


#: A progress display over documents (e.g. a tqdm bar): iterates them and yields them back.
Progress = Callable[[Iterable["Doc"]], Iterable["Doc"]]


def no_progress(docs: Iterable[Doc]) -> Iterable[Doc]:
    """The documents unchanged (no progress display)."""
    return docs


def documents(dataset_dirs: Iterable[str | Path], part: str = "train") -> list[Doc]:
    """Gold-text documents of the given dataset directories: ``part`` is train, test or all
    (each dataset's own split, :meth:`Dataset.split`: by site where its manifest names
    one)."""
    if part not in ("train", "test", "all"):
        raise ValueError(f"part must be train, test or all, not {part!r}")
    out: list[Doc] = []
    for d in dataset_dirs:
        ds = Dataset(Path(d))
        if not ds.has_gold:
            continue
        ids = [i for i in ds.ids() if ds.gold_path(i).is_file()]
        train, test = ds.split(ids)
        chosen = {"train": train, "test": test, "all": ids}[part]
        out.extend(Doc(ds, i) for i in chosen)
    return out


PACKAGE_DIR = Path(__file__).resolve().parents[1]


def package_hash() -> str:
    """A hash of the package's source (Python, Cython with its shared ``.pxd`` declarations,
    and hand-written C): results computed by other code differ.  C generated from a `.pyx` beside it is left out, so a built tree and a
    fresh clone of the same source agree."""
    digest = hashlib.sha1()
    for path in sorted(PACKAGE_DIR.rglob("*")):
        generated = path.suffix == ".c" and path.with_suffix(".pyx").exists()
        if path.suffix in (".py", ".pyx", ".pxd", ".c") and path.is_file() and not generated:
            digest.update(path.relative_to(PACKAGE_DIR.parent).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _source_hash(extractor: Extractor, package: str) -> str:
    try:
        source = inspect.getsourcefile(type(getattr(extractor, "inner", extractor)))
        data = Path(source).read_bytes() if source else b""
    except (TypeError, OSError):
        data = b""
    return hashlib.sha1(data + package.encode()).hexdigest()[:10]


class BaseOutputs:
    """Outputs of named base extractors per document, computed once and cached on disk."""

    def __init__(self, extractor_names: Sequence[str], use_cache: bool = True):
        self.names = tuple(extractor_names)
        self.extractors = {n: get_extractor(n) for n in self.names}
        package = package_hash()
        self.versions = {n: _source_hash(e, package) for n, e in self.extractors.items()}
        self.use_cache = use_cache

    def _path(self, doc: Doc, name: str) -> Path:
        return cache_dir() / "outputs" / doc.dataset.name / f"{name}-{self.versions[name]}" \
            / f"{doc.id}.txt"

    def get(self, doc: Doc, name: str) -> str:
        """The output of extractor ``name`` on ``doc`` ("" when the extractor fails)."""
        path = self._path(doc, name)
        if self.use_cache and path.is_file():
            return path.read_text(encoding="utf-8")
        try:
            text = self.extractors[name].extract(doc.page)
        except Exception as exc:  # a failing base extractor is an empty answer, as in a crawl
            logger.warning("%s failed on %s: %s", name, doc.key, exc)
            text = ""
        if self.use_cache:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return text

    def all(self, doc: Doc) -> list[str]:
        """Outputs of every extractor, in ``names`` order."""
        return [self.get(doc, n) for n in self.names]


__all__ = [
    "CACHE_ENV",
    "THESIS_BASE_DEFAULT",
    "required_base",
    "BaseOutputs",
    "Progress",
    "Doc",
    "available_base",
    "cache_dir",
    "documents",
    "no_progress",
    "package_hash",
]
