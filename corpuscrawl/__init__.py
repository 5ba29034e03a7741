"""corpuscrawl: a Scrapy-based focused crawler that builds clean text corpora from the web."""

__version__ = "0.1.0"
