"""Train a learned extractor by name, save it under ``models/``, score it, write its card.

Used by ``corpuscrawl train``.  Every model trains on the train part of the
project's split (:func:`corpuscrawl.evaluation.datasets.split`) of the given
gold-text datasets and is scored on their test part, which no model ever
trains or tunes on; the scores go on the card ``models/<name>.md``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tqdm import tqdm

from corpuscrawl.evaluation.datasets import SPLIT_SEED_DEFAULT, TEST_FRACTION_DEFAULT
from corpuscrawl.evaluation.metrics import score, summarize
from corpuscrawl.evaluation.names import GOLD_DATASETS, LEARNED_EXTRACTORS
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import Extractor
from corpuscrawl.extract.learned.page_check import ROBUST_DEFAULT
from corpuscrawl.learn.model_files import ModelCard, save_model, write_card
from corpuscrawl.learn.trainset import (
    THESIS_BASE_DEFAULT,
    BaseOutputs,
    Doc,
    available_base,
    documents,
)

#: Models ``corpuscrawl train all`` trains, in this order.
SHIPPED_MODELS = LEARNED_EXTRACTORS
#: Gold-text datasets the shipped models are trained on (under the datasets root), in the
#: order their documents were read when the shipped models were trained.
SHIPPED_DATASETS = ("scrapinghub", *(d for d in GOLD_DATASETS if d != "scrapinghub"))

DESCRIPTIONS = {
    "hybrid-a": "Document-level selector (Bakić's thesis §4.2.2): an SVM on the page's 37 features "
                "picks the base extractor to run.",
    "segment-svm": "Segment classifier (Bakić's thesis §4.3): an SVM on each div/table segment's 37 "
                   "features keeps or drops the segment.",
    "hybrid-b": "Segment classifier with agreement features (Bakić's thesis §4.2.3): 37 features + "
                "LCS coverage of the segment by each base extractor's output.",
    "sequence": "Web2Text-style block sequence labelling (Vogels, Ganea & Eickhoff 2018): MLP unary and pairwise "
                "potentials over collapsed-DOM blocks, Viterbi decoding.",
    "auto": "corpuscrawl's learned extractor: gradient-boosted block classifier over block, "
            "context and headline features (optionally base-extractor votes and a second "
            "stage over the first stage's probabilities of the block's neighbours and "
            "regions), smoothed by pairwise potentials with Viterbi (λ and bias chosen on "
            "out-of-fold decoding of the training pages), with a per-page fallback, a "
            "comment cut, a related-content cut and a page-level check that replaces a lost "
            "article by the robust extractors' consensus (thresholds learned on the "
            "out-of-fold decoding).",
}


def progress_bar(desc: str, enabled: bool = True) -> Callable[[Iterable[Doc]], Iterable[Doc]]:
    """A function wrapping an iterable of documents in a tqdm progress bar."""
    def wrap(docs: Iterable[Doc]) -> Iterable[Doc]:
        seq = list(docs)
        return tqdm(seq, desc=desc, unit="doc", disable=not enabled, mininterval=2)
    return wrap


def fit_model(name: str, docs: Sequence[Doc], base_names: Sequence[str] | None,
              show_progress: bool = True, **params: Any) -> dict[str, Any]:
    """Fit model ``name`` on training documents; returns its state dict.

    A model is a function of its training set alone, whoever trains it (the
    ``train`` command, a cross-validation fold, a test):

    * the documents are taken in the order of their keys, so ``--data A,B`` and
      ``--data B,A`` train the same model (row samples — the pairwise rows, the
      tree models' binning sample, the MLP's batches — are drawn by position);
    * fitting runs with one BLAS/OpenMP thread: the MLP's matrix products sum in
      an order that depends on the thread count, and training amplifies the
      last-bit differences (``sequence`` fitted with two threads stopped after
      46 epochs instead of 38 and scored 0.9155 instead of 0.9262 on the test
      split); the boosted trees come out the same either way.
    """
    from threadpoolctl import threadpool_limits

    docs = sorted(docs, key=lambda d: d.key)
    with threadpool_limits(limits=1):
        return _fit(name, docs, base_names, show_progress, **params)


def _fit(name: str, docs: Sequence[Doc], base_names: Sequence[str] | None,
         show_progress: bool, **params: Any) -> dict[str, Any]:
    from corpuscrawl.learn import auto, hybrid, sequence

    bar = progress_bar(f"{name}: features", show_progress)
    if name == "hybrid-a":
        base = BaseOutputs(base_names or available_base(THESIS_BASE_DEFAULT))
        return hybrid.fit_hybrid_a(docs, base, progress=bar, **params)
    if name == "hybrid-b":
        base = BaseOutputs(base_names or available_base(THESIS_BASE_DEFAULT))
        return hybrid.fit_segment_svm(docs, base, progress=bar, **params)
    if name == "segment-svm":
        return hybrid.fit_segment_svm(docs, None, progress=bar, **params)
    if name == "sequence":
        return sequence.fit_sequence(docs, progress=bar, **params)
    if name == "auto":
        votes = BaseOutputs(base_names or available_base(auto.VOTES_DEFAULT))
        if auto.PAGE_CHECK_DEFAULT:
            params.setdefault("check", BaseOutputs(available_base(ROBUST_DEFAULT)))
        return auto.fit_auto(docs, votes, progress=bar, **params)
    raise ValueError(f"unknown model {name!r}; known: {', '.join(SHIPPED_MODELS)}")


def build_extractor(name: str, state: dict[str, Any]) -> Extractor:
    """The extractor of model ``name`` (its registry entry) built around an in-memory state."""
    return get_extractor(name, state=state)


def score_rows(extractor: Extractor, docs: Sequence[Doc], show_progress: bool = True,
               desc: str = "test split") -> list[tuple[str, int, float, float, float, float]]:
    """Per-dataset and pooled (P, R, F1 summed; mean F1) scores of ``extractor`` on ``docs``."""
    by_dataset: dict[str, list] = {}
    for doc in progress_bar(desc, show_progress)(docs):
        try:
            text = extractor.extract(doc.page)
        except Exception:  # scored as an empty answer, as a crawl would keep going
            text = ""
        by_dataset.setdefault(doc.dataset.name, []).append(
            score(text, doc.gold, with_levenshtein=False))
        doc.release()
    rows = []
    pooled = []
    for ds, scores in sorted(by_dataset.items()):
        s = summarize(scores)
        pooled.extend(scores)
        rows.append((ds, s.documents, s.precision, s.recall, s.f1, s.mean_f1))
    if len(by_dataset) > 1:
        s = summarize(pooled)
        rows.append(("pooled", s.documents, s.precision, s.recall, s.f1, s.mean_f1))
    return rows


def train(name: str, dataset_dirs: Sequence[str | Path], base_names: Sequence[str] | None = None,
          models_dir: str | Path | None = None, evaluate: bool = True,
          show_progress: bool = True, **params: Any) -> Path:
    """Train, save and score model ``name``; returns the model file path."""
    started = time.monotonic()
    train_docs = documents(dataset_dirs, "train")
    if not train_docs:
        raise ValueError("no gold-text documents in the train split of "
                         + ", ".join(str(d) for d in dataset_dirs))
    state = fit_model(name, train_docs, base_names, show_progress, **params)
    trained_at = datetime.now(UTC).isoformat(timespec="seconds")
    state["meta"] = {"trained_at": trained_at, "data": [str(d) for d in dataset_dirs],
                     "train_documents": len(train_docs)}
    path = save_model(name, state, models_dir)
    seconds = time.monotonic() - started
    rows = []
    if evaluate:
        test_docs = documents(dataset_dirs, "test")
        rows = score_rows(build_extractor(name, state), test_docs, show_progress,
                          f"{name}: test split")
    counts: dict[str, int] = {}
    for doc in train_docs:
        counts[doc.dataset.name] = counts.get(doc.dataset.name, 0) + 1
    hyper = dict(state.get("params", {}))
    if state.get("base"):
        hyper["base extractors"] = state["base"]
    if state.get("votes"):
        hyper["vote extractors"] = state["votes"]
    notes = [f"label counts on the training data: {state.get('label_counts')}"]
    card = ModelCard(name=name, kind=state["kind"], description=DESCRIPTIONS.get(name, ""),
                     data=[Path(d).name for d in dataset_dirs],
                     split=f"corpuscrawl.evaluation.datasets.split (by document id, "
                           f"test_fraction={TEST_FRACTION_DEFAULT}, seed={SPLIT_SEED_DEFAULT!r});"
                           " trained on the train part, scored on the test part",
                     trained_at=trained_at, hyperparameters=hyper, train_counts=counts,
                     test_scores=rows, notes=notes)
    write_card(card, models_dir, seconds)
    return path


__all__ = ["SHIPPED_DATASETS", "SHIPPED_MODELS", "build_extractor", "fit_model", "score_rows",
           "train"]
