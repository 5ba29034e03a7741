"""The export room's Scrapy glue: the export stage's driving pipeline and settings, the extraction pipeline, the feed exporters, the feed checks; the only modules of export that import Scrapy."""
