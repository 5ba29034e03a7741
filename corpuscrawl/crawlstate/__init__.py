"""Per-collection crawl state: where it lives, resume after a kill, incremental recrawls.

A *collection* is one named corpus that a crawl builds and later recrawls.  Its
state (frontier, seen requests, exported documents, per-URL validators and text
hashes, domain boilerplate history) lives in one directory, chosen by
:func:`corpuscrawl.crawlstate.location.state_dir`.
"""
