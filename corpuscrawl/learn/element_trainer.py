"""Build the element training set from the local dynamic pages and train the shipped model.

The estimator :class:`ElementClassifierEstimator` is the crawl-time predictor
:class:`corpuscrawl.browse.classifier.ElementClassifier` plus ``fit`` (scikit-learn's
``DecisionTreeClassifier``, its tree kept as plain arrays) and the writing of the
model file, the predictor's plain-parameter JSON.

Source: Komporday's thesis, part III §9.2: the training set is a JSON file of
elements (tag, attributes, source HTML, class label) labelled by a person.
Ours is built from the hand-written pages in ``tests/data/dynamic/`` (modelled
on news sites, forums, feeds, recipe blogs, multilingual portals); their gold
labels are CSS selectors in ``labels.json`` next to them, so that labels stay
correct when a page is edited.  Each page is rendered in Chromium and the
interaction loop is run with the gold labels as its classifier; every distinct
element state seen along the way (before and after overlays close, after each
reveal and scroll) becomes a record.

The generated test bed of dynamic patterns (``tests/dynamic_bed.py``, in a
repository checkout) adds its pages with ``--bed``: each pattern declares the
gold labels of its elements; the whole bed counts as one site in the
leave-one-site-out estimate.

The model reads the structural layout only (``STRUCTURAL_LAYOUT_KEYS``: hidden,
in nav/footer/dialog/form — no geometry): it generalises better to unseen sites
than a tree that also splits on sizes and overlay positions (both are in the
card), and the same model then serves rendered pages and the static HTML that
``render=auto`` judges (:mod:`corpuscrawl.browse.static`).

Usage::

    python -m corpuscrawl.learn.element_trainer build --bed   # -> models/elements-train.jsonl
    python -m corpuscrawl.learn.element_trainer train   # -> models/element-classifier.{json,md}
    python -m corpuscrawl.learn.element_trainer all     # both

The card reports per-class precision/recall from leave-one-site-out and from
stratified 5-fold cross-validation.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics import precision_recall_fscore_support
from sklearn.model_selection import LeaveOneGroupOut, StratifiedKFold, cross_val_predict
from sklearn.tree import DecisionTreeClassifier

from corpuscrawl.browse.classifier import (
    MODEL_FORMAT,
    MODEL_VERSION,
    ElementClassifier,
    TreeArrays,
)
from corpuscrawl.browse.elements import (
    FEATURE_NAMES,
    LABELS,
    STRUCTURAL_LAYOUT_KEYS,
    ElementRecord,
    feature_matrix,
)
from corpuscrawl.browse.interaction import InteractionOptions, PageInteraction, prepare_page
from corpuscrawl.browse.localsite import LocalSite
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.learn.estimator import Estimator
from corpuscrawl.resources.shipped import models_dir

#: The hand-written pages and their labels.json.
PAGES_DIR_DEFAULT = Path(__file__).resolve().parents[2] / "tests" / "data" / "dynamic"
#: File names of the shipped set, model and card inside ``models/``.
TRAIN_SET_NAME = "elements-train.jsonl"
MODEL_NAME = "element-classifier.json"
#: Seed of the test bed pages in the shipped training set.
BED_SEED_DEFAULT = 0
CARD_NAME = "element-classifier.md"

_GOLD_JS = """
([rules, indices]) => indices.map((i) => {
  const el = window.__corpuscrawl.els[i];
  for (const [sel, label] of rules) { if (el.matches(sel)) return label; }
  return null; })
