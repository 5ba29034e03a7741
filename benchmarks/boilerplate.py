"""Measure the export stage: F1 change of every extractor, thresholds, overhead, dedup, prior.

    .venv/bin/python benchmarks/boilerplate.py                    # everything
    .venv/bin/python benchmarks/boilerplate.py --extractors bte,justext --sections f1,overhead
    PYTHONPATH=OTHER_CHECKOUT .venv/bin/python benchmarks/boilerplate.py --sections overhead

The code measured is the ``corpuscrawl`` Python imports: run from the repository
root with ``PYTHONPATH=$PWD`` (or an installed package), or with another checkout on
``PYTHONPATH`` to time it side by side.

What it does (results: benchmarks/results/boilerplate.md):

1. **Domains that repeat.**  Documents of the benchmark datasets are grouped
   by domain — the manifest URL, else the page's ``<link rel=canonical>`` /
   ``og:url`` (dragnet and readability have no URLs in their manifests) — and
   only domains with at least two documents are kept.
2. **F1 change.**  Every registered extractor that builds without options runs
   once per page (outputs cached in ``--cache``).  Each domain's outputs go
   through an :class:`~corpuscrawl.export.stage.ExportStage` (fresh
   in-memory history per configuration, documents in id order, flush at the
   end, near-duplicate check off so that only boilerplate removal is measured);
   a dropped document scores as an empty extraction.  Scores are summed word
   LCS P/R/F1 (:mod:`corpuscrawl.evaluation.metrics`).  The history uses no
   gold text, so all of a domain's pages feed it; thresholds are *chosen* on
   the train part of :func:`corpuscrawl.evaluation.datasets.split` and
   reported on both parts.
3. **Threshold grid** over min_documents × min_fraction × prior on/off, and a
   warm-up sweep (how many documents to hold) on the same data and on the
   synthetic 50-page domain of ``tests/boilerplate_site.py``.
4. **Overhead** per document of the whole export path (stage with a SQLite
   file history + near-duplicate index + JSON Lines exporter) against the
   extraction time of the same pages — ``bte`` (parse included) and the
   crawl's ``Extraction.run`` — interleaved per page in one process; a
   per-step breakdown; the cost of the SQLite commit interval.
5. **Near-duplicates**: estimated Jaccard of distinct gold texts of one domain
   (false positives at the threshold) and of lightly edited copies.
6. **Prior**: gold paragraphs the built-in prior would remove, over every gold
   text of every dataset.
7. **Prose rule** (``--sections prose``): the flush-only grid of the thresholds
   for sentences of prose (``prose_words`` × ``prose_min_documents`` ×
   ``prose_min_fraction``, the page's own title kept or not) on the benchmark
   domains, and the real stage on the 40-story site of ``tests/figures_site.py``
   (stories sharing sentences that differ only in figures, notices with
   changing years), in the site's order and reversed: figure sentences lost,
   stories that lost their headline or lede, notices left.
8. **Figures rule** (``--sections figrule,reports``): the real stage on the
   benchmark domains with each ``figures_words`` × ``figures_flow`` (mean ΔF1, and
   the lines each keeps that the rule off removes, mostly in the gold text or not),
   and on the evening paper of ``tests/reports_site.py`` (report sentences in
   40-60 % of the stories with other figures; notices with a changing year): report
   sentences lost, documents with a notice left.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import hashlib
import io
import json
import random
import shlex
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from corpuscrawl.boilerplate.detector import Detector, DetectorConfig
from corpuscrawl.boilerplate.normalize import split_paragraphs
from corpuscrawl.boilerplate.patterns import notice_kind
from corpuscrawl.boilerplate.sqlite_history import SQLiteHistory
from corpuscrawl.evaluation.datasets import Dataset, datasets_root
from corpuscrawl.evaluation.domains import Doc, repeated_domains
from corpuscrawl.evaluation.metrics import score
from corpuscrawl.evaluation.names import GOLD_DATASETS
from corpuscrawl.evaluation.tables import markdown_table
from corpuscrawl.export.dedup import MinHasher, NearDuplicateIndex
from corpuscrawl.export.scrapy_glue.exporters import CorpusJsonLinesExporter
from corpuscrawl.export.stage import ExportStage
from corpuscrawl.extract import get_extractor, names
from corpuscrawl.html.page import Page
from corpuscrawl.items import Document


def buildable_extractors(wanted: list[str] | None) -> dict[str, object]:
    out = {}
    for name in wanted or names():
        try:
            out[name] = get_extractor(name)
        except Exception as exc:  # noqa: BLE001 - report and skip extractors needing options
            print(f"<!-- skipped extractor {name}: {exc} -->", file=sys.stderr)
    return out


def extract_all(docs: list[Doc], extractors: dict, cache: Path) -> dict[str, dict[str, str]]:
    """extractor -> doc key -> text (cached on disk per extractor)."""
    out: dict[str, dict[str, str]] = {}
    cache.mkdir(parents=True, exist_ok=True)
    pages: dict[str, Page] = {}
    for name, extractor in extractors.items():
        path = cache / f"{name}.json"
        texts = json.loads(path.read_text()) if path.exists() else {}
        missing = [d for d in docs if d.key not in texts]
        for d in missing:
            page = pages.get(d.key) or Page.from_file(d.path, url=d.url)
            pages[d.key] = page
            try:
                texts[d.key] = extractor.extract(page)
            except Exception:  # noqa: BLE001 - a failing page counts as an empty answer
                texts[d.key] = ""
        if missing:
            path.write_text(json.dumps(texts))
        out[name] = texts
    return out


class Scorer:
    """Word-LCS scores with a cache keyed by (doc, text hash)."""

    def __init__(self, docs: list[Doc]) -> None:
        self.gold = {d.key: d.gold for d in docs}
        self._cache: dict[tuple[str, str], tuple[int, int, int]] = {}

    def counts(self, key: str, text: str) -> tuple[int, int, int]:
        h = hashlib.sha1(text.encode()).hexdigest()
        if (key, h) not in self._cache:
            s = score(text, self.gold[key], with_levenshtein=False)
            self._cache[(key, h)] = (s.tp, s.fp, s.fn)
        return self._cache[(key, h)]

    def f1(self, texts: dict[str, str], keys: list[str]) -> float:
        tp = fp = fn = 0
        for k in keys:
            a, b, c = self.counts(k, texts[k])
            tp, fp, fn = tp + a, fp + b, fn + c
        return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0


def clean_all(docs: list[Doc], texts: dict[str, str], config: DetectorConfig) -> dict[str, str]:
    """Cleaned text per doc after the stage ran over each domain ("" when dropped)."""
    groups: dict[tuple[str, str], list[Doc]] = defaultdict(list)
    for d in docs:
        groups[(d.dataset, d.domain)].append(d)
    out: dict[str, str] = {}
    for group in groups.values():
        with SQLiteHistory(":memory:") as history:
            stage = ExportStage(Detector(history, config), None, buffer_size=10_000)
            outcomes = []
            for d in group:
                outcomes += stage.submit(Document(url=d.key, domain=d.domain,
                                                  text=texts[d.key]))
            outcomes += stage.flush()
        by_url = {o.document.url: o for o in outcomes}
        for d in group:
            o = by_url.get(d.key)
            out[d.key] = o.document.text if o is not None and o.exported else ""
    return out


def table(rows: list[list[str]], header: list[str]) -> str:
    """One Markdown table (:func:`corpuscrawl.evaluation.tables.markdown_table`)."""
    return "\n".join(markdown_table(header, rows))


def f1_section(docs, outputs, scorer, config: DetectorConfig) -> str:
    train = [d.key for d in docs if not d.test]
    test = [d.key for d in docs if d.test]
    rows = []
    for name, texts in outputs.items():
        cleaned = clean_all(docs, texts, config)
        row = [name]
        for keys in (train, test, train + test):
            before, after = scorer.f1(texts, keys), scorer.f1(cleaned, keys)
            row += [f"{before:.4f}", f"{after:.4f}", f"{after - before:+.4f}"]
        changed = sum(texts[k] != cleaned[k] for k in train + test)
        row.append(str(changed))
        rows.append(row)
    header = ["extractor", "train F1", "cleaned", "Δ", "test F1", "cleaned", "Δ",
              "all F1", "cleaned", "Δ", "docs changed"]
    return table(rows, header)


def domain_counts(docs: list[Doc], texts: dict[str, str]):
    """Per domain: each document's paragraphs, and in how many documents each fingerprint is."""
    groups: dict[tuple[str, str], list[Doc]] = defaultdict(list)
    for d in docs:
        groups[(d.dataset, d.domain)].append(d)
    for group in groups.values():
        paragraphs = {d.key: split_paragraphs(texts[d.key]) for d in group}
        counts: dict[int, int] = defaultdict(int)
        for ps in paragraphs.values():
            for fp in {p.fingerprint for p in ps}:
                counts[fp] += 1
        yield paragraphs, counts


