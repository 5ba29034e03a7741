"""Training the learned extractors: training sets, gold alignment, folds, fits and ``train``; never imported by crawl-time code."""
