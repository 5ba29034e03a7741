"""Whether two model files hold the same fitted model, and if not, where they differ.

    PYTHONPATH=$PWD python benchmarks/model_identity.py NAME SHIPPED.skops RETRAINED.skops

Two comparisons, both printed:

* **payload**: the skops archives themselves.  Each ``schema.json`` is read with
  every array file replaced by the SHA-256 of its bytes and the object ids
  numbered in order of first appearance, so two files written from equal objects
  compare equal whatever their ids; the paths that differ are listed
  (``meta_.trained_at``, the training time, is expected to).
* **objects**: both files loaded by today's loader
  (:func:`corpuscrawl.extract.learned.models.load_model_file`), then every attribute
  compared recursively: arrays by dtype, shape and bytes, floats exactly,
  scikit-learn estimators attribute by attribute.  This is what today's code
  predicts with: a parameter added since a file was written reads as its
  default here, while the payload comparison lists it as a missing key.

For an array that differs, the number of differing entries and the largest
absolute difference are given.  ``--ignore PATH`` (repeatable) leaves a path
out of both comparisons; the training time is always left out.  Exit code 0
when both comparisons find nothing else, 1 otherwise, 2 when a file cannot be read as a
model (the loader's reason is printed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

#: Paths that record when a file was written, not what it holds.
TIMESTAMP_PATHS = ("meta_.trained_at",)
#: Node keys of a skops schema that name the node, not its content.
_ID_KEYS = ("__id__",)


def canonical_schema(path: Path) -> Any:
    """The ``schema.json`` of skops file ``path`` (``tree``) with array files replaced by
    ``sha256:`` and the first 16 hex digits of their bytes' SHA-256 and the object ids taken out into one list, numbered in
    order of first appearance (which nodes are one object; a difference in content does not
    show again as a difference in every id after it)."""
    with zipfile.ZipFile(path) as zf:
        schema = json.loads(zf.read("schema.json"))
        payload = {n: zf.read(n) for n in zf.namelist() if n != "schema.json"}
    ids: dict[Any, int] = {}
    sharing: list[int] = []

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(v) for v in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for key, value in node.items():
            if key in _ID_KEYS:
                sharing.append(ids.setdefault(value, len(ids)))
            elif key == "file" and isinstance(value, str) and value in payload:
                out[key] = "sha256:" + hashlib.sha256(payload[value]).hexdigest()[:16]
            else:
                out[key] = walk(value)
        return out

    tree = walk(schema)
    return {"tree": tree, "object sharing (ids numbered in order)": sharing}


def _schema_path(path: str, key: str) -> str:
    """The readable path of a child: the skops wrapper keys (``content``) are skipped."""
    if key in ("content", "tree"):
        return path
    return f"{path}.{key}" if path else key


def schema_differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Paths where two canonical schemas differ, each with what each side holds."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in list(a) + [k for k in b if k not in a]:
            child = _schema_path(path, key)
            if key not in b:
                out.append(f"{child}: only in the first file")
            elif key not in a:
                out.append(f"{child}: only in the second file")
            else:
                out += schema_differences(a[key], b[key], child)
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} entries vs {len(b)}"]
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out += schema_differences(x, y, f"{path}[{i}]")
        return out
    if a != b:
        return [f"{path}: {_short(a)} vs {_short(b)}"]
    return []


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _array_difference(a: np.ndarray, b: np.ndarray) -> str:
    """What differs between two arrays of the same shape and dtype."""
    if a.dtype.names or a.dtype == object:
        differ = sum(1 for x, y in zip(a.ravel(), b.ravel(), strict=True) if repr(x) != repr(y))
        return f"{differ} of {a.size} entries differ"
    differ = int(np.count_nonzero(~((a == b) | (np.isnan(a) & np.isnan(b)))
                                  if a.dtype.kind == "f" else a != b))
    largest = ""
    if a.dtype.kind in "fiu" and a.size:
        largest = f", largest absolute difference {np.max(np.abs(a.astype(float) - b.astype(float))):.3g}"
    return f"{differ} of {a.size} entries differ{largest}"


def object_differences(a: Any, b: Any, path: str = "",
                       seen: dict[tuple[int, int], tuple[Any, Any]] | None = None) -> list[str]:
    """Paths where two loaded objects differ (type, value, array bytes, attributes); an
    object pair met twice (shared references) is compared once."""
    seen = {} if seen is None else seen
    if type(a) is not type(b):
        return [f"{path}: {type(a).__name__} vs {type(b).__name__}"]
    if isinstance(a, np.ndarray):
        if a.dtype != b.dtype or a.shape != b.shape:
            return [f"{path}: array {a.dtype}{a.shape} vs {b.dtype}{b.shape}"]
        if a.dtype == object:
            if a.tobytes() == b.tobytes():
                return []
            out = []
            for i, (x, y) in enumerate(zip(a.ravel(), b.ravel(), strict=True)):
                out += object_differences(x, y, f"{path}[{i}]", seen)
            return out
        if a.tobytes() == b.tobytes():
            return []
        return [f"{path}: {_array_difference(a, b)}"]
    if isinstance(a, float):
        same = a == b or (math.isnan(a) and math.isnan(b))
        return [] if same else [f"{path}: {a!r} vs {b!r}"]
    if isinstance(a, (str, bytes, int, bool, type(None), type)):
        return [] if a == b else [f"{path}: {_short(a)} vs {_short(b)}"]
    if isinstance(a, np.generic):
        return object_differences(np.asarray(a), np.asarray(b), path, seen)
    if isinstance(a, np.random.Generator):
        return object_differences(a.bit_generator.state, b.bit_generator.state, path, seen)
    if isinstance(a, np.random.RandomState):  # its __reduce__ seeds a fresh bit generator
        return object_differences(list(a.get_state()), list(b.get_state()), path, seen)
    if (id(a), id(b)) in seen:
        return []
    seen[(id(a), id(b))] = (a, b)  # kept alive: an id is only unique while its object lives
    if isinstance(a, dict):
        out = []
        for key in list(a) + [k for k in b if k not in a]:
            child = f"{path}.{key}" if path else str(key)
            if key not in b:
                out.append(f"{child}: only in the first")
            elif key not in a:
                out.append(f"{child}: only in the second")
            else:
                out += object_differences(a[key], b[key], child, seen)
        return out
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return [f"{path}: {len(a)} entries vs {len(b)}"]
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out += object_differences(x, y, f"{path}[{i}]", seen)
        return out
    state_a, state_b = _state(a), _state(b)
    if state_a is None or state_b is None:
        return [] if repr(a) == repr(b) else [f"{path}: {_short(a)} vs {_short(b)}"]
    return object_differences(state_a, state_b, path, seen)


def _state(obj: Any) -> Any:
    """What an object holds: its ``__dict__`` without the runtime cache, else its
    ``__reduce__`` arguments and state (compiled objects without a ``__dict__``)."""
    if hasattr(obj, "__dict__"):
        return {k: v for k, v in vars(obj).items() if k != "_runtime"}
    try:
        reduced = obj.__reduce__()
    except Exception:  # noqa: BLE001 - compared by repr instead
        return None
    return list(reduced[1:]) if isinstance(reduced, tuple) else None


def _drop(lines: list[str], ignored: tuple[str, ...]) -> list[str]:
    return [line for line in lines if not any(line.startswith(p + ":") for p in ignored)]


def compare(name: str, first: Path, second: Path, ignored: tuple[str, ...]) -> int:
    """Print both comparisons of two model files of model ``name``; returns the exit code."""
    from corpuscrawl.extract.learned.models import load_model_file

    ignored = (*TIMESTAMP_PATHS, *ignored)
    a = load_model_file(first)  # a file the loader refuses is refused here, with its reason
    b = load_model_file(second)
    same_bytes = first.read_bytes() == second.read_bytes()
    print(f"{name}: {first} vs {second}: files {'byte-identical' if same_bytes else 'differ'}")
    payload = _drop(schema_differences(canonical_schema(first), canonical_schema(second)),
                    ignored)
    print(f"payload: {len(payload)} difference(s) besides {', '.join(ignored)}")
    for line in payload:
        print("   ", line)
    objects = _drop(object_differences(a, b), ignored)
    print(f"objects: {len(objects)} difference(s) besides {', '.join(ignored)}")
    for line in objects:
        print("   ", line)
    return 0 if not payload and not objects else 1


def main(argv: list[str] | None = None) -> int:
    """Compare two model files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="the model's registry name (auto, sequence, ...)")
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--ignore", action="append", default=[], metavar="PATH")
    args = parser.parse_args(argv)
    from corpuscrawl.extract.base import ExtractorError

    try:
        return compare(args.name, args.first, args.second, tuple(args.ignore))
    except (ExtractorError, OSError) as exc:
        print(f"model_identity: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

__all__ = ["canonical_schema", "compare", "object_differences", "schema_differences"]