def evidence(docs: list[Doc], texts: dict[str, str]) -> dict[str, list[tuple[str, int, int, bool]]]:
    """Per document: (paragraph, documents of the domain containing it, domain size, prior).

    What a flush-only stage sees at the end of the crawl: every document of the
    domain observed, each judged with all of them.  Thresholds are then a cheap
    filter, so the grid needs no stage runs (checked against the stage below:
    the row of the defaults equals the flush-only warm-up row).
    """
    out: dict[str, list[tuple[str, int, int, bool]]] = {}
    for paragraphs, counts in domain_counts(docs, texts):
        total = len(paragraphs)
        for key, ps in paragraphs.items():
            out[key] = [(p.text, counts[p.fingerprint], total, notice_kind(p.text) is not None)
                        for p in ps]
    return out


def clean_with(ev: dict[str, list[tuple[str, int, int, bool]]], min_docs: int, frac: float,
               patterns: bool) -> dict[str, str]:
    """Texts after removing what the thresholds flag (flush-only evidence)."""
    return {key: "\n".join(t for t, n, total, notice in ps
                           if not ((n >= min_docs and n >= frac * total) or (patterns and notice)))
            for key, ps in ev.items()}


def grid_section(docs, outputs, scorer) -> tuple[str, tuple]:
    train = [d.key for d in docs if not d.test]
    test = [d.key for d in docs if d.test]
    evs = {name: evidence(docs, texts) for name, texts in outputs.items()}
    rows, best, best_gain = [], None, -1.0
    for patterns in (True, False):
        for min_docs in (2, 3, 4, 5, 8):
            for frac in (0.0, 0.1, 0.2, 0.3, 0.5):
                gains_train, gains_test = [], []
                for name, texts in outputs.items():
                    cleaned = clean_with(evs[name], min_docs, frac, patterns)
                    gains_train.append(scorer.f1(cleaned, train) - scorer.f1(texts, train))
                    gains_test.append(scorer.f1(cleaned, test) - scorer.f1(texts, test))
                mean_train = statistics.mean(gains_train)
                rows.append([str(patterns), str(min_docs), f"{frac:.1f}",
                             f"{mean_train:+.4f}", f"{min(gains_train):+.4f}",
                             f"{statistics.mean(gains_test):+.4f}"])
                if mean_train > best_gain + 1e-9:
                    best, best_gain = (patterns, min_docs, frac), mean_train
    header = ["prior", "min_documents", "min_fraction", "mean ΔF1 train",
              "worst extractor ΔF1 train", "mean ΔF1 test"]
    return table(rows, header), best


