"""The training code still makes what it made when the shipped models were trained:
``hybrid-a``, ``segment-svm``, ``hybrid-b``, ``sequence`` and the page-type classifier.

Each shipped file is rebuilt by its card's rebuild line (``corpuscrawl train NAME``,
``corpuscrawl train page-type``) from the shipped datasets: ``benchmarks/model_identity.py``
finds a rebuilt model file equal to the shipped one but for its training time, a rebuilt
``page-type.json`` is byte-identical (``benchmarks/results/models_reproduce.md``).  A full rebuild takes minutes, so these tests
retrain each model on a fixed sample instead, with the training defaults (which are the
shipped files' parameters: ``tests/test_model_cards.py``): the pages whose key hashes to 0
modulo :data:`TRAIN_EVERY` (:data:`PAGE_TYPE_EVERY` for the page types).  They compare what
the fit learned from (its label counts) and the digest of its outputs on a fixed sample of
test pages with the figures pinned here.  A change to the page decoding, the features, the
labels or the fit changes them: then either the change was meant (retrain the shipped
models, re-pin here) or it broke the reproduction.  ``auto`` has its own test
(``tests/test_auto_reproduce.py``); the element classifier is retrained whole from its
shipped labelled set (``tests/test_model_cards.py``).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpuscrawl.learn.training import build_extractor, fit_model, shipped_datasets
from corpuscrawl.learn.trainset import Doc, documents
from tests.conftest import DATASETS_DIR

pytestmark = [pytest.mark.datasets, pytest.mark.slow]

#: One training page in this many (by key hash): 76 of the 1,785.
TRAIN_EVERY = 20
#: One test page in this many: 19 of the 434.
TEST_EVERY = 20
#: One labelled page-type page in this many: of WCXB's typed pages (every type but
#: article is there) and of the article sets' pages.
PAGE_TYPE_EVERY = {"wcxb": 8, "articles": 40}
#: Per model: the label counts of the small fit, and the digest of its outputs on the
#: sampled test pages.
PINNED: dict[str, tuple[dict[str, int], str]] = {
    "hybrid-a": ({"bte": 16, "readability": 22, "boilerpipe-default": 4,
                  "boilerpipe-article": 34},
                 "8e683557cfa5eee520ef5fc84f650942cf616226f68e25584a0d149e214a0373"),
    "segment-svm": ({"content": 198, "boilerplate": 700},
                    "0923adb52dc08dff248322efcebc497805272fcba32dbf45cac6be0d56abb85d"),
    "hybrid-b": ({"content": 198, "boilerplate": 700},
                 "209953fab175861fcd3a74a6761034941ea4db040c1933c3ea13ad32fbddfc7a"),
    "sequence": ({"content": 1992, "boilerplate": 8888},
                 "5b1e6044fd9f47d84a88fbd60396287f5b6c15b88160096666a6d9e9a5d5f8a8"),
}
#: The page-type sample's class counts, the digest of its out-of-fold types, and the small
#: model's summed probability per class over the sampled pages (compared to 1e-6: the last
#: bits of a fit may differ between machines, a changed feature, label or fit moves them far
#: more).
PINNED_PAGE_TYPES: tuple[dict[str, int], str, dict[str, float]] = (
    {"article": 135, "forum": 14, "documentation": 10, "service": 26, "product": 11,
     "listing": 5, "collection": 8},
    "cb481dc0052edf18d3934e9263b827921e67355ebb44007c16dc89327b2ebc05",
    {"article": 134.264904893, "collection": 8.006323172, "documentation": 10.092396483,
     "forum": 14.110311857, "listing": 5.408817869, "product": 11.03804776,
     "service": 26.079197966})

def in_sample(key: str, every: int) -> bool:
    """Whether the page ``key`` (``dataset/id``) is in the fixed sample of one in ``every``."""
    return int(hashlib.sha1(key.encode()).hexdigest(), 16) % every == 0


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[Doc], list[Doc]]]:
    """The sampled training and test pages of the shipped datasets, with a cache of base
    outputs of their own (hybrid-a and hybrid-b share it)."""
    if not DATASETS_DIR.is_dir():
        pytest.skip(f"benchmark datasets not found at {DATASETS_DIR} (set CORPUSCRAWL_DATASETS)")
    dirs = [DATASETS_DIR / name for name in shipped_datasets("sequence")]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CORPUSCRAWL_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield ([d for d in documents(dirs, "train") if in_sample(d.key, TRAIN_EVERY)],
               [d for d in documents(dirs, "test") if in_sample(d.key, TEST_EVERY)])


def outputs_digest(extract, docs: list[Doc]) -> str:
    """SHA-256 of each page's key and extracted text, in order."""
    digest = hashlib.sha256()
    for doc in docs:
        digest.update(doc.key.encode() + b"\0" + extract(doc.page).encode() + b"\0")
    return digest.hexdigest()


@pytest.mark.parametrize("name", list(PINNED))
def test_a_small_retrain_gives_the_pinned_outputs(name, samples):
    train, test = samples
    assert (len(train), len(test)) == (76, 19)
    assert shipped_datasets(name) == shipped_datasets("sequence")  # the sample's datasets
    model = fit_model(name, train, None, show_progress=False).predictor()
    labels, digest = PINNED[name]
    assert model.label_counts_ == labels
    assert outputs_digest(build_extractor(name, model).extract, test) == digest


def test_a_small_page_type_retrain_gives_the_pinned_types(datasets_dir: Path):
    from corpuscrawl.learn.page_type_trainer import fit, labelled_pages, out_of_fold

    def select(key: str) -> bool:
        typed = key.startswith("wcxb/")
        return in_sample(key, PAGE_TYPE_EVERY["wcxb" if typed else "articles"])

    data = labelled_pages(datasets_dir, select=select)
    counts, pinned_types, pinned_sums = PINNED_PAGE_TYPES
    assert dict(Counter(data.y)) == counts
    digest = hashlib.sha256()
    for key, p in zip(data.keys, out_of_fold(data), strict=True):
        digest.update(f"{key}\0{p}\0".encode())
    assert digest.hexdigest() == pinned_types
    model = fit(data.x, data.y)
    sums = dict(zip(model.classes, model.probabilities(data.x).sum(axis=0).tolist(),
                    strict=True))
    assert sums == pytest.approx(pinned_sums, rel=0, abs=1e-6)
