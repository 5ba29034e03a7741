"""Structured output (line roles for Markdown and TEI) on dataset pages: the text stays the
same byte for byte, and what finding the roles costs.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/structure_cost.py --datasets DIR \\
        [--sample 60] [-e auto -e bte]

For each extractor, every sampled page is extracted by the crawl's
:class:`~corpuscrawl.pagetext.extraction.Extraction` twice, with ``structure`` off and on (as
``CORPUSCRAWL_MARKDOWN`` or a ``tei`` feed turn it on); the texts and comments must be
identical.  Reported: pages whose text differs (must be 0), ms per page of the extraction
without roles, ms per page of the roles (page lines + alignment) and of the Markdown
rendering, and the share of lines that are headings, list items, cells, quotations or code.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from corpuscrawl.evaluation.datasets import Dataset
from corpuscrawl.extract.lines.structure import Role, line_roles
from corpuscrawl.formats.markdown import to_markdown
from corpuscrawl.html.page import Page
from corpuscrawl.pagetext.extraction import Extraction, ExtractionConfig

DATASETS_DEFAULT = ("cleaneval", "wcxb", "scrapinghub")


def sample_pages(root: Path, names: tuple[str, ...], n: int) -> list[Page]:
    """About ``n`` pages spread over the datasets ``names`` (every k-th id of each)."""
    pages = []
    per = max(1, n // len(names))
    for name in names:
        dataset = Dataset(root / name)
        ids = dataset.ids()
        step = max(1, len(ids) // per)
        for doc_id in ids[::step][:per]:
            pages.append(dataset.load_page(doc_id))
    return pages


def measure(extractor: str, pages: list[Page]) -> list[str]:
    """One table row for ``extractor``."""
    plain = Extraction(ExtractionConfig(default_extractor=extractor))
    structured = Extraction(ExtractionConfig(default_extractor=extractor, structure=True))
    differ = 0
    t_plain = t_roles = t_md = 0.0
    lines = found = 0
    for page in pages:
        start = time.perf_counter()
        a = plain.run(page)
        t_plain += time.perf_counter() - start
        b = structured.run(page)
        differ += (a.text, a.comments) != (b.text, b.comments)
        start = time.perf_counter()
        roles = line_roles(page, a.text)
        t_roles += time.perf_counter() - start
        start = time.perf_counter()
        to_markdown(a.text, roles)
        t_md += time.perf_counter() - start
        lines += len(roles)
        found += sum(1 for r in roles if r != Role())
    n = len(pages)
    return [extractor, str(n), str(differ), f"{1000 * t_plain / n:.1f}",
            f"{1000 * t_roles / n:.1f}", f"{1000 * t_md / n:.2f}",
            f"{found / lines:.3f}" if lines else "-"]


def main() -> None:
    """Measure and print a Markdown table."""
    from corpuscrawl.evaluation.tables import markdown_table

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=60)
    parser.add_argument("-e", dest="extractors", action="append")
    args = parser.parse_args()
    pages = sample_pages(args.datasets, DATASETS_DEFAULT, args.sample)
    rows = [measure(e, pages) for e in args.extractors or ["auto", "bte", "justext"]]
    print("\n".join(markdown_table(
        ["extractor", "pages", "texts differ", "extraction ms/page", "roles ms/page",
         "markdown ms/page", "lines with a role other than paragraph"], rows, right_from=1)))


if __name__ == "__main__":
    main()