def warm_section(docs, outputs, scorer, base: DetectorConfig) -> str:
    keys = [d.key for d in docs]
    rows = []
    for warm in (1, 3, 5, 10, 20, 10_000):
        cfg = DetectorConfig(base.min_documents, base.min_fraction, warm, base.use_patterns)
        gains = [scorer.f1(clean_all(docs, t, cfg), keys) - scorer.f1(t, keys)
                 for t in outputs.values()]
        rows.append([str(warm) if warm < 10_000 else "∞ (flush only)",
                     f"{statistics.mean(gains):+.4f}"])
    return table(rows, ["warm_documents", "mean ΔF1 all (every extractor)"])


def synthetic_section(base: DetectorConfig) -> str:
    from tests.boilerplate_site import ALL_ARTICLES, NOTICE, SHARE_PROMPTS, article_html

    bte = get_extractor("bte")
    texts = [bte.extract(Page.from_html(article_html(a), url=f"http://s.example/{a.slug}"))
             for a in ALL_ARTICLES]
    rows = []
    for warm in (1, 5, 8, 10, 12, 15, 20):
        cfg = DetectorConfig(base.min_documents, base.min_fraction, warm, base.use_patterns)
        with SQLiteHistory(":memory:") as history:
            stage = ExportStage(Detector(history, cfg), None)
            outs = []
            for a, t in zip(ALL_ARTICLES, texts, strict=True):
                outs += stage.submit(Document(url=f"http://s.example/{a.slug}",
                                              domain="s.example", text=t))
            outs += stage.flush()
        notices = sum("Daily Example Media Group" in o.document.text for o in outs)
        shares = sum(any(p in o.document.text for p in SHARE_PROMPTS) for o in outs)
        lost = sum(not all(p in o.document.text for p in a.paragraphs)
                   for o, a in zip(outs, ALL_ARTICLES, strict=True))
        rows.append([str(warm), str(notices), str(shares), str(lost)])
    _ = NOTICE
    return table(rows, ["warm_documents", "docs with notice left", "docs with share prompt left",
                        "articles damaged"])


# --- the prose rule -------------------------------------------------------------------

#: Rows of the prose grid: (prose_words, prose_min_documents, prose_min_fraction); the
#: first is the rule before (prose judged as any paragraph).
PROSE_GRID = [(10_000, 2, 0.05)] + [(w, m, f) for w in (3, 4, 6, 8, 12, 20) for m in (2, 3, 4)
                                    for f in (0.05, 0.1, 0.2, 0.3)]


def titles_of(docs: list[Doc]) -> dict[str, str]:
    """The crawl's title of every page (:func:`corpuscrawl.extract.meta.metadata`)."""
    from corpuscrawl.extract.meta.metadata import extract_metadata
    from corpuscrawl.html.text import normalize_line, normalize_text

    out = {}
    for d in docs:
        try:
            title = extract_metadata(Page.from_file(d.path, url=d.url)).title
        except Exception:  # noqa: BLE001 - no title
            title = ""
        out[d.key] = normalize_line(normalize_text(title))
    return out


def prose_evidence(docs: list[Doc], texts: dict[str, str], titles: dict[str, str]
                   ) -> dict[str, list[tuple[str, int, int, bool, int, bool, bool]]]:
    """Per document, per paragraph: (text, documents with it, domain size, prior, words,
    sentence ending, equal to the page's title) -- flush-only, as :func:`evidence`."""
    from corpuscrawl.boilerplate.detector import is_prose
    from corpuscrawl.boilerplate.normalize import Paragraph

    out = {}
    for paragraphs, counts in domain_counts(docs, texts):
        for key, ps in paragraphs.items():
            own = Paragraph.of(titles[key]).fingerprint if titles.get(key) else None
            out[key] = [(p.text, counts[p.fingerprint], len(paragraphs),
                         notice_kind(p.text) is not None,
                         p.words, is_prose(p, 1), p.fingerprint == own) for p in ps]
    return out


