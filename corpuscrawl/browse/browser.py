"""Launching Debian's Chromium for rendering, the same way in the crawl, tools and tests.

Playwright's own browser downloads are never used (no ``playwright install``):
the system Chromium at :data:`CHROMIUM_PATH_DEFAULT` is launched with
:data:`CHROMIUM_ARGS_DEFAULT`.  ``CORPUSCRAWL_CHROMIUM`` (environment) points
elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Playwright

#: Debian's Chromium package installs the browser here.
CHROMIUM_PATH_DEFAULT = "/usr/bin/chromium"
#: Flags for headless crawling in containers: no sandbox (no user namespaces), no GPU, and
#: none of the background traffic (updates, sync, first-run pages) a crawler must not cause.
CHROMIUM_ARGS_DEFAULT = ("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync", "--no-first-run")


class BrowserNotFoundError(RuntimeError):
    """The Chromium executable is missing; the message names the path and how to change it."""


def chromium_path() -> str:
    """Path of the Chromium executable (``CORPUSCRAWL_CHROMIUM`` overrides the default)."""
    return os.environ.get("CORPUSCRAWL_CHROMIUM", CHROMIUM_PATH_DEFAULT)


def launch_options(headless: bool = True) -> dict[str, Any]:
    """Keyword arguments for ``chromium.launch`` (also ``PLAYWRIGHT_LAUNCH_OPTIONS``)."""
    path = chromium_path()
    if not Path(path).exists():
        raise BrowserNotFoundError(f"Chromium not found at {path}; install Debian's chromium "
                                   "package or set CORPUSCRAWL_CHROMIUM to its path")
    return {"executable_path": path, "args": list(CHROMIUM_ARGS_DEFAULT), "headless": headless}


async def launch_chromium(playwright: Playwright, headless: bool = True) -> Browser:
    """Launch the system Chromium through an async Playwright instance."""
    return await playwright.chromium.launch(**launch_options(headless))
