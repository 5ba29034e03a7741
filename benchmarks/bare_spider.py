"""The baseline for benchmarks/backbone.py: bare Scrapy following every same-site link.

It fetches the same pages as the corpus spider but extracts nothing, yields no
items and has no pipeline, so the difference is corpuscrawl's own cost.
"""

from urllib.parse import urlsplit

import scrapy


class BareSpider(scrapy.Spider):
    """Follow same-host links; no extraction, no items."""

    name = "bare"

    def __init__(self, seeds: str = "", **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [s for s in seeds.split(",") if s]
        self.host = urlsplit(self.start_urls[0]).netloc

    async def start(self):
        for url in self.start_urls:
            yield scrapy.Request(url)

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href).split("#", 1)[0]
            if urlsplit(url).netloc == self.host and not url.endswith(".pdf"):
                yield scrapy.Request(url)