"""


class ElementClassifierEstimator(Estimator, ClassifierMixin, ElementClassifier, BaseEstimator):
    """The element classifier's estimator: :class:`ElementClassifier` (same parameters,
    fitted attributes and predictions) plus :meth:`fit` and the model file's writer.

    ``fit`` trains scikit-learn's ``DecisionTreeClassifier`` with the model's parameters
    on the records' features (the ``layout_keys`` view) and keeps the fitted tree as
    plain arrays (``tree_``), which is what the predictor walks and the file holds.
    ``ClassifierMixin`` and ``BaseEstimator`` (after the predictor, whose
    ``get_params``/``set_params`` stay) make it a scikit-learn classifier over lists of
    records: ``cross_val_predict``, ``cross_val_score`` or ``GridSearchCV`` take it
    (:func:`cross_validate` does), and ``score`` is the accuracy.
    """

    predictor_class = ElementClassifier

    def fit(self, X: Sequence[ElementRecord],
            y: Sequence[str] | None = None) -> ElementClassifierEstimator:
        """Train on the records ``X`` with the labels ``y`` (default: each record's
        ``label``); returns ``self``."""
        labels = list(y) if y is not None else [r.label for r in X]
        if len(labels) != len(X) or not X:
            raise ValueError("fit needs as many labels as records, and at least one record")
        unknown = sorted({str(v) for v in labels} - set(LABELS))
        if unknown:
            raise ValueError(f"unknown label(s) {unknown}; known labels: {', '.join(LABELS)}")
        params = {k: v for k, v in self.get_params().items() if k != "layout_keys"}
        tree = DecisionTreeClassifier(**params).fit(self.feature_rows(X), labels)
        t = tree.tree_
        self.classes_ = tuple(str(c) for c in tree.classes_)
        self.tree_ = TreeArrays(left=t.children_left.astype(np.int64),
                                right=t.children_right.astype(np.int64),
                                feature=np.maximum(t.feature, 0).astype(np.int64),
                                threshold=t.threshold.astype(np.float64),
                                value=t.value[:, 0, :].astype(np.float64))
        self.metadata_ = {}
        return self

    def to_json(self) -> dict[str, Any]:
        """The fitted model as the model file's JSON content (read back by
        :meth:`ElementClassifier.from_json`)."""
        tree = self._require_fitted()
        params = self.get_params()
        if params["layout_keys"] is not None:
            params["layout_keys"] = list(params["layout_keys"])
        return {
            "format": MODEL_FORMAT, "version": MODEL_VERSION,
            "feature_names": list(FEATURE_NAMES), "classes": list(self.classes_),
            "params": params, "metadata": self.metadata_,
            "nodes": {"left": tree.left.tolist(), "right": tree.right.tolist(),
                      "feature": tree.feature.tolist(),
                      "threshold": [round(float(v), 9) for v in tree.threshold],
                      "value": [[round(float(v), 6) for v in row] for row in tree.value]},
        }

    def save(self, path: str | Path) -> Path:
        """Write the model file (the predictor's JSON: plain parameters and node arrays, no
        pickle, no training class named); returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), ensure_ascii=False) + "\n", encoding="utf-8")
        return path


def load_label_rules(pages_dir: Path) -> dict[str, list[tuple[str, str]]]:
    """``labels.json``: page path -> [(CSS selector, label)]; a string value aliases a page."""
    path = pages_dir / "labels.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    rules: dict[str, list[tuple[str, str]]] = {}
    for page, value in raw.items():
        if page.startswith("_"):
            continue
        target = raw[value] if isinstance(value, str) else value
        pairs = [(str(sel), str(label)) for sel, label in target]
        bad = [label for _, label in pairs if label not in LABELS]
        if bad:
            raise ValueError(f"{path}: page {page!r} uses unknown label(s) {bad}; "
                             f"known labels: {', '.join(LABELS)}")
        rules[page] = pairs
    return rules


async def _records_of_page(browser: object, url: str,
                           rules: list[tuple[str, str]]) -> list[ElementRecord]:
    page = await browser.new_page()  # type: ignore[attr-defined]
    seen: dict[tuple, ElementRecord] = {}
    unlabelled: list[str] = []

    async def gold(records: Sequence[ElementRecord]) -> list[str]:
        labels = await page.evaluate(_GOLD_JS, [rules, [r.index for r in records]])
        out = []
        for record, label in zip(records, labels, strict=True):
            if label is None:
                unlabelled.append(record.html[:160])
                label = "Other"
            record.label = label
            key = (label, tuple(feature_matrix([record])[0]))
            seen.setdefault(key, record)
            out.append(label)
        return out

    try:
        await prepare_page(page)
        await page.goto(url, wait_until="load")
        await PageInteraction(page, gold, InteractionOptions(max_scrolls=3)).run()
    finally:
        await page.close()
    if unlabelled:
        raise ValueError(f"{url}: {len(unlabelled)} element(s) match no rule in labels.json, "
                         f"e.g. {sorted(set(unlabelled))[:3]}")
    return list(seen.values())


async def build_training_set(pages_dir: Path = PAGES_DIR_DEFAULT,
                             bed_seed: int | None = None) -> list[ElementRecord]:
    """Render every labelled page (and the test bed's, with ``bed_seed``) into records."""
    from playwright.async_api import async_playwright

    from corpuscrawl.browse.browser import launch_chromium

    rules = load_label_rules(pages_dir)
    records: list[ElementRecord] = []
    with LocalSite(pages_dir) as site:
        async with async_playwright() as pw:
            browser = await launch_chromium(pw)
            try:
                for page_path, page_rules in rules.items():
                    found = await _records_of_page(browser, site.url(page_path), page_rules)
                    for record in found:
                        _pin_port(record, site.port)
                    records.extend(found)
                    print(f"{page_path}: {len(found)} elements", file=sys.stderr)
                if bed_seed is not None:
                    records.extend(await _bed_records(browser, bed_seed))
            finally:
                await browser.close()
    return records


