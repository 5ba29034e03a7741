"""Extensions a crawl test plugs in to see what happened inside the crawl, in its stats."""

from __future__ import annotations

from typing import Any

from scrapy import signals

#: Stats key: ``corpuscrawl/urls_from_feeds`` when the first page listed by a feed came back.
FEED_URLS_AT_FIRST_PAGE = "test/feed_urls_at_first_page"


class FirstListedPageProbe:
    """Records how many feed URLs had been queued when the first listed page was fetched.

    Pages listed by the feed are those whose path starts with ``/a/``.  A feed read as a
    whole before its requests go out records its full count; a streamed one records less.
    """

    def __init__(self, crawler: Any) -> None:
        self.stats = crawler.stats
        crawler.signals.connect(self.response_received, signal=signals.response_received)

    @classmethod
    def from_crawler(cls, crawler: Any) -> FirstListedPageProbe:
        """Connect to the crawl's signals."""
        return cls(crawler)

    def response_received(self, response: Any, request: Any, spider: Any) -> None:
        """Note the feed URL count at the first ``/a/`` response."""
        if "/a/" in response.url and self.stats.get_value(FEED_URLS_AT_FIRST_PAGE) is None:
            self.stats.set_value(FEED_URLS_AT_FIRST_PAGE,
                                 self.stats.get_value("corpuscrawl/urls_from_feeds", 0))
