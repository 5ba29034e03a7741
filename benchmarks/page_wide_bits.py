"""Choose ``auto``'s page-wide bit share on the training split only, out of fold.

    CORPUSCRAWL_CACHE=/tmp/cc-auto-cache .venv/bin/python benchmarks/page_wide_bits.py \
        [--shares 1,0.98,0.95,0.9,0.8,0.7] [--scope class|tag|all] [--work /tmp/page-wide] \
        [--link-headings] [--comment-links]

What: :func:`corpuscrawl.extract.learned.block_features.clear_page_wide` clears, at
prediction time, the class/id keyword bits (``--scope class``, what ``auto`` does; or the
ancestor-tag bits, or both) that at least a share of the page's blocks carry.  This
script scores each candidate share on the *train* part of the split (the test part is
never read), with the rows of every page predicted by a
block classifier that did not see the page: the shipped model's first stage
(:func:`corpuscrawl.learn.auto_trainer.unary_model`, same parameters, raw bits) fitted on two
of ``corpuscrawl train auto``'s three decoding folds and applied to the third, then
decoded as the shipped model decodes (λ 0 reads no pairwise model; its bias, the
fallback, the comment and related-content cuts).  Share "off" is the shipped
behaviour, so its figures are the out-of-fold baseline.

Scores per share: summed and per-page mean word-LCS F1, and lost articles
(:mod:`corpuscrawl.evaluation.lost`) against the classic extractors and the peers run
on the same training pages (the other learned extractors are left out: they were
trained on these pages).  The fitted fold models (skops) and every page's features and
comparison scores (``pages.npz``: numpy arrays and one JSON document, read with
``allow_pickle=False``) are kept under ``--work`` so that a re-run only predicts; a cache
this script cannot read (another format, a broken file) is rebuilt.

``--link-headings`` decodes with links taken for comment headings
(``comment_link_headings=True``; the default is
``sections.COMMENT_LINK_HEADINGS_DEFAULT``); ``--comment-links`` instead scores that
choice itself, with links as headings and without, at each share.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import skops.io as sio

from corpuscrawl.evaluation.datasets import datasets_root, fold_of
from corpuscrawl.evaluation.lost import lost_flags
from corpuscrawl.evaluation.methods import PEER_SUFFIX, run_method
from corpuscrawl.evaluation.metrics import Score, score, summarize
from corpuscrawl.evaluation.names import CLASSIC_EXTRACTORS, GOLD_DATASETS, PEERS
from corpuscrawl.evaluation.peers import available_peers
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.extract.learned.auto import AutoModel, decoded_labels
from corpuscrawl.extract.learned.block_features import (
    KEYWORD_BITS,
    MASK_COLUMNS,
    TAG_BITS,
    clear_page_wide,
)
from corpuscrawl.extract.learned.models import load_model, read_model_file
from corpuscrawl.extract.segment.cdom import Block
from corpuscrawl.learn.auto_trainer import (
    DECODING_FOLD_SEED,
    unary_model,
)
from corpuscrawl.learn.sequence_trainer import block_labels
from corpuscrawl.learn.trainset import BaseOutputs, documents

SHARES_DEFAULT = "1,0.98,0.95,0.9,0.8,0.7"
#: Which mask bits a candidate clears: all, the ancestor-tag bits or the class/id keyword bits
#: (the shipped :func:`clear_page_wide` clears the keyword bits).
SCOPES = {"all": slice(0, MASK_COLUMNS.stop - MASK_COLUMNS.start), "tag": TAG_BITS,
          "class": KEYWORD_BITS}
AUTO = "auto"


#: The page cache under ``--work``; its format's version is stored in it.
PAGES_CACHE = "pages.npz"
PAGES_FORMAT = 1


def save_pages(path: Path, data: dict) -> None:
    """Write :func:`collect`'s data with no pickle: the unary rows and block labels as
    two concatenated arrays with each page's row count, everything else (keys, gold texts,
    blocks, the other methods' scores) as one JSON document; written to a temporary file
    and renamed, so a crash leaves no half cache."""
    xs, ys = data["xs"], data["ys"]
    columns = next((x.shape[1] for x in xs if x.ndim == 2), 0)
    filled = [x for x in xs if len(x)]
    rows = np.vstack(filled) if filled else np.zeros((0, columns))
    labels = np.concatenate([np.asarray(y) for y in ys]) if ys else np.zeros(0, np.int8)
    meta = {"format": PAGES_FORMAT, "keys": data["keys"], "golds": data["golds"],
            "blocks": [[_block_record(b) for b in blocks] for blocks in data["blocks"]],
            "others": {name: [[s.tp, s.fp, s.fn, s.levenshtein] for s in scores]
                       for name, scores in data["others"].items()}}
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, rows=rows, labels=labels,
             counts=np.array([len(x) for x in xs], dtype=np.int64),
             label_counts=np.array([len(y) for y in ys], dtype=np.int64),
             meta=np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8))
    tmp.replace(path)


def load_pages(path: Path) -> dict | None:
    """:func:`save_pages`' data again, or None when there is no cache or it is not one this
    code wrote (another format or version, a broken file): the caller then rebuilds it."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as npz:
            meta = json.loads(npz["meta"].tobytes().decode("utf-8"))
            if meta.get("format") != PAGES_FORMAT:
                raise ValueError(f"format {meta.get('format')!r}")
            rows, labels = npz["rows"], npz["labels"]
            counts, label_counts = npz["counts"], npz["label_counts"]
        xs = _split(rows, counts)
        ys = _split(labels, label_counts)
        data = {"keys": meta["keys"], "xs": xs, "ys": ys, "golds": meta["golds"],
                "blocks": [[_block_of(r) for r in blocks] for blocks in meta["blocks"]],
                "others": {name: [Score(*s) for s in scores]
                           for name, scores in meta["others"].items()}}
        if not len(xs) == len(ys) == len(data["keys"]) == len(data["blocks"]) \
                == len(data["golds"]):
            raise ValueError("page counts disagree")
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as exc:
        print(f"{path}: not a page cache of this script ({exc}); rebuilding it",
              file=sys.stderr)
        return None
    return data


