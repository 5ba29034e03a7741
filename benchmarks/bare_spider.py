"""The baseline for benchmarks/backbone.py: bare Scrapy following every same-site link.

It fetches the same pages as the corpus spider and yields each page's URL and body
length (nothing extracted), so the difference is corpuscrawl's own cost.  Run it outside
the project (Scrapy's default settings) with the crawl's concurrency and politeness.
"""

from urllib.parse import urlsplit

import scrapy


class BareSpider(scrapy.Spider):
    """Follow same-host links; yield the body length of each page."""

    name = "bare"

    def __init__(self, seeds: str = "", **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [s for s in seeds.split(",") if s]
        self.host = urlsplit(self.start_urls[0]).netloc

    async def start(self):
        for url in self.start_urls:
            yield scrapy.Request(url)

    def parse(self, response):
        yield {"url": response.url, "length": len(response.body)}
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href).split("#", 1)[0]
            if urlsplit(url).netloc == self.host and not url.endswith(".pdf"):
                yield scrapy.Request(url)
