"""The config room: checks of a crawl's arguments and settings, the user-facing error type, checked setting values; ``scrapy_glue``: the check of Scrapy settings against Scrapy's defaults."""
