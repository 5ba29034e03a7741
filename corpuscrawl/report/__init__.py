"""The report room: the crawl summary, progress timeline, drop list and report."""
