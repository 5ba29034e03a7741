"""The names the benchmarks and ``corpuscrawl train`` share: datasets, extractors, peers.

Each list is in report order.  Dataset names are directories under the datasets
root (:func:`corpuscrawl.evaluation.datasets.datasets_root`); extractor names
are registry names (:mod:`corpuscrawl.extract`); peer names are those of
:mod:`corpuscrawl.evaluation.peers`.
"""

from __future__ import annotations

#: Gold-text datasets: the learned models train on their train split and are scored on
#: their test split.
GOLD_DATASETS = ("cleaneval", "cleanportaleval", "dragnet", "l3s-gn1", "readability",
                 "scrapinghub")
#: Snippet datasets, run whole as out-of-domain pages (no model trains on them).
SNIPPET_DATASETS = ("trafilatura",)
#: The rule-based extractors.
CLASSIC_EXTRACTORS = ("bte", "justext", "boilerpipe-default", "boilerpipe-article",
                      "readability", "newsfeed", "energy", "linkblocks")
#: The base extractors of Bakić's thesis' hybrids (§4.2.2).
THESIS_BASE = ("bte", "readability", "boilerpipe-default", "boilerpipe-article")
#: The learned extractors, in the order ``corpuscrawl train all`` trains them.
LEARNED_EXTRACTORS = ("hybrid-a", "segment-svm", "hybrid-b", "sequence", "auto")
#: Learned extractors whose lead over the best peer is put through the bootstrap.
COMPARED = ("auto", "sequence")
#: Peer tools compared in the learned-extractor report.
PEERS = ("trafilatura", "trafilatura-fast", "readability-lxml", "justext-raw",
         "boilerpy3-article")
#: The method whose docs/s ``auto``'s are compared with (the bar for the default: at least 2x).
SPEED_REFERENCE = "trafilatura-fast (peer)"

__all__ = ["CLASSIC_EXTRACTORS", "COMPARED", "GOLD_DATASETS", "LEARNED_EXTRACTORS", "PEERS",
           "SNIPPET_DATASETS", "SPEED_REFERENCE", "THESIS_BASE"]
