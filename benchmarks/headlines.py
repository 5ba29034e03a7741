"""Headlines, ledes, titles and figure sentences through the export stage, by arrival order.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/headlines.py
    PYTHONPATH=OTHER_CHECKOUT .venv/bin/python benchmarks/headlines.py   # the code before

The synthetic news site of ``tests/figures_site.py`` (front page, four section
pages listing the stories with their ledes, stories whose "related" lists and
listings repeat other stories' headlines, formulaic sentences shared by two or
three stories with other figures, notices with changing years) with 40 and 500
stories.  Every page is extracted as a crawl does (:class:`corpuscrawl.pagetext.extraction.Extraction`,
``auto`` and ``bte``) and submitted to an :class:`~corpuscrawl.export.stage.ExportStage`
with the default settings (SQLite history in memory, near-duplicate index) in three
orders: the site's (listings first), reversed (stories first) and a seeded shuffle.
Counted per run: stories exported without their headline as first line, without
their lede, with a title other than their headline, figure sentences lost,
documents with a notice left, documents under 15 words, and other documents
(listings) exported.  Uses only APIs older checkouts have, so the same script
measures the code before a change.

The same for the evening paper of ``tests/reports_site.py`` (36 stories; three report
sentences each in 40-60 % of them with other figures, headlines in an ``<h3>``, two
titles in three only the paper's name): "figure sentences" are its report sentences.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from corpuscrawl.boilerplate.detector import Detector, DetectorConfig
from corpuscrawl.boilerplate.sqlite_history import SQLiteHistory
from corpuscrawl.export.dedup import NearDuplicateIndex
from corpuscrawl.export.stage import ExportStage
from corpuscrawl.html.page import Page
from corpuscrawl.items import Document
from corpuscrawl.pagetext.extraction import Extraction, ExtractionConfig

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests import reports_site  # noqa: E402
from tests.figures_site import FIGURE_TEMPLATES, NOTICES, make_stories, site_files  # noqa: E402

HOST = "http://figures.example"


def figure_sentences(stories) -> list[tuple[str, str]]:
    """(slug, sentence) of every formulaic sentence of ``stories``."""
    starts = tuple(t.split("{")[0] for t in FIGURE_TEMPLATES)
    return [(s.slug, p) for s in stories for p in s.paragraphs if p.startswith(starts)]


def run(docs: list[Document], stories, order: str,
        sentences: list[tuple[str, str]] | None = None,
        notices: tuple[str, ...] = NOTICES) -> list[str]:
    """One row of counts for ``docs`` submitted in ``order`` (``sentences``: the figure
    sentences, those of tests/figures_site.py when None)."""
    if order == "reversed":
        docs = docs[::-1]
    elif order == "shuffled":
        docs = random.Random(5).sample(docs, len(docs))
    with SQLiteHistory(":memory:") as history:
        stage = ExportStage(Detector(history, DetectorConfig()), NearDuplicateIndex())
        outcomes = [o for d in docs for o in stage.submit(d)] + stage.flush()
    exported = {o.document.url: o.document for o in outcomes if o.exported}
    by_url = {f"{HOST}/{s.slug}": s for s in stories}
    texts = {u: exported[u].text if u in exported else "" for u in by_url}
    sentences = figure_sentences(stories) if sentences is None else sentences
    return [
        str(sum(u not in exported for u in by_url)),
        str(sum(texts[u].split("\n")[0] != s.headline for u, s in by_url.items())),
        str(sum(s.paragraphs[0] not in texts[u] for u, s in by_url.items())),
        str(sum(exported[u].title != s.headline for u, s in by_url.items() if u in exported)),
        f"{sum(s not in texts[f'{HOST}/{slug}'] for slug, s in sentences)} of {len(sentences)}",
        str(sum(any(n in d.text for n in notices) for d in exported.values())),
        str(sum(len(d.text.split()) < 15 for d in exported.values())),
        str(len(exported) - sum(u in exported for u in by_url)),
    ]


def main() -> int:
    code = Path(sys.modules["corpuscrawl"].__file__).parent
    print(f"# headlines by arrival order\n\ncode: `{code}`\n")
    header = ["stories", "extractor", "order", "stories not exported", "without headline",
              "without lede", "another title", "figure sentences lost", "notices left",
              "documents < 15 words", "other documents exported"]
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    sites = [(str(count), make_stories(count), None, NOTICES) for count in (40, 500)]
    sites.append(("reports (36)", reports_site.ALL_STORIES, reports_site.REPORT_SENTENCES,
                  (*reports_site.NOTICES, "©")))
    for label, stories, sentences, notices in sites:
        files = site_files(stories) if sentences is None else reports_site.site_files()
        for name in ("auto", "bte"):
            extraction = Extraction(ExtractionConfig(default_extractor=name))
            docs = []
            for path, html in files.items():
                result = extraction.run(Page.from_html(html, url=HOST + path))
                docs.append(Document(url=HOST + path, domain="figures.example",
                                     title=result.title, text=result.text))
            for order in ("site", "reversed", "shuffled"):
                row = run(docs, stories, order, sentences, notices)
                print("| " + " | ".join([label, name, order, *row]) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
