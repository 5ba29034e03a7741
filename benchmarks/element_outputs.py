"""The element classifier's labels and class probabilities on a labelled set, to check that a
change keeps them.

Run it with two checkouts on ``PYTHONPATH`` and compare the JSON files::

    PYTHONPATH=$BEFORE python benchmarks/element_outputs.py --out before.json
    PYTHONPATH=$PWD python benchmarks/element_outputs.py --out after.json
    python benchmarks/element_outputs.py --compare before.json after.json

Each record of the set (default: the shipped ``models/elements-train.jsonl``) gets the
model's label and its probability row (in the model's class order, written with
``repr`` so that equal means equal to the last bit); the output also gives one SHA-1
over all labels and one over all probabilities.  ``--model`` is a model name on the
models search path or a path to a ``.json`` file (default: the shipped model).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any


def outputs(set_path: Path, model_name: str) -> dict[str, Any]:
    """Labels and probabilities of ``model_name`` on every record of ``set_path``."""
    from corpuscrawl.browse.classifier import load_classifier
    from corpuscrawl.learn.elements import read_jsonl

    records = read_jsonl(set_path)
    model = load_classifier(model_name)
    labels = model.predict(records)
    proba = [[repr(float(v)) for v in row] for row in model.predict_proba(records)]
    return {"set": str(set_path), "records": len(records), "classes": list(model.classes_),
            "labels": labels, "proba": proba,
            "sha1_labels": hashlib.sha1("\n".join(labels).encode()).hexdigest(),
            "sha1_proba": hashlib.sha1(json.dumps(proba).encode()).hexdigest()}


def compare(before: dict[str, Any], after: dict[str, Any]) -> int:
    """Print how many records differ in label or probabilities; 1 if any does."""
    if before["classes"] != after["classes"] or before["records"] != after["records"]:
        print(f"different classes or record counts: {before['classes']} ({before['records']}) "
              f"vs {after['classes']} ({after['records']})")
        return 1
    labels = sum(a != b for a, b in zip(before["labels"], after["labels"], strict=True))
    proba = sum(a != b for a, b in zip(before["proba"], after["proba"], strict=True))
    print(f"{before['records']} records compared: {labels} labels differ, "
          f"{proba} probability rows differ (SHA-1 labels {after['sha1_labels'][:8]}…, "
          f"probabilities {after['sha1_proba'][:8]}…)")
    return int(bool(labels or proba))


def main() -> int:
    """Command line: write the outputs of one checkout, or compare two output files."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path, default=None,
                        help="labelled JSON Lines set (default: the shipped elements-train.jsonl)")
    parser.add_argument("--model", default="element-classifier",
                        help="model name on the models search path or path to a .json file")
    parser.add_argument("--out", type=Path, help="write the outputs here")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        before, after = (json.loads(p.read_text(encoding="utf-8")) for p in args.compare)
        return compare(before, after)
    if not args.out:
        parser.error("give --out FILE or --compare BEFORE AFTER")
    from corpuscrawl.shipped import find_model

    set_path = args.set or find_model("elements-train.jsonl")
    if set_path is None:
        parser.error("no elements-train.jsonl on the models search path; give --set")
    result = outputs(set_path, args.model)
    args.out.write_text(json.dumps(result) + "\n", encoding="utf-8")
    print(f"{result['records']} records: SHA-1 labels {result['sha1_labels'][:8]}…, "
          f"probabilities {result['sha1_proba'][:8]}…", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