def clean_prose(ev, words: int, min_docs: int, frac: float, keep_title: bool) -> dict[str, str]:
    """Texts after the default rule with the prose thresholds (flush-only evidence)."""
    base = DetectorConfig()
    out = {}
    for key, ps in ev.items():
        kept = []
        for text, n, total, notice, w, sentence, own in ps:
            floor = max(base.min_documents, base.min_fraction * total)
            if sentence and w >= words:
                floor = max(floor, min_docs, frac * total)
            if (keep_title and own) or not (notice or n >= floor):
                kept.append(text)
        out[key] = "\n".join(kept)
    return out


def prose_grid_section(docs, outputs, scorer) -> str:
    train = [d.key for d in docs if not d.test]
    test = [d.key for d in docs if d.test]
    titles = titles_of(docs)
    evs = {name: prose_evidence(docs, texts, titles) for name, texts in outputs.items()}
    rows = []
    for keep_title in (False, True):
        for words, min_docs, frac in PROSE_GRID:
            gains_train, gains_test, worst = [], [], []
            for name, texts in outputs.items():
                cleaned = clean_prose(evs[name], words, min_docs, frac, keep_title)
                gains_train.append(scorer.f1(cleaned, train) - scorer.f1(texts, train))
                gains_test.append(scorer.f1(cleaned, test) - scorer.f1(texts, test))
                worst.append((gains_train[-1], name))
            rows.append([str(keep_title), "∞ (before)" if words >= 10_000 else str(words),
                         str(min_docs), f"{frac:.2f}", f"{statistics.mean(gains_train):+.4f}",
                         f"{min(worst)[0]:+.4f} ({min(worst)[1]})",
                         f"{statistics.mean(gains_test):+.4f}",
                         f"{gains_train[list(outputs).index('auto')]:+.4f}"
                         if "auto" in outputs else "-"])
    return table(rows, ["title kept", "prose_words", "prose_min_documents",
                        "prose_min_fraction", "mean ΔF1 train", "worst extractor ΔF1 train",
                        "mean ΔF1 test", "auto ΔF1 train"])


def figures_site_rows(configs: list[tuple[str, DetectorConfig]],
                      extractor_names: tuple[str, ...] = ("bte", "auto")) -> str:
    """The real stage on tests/figures_site.py, pages in the site's order and reversed."""
    from corpuscrawl.pagetext.extraction import Extraction, ExtractionConfig
    from tests.figures_site import ALL_STORIES, FIGURE_SENTENCES, NOTICES, site_files

    files = site_files()
    rows = []
    for extractor in extractor_names:
        extraction = Extraction(ExtractionConfig(default_extractor=extractor))
        docs = []
        for path, html in files.items():
            result = extraction.run(Page.from_html(html, url=f"http://figures.example{path}"))
            docs.append(Document(url=f"http://figures.example{path}", domain="figures.example",
                                 title=result.title, text=result.text))
        stories = {f"http://figures.example/{s.slug}": s for s in ALL_STORIES}
        for label, config in configs:
            for order in ("site", "reversed"):
                with SQLiteHistory(":memory:") as history:
                    stage = ExportStage(Detector(history, config), NearDuplicateIndex())
                    outs = []
                    for d in (docs if order == "site" else docs[::-1]):
                        outs += stage.submit(d)
                    outs += stage.flush()
                exported = {o.document.url: o.document for o in outs if o.exported}
                lost = sum(sentence not in exported.get(f"http://figures.example/{slug}",
                                                        Document()).text
                           for slug, sentence in FIGURE_SENTENCES)
                texts = {u: exported[u].text if u in exported else "" for u in stories}
                headlines = sum(s.headline not in texts[u].split("\n") for u, s in stories.items())
                ledes = sum(s.paragraphs[0] not in texts[u] for u, s in stories.items())
                titles = sum(exported[u].title != s.headline for u, s in stories.items()
                             if u in exported)
                notices = sum(any(n in d.text for n in NOTICES) for d in exported.values())
                others = len(exported) - sum(u in exported for u in stories)
                rows.append([extractor, label, order, f"{lost} of {len(FIGURE_SENTENCES)}",
                             str(headlines), str(ledes), str(titles), str(notices),
                             str(others)])
    return table(rows, ["extractor", "rule", "order", "figure sentences lost",
                        "stories without headline", "stories without lede",
                        "stories with another title", "documents with a notice left",
                        "other documents exported"])


#: Rows of the figures grid: (figures_words, figures_flow); the first is the rule off.
FIGURES_GRID = [(0, "either")] + [(w, f) for w in (6, 10, 15) for f in ("both", "either", "any")]


