"""Scrapy commands of the project (``COMMANDS_MODULE``): ``scrapy crawl`` with corpuscrawl's exit codes."""
