"""The config room's Scrapy glue: a Scrapy setting checked against the type of Scrapy's own default.

``-s CONCURRENT_REQUESTS=abc`` would fail deep inside Scrapy with ``invalid literal for
int()``; the corpus spider runs this check with the others of
:mod:`corpuscrawl.config.crawl_checks` before the crawl starts.
"""

from __future__ import annotations

from typing import Any

from scrapy.settings import default_settings

from corpuscrawl.config.crawl_checks import CrawlSetupError

__all__ = ["check_scrapy_setting_values"]

# Scrapy reads some settings whose default is a whole number as floats (DOWNLOAD_DELAY,
# DOWNLOAD_TIMEOUT), so a whole-number default only requires a number.
_KINDS = {bool: ("getbool", "True or False (1/0)"), int: ("getfloat", "a number"),
          float: ("getfloat", "a number"), dict: ("getdict", "a dict (JSON)")}


def check_scrapy_setting_values(settings: Any) -> None:
    """Refuse a Scrapy setting whose value cannot be read as the type of its default
    (``-s CONCURRENT_REQUESTS=abc``), naming the setting."""
    for name in dir(default_settings):
        if not name.isupper() or name not in settings:
            continue
        default = getattr(default_settings, name)
        kind = _KINDS.get(type(default))
        if kind is None or settings.get(name) is None:
            continue
        getter, expected = kind
        try:
            getattr(settings, getter)(name)
        except (TypeError, ValueError):
            raise CrawlSetupError(f"setting {name}={settings.get(name)!r}: expected "
                                  f"{expected}") from None
