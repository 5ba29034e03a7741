"""Evidence for classifying lost articles: per lost page, what the gold holds and what a
method kept.

    .venv/bin/python benchmarks/learned.py --snippets '' --dump /tmp/test.jsonl
    .venv/bin/python benchmarks/lost_causes.py /tmp/test.jsonl \
        [--methods "auto,sequence,readability-lxml (peer),trafilatura (peer)"] [--share 0.98]

``learned.py --dump`` writes every method's [tp, fp, fn] per test page; the lost pages
(:mod:`corpuscrawl.evaluation.lost`) are found among all the methods of that run.  For
each lost page of each of ``--methods`` this prints, to be read by a person deciding
the cause:

- its scores (F1, P, R, gold words, words missed and added) and the best other method;
- the dataset's own notes on the gold (``gold_had_comments``,
  ``gold_tokens_in_page_text`` of ``manifest.jsonl``);
- where the gold sits in the page: the page's collapsed-DOM blocks are labelled by an
  alignment with the gold (:func:`corpuscrawl.learn.sequence_trainer.block_labels`), and the
  gold words in blocks under a class/id with the "comment" keyword (unless every block
  has it) are counted, with how many of them the method missed;
- for ``auto``: the block probabilities of the gold blocks, the best block of the
  page, the tag/class bits nearly every block carries, and the gold blocks'
  probabilities once those bits are cleared at ``--share``;
- the first and last gold lines and the method's first kept lines;
- the cause its rules propose, for a person to check: (b) a precision failure when the
  method kept at least 80 % of the gold, (a) reader comments when most of what it missed
  sits in comment-keyword blocks, else (c) or (d), to be decided by reading the page.

``--difference A,B`` compares two methods of the dump instead (e.g. ``auto`` with and
without an option): summed F1 difference with its stratified bootstrap interval, mean
F1, the pages that changed and the lost articles of each.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from corpuscrawl.evaluation.datasets import Dataset, datasets_root
from corpuscrawl.evaluation.lost import lost_flags
from corpuscrawl.evaluation.methods import build_methods
from corpuscrawl.evaluation.metrics import Score, summarize
from corpuscrawl.evaluation.names import PEERS
from corpuscrawl.evaluation.sampling import bootstrap_difference, influential_pages
from corpuscrawl.extract.learned.auto import AutoModel
from corpuscrawl.extract.learned.block_features import (
    BLOCK_FEATURE_NAMES,
    MASK_COLUMNS,
    clear_page_wide,
    vote_matrix,
)
from corpuscrawl.extract.learned.models import load_model
from corpuscrawl.learn.sequence_trainer import block_labels
from corpuscrawl.learn.trainset import Doc

METHODS_DEFAULT = "auto,sequence,readability-lxml (peer),trafilatura (peer)"
#: Rule (b): a page the method lost though it missed at most this share of the gold words
#: (it was lost by what it added: a precision failure).
PRECISION_FAILURE_RECALL = 0.8
#: Rule (a): at least this share of the missed gold words sit in comment-keyword blocks.
COMMENT_MISSED_SHARE = 0.5
#: A bit on at least this share of the page's blocks is reported as page-wide.
PAGE_WIDE_REPORTED = 0.9
_MASK_NAMES = BLOCK_FEATURE_NAMES[MASK_COLUMNS]
_COMMENT = _MASK_NAMES.index("class_comment")


def load_dump(path: Path) -> tuple[list[str], dict[str, list[Score]]]:
    """Page keys and every method's scores from a ``learned.py --dump`` file."""
    keys: list[str] = []
    scores: dict[str, list[Score]] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            keys.append(row.pop("doc"))
            for m, (tp, fp, fn) in row.items():
                scores.setdefault(m, []).append(Score(tp=tp, fp=fp, fn=fn))
    return keys, scores


