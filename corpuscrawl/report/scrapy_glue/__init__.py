"""The report room's Scrapy glue: the live progress extension and the dropped-item log fed by the crawl; the only modules of report that import Scrapy."""
