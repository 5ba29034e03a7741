"""Scrapy requests as JSON text, for the durable frontier (no pickle).

A request is turned into Scrapy's own dictionary form
(:meth:`scrapy.Request.to_dict`: callbacks by method name on the spider) and
that into JSON.  JSON has no bytes and only string keys, so bytes become
``{"$b": base64}`` and a dict with other keys (headers: bytes -> list of
bytes) becomes ``{"$d": [[key, value], ...]}``.  Meta values JSON cannot
hold (e.g. a live Playwright page) are left out and reported: they are
per-process objects that mean nothing after a restart.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from scrapy import Request, Spider
from scrapy.utils.request import request_from_dict

__all__ = ["RequestCodecError", "decode_request", "encode_request"]


class RequestCodecError(ValueError):
    """A request that cannot be written or read back (the message names its URL)."""


def _plain(value: Any) -> Any:
    """``value`` in JSON's types (tagged), or TypeError."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, bytes):
        return {"$b": base64.b64encode(value).decode("ascii")}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and not ({"$b", "$d"} & value.keys()):
            return {k: _plain(v) for k, v in value.items()}
        return {"$d": [[_plain(k), _plain(v)] for k, v in value.items()]}
    raise TypeError(f"{type(value).__name__} is not JSON data")


def _tagged(obj: dict[str, Any]) -> Any:
    if len(obj) == 1 and "$b" in obj:
        return base64.b64decode(obj["$b"])
    if len(obj) == 1 and "$d" in obj:
        return {(tuple(k) if isinstance(k, list) else k): v for k, v in obj["$d"]}
    return obj


def _method_name(spider: Spider | None, func: Any) -> str | None:
    """The name under which ``func`` is a method of ``spider`` (its own name), else None."""
    own = getattr(func, "__func__", None)
    name = getattr(own, "__name__", None)
    if spider is None or own is None or not isinstance(name, str):
        return None
    found = getattr(spider, name, None)
    return name if getattr(found, "__func__", None) is own else None


def request_dict(request: Request, spider: Spider | None) -> dict[str, Any]:
    """:meth:`scrapy.Request.to_dict` of ``request``, callbacks named without a search.

    Scrapy finds a callback's name among every member of the spider
    (``inspect.getmembers``: about a millisecond for each of the callback and the
    errback, for every request stored); a spider's method is found here by its own name,
    and anything else is left to Scrapy (which raises ValueError for a callback that is
    not a method of the spider).
    """
    names = {}
    for key in ("callback", "errback"):
        func = getattr(request, key)
        names[key] = _method_name(spider, func) if callable(func) else func
        if names[key] is None and func is not None:
            return request.to_dict(spider=spider)
    data: dict[str, Any] = {"url": request.url, **names, "headers": dict(request.headers)}
    for attr in request.attributes:
        data.setdefault(attr, getattr(request, attr))
    if type(request) is not Request:
        data["_class"] = f"{type(request).__module__}.{type(request).__name__}"
    return data


def encode_request(request: Request, spider: Spider | None,
                   drop_meta: tuple[str, ...] = ()) -> tuple[str, list[str]]:
    """The JSON text of ``request`` and the meta keys left out (not JSON data, or in ``drop_meta``)."""
    try:
        data = request_dict(request, spider)
    except ValueError as exc:  # a callback that is not a method of the spider
        raise RequestCodecError(f"cannot store the request for {request.url}: {exc}") from exc
    meta, dropped = {}, []
    for key, value in data.get("meta", {}).items():
        if key in drop_meta:
            continue
        try:
            meta[key] = _plain(value)
        except TypeError:
            dropped.append(key)
    data["meta"] = meta
    try:
        return json.dumps({k: v if k == "meta" else _plain(v) for k, v in data.items()},
                          ensure_ascii=False, separators=(",", ":")), dropped
    except TypeError as exc:
        raise RequestCodecError(f"cannot store the request for {request.url}: {exc}") from exc


def decode_request(text: str, spider: Spider | None) -> Request:
    """The request stored by :func:`encode_request`, with its callbacks bound to ``spider``."""
    try:
        return request_from_dict(json.loads(text, object_hook=_tagged), spider=spider)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise RequestCodecError(f"cannot read a stored request back: {exc}") from exc
