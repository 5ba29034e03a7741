"""The HTTP exchange behind a browser fetch, captured from Playwright for the WARC file.

scrapy-playwright hands Scrapy the DOM serialised at the load event, not the
HTML the server sent.  To archive the latter, :func:`listen` registers a
``response`` page event handler through scrapy-playwright's
``playwright_page_event_handlers`` request meta key; it captures each
main-frame navigation response (redirects included) with its status,
headers, request headers, peer address and body (decoded by the browser).
:func:`stop_listening` removes the handler from the meta again (a closure must
not travel into a retried request or a disk queue) and :func:`captured`
waits for the bodies.  Works on the request's meta dict; no Scrapy import.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from corpuscrawl.archive.records import Exchange, warc_date

__all__ = ["CAPTURE_TIMEOUT_DEFAULT", "NAVIGATION_META", "Navigation", "captured", "listen",
           "stop_listening"]

logger = logging.getLogger("corpuscrawl.archive")

#: Request meta key holding the handler and its captures (internal, removed again).
NAVIGATION_META = "corpuscrawl_warc_navigation"
#: scrapy-playwright's meta key of page event handlers.
HANDLERS_META = "playwright_page_event_handlers"
#: Seconds to wait for the browser to hand over the navigation responses' bodies.
CAPTURE_TIMEOUT_DEFAULT = 10.0


@dataclass
class Navigation:
    """One main-frame navigation response as the browser received it."""

    url: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    method: str
    request_headers: list[tuple[str, str]]
    ip_address: str
    time: float

    def exchange(self, metadata: dict[str, object]) -> Exchange:
        """The WARC exchange of this response (body decoded by the browser)."""
        return Exchange(url=self.url, status=self.status, response_headers=self.headers,
                        body=self.body, method=self.method, request_headers=self.request_headers,
                        ip_address=self.ip_address, date=warc_date(self.time), decoded=True,
                        metadata=metadata)


def listen(meta: MutableMapping[str, Any]) -> None:
    """Capture the navigation responses of the page this request opens (unless the spider
    registered its own ``response`` handler, which is kept)."""
    handlers = dict(meta.get(HANDLERS_META) or {})
    if "response" in handlers:
        return
    captures: list[asyncio.Future[Navigation]] = []

    def on_response(pw_response: Any) -> None:
        try:
            if pw_response.request.is_navigation_request() and \
                    pw_response.frame.parent_frame is None:
                captures.append(asyncio.ensure_future(_capture(pw_response)))
        except Exception as exc:  # never break the browser's event dispatch
            logger.debug("cannot capture navigation response: %r", exc)

    handlers["response"] = on_response
    meta[HANDLERS_META] = handlers
    meta[NAVIGATION_META] = (on_response, captures)


def stop_listening(meta: MutableMapping[str, Any]) -> list[asyncio.Future[Navigation]]:
    """Remove the handler from the meta; the captures started so far."""
    state = meta.pop(NAVIGATION_META, None)
    if state is None:
        return []
    handler, captures = state
    handlers = meta.get(HANDLERS_META) or {}
    if handlers.get("response") is handler:
        handlers = {k: v for k, v in handlers.items() if k != "response"}
        if handlers:
            meta[HANDLERS_META] = handlers
        else:
            meta.pop(HANDLERS_META, None)
    return list(captures)


async def captured(captures: list[asyncio.Future[Navigation]],
                   timeout: float = CAPTURE_TIMEOUT_DEFAULT) -> list[Navigation]:
    """The captures that completed within ``timeout``, in navigation order."""
    if not captures:
        return []
    finished, _ = await asyncio.wait(captures, timeout=timeout)
    return [f.result() for f in captures if f in finished and f.exception() is None]


async def _capture(pw_response: Any) -> Navigation:
    started = time.time()
    headers = [(h["name"], h["value"]) for h in await pw_response.headers_array()
               if not h["name"].startswith(":")]  # no HTTP/2 pseudo-headers
    request = pw_response.request
    request_headers = [(h["name"], h["value"]) for h in await request.headers_array()
                       if not h["name"].startswith(":")]
    try:
        body = await pw_response.body()
    except Exception:  # redirects and aborted loads have no body
        body = b""
    try:
        address = await pw_response.server_addr()
    except Exception:
        address = None
    return Navigation(url=pw_response.url, status=pw_response.status, headers=headers,
                      body=body, method=request.method, request_headers=request_headers,
                      ip_address=(address or {}).get("ipAddress", ""), time=started)
