"""corpuscrawl: a Scrapy-based focused crawler that builds clean text corpora from the web."""

__version__ = "0.1.0"

from corpuscrawl.moved import install as _install_moved_finder

_install_moved_finder()
