"""How many of ``auto``'s boosting iterations to keep, chosen on the training split only.

    CORPUSCRAWL_DATASETS=../shared/datasets .venv/bin/python benchmarks/auto_truncation.py \
        [--iterations 100,150,...,400] [--write-model K=FILE ...] [--held-out FILE.npz]
    ... benchmarks/auto_truncation.py --test K

A gradient-boosted model cut to its first k iterations is the model early stopping at k
would have kept (the trees are fitted in sequence, deterministically).  This refits the
shipped model's first stage (same parameters) in the decoding folds ``auto``'s training
uses (``corpuscrawl.learn.auto_trainer``: three folds of the training split by a hash of the page
key), cuts every fold's model at each k, and decodes every training page from the fold
that did not train on it with the shipped λ and bias.  Printed: pooled word-LCS F1 (and
per-page mean F1) of that out-of-fold decoding for each k, its lost articles among the
training pages (F1 < 0.5 where one of the classic extractors reaches 0.8; the peers are
not run here), and the tree walk's time per page.  No test page is read.
``--write-model K=FILE`` saves the shipped model cut at k (for ``benchmarks/learned.py
--auto-model``); ``--held-out FILE.npz`` keeps the held-out probabilities (and reuses them
when the file exists: the fold fits take minutes).

``--test K``, once K is chosen: the shipped model and the model cut at K (both as
``get_extractor`` gives ``auto``: normalised output) beside every method of
``benchmarks/learned.py`` on the test split: pooled and mean F1, lost articles (against all
of them), and the 95 % stratified-bootstrap interval of the pooled difference
(``corpuscrawl.evaluation.sampling``, as ``learned.py``'s lead section).
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from corpuscrawl.evaluation.datasets import datasets_root
from corpuscrawl.evaluation.lost import lost_flags
from corpuscrawl.evaluation.methods import build_methods
from corpuscrawl.evaluation.metrics import score, summarize
from corpuscrawl.evaluation.names import (
    CLASSIC_EXTRACTORS,
    GOLD_DATASETS,
    LEARNED_EXTRACTORS,
    PEERS,
)
from corpuscrawl.evaluation.sampling import bootstrap_difference
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract.base import normalized
from corpuscrawl.extract.learned.auto import AutoExtractor, AutoModel, decoded_labels
from corpuscrawl.extract.learned.forest import compile_forest
from corpuscrawl.html.page import Page
from corpuscrawl.learn.auto_trainer import DECODING_FOLD_SEED, unary_model
from corpuscrawl.learn.folds import cross_fit
from corpuscrawl.learn.model_files import save_model
from corpuscrawl.learn.sequence_trainer import collect
from corpuscrawl.learn.trainset import BaseOutputs, documents


def truncated(model: Any, k: int) -> Any:
    """``model`` (a fitted HistGradientBoostingClassifier) with its first ``k`` iterations."""
    cut = copy.copy(model)
    cut._predictors = model._predictors[:k]
    cut.max_iter = len(cut._predictors)  # what a fit with early stopping at k would record
    return cut


def cut_model(model: AutoModel, k: int) -> AutoModel:
    """A copy of the fitted ``model`` whose first stage keeps its first ``k`` iterations."""
    cut = copy.copy(model)
    cut.__dict__.pop("_runtime", None)  # compiled from the full forest: rebuilt on use
    cut.unary_ = truncated(model.unary_, k)
    cut.max_iter = k
    return cut


def test_split(model: AutoModel, k: int) -> int:
    """The shipped model and its cut at ``k`` iterations on the test split, beside the
    other methods (see the module docstring)."""
    label = f"auto-{k}"
    methods, notes = build_methods([*LEARNED_EXTRACTORS, *CLASSIC_EXTRACTORS, *PEERS], PEERS)
    cut = normalized(AutoExtractor(estimator=cut_model(model, k)))
    methods[label] = lambda html, url: cut.extract(Page.from_html(html, url))
    scores: dict[str, list[Any]] = {m: [] for m in methods}
    strata = []
    root = datasets_root()
    for ds in GOLD_DATASETS:
        docs = documents([root / ds], "test")
        for doc in docs:
            html, url = doc.dataset.read_html(doc.id), doc.dataset.urls.get(doc.id, "")
            for name, run in methods.items():
                try:
                    text = run(html, url)
                except Exception:  # a failing method scores an empty text, as in learned.py
                    text = ""
                scores[name].append(score(text, doc.gold, with_levenshtein=False))
            strata.append(ds)
    lost = lost_flags(scores)
    print(f"{len(strata)} test pages; {'; '.join(notes) or 'all peers ran'}")
    rows: list[tuple[str, ...]] = []
    for name in ("auto", label):
        summary = summarize(scores[name])
        rows.append((name, f"{summary.f1:.4f}", f"{summary.mean_f1:.4f}", str(sum(lost[name]))))
    print("\n".join(markdown_table(["method", "pooled F1", "mean F1", "lost articles"], rows)))
    d = bootstrap_difference(scores[label], scores["auto"], strata)
    print(f"pooled F1 {label} minus auto: {d.observed * 100:+.2f} points, 95 % interval "
          f"{d.low * 100:+.2f} to {d.high * 100:+.2f} (stratified bootstrap, 2 000 resamples)")
    changed = [i for i, (a, b) in enumerate(zip(lost["auto"], lost[label], strict=True)) if a != b]
    print(f"pages lost by one of the two only: {len(changed)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Print the out-of-fold F1 for each number of iterations."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", default="50,100,150,200,250,300,350,400")
    parser.add_argument("--write-model", action="append", default=[], metavar="K=FILE")
    parser.add_argument("--held-out", default="", metavar="FILE.npz")
    parser.add_argument("--test", type=int, default=0, metavar="K")
    args = parser.parse_args(argv)
    ks = [int(k) for k in args.iterations.split(",")]
    model = AutoExtractor().estimator
    if args.test:
        return test_split(model, args.test)
    for spec in args.write_model:
        k, _, path = spec.partition("=")
        out = Path(path)
        written = save_model(out.stem, cut_model(model, int(k)), out.parent)
        print(f"wrote the shipped model cut at {k} iterations to {written}")
    root = datasets_root()
    docs = documents([root / ds for ds in GOLD_DATASETS], "train")
    blocks: list[list[Any]] = []
    started = time.perf_counter()
    rows = collect(docs, None, model.threshold, pair_columns=model.pair_columns_,
                   blocks_out=blocks, title=model.title_features,
                   relative_masks=model.relative_masks)
    xs, ys = rows.xs, rows.ys
    golds = [d.gold for d in docs]
    print(f"{len(docs)} training pages, {sum(len(y) for y in ys)} blocks, features in "
          f"{time.perf_counter() - started:.0f} s", flush=True)

    def fit(train: list[int]) -> Any:
        t0 = time.perf_counter()
        fitted = unary_model(model.max_iter, model.max_leaf_nodes, model.learning_rate).fit(
            np.vstack([xs[i] for i in train]), np.concatenate([ys[i] for i in train]))
        print(f"fold model on {len(train)} pages in {time.perf_counter() - t0:.0f} s",
              flush=True)
        return {k: compile_forest(truncated(fitted, k)) for k in ks}

    walk_seconds = dict.fromkeys(ks, 0.0)

    def predict(models: dict[int, Any], i: int) -> dict[int, np.ndarray]:
        out = {}
        for k, forest in models.items():
            t0 = time.process_time()
            out[k] = forest.predict_proba(xs[i])[:, 1]
            walk_seconds[k] += time.process_time() - t0
        return out

    saved = Path(args.held_out) if args.held_out else None
    if saved is not None and saved.is_file():
        arrays = np.load(saved)
        held_out = [{k: arrays[f"{i}_{k}"] for k in ks} if f"{i}_{ks[0]}" in arrays else None
                    for i in range(len(docs))]
    else:
        held_out = cross_fit([d.key for d in docs], [bool(len(y)) for y in ys],
                             model.decoding_folds, DECODING_FOLD_SEED, fit, predict)
        if saved is not None:
            np.savez_compressed(saved, **{f"{i}_{k}": p[k] for i, p in enumerate(held_out)
                                          if p is not None for k in ks})
    classic = BaseOutputs(CLASSIC_EXTRACTORS, use_cache=False)
    others = {name: [] for name in CLASSIC_EXTRACTORS}
    for doc, gold in zip(docs, golds, strict=True):
        for name, text in zip(CLASSIC_EXTRACTORS, classic.all(doc), strict=True):
            others[name].append(score(text, gold, with_levenshtein=False))
        doc.release()
    print(f"λ {model.lambda_}, bias {model.bias_} (the shipped model's)")
    header = ["iterations", "out-of-fold F1 (pooled)", "mean F1", "lost articles",
              "trees ms/page"]
    print("\n".join(markdown_table(header, [])))
    for k in ks:
        scores = []
        for page_blocks, gold, probs in zip(blocks, golds, held_out, strict=True):
            text = ""
            if probs is not None:
                p = probs[k]
                labels = decoded_labels(page_blocks, p, np.full((max(len(p) - 1, 0), 4), 0.25),
                                        model.lambda_, model.bias_)
                text = "\n".join(b.text for b, lab in zip(page_blocks, labels, strict=True)
                                 if lab)
            scores.append(score(text, gold, with_levenshtein=False))
        summary = summarize(scores)
        lost = lost_flags({"auto": scores, **others})["auto"]
        row = (str(k), f"{summary.f1:.4f}", f"{summary.mean_f1:.4f}", str(sum(lost)),
               f"{1000 * walk_seconds[k] / len(docs):.2f}")
        print(markdown_table(header, [row])[-1], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
