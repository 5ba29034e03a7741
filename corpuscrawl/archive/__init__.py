"""The raw web kept as WARC: writing during a crawl, reading it back for offline re-extraction.

* :mod:`~corpuscrawl.archive.records` — WARC/1.1 records (request, response,
  metadata, conversion, warcinfo) built with warcio from plain values.
* :mod:`~corpuscrawl.archive.files` — rotating ``.warc.gz`` files, one gzip
  member per record, each group of records written whole; unfinished files of
  a killed process are repaired at the next start.
* :mod:`~corpuscrawl.archive.reader` — records back out of WARC files (ours or
  another crawler's), with errors naming the file and the byte offset.
* :mod:`~corpuscrawl.archive.navigation` — the HTML a browser fetch received,
  captured from Playwright.
* :mod:`~corpuscrawl.archive.scrapy_glue` — the Scrapy side: ``middlewares`` (a
  downloader middleware writing every fetched response, a spider middleware writing
  the rendered DOM of browser pages) and ``replay`` (``corpuscrawl extract
  FILE.warc.gz``: the crawl's extraction, pipeline and export stage run over archived
  responses).

Everything but ``scrapy_glue`` is plain library code.
"""
