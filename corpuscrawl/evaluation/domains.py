"""Benchmark documents grouped by the domain they come from, for the export-stage benchmarks.

A document's domain is its manifest URL's, else the one its page names in
``<link rel=canonical>`` or ``og:url`` (some datasets have no URLs in their
manifests).  Only domains with at least two gold documents are kept: the
boilerplate history needs a domain that repeats.
"""

from __future__ import annotations

import gzip
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from corpuscrawl.evaluation.datasets import Dataset, is_test
from corpuscrawl.evaluation.names import GOLD_DATASETS
from corpuscrawl.net.sites import domain_of

_CANONICAL_RE = re.compile(
    rb"<link[^>]+rel=[\"']?canonical[\"']?[^>]*href=[\"']([^\"']+)"
    rb"|<meta[^>]+property=[\"']og:url[\"'][^>]*content=[\"']([^\"']+)"
    rb"|href=[\"']([^\"']+)[\"'][^>]*rel=[\"']canonical", re.I)


@dataclass(frozen=True)
class Doc:
    """A gold document of a domain that repeats: where its page is, and its gold text."""

    dataset: str
    id: str
    domain: str
    url: str
    path: Path
    gold: str

    @property
    def key(self) -> str:
        """``dataset/id``, unique across datasets."""
        return f"{self.dataset}/{self.id}"

    @property
    def test(self) -> bool:
        """True for a document of the test split."""
        return is_test(self.id)


def page_domain(ds: Dataset, doc_id: str) -> tuple[str, str]:
    """The domain and URL of a dataset page: its manifest URL, else its canonical URL."""
    url = ds.urls.get(doc_id, "")
    if not url:
        raw = ds.html_files[doc_id].read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        m = _CANONICAL_RE.search(raw)
        url = next((g for g in m.groups() if g), b"").decode("latin-1") if m else ""
    return domain_of(url), url


def repeated_domains(root: Path) -> list[Doc]:
    """The gold documents of every domain with two or more, dataset by dataset, in id order."""
    docs: list[Doc] = []
    for name in GOLD_DATASETS:
        ds = Dataset(root / name)
        by_domain: dict[str, list[Doc]] = defaultdict(list)
        for doc_id in ds.ids():
            gold = ds.gold(doc_id)
            if gold is None:
                continue
            domain, url = page_domain(ds, doc_id)
            if domain:
                by_domain[domain].append(Doc(name, doc_id, domain, url,
                                             ds.html_files[doc_id], gold))
        for group in by_domain.values():
            if len(group) >= 2:
                docs.extend(group)
    return docs


__all__ = ["Doc", "page_domain", "repeated_domains"]