def _in_gold(line: str, gold_words: set[str]) -> bool:
    """Most (80 %) of a line's words are words of the gold text."""
    words = line.lower().split()
    return bool(words) and sum(w in gold_words for w in words) >= 0.8 * len(words)


def figures_grid_section(docs, outputs, scorer) -> str:
    """The real stage (flush-only, as the F1 section) with each figures rule: mean ΔF1 over
    the extractors against the rule off, and the lines the rule keeps that the rule off
    removes, mostly in the gold text or not."""
    train = [d.key for d in docs if not d.test]
    test = [d.key for d in docs if d.test]
    gold_words = {d.key: set(d.gold.lower().split()) for d in docs}
    base = DetectorConfig()
    off = {name: clean_all(docs, texts, dataclasses.replace(base, figures_words=0))
           for name, texts in outputs.items()}
    rows = []
    for words, flow in FIGURES_GRID:
        config = dataclasses.replace(base, figures_words=words, figures_flow=flow)
        gains_train, gains_test, worst = [], [], []
        in_gold = not_in_gold = 0
        for name, texts in outputs.items():
            cleaned = off[name] if not words else clean_all(docs, texts, config)
            gains_train.append(scorer.f1(cleaned, train) - scorer.f1(texts, train))
            gains_test.append(scorer.f1(cleaned, test) - scorer.f1(texts, test))
            worst.append((gains_train[-1], name))
            for key, text in cleaned.items():
                before = set(off[name][key].split("\n"))
                for line in text.split("\n"):
                    if line and line not in before:
                        if _in_gold(line, gold_words[key]):
                            in_gold += 1
                        else:
                            not_in_gold += 1
        rows.append(["off" if not words else str(words), flow if words else "-",
                     f"{statistics.mean(gains_train):+.4f}",
                     f"{min(worst)[0]:+.4f} ({min(worst)[1]})",
                     f"{statistics.mean(gains_test):+.4f}", str(in_gold), str(not_in_gold)])
    return table(rows, ["figures_words", "figures_flow", "mean ΔF1 train",
                        "worst extractor ΔF1 train", "mean ΔF1 test",
                        "lines kept, in gold", "lines kept, not in gold"])


def reports_site_rows(configs: list[tuple[str, DetectorConfig]],
                      extractor_names: tuple[str, ...] = ("auto", "bte")) -> str:
    """The real stage on tests/reports_site.py (report sentences in 40-60 % of the stories
    with other figures), pages in the site's order and reversed: sentences lost and
    documents with a notice left, per figures rule."""
    from corpuscrawl.pagetext.extraction import Extraction, ExtractionConfig
    from tests.reports_site import NOTICES, REPORT_SENTENCES, site_files

    host = "http://reports.example"
    rows = []
    for extractor in extractor_names:
        extraction = Extraction(ExtractionConfig(default_extractor=extractor))
        docs = []
        for path, html in site_files().items():
            result = extraction.run(Page.from_html(html, url=host + path))
            docs.append(Document(url=host + path, domain="reports.example",
                                 title=result.title, text=result.text))
        for label, config in configs:
            for order in ("site", "reversed"):
                with SQLiteHistory(":memory:") as history:
                    stage = ExportStage(Detector(history, config), NearDuplicateIndex())
                    outs = [o for d in (docs if order == "site" else docs[::-1])
                            for o in stage.submit(d)] + stage.flush()
                exported = {o.document.url: o.document.text for o in outs if o.exported}
                lost = sum(s not in exported.get(f"{host}/{slug}", "")
                           for slug, s in REPORT_SENTENCES)
                notices = sum(any(n in t for n in (*NOTICES, "©")) for t in exported.values())
                rows.append([extractor, label, order, f"{lost} of {len(REPORT_SENTENCES)}",
                             str(notices)])
    return table(rows, ["extractor", "rule", "order", "report sentences lost",
                        "documents with a notice left"])


def cpu_section(docs: list[Doc], texts: dict[str, str], rounds: int = 5) -> str:
    """CPU time (``time.process_time``, less sensitive to a loaded machine than wall time)
    of the whole stage per document over cached outputs: submit every document (SQLite file
    history, near-duplicate index), flush, close; best of ``rounds``.  Documents carry no
    title (older checkouts have no use for one), so this is the stage's cost without the
    own-headline fingerprint (one paragraph fold per document)."""
    import tempfile as _tempfile

    times = []
    for _ in range(rounds):
        with _tempfile.TemporaryDirectory() as tmp:
            history = SQLiteHistory(Path(tmp) / "h.sqlite3")
            stage = ExportStage(Detector(history), NearDuplicateIndex())
            items = [Document(url=d.url or f"http://{d.domain}/{d.id}", domain=d.domain,
                              text=texts[d.key]) for d in docs]
            t0 = time.process_time()
            for item in items:
                stage.submit(item)
            stage.flush()
            history.close()
            times.append((time.process_time() - t0) / len(items) * 1000)
    return (f"stage CPU ms per document, {len(docs)} documents, {rounds} rounds: "
            + " ".join(f"{t:.3f}" for t in times) + f"; best {min(times):.3f}")


