"""Offline evaluation of extractors: datasets, word-LCS scoring, runs, reports.

Modules: :mod:`.lcs` (bit-parallel LCS / Levenshtein), :mod:`.metrics`
(tokenize, per-document score, summed aggregation), :mod:`.datasets` (dataset
layout and the shared train/test split), :mod:`.runner` (extractors over a
dataset), :mod:`.scoring` (method directories -> ``evaluation.csv``),
:mod:`.snippets` (with/without snippet scoring), :mod:`.tables` and
:mod:`.report` (comparison tables, HTML/PNG report).
"""

from corpuscrawl.evaluation.datasets import Dataset, datasets_root, list_datasets, split
from corpuscrawl.evaluation.lcs import lcs_length, levenshtein
from corpuscrawl.evaluation.metrics import Score, Summary, score, summarize, tokenize

__all__ = [
    "Dataset",
    "Score",
    "Summary",
    "datasets_root",
    "lcs_length",
    "levenshtein",
    "list_datasets",
    "score",
    "split",
    "summarize",
    "tokenize",
]
