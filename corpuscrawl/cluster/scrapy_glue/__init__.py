"""The cluster's Scrapy glue: the part add-on and its joiner extension, and the scrapy-redis scheduler with leases; the only modules of cluster that import Scrapy or scrapy-redis."""
