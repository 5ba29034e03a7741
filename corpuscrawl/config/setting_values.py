"""Reading one ``CORPUSCRAWL_*`` setting into a checked value, with an error naming the key.

Components read their settings once into a typed config at start; these helpers give
every such config the same check and the same message for the same kind of value.
"""

from __future__ import annotations

from typing import Any

from corpuscrawl.config.crawl_checks import CrawlSetupError

YES_NO = "1/0, true/false, yes/no, on/off"


def yes_no(value: Any) -> bool:
    """``value`` (a bool, or text such as ``1``/``0``, ``true``/``false``, ``yes``/``no``,
    ``on``/``off``, any case) as a bool; a ``ValueError`` for any other text, so a typo'd
    switch stops the crawl instead of silently reading as off."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{value!r}: expected {YES_NO}")


def flag_setting(settings: Any, key: str, default: bool,
                 error: type[Exception] = CrawlSetupError) -> bool:
    """Setting ``key`` (default ``default``, also when empty) as a bool (:func:`yes_no`); an
    ``error`` naming the key and the value given otherwise."""
    value = settings.get(key, default)
    try:
        return yes_no(default if value in (None, "") else value)
    except ValueError:
        raise error(f"{key}={value!r}: expected {YES_NO}") from None


def whole_number_setting(settings: Any, key: str, default: int, minimum: int = 0) -> int:
    """Setting ``key`` (default ``default``) as a whole number >= ``minimum``; a
    :class:`~corpuscrawl.config.crawl_checks.CrawlSetupError` (a ``ValueError``) naming the key
    and the value given otherwise."""
    raw = settings.get(key, default)
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise CrawlSetupError(f"{key} must be a whole number >= {minimum}, got {raw!r}") from None
    if value < minimum:
        raise CrawlSetupError(f"{key} must be a whole number >= {minimum}, got {raw!r}")
    return value