def _split(array: np.ndarray, counts: np.ndarray) -> list[np.ndarray]:
    """``array``'s rows cut into consecutive pieces of ``counts`` rows."""
    if int(counts.sum()) != len(array):
        raise ValueError("row counts disagree with the rows")
    ends = np.cumsum(counts)
    return [array[end - n:end] for n, end in zip(counts.tolist(), ends.tolist(), strict=True)]


def _block_record(block: Block) -> dict:
    record = dataclasses.asdict(block)
    record["gap_tags"] = sorted(block.gap_tags)
    return record


def _block_of(record: dict) -> Block:
    return Block(**{**record, "path": tuple(record["path"]),
                    "gap_tags": frozenset(record["gap_tags"])})


def collect(work: Path, model: AutoModel) -> dict:
    """Every training page's raw unary rows, block labels, blocks, gold and the other
    methods' scores (cached in ``work/pages.npz``, see :func:`save_pages`)."""
    path = work / PAGES_CACHE
    cached = load_pages(path)
    if cached is not None:
        return cached
    root = datasets_root()
    docs = documents([root / n for n in GOLD_DATASETS], "train")
    base = BaseOutputs(CLASSIC_EXTRACTORS)
    peers, notes = available_peers(PEERS)
    for note in notes:
        print(note, file=sys.stderr)
    data: dict = {"keys": [], "xs": [], "ys": [], "blocks": [], "golds": [], "others": {}}
    others = data["others"]
    t0 = time.monotonic()
    for n, doc in enumerate(docs, 1):
        inputs = model.page_inputs(doc.page)  # the shipped model's rows (raw bits)
        data["keys"].append(doc.key)
        data["xs"].append(inputs.unary.values)
        data["ys"].append(block_labels(doc, inputs.blocks, 0.5) if inputs.blocks
                          else np.zeros(0, dtype=np.int8))
        data["blocks"].append(inputs.blocks)
        data["golds"].append(doc.gold)
        for name in base.names:
            others.setdefault(name, []).append(score(base.get(doc, name), doc.gold,
                                                     with_levenshtein=False))
        url = doc.dataset.urls.get(doc.id, "")
        for peer in peers:
            text = run_method(peer.extract, doc.page.html, url)[0]
            others.setdefault(peer.name + PEER_SUFFIX, []).append(
                score(text, doc.gold, with_levenshtein=False))
        doc.release()
        if n % 200 == 0:
            print(f"{n}/{len(docs)} pages collected, {time.monotonic() - t0:.0f} s",
                  file=sys.stderr)
    save_pages(path, data)
    return data


