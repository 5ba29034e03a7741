"""Network safety and politeness of the crawl.

* :mod:`~corpuscrawl.net.addresses` — which IP addresses are public, and the
  address a URL host spells (plain library, no Scrapy).
* :mod:`~corpuscrawl.net.scrapy_glue.guard` — the private-network guard: a DNS resolver
  that refuses non-public answers and a downloader middleware for IP-literal
  hosts, redirects and counting; :mod:`~corpuscrawl.net.browser_guard` applies the
  same policy to the requests Chromium makes when rendering.
* :mod:`~corpuscrawl.net.scrapy_glue.politeness` — robots.txt ``Crawl-delay`` and
  ``Retry-After`` applied to Scrapy's download slots.
"""