def _clip(text: str, n: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def evidence(doc: Doc, method: str, text: str, recall: float, auto: AutoModel | None,
             share: float) -> list[str]:
    """The evidence lines of one lost page of ``method`` whose output is ``text`` (with
    ``recall`` on it), with the cause the rules propose: (b) when the method missed little
    of the gold, (a) when most of what it missed sits in comment-keyword blocks."""
    manifest = {}
    path = doc.dataset.path / "manifest.jsonl"
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if str(rec.get("id")) == doc.id:
                manifest = rec
                break
    model = auto if auto is not None else load_model("auto", AutoModel)
    inputs = model.page_inputs(doc.page)  # the shipped model's rows (its page-wide setting)
    blocks = inputs.blocks
    out = [f"  manifest: gold_had_comments={manifest.get('gold_had_comments', '-')}, "
           f"gold_tokens_in_page_text={manifest.get('gold_tokens_in_page_text', '-')}"]
    if not blocks:
        return [*out, "  no blocks", "  proposed cause: ? (c or d: read the page)"]
    labels = block_labels(doc, blocks, 0.5).astype(bool)
    words = np.array([b.words for b in blocks], dtype=float)
    rows = inputs.unary.values
    bits = rows[:, MASK_COLUMNS]
    wide = bits.mean(axis=0) >= PAGE_WIDE_REPORTED
    kept_share = vote_matrix(blocks, [text])[:, 0] if text.strip() else np.zeros(len(blocks))
    missed = words * labels * (1 - kept_share)
    gold_block_words = float((words * labels).sum())
    comment = bits[:, _COMMENT] > 0
    if wide[_COMMENT]:
        out.append("  comment keyword: page-wide (every block carries it)")
        proposed = "? (c or d: read the page)"
    else:
        in_comments = float((missed * comment).sum())
        proposed = ("a (missed words are in comment blocks)"
                    if missed.sum() and in_comments >= COMMENT_MISSED_SHARE * missed.sum()
                    else "? (c or d: read the page)")
        out.append(f"  gold words in comment-keyword blocks: {(words * labels * comment).sum():.0f}"
                   f" of {gold_block_words:.0f} gold-block words; missed there "
                   f"{(missed * comment).sum():.0f} of {missed.sum():.0f} missed")
    out.append(f"  blocks: {len(blocks)}, gold-labelled {int(labels.sum())}; page-wide bits: "
               + (", ".join(n for n, w in zip(_MASK_NAMES, wide, strict=True) if w) or "none"))
    if recall >= PRECISION_FAILURE_RECALL:
        proposed = "b (precision failure: little of the gold missed)"
    out.append(f"  proposed cause (rules; a person checks it): {proposed}")
    if auto is not None and method == "auto":
        unary = auto.compiled_potentials.unary
        p = unary.predict_proba(rows)[:, 1]
        x2 = rows.copy()
        x2[:, MASK_COLUMNS] = clear_page_wide(bits, share)
        p2 = unary.predict_proba(x2)[:, 1]
        if labels.any():
            g, g2 = p[labels], p2[labels]
            w = words[labels]
            out.append(f"  auto p of gold blocks: max {g.max():.2f}, median {np.median(g):.2f}, "
                       f"word-weighted {np.average(g, weights=w):.2f}; best block of page "
                       f"{p.max():.2f}; non-gold blocks ≥ 0.5: {int((p[~labels] >= 0.5).sum())}")
            out.append(f"  bits cleared at share {share}: gold blocks median {np.median(g2):.2f}"
                       f", word-weighted {np.average(g2, weights=w):.2f}")
    gold_lines = [ln for ln in doc.gold.splitlines() if ln.strip()]
    kept_lines = [ln for ln in text.splitlines() if ln.strip()]
    if gold_lines:
        out.append(f"  gold first: «{_clip(gold_lines[0])}»")
        out.append(f"  gold last:  «{_clip(gold_lines[-1])}»")
    out.append(f"  kept ({len(text.split())} words) first: «{_clip(kept_lines[0]) if kept_lines else ''}»"
               + (f" / «{_clip(kept_lines[1])}»" if len(kept_lines) > 1 else ""))
    return out


def difference(keys: list[str], scores: dict[str, list[Score]], flags: dict[str, list[bool]],
               a: str, b: str) -> list[str]:
    """Lines comparing methods ``a`` and ``b`` on the dump's pages (see ``--difference``)."""
    sa, sb = scores[a], scores[b]
    strata = [k.split("/", 1)[0] for k in keys]
    interval = bootstrap_difference(sa, sb, strata)
    changed = [i for i in range(len(keys)) if (sa[i].tp, sa[i].fp, sa[i].fn)
               != (sb[i].tp, sb[i].fp, sb[i].fn)]
    better = [i for i in changed if sa[i].f1 > sb[i].f1]
    out = [f"summed F1 {summarize(sa).f1:.4f} vs {summarize(sb).f1:.4f}: "
           f"{interval.observed * 100:+.2f} points (95 % stratified bootstrap "
           f"{interval.low * 100:+.2f} to {interval.high * 100:+.2f}, {len(keys)} pages); "
           f"mean F1 {summarize(sa).mean_f1:.4f} vs {summarize(sb).mean_f1:.4f}",
           f"pages changed {len(changed)}: {len(better)} better, {len(changed) - len(better)} "
           f"worse; most moving: {influential_pages(sa, sb, keys, 5)}",
           f"lost articles {sum(flags[a])} vs {sum(flags[b])}; only {a}: "
           + (", ".join(keys[i] for i in range(len(keys)) if flags[a][i] and not flags[b][i])
              or "none")
           + f"; only {b}: "
           + (", ".join(keys[i] for i in range(len(keys)) if flags[b][i] and not flags[a][i])
              or "none")]
    out += [f"- `{keys[i]}` {sb[i].f1:.2f} → {sa[i].f1:.2f}" for i in
            sorted(changed, key=lambda i: sa[i].f1 - sb[i].f1)]
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the evidence of every lost page of the chosen methods."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", help="a benchmarks/learned.py --dump file")
    parser.add_argument("--methods", default=METHODS_DEFAULT)
    parser.add_argument("--difference", default="", metavar="A,B",
                        help="instead: compare methods A and B of the dump page by page (summed "
                             "F1 difference with its stratified bootstrap interval, mean F1, "
                             "pages changed, lost articles)")
    parser.add_argument("--share", type=float, default=0.98,
                        help="share at which auto's page-wide bits are cleared for comparison")
    args = parser.parse_args(argv)
    keys, scores = load_dump(Path(args.dump))
    flags = lost_flags(scores)
    if args.difference:
        a, _, b = args.difference.partition(",")
        for m in (a, b):
            if m not in scores:
                parser.error(f"no method {m!r} in the dump; it has {', '.join(scores)}")
        print("\n".join(difference(keys, scores, flags, a, b)))
        return 0
    wanted = [m for m in args.methods.split(",") if m]
    methods, _ = build_methods([m.removesuffix(" (peer)") for m in wanted], PEERS)
    auto = load_model("auto", AutoModel) if "auto" in wanted else None
    root = datasets_root()
    datasets: dict[str, Dataset] = {}
    for m in wanted:
        pages = [i for i, f in enumerate(flags.get(m, [])) if f]
        print(f"## {m}: {len(pages)} lost pages\n")
        for i in pages:
            ds_name, doc_id = keys[i].split("/", 1)
            ds = datasets.setdefault(ds_name, Dataset(root / ds_name))
            doc = Doc(ds, doc_id)
            s = scores[m][i]
            best = max((x for x in scores if x != m), key=lambda x: scores[x][i].f1)
            text = methods[m](doc.page.html, ds.urls.get(doc_id, ""))
            print(f"- `{keys[i]}`: F1 {s.f1:.2f} (P {s.precision:.2f}, R {s.recall:.2f}); gold "
                  f"{s.tp + s.fn:,} words, missed {s.fn:,}, added {s.fp:,}; best other "
                  f"{best} {scores[best][i].f1:.2f}")
            print("\n".join(evidence(doc, m, text, s.recall, auto, args.share)))
            doc.release()
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