async def _bed_records(browser: object, seed: int) -> list[ElementRecord]:
    """Records of the test bed's pattern pages (``tests/dynamic_bed.py``, repository only)."""
    repo = str(PAGES_DIR_DEFAULT.parents[2])
    if repo not in sys.path:
        sys.path.insert(0, repo)
    try:
        from tests.dynamic_bed import TestBed
    except ImportError as exc:
        raise ValueError(f"--bed needs a repository checkout with tests/dynamic_bed.py "
                         f"({exc})") from exc
    records: list[ElementRecord] = []
    with TestBed(seed=seed) as bed:
        for name, pattern in bed.patterns.items():
            found = await _records_of_page(browser, bed.url(name), pattern.gold_labels)
            for record in found:
                _pin_port(record, bed.port)
            records.extend(found)
            print(f"bed/{name}: {len(found)} elements", file=sys.stderr)
    return records


def _pin_port(record: ElementRecord, port: int) -> None:
    """Replace the server's random port by 8000 so that rebuilt sets are comparable."""
    def pin(text: str) -> str:
        return text.replace(f":{port}", ":8000").replace(f"%3A{port}", "%3A8000")
    record.page_url = pin(record.page_url)
    record.attributes = {k: pin(v) for k, v in record.attributes.items()}
    record.html = pin(record.html)
    record.href = None
    record.index = -1


def write_jsonl(records: Sequence[ElementRecord], path: Path) -> None:
    """Write records as JSON Lines (the training-record format of :mod:`elements`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")


def read_jsonl(path: Path) -> list[ElementRecord]:
    """Read a labelled JSON Lines set; errors name the file and line."""
    records = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: invalid JSON ({exc.msg})") from exc
            record = ElementRecord.from_dict(data, f"{path}:{number}")
            if record.label is None:
                raise ValueError(f"{path}:{number}: record has no 'label'")
            records.append(record)
    return records


def site_group(record: ElementRecord) -> str:
    """The site a record comes from (first path segment of the fixture page)."""
    parts = urlsplit(record.page_url).path.strip("/").split("/")
    return parts[0] if parts else ""


def cross_validate(records: Sequence[ElementRecord], grouped: bool,
                   layout_keys: Sequence[str] | None = STRUCTURAL_LAYOUT_KEYS
                   ) -> dict[str, dict[str, float]]:
    """Per-class precision/recall/F1 (+ support) of out-of-fold predictions.

    ``grouped``: leave one site out (no page of the test site seen in training);
    otherwise stratified 5-fold over elements.  ``layout_keys``: the layout the
    model reads (None: all of it, geometry included).
    """
    y = [r.label or "" for r in records]
    cv: LeaveOneGroupOut | StratifiedKFold = StratifiedKFold(n_splits=5, shuffle=True,
                                                             random_state=0)
    groups = None
    if grouped:
        cv, groups = LeaveOneGroupOut(), [site_group(r) for r in records]
    predicted = [str(label) for label in cross_val_predict(
        ElementClassifierEstimator(layout_keys=layout_keys), list(records), y, groups=groups,
        cv=cv)]
    labels = [label for label in LABELS if label in set(y)]
    p, r, f, s = precision_recall_fscore_support(y, predicted, labels=labels, zero_division=0)
    report = {label: {"precision": float(p[i]), "recall": float(r[i]), "f1": float(f[i]),
                      "support": int(s[i])} for i, label in enumerate(labels)}
    report["accuracy"] = {"value": sum(a == b for a, b in zip(y, predicted, strict=True)) / len(y)}
    return report


def _table(report: dict[str, dict[str, float]]) -> str:
    rows = [[label, f"{m['precision']:.3f}", f"{m['recall']:.3f}", f"{m['f1']:.3f}",
             str(m["support"])] for label, m in report.items() if label != "accuracy"]
    lines = markdown_table(["class", "precision", "recall", "F1", "support"], rows)
    return "\n".join([*lines, f"\nAccuracy: {report['accuracy']['value']:.3f}"])


def write_card(path: Path, model: ElementClassifierEstimator, records: Sequence[ElementRecord],
               grouped: dict, stratified: dict, static_grouped: dict | None = None) -> None:
    """Write the model card: data, parameters, cross-validated scores, how to rebuild."""
    counts = Counter(r.label for r in records)
    sites = sorted({site_group(r) for r in records})
    text = f"""# element-classifier