def overhead_section(docs: list[Doc], limit: int, rounds: int = 3,
                     order: str = "cleaning-first") -> str:
    """Extraction and export timed per document, interleaved, so machine load hits both alike.

    Two baselines: ``bte`` alone (page parse + extract) and what the crawl does per
    page (:class:`corpuscrawl.pagetext.extraction.Extraction`: parse, extractor, title,
    metadata, language).  The export is timed with and without the stage.
    ``order="alternate"`` runs the plain export first on every other page: the
    first export after an extraction pays for work the extraction left behind
    (glibc consolidating the small blocks it freed, on the first large
    allocation; measured ~0.05 ms per page), which ``"cleaning-first"`` (the
    order of all figures until 2026-11-22 13:00) charges to the cleaning export.
    ``order="each-after-extraction"`` is the crawl's own situation: each export
    runs right after an extraction (bte's, then the crawl's; which export follows
    which alternates by page), as the one export of a crawl with or without the
    stage does, so neither runs on the caches the other has just warmed.
    """
    from corpuscrawl.pagetext.extraction import Extraction

    bte = get_extractor("bte")
    extraction = Extraction()
    sample = docs[:limit]
    raw = {}
    for d in sample:
        data = d.path.read_bytes()
        raw[d.key] = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    rows = []
    for _ in range(rounds):
        t_bte = t_run = t_export = t_plain = 0.0
        with tempfile.TemporaryDirectory() as tmp:
            history = SQLiteHistory(Path(tmp) / "h.sqlite3")
            stage = ExportStage(Detector(history), NearDuplicateIndex())
            exporter = CorpusJsonLinesExporter(io.BytesIO(), stage=stage)
            plain = CorpusJsonLinesExporter(io.BytesIO())
            exporter.start_exporting()
            plain.start_exporting()
            for i, d in enumerate(sample):
                first, second = ((plain, exporter) if order != "cleaning-first" and i % 2
                                 else (exporter, plain))
                t0 = time.perf_counter()
                text = bte.extract(Page.from_html(raw[d.key], url=d.url))
                t1 = time.perf_counter()
                doc = Document(url=d.url or d.key, domain=d.domain, text=text)
                if order == "each-after-extraction":  # bte, export, crawl extraction, export
                    first.export_item(doc)
                    t2 = time.perf_counter()
                    extraction.run(Page.from_html(raw[d.key],
                                                  url=d.url or f"http://{d.domain}/"))
                    t3 = time.perf_counter()
                    second.export_item(doc)
                    t4 = time.perf_counter()
                    t_one, run_time, t_two = t2 - t1, t3 - t2, t4 - t3
                else:  # bte, crawl extraction, both exports
                    extraction.run(Page.from_html(raw[d.key],
                                                  url=d.url or f"http://{d.domain}/"))
                    t2 = time.perf_counter()
                    first.export_item(doc)
                    t3 = time.perf_counter()
                    second.export_item(doc)
                    t4 = time.perf_counter()
                    run_time, t_one, t_two = t2 - t1, t3 - t2, t4 - t3
                t_bte, t_run = t_bte + t1 - t0, t_run + run_time
                cleaning, plain_time = (t_two, t_one) if first is plain else (t_one, t_two)
                t_export, t_plain = t_export + cleaning, t_plain + plain_time
            t0 = time.perf_counter()
            exporter.finish_exporting()
            history.close()
            t_export += time.perf_counter() - t0
        n = len(sample)
        extra = t_export - t_plain
        rows.append([str(n), f"{1000 * t_bte / n:.2f}", f"{1000 * t_run / n:.2f}",
                     f"{1000 * t_export / n:.2f}", f"{1000 * t_plain / n:.2f}",
                     f"{100 * extra / t_bte:.1f} %", f"{100 * extra / t_run:.1f} %"])
    return table(rows, ["documents", "bte ms/doc (parse incl.)",
                        "crawl extraction ms/doc (Extraction.run)",
                        "cleaning JSONL export ms/doc", "plain JSONL export ms/doc",
                        "added / bte", "added / crawl extraction"])


def breakdown_section(docs: list[Doc], texts: dict[str, str], limit: int = 400) -> str:
    """Time of each step of the stage, called one after another on the same bte outputs."""
    sample = docs[:limit]
    steps: dict[str, float] = defaultdict(float)
    with tempfile.TemporaryDirectory() as tmp:
        history = SQLiteHistory(Path(tmp) / "h.sqlite3")
        detector = Detector(history)
        index = NearDuplicateIndex()
        for i, d in enumerate(sample):
            t0 = time.perf_counter()
            paragraphs = split_paragraphs(texts[d.key])
            t1 = time.perf_counter()
            notices = detector.notices(paragraphs)
            t2 = time.perf_counter()
            # as ExportStage does it: the normalized words of the paragraphs the prior keeps
            kept = [p.normalized for p, n in zip(paragraphs, notices, strict=True)
                    if n is None and p.normalized]
            index.add(d.key, " ".join(kept), spaced=True)
            t3 = time.perf_counter()
            # as ExportStage does it: the count read while counting serves the look-up
            count, stats = detector.record(d.domain, i, paragraphs)
            if stats is None:  # cold domain: the stage holds it and looks it up later
                stats = detector.boilerplate_stats(
                    d.domain, (p.fingerprint for p in paragraphs), count)
            t4 = time.perf_counter()
            detector.clean_paragraphs(d.domain, paragraphs, notices, stats, count)
            t5 = time.perf_counter()
            for name, dt in (("split + normalize + fingerprint", t1 - t0),
                             ("prior (notice patterns)", t2 - t1),
                             ("near-duplicate signature + LSH", t3 - t2),
                             ("history: count (SQLite upsert) + look up repeated", t4 - t3),
                             ("judge + rebuild text", t5 - t4)):
                steps[name] += dt
        history.close()
    n = len(sample)
    return table([[name, f"{1000 * t / n:.3f}"] for name, t in steps.items()],
                 ["step", "ms/doc"])


