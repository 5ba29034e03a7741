"""The archive's Scrapy glue: the middlewares writing WARC during a crawl, and the replay of archived responses through the crawl's extraction; the only modules of archive that import Scrapy."""
