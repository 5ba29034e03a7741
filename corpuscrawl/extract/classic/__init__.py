"""Classic (unsupervised, rule-based) main-content extractors: BTE, jusText, Boilerpipe, Readability, NewsFeed, energy, link blocks, and per-site templates."""
