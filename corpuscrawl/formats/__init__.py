"""Structured renderings of an extracted text: Markdown (:mod:`.markdown`) and TEI P5 (:mod:`.tei`).

Both read a text and the :class:`~corpuscrawl.extract.lines.structure.Role` of each of its
lines and group consecutive lines into blocks (:func:`.blocks.group_blocks`), so every
extractor's output renders the same way.  Plain library code: no Scrapy.
"""
