"""The page-text room: the crawl's extraction step (extractor per domain rule, budget, metadata, language), domain rules, the crawled page."""