Decision tree (scikit-learn `DecisionTreeClassifier`, params `{model.to_json()['params']}`)
over the {len(model.to_json()['feature_names'])} features of
`corpuscrawl/browse/elements.py`, classifying a rendered page's actionable elements into
Revealer, Inner, Outer, Closer, LanguageSelection and Other (Komporday's thesis, part III).
Stored as plain JSON (`element-classifier.json`: node arrays, no pickle); the tree has
{len(model.to_json()['nodes']['left'])} nodes.

- Trained: {dt.date.today().isoformat()}
- Data: `models/{TRAIN_SET_NAME}`, {len(records)} labelled elements from
  {len(sites)} sites: hand-written pages in `tests/data/dynamic/` and the generated
  dynamic-pattern test bed ({', '.join(sites)}),
  each rendered in headless Chromium and collected at every step of the interaction loop.
- Class counts: {', '.join(f'{k}: {v}' for k, v in sorted(counts.items()))}
- Rebuild: `python -m corpuscrawl.learn.element_trainer all --bed` (the bed pages are
  `tests/dynamic_bed.py` with seed {BED_SEED_DEFAULT}, one site `bed` in the grouping)

## Cross-validation: leave one site out

No element of the held-out site is seen in training — the honest estimate for a new site.

{_table(grouped)}

## Cross-validation: stratified 5-fold over elements

Elements of the same site appear in training and test folds (optimistic).

{_table(stratified)}
{_static_section(static_grouped)}
## Limits

The set is small and synthetic (realistic patterns, but written by us); the keyword
features cover English, Hungarian, German, Croatian, Polish, French, Spanish and
Italian.  Inner/Outer are reconciled with the proxy-decoded URL at crawl time
(`corpuscrawl/browse/links.py`), so a misclassified navigation link never leaves the site
under `follow=inner`.  Label your own sites with `corpuscrawl label URL -o set.jsonl`,
append them to the set and retrain.
"""
    path.write_text(text, encoding="utf-8")


def _static_section(report: dict | None) -> str:
    if report is None:
        return ""
    return f"""
## For comparison: the same tree with geometry (leave one site out)

Fitted on every layout feature a rendered page gives (sizes, position, fixed layers,
z-index, overlay cover) — what the shipped model leaves out, because it generalises
worse to an unseen site:

{_table(report)}
"""


def train(set_path: Path, out_dir: Path) -> ElementClassifierEstimator:
    """Train on a labelled set, cross-validate, and write both models and the card."""
    records = read_jsonl(set_path)
    grouped = cross_validate(records, grouped=True)
    stratified = cross_validate(records, grouped=False)
    static_grouped = cross_validate(records, grouped=True, layout_keys=None)
    model = ElementClassifierEstimator(layout_keys=STRUCTURAL_LAYOUT_KEYS).fit(records)
    model.metadata_ = {"trained_on": set_path.name, "records": len(records),
                      "date": dt.date.today().isoformat(),
                      "cv_leave_one_site_out_accuracy": round(grouped["accuracy"]["value"], 4)}
    model.save(out_dir / MODEL_NAME)
    write_card(out_dir / CARD_NAME, model, records, grouped, stratified, static_grouped)
    return model


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``build``, ``train`` or ``all``."""
    parser = argparse.ArgumentParser(prog="python -m corpuscrawl.learn.element_trainer",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("build", "train", "all"))
    parser.add_argument("--pages", type=Path, default=PAGES_DIR_DEFAULT,
                        help="directory of labelled pages with labels.json")
    parser.add_argument("--models", type=Path, default=None,
                        help="output directory (default: $CORPUSCRAWL_MODELS_DIR, else the shipped models/)")
    parser.add_argument("--bed", nargs="?", type=int, const=BED_SEED_DEFAULT, default=None,
                        help="also label the test bed's pattern pages (seed, default "
                             f"{BED_SEED_DEFAULT})")
    parser.add_argument("--set", type=Path, default=None,
                        help=f"training set to train on (default: <models>/{TRAIN_SET_NAME})")
    args = parser.parse_args(argv)
    out_dir = args.models or models_dir()
    set_path = args.set or out_dir / TRAIN_SET_NAME
    if args.step in ("build", "all"):
        records = asyncio.run(build_training_set(args.pages, args.bed))
        write_jsonl(records, out_dir / TRAIN_SET_NAME)
        print(f"wrote {len(records)} records to {out_dir / TRAIN_SET_NAME}", file=sys.stderr)
        set_path = out_dir / TRAIN_SET_NAME
    if args.step in ("train", "all"):
        model = train(set_path, out_dir)
        print(f"wrote {out_dir / MODEL_NAME} ({model.metadata_}) and {out_dir / CARD_NAME}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