def commit_section(docs: list[Doc], outputs_bte: dict[str, str], limit: int = 400) -> str:
    """Time of recording documents in a SQLite history file per commit interval."""
    rows = []
    paragraphs = [(d, split_paragraphs(outputs_bte[d.key])) for d in docs[:limit]]
    for every in (1, 10, 100, 1000):
        with tempfile.TemporaryDirectory() as tmp:
            history = SQLiteHistory(Path(tmp) / "h.sqlite3", commit_every=every)
            detector = Detector(history)
            t0 = time.perf_counter()
            for i, (d, ps) in enumerate(paragraphs):
                detector.record(d.domain, i, ps)  # as the stage: count + look up when warm
            history.close()
            elapsed = time.perf_counter() - t0
        rows.append([str(every), f"{1000 * elapsed / len(paragraphs):.3f}"])
    return table(rows, ["commit every N documents", "record ms/doc (bte paragraphs)"])


def dedup_section(docs: list[Doc]) -> str:
    hasher = MinHasher()
    groups: dict[str, list[Doc]] = defaultdict(list)
    for d in docs:
        groups[f"{d.dataset}/{d.domain}"].append(d)
    sims = []
    for group in groups.values():
        sigs = [hasher.signature(d.gold) for d in group if d.gold.strip()]
        for i in range(len(sigs)):
            for j in range(i + 1, len(sigs)):
                sims.append(MinHasher.similarity(sigs[i], sigs[j]))
    sims.sort()
    rng = random.Random(0)
    detected = {0.02: 0, 0.05: 0, 0.1: 0, 0.2: 0}
    eligible = [d for d in docs if len(d.gold.split()) >= 100]
    for fraction in detected:
        index_hits = 0
        for d in eligible:
            words = d.gold.split()
            k = int(len(words) * fraction)
            start = rng.randrange(0, len(words) - k)
            edited = " ".join(words[:start] + ["edited"] * k + words[start + k:])
            index = NearDuplicateIndex()
            index.add("orig", d.gold)
            index_hits += index.add("copy", edited) == "orig"
        detected[fraction] = index_hits
    above = sum(s >= 0.8 for s in sims)
    lines = [f"- pairs of distinct gold texts within one domain: {len(sims)}; "
             f"estimated Jaccard ≥ 0.8: {above} "
             f"(max {sims[-1]:.3f}, 99th percentile {sims[int(0.99 * (len(sims) - 1))]:.3f})"
             if sims else "- no pairs"]
    for fraction, hits in detected.items():
        lines.append(f"- copy with one run of {fraction:.0%} of the words replaced: detected "
                     f"{hits}/{len(eligible)} (gold texts ≥ 100 words)")
    return "\n".join(lines)


