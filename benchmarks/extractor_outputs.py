"""Fingerprints of every extractor's output on a set of pages, to check that a change keeps them.

Run it with two checkouts on ``PYTHONPATH`` and compare the JSON files::

    PYTHONPATH=/work/main python benchmarks/extractor_outputs.py --out before.json PAGES...
    PYTHONPATH=$PWD python benchmarks/extractor_outputs.py --out after.json PAGES...
    python benchmarks/extractor_outputs.py --compare before.json after.json

``--page-cost`` instead prints what building the Pages costs (ms per page, the
sum of per-page minima over 5 runs), to compare two checkouts the same way.

``PAGES`` are HTML files or directories (``*.html``/``*.html.gz``, searched
recursively); ``--sample N`` takes every k-th file so that about N are used.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

SUFFIXES = (".html", ".htm", ".html.gz")


def page_files(paths: list[str], sample: int) -> list[tuple[Path, str]]:
    """(file, key) of the HTML files under ``paths`` (sorted; the key is relative to its
    argument), thinned to about ``sample`` when given."""
    files: list[tuple[Path, str]] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted((f, str(f.relative_to(p))) for f in p.rglob("*")
                            if f.name.endswith(SUFFIXES))
        else:
            files.append((p, p.name))
    if sample and len(files) > sample:
        step = len(files) / sample
        files = [files[int(i * step)] for i in range(sample)]
    return files


def fingerprints(files: list[tuple[Path, str]], extractors: list[str]) -> dict[str, str]:
    """``"extractor file" -> sha1`` of each output (or of the error's type)."""
    from corpuscrawl.extract import get_extractor
    from corpuscrawl.html.page import Page

    built = {name: get_extractor(name) for name in extractors}
    out: dict[str, str] = {}
    for f, key in files:
        page = Page.from_file(f, url="http://example.com/" + f.name)
        for name, extractor in built.items():
            try:
                text = extractor.extract(page)
            except Exception as exc:  # noqa: BLE001 - recorded, compared
                text = f"<error {type(exc).__name__}>"
            out[f"{name} {key}"] = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
    return out


def page_cost(files: list[tuple[Path, str]], runs: int = 5) -> float:
    """Milliseconds per page to build a Page from its bytes (sum of per-page minima)."""
    import gzip
    import time

    from corpuscrawl.html.page import Page

    datas = [gzip.decompress(f.read_bytes()) if f.name.endswith(".gz") else f.read_bytes()
             for f, _ in files]
    best = [float("inf")] * len(datas)
    for _ in range(runs):
        for i, data in enumerate(datas):
            start = time.perf_counter()
            Page.from_html(data, url="http://example.com/")
            best[i] = min(best[i], time.perf_counter() - start)
    return sum(best) * 1000 / max(len(datas), 1)


def main() -> None:
    """Write fingerprints, or compare two fingerprint files."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--out")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--extractors", default="")
    ap.add_argument("--compare", nargs=2)
    ap.add_argument("--page-cost", action="store_true")
    args = ap.parse_args()
    if args.page_cost:
        files = page_files(args.paths, args.sample)
        print(f"{page_cost(files):.2f} ms per page over {len(files)} pages")
        return
    if args.compare:
        a, b = (json.loads(Path(x).read_text()) for x in args.compare)
        differ = sorted(k for k in a if a.get(k) != b.get(k))
        print(f"{len(a)} outputs compared, {len(differ)} differ")
        for k in differ:
            print("  ", k)
        return
    from corpuscrawl.extract import names

    extractors = [e for e in (args.extractors.split(",") if args.extractors else names())
                  if e != "template"]
    result = fingerprints(page_files(args.paths, args.sample), extractors)
    Path(args.out).write_text(json.dumps(result, indent=0, sort_keys=True))
    print(f"{len(result)} outputs written to {args.out}")


if __name__ == "__main__":
    main()
