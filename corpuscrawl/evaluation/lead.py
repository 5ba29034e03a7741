"""The lead of our methods over the best peer tool, as a section of a benchmark report.

The lead is the pooled summed-F1 difference; whether it is more than the sample of
pages is read from a stratified bootstrap and the pages whose removal moves it most
(:mod:`corpuscrawl.evaluation.sampling`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from corpuscrawl.evaluation.methods import PEER_SUFFIX
from corpuscrawl.evaluation.metrics import Score, summarize
from corpuscrawl.evaluation.sampling import bootstrap_difference, influential_pages
from corpuscrawl.evaluation.tables import markdown_table

#: The lead over the best peer a learned extractor is expected to keep (2 points of F1).
MARGIN_DEFAULT = 0.02


def pooled(per_ds: dict[str, list[Score]]) -> list[Score]:
    """All documents' scores of one method."""
    return [s for v in per_ds.values() for s in v]


def sampling_section(scores: Mapping[str, dict[str, list[Score]]], doc_ids: list[str],
                     compared: Sequence[str], margin: float,
                     population: str = "the test documents") -> list[str]:
    """Report lines: the bootstrap interval of each ``compared`` method's pooled lead over the
    best peer, the share of resamples with a lead of at least ``margin``, and the pages that
    move it most.  ``scores``: method -> dataset -> per-document scores, in ``doc_ids`` order."""
    peers = [m for m in scores if m.endswith(PEER_SUFFIX)]
    mine = [m for m in compared if m in scores]
    if not peers or not mine:
        return []
    best = max(peers, key=lambda m: summarize(pooled(scores[m])).f1)
    strata = [k.split("/", 1)[0] for k in doc_ids]
    lines = ["## Is the lead more than the sample of pages?", "",
             f"Pooled summed-F1 difference to the best peer ({best}); 95 % interval of a "
             f"stratified bootstrap over {population} (2 000 resamples, documents drawn "
             "within each dataset; `corpuscrawl.evaluation.sampling`), the share of resamples "
             f"in which the lead is at least {margin * 100:.0f} points, and the pages "
             "whose removal moves the difference most (leave-one-out change).", ""]
    rows = []
    for m in mine:
        a, b = pooled(scores[m]), pooled(scores[best])
        d = bootstrap_difference(a, b, strata)
        pages = influential_pages(a, b, doc_ids)
        rows.append([m, f"{d.observed * 100:+.2f}", f"{d.low * 100:+.2f} to {d.high * 100:+.2f}",
                     f"{d.share_at_least(0.0):.0%}", f"{d.share_at_least(margin):.0%}",
                     pages])
    return lines + markdown_table(["method", "lead (points)", "95 % interval", "resamples ahead",
                      f"resamples ≥ +{margin * 100:.0f}", "pages moving it most"],
                     rows) + [""]


__all__ = ["MARGIN_DEFAULT", "pooled", "sampling_section"]
