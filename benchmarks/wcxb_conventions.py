"""Where WCXB's gold differs from the article sets' gold: which parts of a page the gold keeps.

    CORPUSCRAWL_DATASETS=../shared/datasets .venv/bin/python benchmarks/wcxb_conventions.py \
        [--out benchmarks/results/wcxb_conventions.md]

Model-free (no extractor runs).  For every gold page of the article sets (train split)
and of WCXB (all dev pages, by page type), the text of each kind of element is looked
up in the gold: the headline (first ``<h1>`` of ≥ 3 words), list items, table cells,
definition-list entries, code blocks (``<pre>``), ``<details>`` bodies, and text the
page hides (``hidden`` attribute or inline ``display: none``).  A piece of ≥ 4 words
counts as *kept* when at least 80 % of its word 4-grams occur in the gold.  The tables
give, per dataset or page type, the pieces found and the share the gold keeps: where
the shares differ, an extractor tuned to one gold set's convention loses on the other.
"""

from __future__ import annotations

import argparse
import platform
import re
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from corpuscrawl.evaluation.datasets import Dataset, datasets_root
from corpuscrawl.evaluation.metrics import tokenize
from corpuscrawl.evaluation.names import GOLD_DATASETS
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.learn.trainset import documents

REPO = Path(__file__).resolve().parent.parent
KINDS = ("headline", "li", "td", "dd", "pre", "details", "hidden")
MIN_WORDS = 4
KEPT_SHARE = 0.8
_HIDDEN_RE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
TYPES = ("article", "documentation", "service", "forum", "product", "collection", "listing")


def grams(words: list[str]) -> set[tuple[str, ...]]:
    """The word 4-grams of ``words``."""
    return {tuple(words[i:i + 4]) for i in range(len(words) - 3)}


def pieces(page) -> dict[str, list[list[str]]]:
    """The words of each element kind's pieces on the page (outermost hidden ones only)."""
    body = page.body
    out: dict[str, list[list[str]]] = {k: [] for k in KINDS}
    for h1 in body.iter("h1"):
        words = tokenize(h1.text_content())
        if len(words) >= 3:
            out["headline"].append(words)
            break
    for kind in ("li", "td", "dd", "pre", "details"):
        for el in body.iter(kind):
            if kind == "li" and any(a.tag == "li" for a in el.iterancestors()):
                continue
            words = tokenize(el.text_content())
            if len(words) >= MIN_WORDS:
                out[kind].append(words)
    for el in body.iter():
        if not isinstance(el.tag, str) or el.tag in ("script", "style", "template", "noscript"):
            continue
        if el.get("hidden") is not None or _HIDDEN_RE.search(el.get("style") or ""):
            if any(a.get("hidden") is not None or _HIDDEN_RE.search(a.get("style") or "")
                   for a in el.iterancestors()):
                continue
            words = tokenize(el.text_content())
            if len(words) >= MIN_WORDS:
                out["hidden"].append(words)
    return out


def kept(words: list[str], gold: set[tuple[str, ...]]) -> bool:
    """True when at least :data:`KEPT_SHARE` of the piece's 4-grams are in the gold."""
    g = grams(words)
    return bool(g) and sum(x in gold for x in g) >= KEPT_SHARE * len(g)


def tally(rows: dict[str, Counter], group: str, page, gold_text: str,
          examples: dict[str, list[str]], label: str) -> None:
    """Add one page's pieces (found / kept, per kind) to ``rows[group]``."""
    gold = grams(tokenize(gold_text))
    c = rows.setdefault(group, Counter())
    c["pages"] += 1
    for kind, items in pieces(page).items():
        for words in items:
            c[f"{kind}/n"] += 1
            k = kept(words, gold)
            c[f"{kind}/kept"] += k
            if group.startswith("wcxb") and kind in ("hidden", "details", "li") and \
                    len(examples.setdefault(f"{group} {kind} {'kept' if k else 'left'}", [])) < 2:
                examples[f"{group} {kind} {'kept' if k else 'left'}"].append(
                    f"{label}: \"{' '.join(words[:12])}…\"")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" /
                   "wcxb_conventions.md")
    args = p.parse_args(argv)
    started = time.monotonic()
    root = datasets_root()
    rows: dict[str, Counter] = {}
    examples: dict[str, list[str]] = {}
    for name in GOLD_DATASETS:
        for doc in documents([root / name], "train"):
            tally(rows, name, doc.page, doc.gold, examples, doc.key)
            doc.release()
    ds = Dataset(root / "wcxb")
    for doc in ds.ids():
        gold = ds.gold(doc)
        if gold is None:
            continue
        tally(rows, f"wcxb {ds.page_type(doc)}", ds.load_page(doc), gold, examples,
              f"wcxb/{doc}")
    order = [*GOLD_DATASETS, *(f"wcxb {t}" for t in TYPES)]
    table = []
    for group in order:
        c = rows.get(group)
        if not c:
            continue
        cells = [group, str(c["pages"])]
        for kind in KINDS:
            n = c[f"{kind}/n"]
            cells.append(f"{c[f'{kind}/kept'] / n:.0%} of {n}" if n else "-")
        table.append(cells)
    lines = ["# Gold conventions: WCXB against the article sets", "",
             "Produced by (from the repository root):", "",
             "    CORPUSCRAWL_DATASETS=../shared/datasets .venv/bin/python "
             "benchmarks/wcxb_conventions.py", "",
             f"- run: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
             f"{(time.monotonic() - started) / 60:.1f} min wall; {platform.platform()}, "
             f"Python {platform.python_version()}",
             "- article sets: train split; wcxb: every dev page with gold, by page type",
             f"- a piece (≥ {MIN_WORDS} words; the headline ≥ 3) is kept when ≥ "
             f"{KEPT_SHARE:.0%} of its word 4-grams occur in the gold", "",
             "Share of the pieces of each kind that the gold keeps (and how many there are):",
             "", *markdown_table(["dataset", "pages", *KINDS], table), "",
             "## Examples (wcxb)", ""]
    for key in sorted(examples):
        lines.append(f"- {key}: " + "; ".join(examples[key]))
    lines.append("")
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
