"""The training code still makes what it made when the shipped ``auto`` was trained.

The shipped file is rebuilt by ``corpuscrawl train auto`` (its card's rebuild line; its
parameters are the training defaults: ``tests/test_model_cards.py``).  A full rebuild
takes about half an hour, so this test retrains on a fixed sample instead: the training
pages of the shipped datasets whose key hashes to 0 modulo :data:`TRAIN_EVERY`, the
shipped parameters with :data:`MAX_ITER` boosting rounds, one thread; then extracts a
fixed sample of test pages and compares the digest of the outputs, and what the fit
chose, with the figures pinned by the code that rebuilt the shipped file's predictor
(``benchmarks/results/wholeweb.md``, "Reproducing the shipped file").  A change to the features, the labels, the
folds, the fit or the decoding choice changes the digest: then either the change was
meant (retrain the shipped model, re-pin here) or it broke the reproduction.
"""

from __future__ import annotations

import hashlib

import pytest

from corpuscrawl.learn.training import build_extractor, fit_model, shipped_datasets
from corpuscrawl.learn.trainset import Doc, documents

pytestmark = [pytest.mark.datasets, pytest.mark.slow]

#: One training page in this many (by key hash): 28 of the 2,858.
TRAIN_EVERY = 100
#: One test page in this many: 14 of the 719.
TEST_EVERY = 40
#: Boosting rounds of the small fit (the shipped parameters' 400 take minutes here).
MAX_ITER = 60
#: What the small fit chose, and the digest of its outputs on the sampled test pages.
PINNED_FIT = {"out_of_fold_f1": 0.9106, "lambda": 0.0, "bias": 0.6}
PINNED_DIGEST = "a1339255128a216910b4218011b03ab57f24a6198ddea225f01e9bad4b52f8f1"


def sample(docs: list[Doc], every: int) -> list[Doc]:
    """The documents whose key hashes to 0 modulo ``every`` (a fixed sample)."""
    return [d for d in docs if int(hashlib.sha1(d.key.encode()).hexdigest(), 16) % every == 0]


def test_a_small_retrain_gives_the_pinned_outputs(datasets_dir, private_cache):
    dirs = [datasets_dir / name for name in shipped_datasets("auto")]
    train = sample(documents(dirs, "train"), TRAIN_EVERY)
    test = sample(documents(dirs, "test"), TEST_EVERY)
    assert (len(train), len(test)) == (28, 14)
    model = fit_model("auto", train, None, show_progress=False, max_iter=MAX_ITER).predictor()
    assert {k: model.fit_info_[k] for k in PINNED_FIT} == PINNED_FIT
    extractor = build_extractor("auto", model)
    digest = hashlib.sha256()
    for doc in test:
        digest.update(doc.key.encode() + b"\0" + extractor.extract(doc.page).encode() + b"\0")
    assert digest.hexdigest() == PINNED_DIGEST