def prior_section(root: Path, docs: list[Doc], outputs: dict[str, dict[str, str]] | None
                  ) -> str:
    """Gold lines the prior flags (false positives) and extracted lines it flags, per limit."""
    gold_lines = []
    for name in GOLD_DATASETS:
        ds = Dataset(root / name)
        for doc_id in ds.ids():
            gold_lines += [(name, doc_id, line.strip())
                           for line in (ds.gold(doc_id) or "").splitlines() if line.strip()]
    lines = [f"- gold paragraphs (lines) of every gold dataset: {len(gold_lines)}"]
    for limit in (20, 40, 60, 100):
        flagged = sum(notice_kind(t, limit) is not None for _, _, t in gold_lines)
        extracted = ""
        if outputs:
            gold_words = {d.key: set(d.gold.split()) for d in docs}
            hits = not_gold = 0
            for texts in outputs.values():
                for key, text in texts.items():
                    for line in text.splitlines():
                        if line.strip() and notice_kind(line, limit):
                            hits += 1
                            words = line.split()
                            # a line is "not gold" when most of its words are missing from gold
                            if sum(w in gold_words[key] for w in words) < len(words) / 2:
                                not_gold += 1
            extracted = (f"; extracted lines flagged (all extractors, repeating domains): "
                         f"{hits}, of which mostly not in gold: {not_gold}")
        lines.append(f"- max {limit} words: gold lines flagged {flagged}{extracted}")
    examples = [(ds, i, t[:90]) for ds, i, t in gold_lines if notice_kind(t)][:12]
    lines.append("- examples of gold lines the default prior flags:")
    lines += [f"  - {ds}/{i}: {t!r}" for ds, i, t in examples]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default=None, help="datasets root (default: shared)")
    ap.add_argument("--extractors", default="", help="comma-separated (default: all buildable)")
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "cc-bench-bp"),
                    help="cache directory of extractor outputs")
    ap.add_argument("--sections", default="grid,warm,f1,synthetic,overhead,breakdown,commit,dedup,prior",
                    help="comma-separated subset of: grid,warm,f1,synthetic,overhead,"
                         "breakdown,commit,dedup,prior,prose,figures,figrule,reports,cpu")
    ap.add_argument("--overhead-docs", type=int, default=400)
    ap.add_argument("--overhead-order",
                    choices=("cleaning-first", "alternate", "each-after-extraction"),
                    default="cleaning-first",
                    help="which export runs first after each extraction (see overhead_section)")
    args = ap.parse_args(argv)
    sections = set(args.sections.split(","))
    root = datasets_root(args.datasets)
    docs = repeated_domains(root)
    domains = len({(d.dataset, d.domain) for d in docs})
    print(f"# boilerplate benchmark\n\ncommand: `.venv/bin/python benchmarks/boilerplate.py "
          f"{shlex.join(argv or sys.argv[1:])}`\n")
    print(f"code: `{Path(sys.modules['corpuscrawl'].__file__).parent}`\n")
    print(f"documents in repeating domains: {len(docs)} in {domains} domains "
          f"({sum(not d.test for d in docs)} train / {sum(d.test for d in docs)} test)\n")
    default = DetectorConfig()
    if sections & {"grid", "warm", "f1", "prior", "prose", "figrule"}:
        extractors = buildable_extractors([e for e in args.extractors.split(",") if e] or None)
        outputs = extract_all(docs, extractors, Path(args.cache))
        scorer = Scorer(docs)
    if "grid" in sections:
        grid, best = grid_section(docs, outputs, scorer)
        print("## threshold grid (flush-only: every domain judged with all its pages)\n")
        print(grid + f"\n\nbest on train (mean ΔF1 over extractors): prior={best[0]}, "
              f"min_documents={best[1]}, min_fraction={best[2]}\n")
    if "warm" in sections:
        print("## warm-up (documents held per new domain), default thresholds, real stage\n")
        print(warm_section(docs, outputs, scorer, default) + "\n")
    if "f1" in sections:
        print(f"## F1 change with the defaults ({default})\n")
        print(f1_section(docs, outputs, scorer, default) + "\n")
    if "synthetic" in sections:
        print("## synthetic 50-page domain (tests/boilerplate_site.py, bte)\n")
        print(synthetic_section(default) + "\n")
    if "overhead" in sections:
        print(f"## overhead per document (SQLite history file, dedup on, {args.overhead_order})\n")
        print(overhead_section(docs, args.overhead_docs, order=args.overhead_order) + "\n")
    if "breakdown" in sections:
        print("## where the export stage's time goes (bte outputs)\n")
        texts = extract_all(docs, {"bte": get_extractor("bte")}, Path(args.cache))["bte"]
        print(breakdown_section(docs, texts) + "\n")
    if "commit" in sections:
        print("## SQLite commit interval\n")
        texts = extract_all(docs, {"bte": get_extractor("bte")}, Path(args.cache))["bte"]
        print(commit_section(docs, texts) + "\n")
    if "dedup" in sections:
        print("## near-duplicates (MinHash, 5-word shingles, 128 permutations, threshold 0.8)\n")
        print(dedup_section(docs) + "\n")
    if "prior" in sections:
        print("## prior on every gold text\n")
        print(prior_section(root, docs, outputs))
    if "cpu" in sections:
        print("## stage CPU time per document (bte outputs)\n")
        texts = extract_all(docs, {"bte": get_extractor("bte")}, Path(args.cache))["bte"]
        print(cpu_section(docs, texts) + "\n")
    if "prose" in sections:
        print("## prose rule: flush-only grid on the benchmark domains\n")
        print(prose_grid_section(docs, outputs, scorer) + "\n")
    if "figrule" in sections:
        print("## figures rule: grid on the benchmark domains (real stage, flush-only)\n")
        print(figures_grid_section(docs, outputs, scorer) + "\n")
    if "reports" in sections:
        print("## figures rule: the evening paper of tests/reports_site.py (real stage)\n")
        print(reports_site_rows(
            [("off", dataclasses.replace(default, figures_words=0))]
            + [(f"{w} words, {f}", dataclasses.replace(default, figures_words=w,
                                                       figures_flow=f))
               for w in (6, 10, 15) for f in ("both", "either", "any")]) + "\n")
    if "figures" in sections:
        print("## prose rule: the 40-story site with figure-only variants (real stage)\n")
        old = DetectorConfig(prose_words=10_000, prose_min_documents=1, prose_min_fraction=0.0)
        print(figures_site_rows([("before (no prose rule)", old), ("defaults", default)])
              + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