def fold_models(data: dict, work: Path, shipped: AutoModel) -> tuple[list[int], list]:
    """The decoding folds of the pages and one compiled first stage per fold, fitted on the
    other folds' pages (cached with skops in ``work/fold<k>.skops``, loaded with the
    trusted-types check of :func:`~corpuscrawl.extract.learned.models.read_model_file`)."""
    keys, xs, ys = data["keys"], data["xs"], data["ys"]
    folds = [fold_of(k, shipped.decoding_folds, DECODING_FOLD_SEED) for k in keys]
    models = []
    for f in range(shipped.decoding_folds):
        path = work / f"fold{f}.skops"
        if path.is_file():
            model = read_model_file(path)
        else:
            train = [i for i in range(len(keys)) if folds[i] != f and len(ys[i])]
            t0 = time.monotonic()
            model = unary_model(shipped.max_iter, shipped.max_leaf_nodes,
                                shipped.learning_rate).fit(
                np.vstack([xs[i] for i in train]), np.concatenate([ys[i] for i in train]))
            print(f"fold {f}: first stage fitted on {len(train)} pages in "
                  f"{time.monotonic() - t0:.0f} s", file=sys.stderr)
            sio.dump(model, path)
        models.append(model)
    return folds, models


def probabilities(data: dict, folds: list[int], models: list, share: float | None,
                  base_p: list | None = None, scope: str = "all") -> list:
    """Every page's block probabilities with the bits cleared at ``share``, each page
    predicted by its fold's model; the pages of a fold go in one call, and pages where
    nothing is cleared reuse ``base_p``."""
    rows: dict[int, list[tuple[int, np.ndarray]]] = {}
    probs: list = [np.zeros(0)] * len(data["xs"])
    for i, x in enumerate(data["xs"]):
        if not len(x):
            continue
        bits = x[:, MASK_COLUMNS]
        cleared = clear_page_wide(bits, share, SCOPES[scope])
        if cleared is bits and base_p is not None:
            probs[i] = base_p[i]
            continue
        x2 = x.copy()
        x2[:, MASK_COLUMNS] = cleared
        rows.setdefault(folds[i], []).append((i, x2))
    for f, pages in rows.items():
        p = models[f].predict_proba(np.vstack([x for _, x in pages]))[:, 1]
        start = 0
        for i, x in pages:
            probs[i] = p[start:start + len(x)]
            start += len(x)
    return probs


def decode_all(data: dict, probs: list, model: AutoModel, base: list | None = None,
               base_p: list | None = None, link_headings: bool | None = None) -> list[Score]:
    """Every page's score, decoded from ``probs`` as ``model`` decodes (pages whose
    probabilities are ``base_p``'s keep their ``base`` score); ``link_headings``: whether
    the comment cut may take a link for a heading (None: as the model says)."""
    links = model.comment_link_headings if link_headings is None else link_headings
    scores = []
    for i, (p, blocks, gold) in enumerate(zip(probs, data["blocks"], data["golds"],
                                              strict=True)):
        if base is not None and base_p is not None and p is base_p[i]:
            scores.append(base[i])
            continue
        if not blocks:
            scores.append(score("", gold, with_levenshtein=False))
            continue
        pair_p = np.full((max(len(p) - 1, 0), 4), 0.25)
        labels = decoded_labels(blocks, p, pair_p, model.lambda_, model.bias_, model.fallback,
                                model.comment_cut, model.related_cut, links)
        text = "\n".join(b.text for b, lab in zip(blocks, labels, strict=True) if lab)
        scores.append(score(text, gold, with_levenshtein=False))
    return scores


def comment_links(data: dict, folds: list[int], models: list, model: AutoModel, base_p: list,
                  base_scores: list[Score], shares: list[float | None], scope: str) -> list[str]:
    """Markdown rows: the comment cut with links as headings (shipped) and without, with the
    raw bits and with the keyword bits cleared at each share."""
    rows: list[tuple[str, ...]] = []
    details = []
    base_lost = lost_flags({AUTO: base_scores, **data["others"]})[AUTO]
    for share in shares:
        probs = base_p if share is None else probabilities(data, folds, models, share, base_p,
                                                           scope)
        for links in (True, False):
            scores = decode_all(data, probs, model, link_headings=links)
            lost = lost_flags({AUTO: scores, **data["others"]})[AUTO]
            s = summarize(scores)
            changed = [i for i in range(len(scores))
                       if abs(scores[i].f1 - base_scores[i].f1) > 1e-9]
            better = sum(scores[i].f1 > base_scores[i].f1 for i in changed)
            rows.append(("off" if share is None else str(share), "yes" if links else "no",
                         f"{s.f1:.4f}", f"{s.mean_f1:.4f}", str(sum(lost)), str(len(changed)),
                         str(better), str(len(changed) - better)))
            if not links:
                moves = sorted(changed, key=lambda i: scores[i].f1 - base_scores[i].f1)
                details.append(
                    f"- share {share}, links no heading: recovered "
                    + (", ".join(data["keys"][i] for i in range(len(lost))
                                 if base_lost[i] and not lost[i]) or "none")
                    + "; newly lost "
                    + (", ".join(data["keys"][i] for i in range(len(lost))
                                 if lost[i] and not base_lost[i]) or "none")
                    + "; largest changes " + ", ".join(
                        f"{data['keys'][i]} {base_scores[i].f1:.2f}→{scores[i].f1:.2f}"
                        for i in [*moves[:5], *moves[-5:]]))
    return [*markdown_table(["page-wide share", "links are headings", "summed F1", "mean F1",
                             "lost articles", "pages changed", "better", "worse"], rows),
            "", *details]


