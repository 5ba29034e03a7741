"""Fingerprints of every extractor's output on a set of pages, to check that a change keeps them.

Run it with two checkouts on ``PYTHONPATH`` and compare the JSON files::

    PYTHONPATH=/work/main python benchmarks/extractor_outputs.py --out before.json PAGES...
    PYTHONPATH=$PWD python benchmarks/extractor_outputs.py --out after.json PAGES...
    python benchmarks/extractor_outputs.py --compare before.json after.json

``--documents`` fingerprints, for ``auto`` (the default extractor), every field of the
document a crawl would make of the page (text, comments, title, date, author, language,
page information: ``corpuscrawl extract --format json``'s fields) instead of the text alone.

``--page-cost`` instead prints what building the Pages costs (ms per page, the
sum of per-page minima over 5 runs), to compare two checkouts the same way.

``PAGES`` are HTML files or directories (``*.html``/``*.html.gz``, searched
recursively); ``--sample N`` takes every k-th file so that about N are used.
``--split test DATASET_DIRS...`` (or ``train``, ``all``) instead takes the test part of the project's
split of gold-text datasets (:func:`corpuscrawl.evaluation.datasets.split`), each
page parsed as the evaluation parses it (its manifest URL); the output also gives
one SHA-1 per extractor over all its outputs in key order.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

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


def split_pages(dataset_dirs: list[str], part: str) -> list[tuple[Any, str]]:
    """(page loader, ``dataset/id``) of the ``part`` (train, test or all) of gold-text
    datasets."""
    from corpuscrawl.evaluation.datasets import Dataset, split

    out: list[tuple[Any, str]] = []
    for d in dataset_dirs:
        ds = Dataset(Path(d))
        if not ds.has_gold:
            continue
        ids = [i for i in ds.ids() if ds.gold_path(i).is_file()]
        chosen = ids if part == "all" else dict(zip(("train", "test"), split(ids),
                                                    strict=True))[part]
        out += [(lambda ds=ds, i=i: ds.load_page(i), f"{ds.name}/{i}") for i in chosen]
    return out


def fingerprints(files: list[tuple[Any, str]], extractors: list[str]) -> dict[str, str]:
    """``"extractor file" -> sha1`` of each output (or of the error's type); ``files`` are
    (path, key) or (page loader, key)."""
    from corpuscrawl.extract import get_extractor
    from corpuscrawl.html.page import Page

    built = {name: get_extractor(name) for name in extractors}
    out: dict[str, str] = {}
    for f, key in files:
        page = f() if callable(f) else Page.from_file(f, url="http://example.com/" + f.name)
        for name, extractor in built.items():
            try:
                text = extractor.extract(page)
            except Exception as exc:  # noqa: BLE001 - recorded, compared
                text = f"<error {type(exc).__name__}>"
            out[f"{name} {key}"] = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
    return out


def document_fingerprints(files: list[tuple[Any, str]]) -> dict[str, str]:
    """``"auto file" -> sha1`` of the JSON of each page's document fields, as ``corpuscrawl
    extract --format json`` makes them with the default settings (``auto``)."""
    from corpuscrawl.commands.extract_page import document_fields
    from corpuscrawl.commands.extract_warc import settings_from
    from corpuscrawl.html.page import Page
    from corpuscrawl.pagetext.extraction import Extraction

    extraction = Extraction.from_settings(settings_from([]))
    out: dict[str, str] = {}
    for f, key in files:
        page = f() if callable(f) else Page.from_file(f, url="http://example.com/" + f.name)
        fields = document_fields(page, extraction.run(page))
        digest = json.dumps(fields, sort_keys=True, ensure_ascii=False, default=str)
        out[f"{extraction.default.name} {key}"] = hashlib.sha1(
            digest.encode("utf-8", "surrogatepass")).hexdigest()
    return out


def totals(result: dict[str, str]) -> dict[str, tuple[int, str]]:
    """Per extractor: its number of outputs and one SHA-1 over them in key order."""
    per: dict[str, list[str]] = {}
    for key in sorted(result):
        per.setdefault(key.split(" ", 1)[0], []).append(result[key])
    return {name: (len(v), hashlib.sha1("".join(v).encode()).hexdigest())
            for name, v in sorted(per.items())}


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
    ap.add_argument("--documents", action="store_true",
                    help="fingerprint auto's whole document fields, not each extractor's text")
    ap.add_argument("--split", choices=("train", "test", "all"),
                    help="PATHS are gold-text dataset directories; use this part of their split")
    args = ap.parse_args()
    if args.page_cost:
        files = page_files(args.paths, args.sample)
        print(f"{page_cost(files):.2f} ms per page over {len(files)} pages")
        return
    if args.compare:
        a, b = (json.loads(Path(x).read_text()) for x in args.compare)
        differ = sorted(k for k in a if a.get(k) != b.get(k))
        print(f"{len(a)} outputs compared, {len(differ)} differ")
        for name, (count, digest) in totals(b).items():
            print(f"{name}: {count} outputs, SHA-1 over them {digest}")
        for k in differ:
            print("  ", k)
        return
    from corpuscrawl.extract import names

    extractors = [e for e in (args.extractors.split(",") if args.extractors else names())
                  if e != "template"]
    files = (split_pages(args.paths, args.split) if args.split
             else page_files(args.paths, args.sample))
    result = document_fingerprints(files) if args.documents else fingerprints(files, extractors)
    Path(args.out).write_text(json.dumps(result, indent=0, sort_keys=True))
    print(f"{len(result)} outputs written to {args.out}")
    for name, (count, digest) in totals(result).items():
        print(f"{name}: {count} outputs, SHA-1 over them {digest}")


if __name__ == "__main__":
    main()