def main(argv: list[str] | None = None) -> int:
    """Score every candidate share and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shares", default=SHARES_DEFAULT)
    parser.add_argument("--work", default="/tmp/page-wide")
    parser.add_argument("--comment-links", action="store_true",
                        help="instead: score the comment cut with and without links as "
                             "headings (raw bits, and keyword bits cleared at each share)")
    parser.add_argument("--link-headings", action="store_true",
                        help="decode with links taken for comment headings "
                             "(comment_link_headings=True)")
    parser.add_argument("--scope", default="class", choices=sorted(SCOPES),
                        help="clear all page-wide mask bits, or the tag or class bits only")
    args = parser.parse_args(argv)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    model = load_model("auto", AutoModel)
    if args.link_headings:
        model = copy.copy(model).set_params(comment_link_headings=True)
    if model.lambda_ != 0:
        parser.error("the shipped model decodes with a pairwise term; this script fits the "
                     "first stage only")
    data = collect(work, model)
    folds, models = fold_models(data, work, model)
    base_p = probabilities(data, folds, models, None)
    base_scores = decode_all(data, base_p, model)
    if args.comment_links:
        print("\n".join(comment_links(data, folds, models, model, base_p, base_scores,
                                      [None, *(float(s) for s in args.shares.split(",") if s)],
                                      args.scope)))
        return 0
    shares: list[float | None] = [None, *(float(s) for s in args.shares.split(",") if s)]
    rows: list[tuple[str, ...]] = []
    details = []
    base_lost = lost_flags({AUTO: base_scores, **data["others"]})[AUTO]
    for share in shares:
        scores = base_scores if share is None else decode_all(
            data, probabilities(data, folds, models, share, base_p, args.scope), model, base_scores,
            base_p)
        lost = lost_flags({AUTO: scores, **data["others"]})[AUTO]
        s = summarize(scores)
        changed = [i for i in range(len(scores)) if abs(scores[i].f1 - base_scores[i].f1) > 1e-9]
        better = sum(scores[i].f1 > base_scores[i].f1 for i in changed)
        recovered = [data["keys"][i] for i in range(len(lost)) if base_lost[i] and not lost[i]]
        newly = [data["keys"][i] for i in range(len(lost)) if lost[i] and not base_lost[i]]
        rows.append(("off" if share is None else str(share), f"{s.f1:.4f}", f"{s.mean_f1:.4f}",
                     str(sum(lost)), str(len(changed)), str(better), str(len(changed) - better),
                     str(len(recovered)), str(len(newly))))
        if share is not None:
            moves = sorted(changed, key=lambda i: scores[i].f1 - base_scores[i].f1)
            shown = [*moves[:5], *moves[-5:]] if len(moves) > 10 else moves
            details.append(f"- share {share}: recovered {', '.join(recovered) or 'none'}; "
                           f"newly lost {', '.join(newly) or 'none'}; largest changes "
                           + ", ".join(f"{data['keys'][i]} {base_scores[i].f1:.2f}→"
                                       f"{scores[i].f1:.2f}" for i in shown))
    lost_keys = [data["keys"][i] for i, f in enumerate(base_lost) if f]
    print(f"scope: {args.scope} bits; {len(data['keys'])} training pages; compared with: {', '.join(data['others'])}")
    print("\n".join(markdown_table(["share", "summed F1", "mean F1", "lost articles",
                                    "pages changed", "better", "worse", "recovered",
                                    "newly lost"], rows)))
    print()
    print(f"- off: lost {', '.join(lost_keys)}")
    print("\n".join(details))
    return 0


if __name__ == "__main__":
    sys.exit(main())
