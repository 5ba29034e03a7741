"""Where an actionable element leads: href kinds, redirect proxies, script links, sites.

Source: Komporday's thesis, part III (link and action kinds).  An element's ``href`` (or, without
one, the URL an ``onclick`` navigation or a ``data-href``-like attribute names)
is classified as a fragment, a script, an inner or an outer link; a redirect
proxy (``?url=``, ``?u=`` doubly encoded, base64) is decoded and its target
judged instead.  The site boundary is the registrable domain
(:func:`corpuscrawl.net.sites.site_of`).  Used by the element features
(:mod:`corpuscrawl.browse.elements`), the links to follow and link discovery.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Mapping
from typing import Protocol
from urllib.parse import parse_qsl, unquote, urlsplit

from corpuscrawl.net.sites import same_site


class LinkElement(Protocol):
    """What the href rules read of an element: its attributes, the ``href`` the browser
    resolved, where it navigates and the page it is on
    (:class:`corpuscrawl.browse.elements.ElementRecord` is one)."""

    attributes: dict[str, str]
    href: str | None
    page_url: str

    @property
    def target_url(self) -> str:
        """The absolute URL the element navigates to ("" when it does not)."""
        ...


#: Kinds of ``href`` (see :func:`href_kind`).
HREF_KINDS = ("none", "fragment", "javascript", "inner", "outer", "proxy_inner",
              "proxy_outer", "other_scheme")

#: Query parameter names that commonly carry the target of a redirect proxy (dex.hu's
#: ``url``, Facebook's ``u``, Google's ``q``, …); any parameter whose value is an absolute
#: http(s) URL is accepted too.
PROXY_PARAMS_DEFAULT = ("url", "u", "q", "target", "dest", "destination", "redirect",
                        "redirect_uri", "to", "link", "goto", "out", "r")

#: ISO 639-1 codes recognised in language-switch URLs (/en/, en.example.com, ?lang=en).
LANGUAGE_CODES_DEFAULT = frozenset(
    """ar bg bs ca cs cy da de el en es et eu fa fi fr ga gl he hi hr hu hy id is it ja ka kk
    ko lt lv mk ms mt nb nl nn no pl pt ro ru sk sl sq sr sv sw th tr uk ur uz vi zh""".split()
)
_LANG_PATH_RE = re.compile(r"^/([a-z]{2})(?:[-_][a-z]{2})?(?:/|$)", re.I)


#: Attributes holding the URL of an element that navigates by script.
SCRIPT_HREF_ATTRS_DEFAULT = ("data-href", "data-url", "data-link", "data-target-url",
                             "data-navigate")
_ONCLICK_URL_RE = re.compile(
    r"""(?:location(?:\.href)?\s*=|location\.(?:assign|replace)\s*\(|window\.open\s*\()"""
    r"""\s*['"]([^'"]+)['"]""")


def scripted_target(attributes: Mapping[str, str]) -> str:
    """The URL an element without ``href`` navigates to by script ("" when none is visible).

    Recognises ``onclick="location.href='...'"`` (also ``location.assign``/``replace``,
    ``window.open``) and ``data-href``-style attributes (:data:`SCRIPT_HREF_ATTRS_DEFAULT`).
    """
    match = _ONCLICK_URL_RE.search(attributes.get("onclick", ""))
    if match:
        return match.group(1)
    for name in SCRIPT_HREF_ATTRS_DEFAULT:
        value = attributes.get(name, "").strip()
        if value and not value.startswith(("#", "javascript:")):
            return value
    return ""


_BASE64_RE = re.compile(r"^[A-Za-z0-9+/_-]{16,}={0,2}$")


def _from_base64(value: str) -> str | None:
    """A URL encoded in base64 (standard or URL-safe alphabet), or None."""
    if not _BASE64_RE.match(value):
        return None
    padded = value + "=" * (-len(value) % 4)
    try:
        decoded = base64.urlsafe_b64decode(padded.replace("+", "-").replace("/", "_"))
        text = decoded.decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    return text if text.lower().startswith(("http://", "https://")) else None


def decode_proxy(url: str, params: Iterable[str] = PROXY_PARAMS_DEFAULT) -> str | None:
    """The target of a redirect-proxy URL (``dex.hu/x.php?...&url=http%3A%2F%2F...``), or None.

    A parameter named like a redirect target, or any parameter whose decoded value is
    an absolute http(s) URL, counts; doubly encoded values are decoded once more, and
    a value that is a base64-encoded URL is decoded.
    """
    try:
        query = urlsplit(url).query
    except ValueError:
        return None
    if not query:
        return None
    names = tuple(params)
    best: str | None = None
    for name, value in parse_qsl(query, keep_blank_values=False):
        value = value.strip()
        if value.lower().startswith(("http%3a", "https%3a")):
            value = unquote(value)
        value = _from_base64(value) or value
        if value.lower().startswith(("http://", "https://")) and urlsplit(value).hostname:
            if name.lower() in names:
                return value
            best = best or value
    return best


def href_kind(record: LinkElement) -> tuple[str, str]:
    """Classify the element's href: one of :data:`HREF_KINDS` and the effective target URL.

    The target of a redirect proxy is decoded and judged instead of the proxy itself.
    """
    raw = record.attributes.get("href")
    if raw is None and record.href is None:
        raw = scripted_target(record.attributes)
        if not raw:
            return "none", ""
    raw = (raw or "").strip()
    if raw.lower().startswith("javascript:"):
        return "javascript", ""
    if raw == "" or raw.startswith("#"):
        return "fragment", ""
    target = record.target_url
    scheme = urlsplit(target).scheme.lower()
    if scheme not in ("http", "https"):
        return "other_scheme", target
    if _same_document(target, record.page_url):
        return "fragment", ""
    decoded = decode_proxy(target)
    if decoded is not None and not same_site(decoded, target):
        return ("proxy_inner" if same_site(decoded, record.page_url) else "proxy_outer"), decoded
    return ("inner" if same_site(target, record.page_url) else "outer"), target


def _same_document(a: str, b: str) -> bool:
    pa, pb = urlsplit(a), urlsplit(b)
    return (pa.scheme, pa.netloc, pa.path, pa.query) == (pb.scheme, pb.netloc, pb.path, pb.query)


def language_switch_code(target: str, page_url: str) -> str:
    """The language code a URL selects when it is the page's URL in another language, else "".

    Recognises a leading path segment (``/de/...``), a language subdomain
    (``de.example.com``) and a ``lang``/``hl``/``locale`` query parameter.
    """
    if not target:
        return ""
    t, p = urlsplit(target), urlsplit(page_url)
    for name, value in parse_qsl(t.query):
        if name.lower() in ("lang", "hl", "locale", "language") and \
                value[:2].lower() in LANGUAGE_CODES_DEFAULT:
            return value[:2].lower()
    match = _LANG_PATH_RE.match(t.path)
    if match and match.group(1).lower() in LANGUAGE_CODES_DEFAULT:
        return match.group(1).lower()
    host = (t.hostname or "").split(".")
    if len(host) > 2 and host[0] in LANGUAGE_CODES_DEFAULT and host[0] != \
            (p.hostname or "").split(".")[0]:
        return host[0]
    return ""


def navigation_target(record: LinkElement) -> tuple[str, str]:
    """Where following this element leads: ``("inner"|"outer"|"", url)``.

    The site boundary is decided by the (proxy-decoded) URL, whatever the classifier
    said: elements without a navigable href return ``("", "")``.
    """
    kind, target = href_kind(record)
    if kind in ("inner", "proxy_inner"):
        return "inner", target
    if kind in ("outer", "proxy_outer"):
        return "outer", target
    return "", ""


def is_clickable_in_place(record: LinkElement) -> bool:
    """True when clicking the element cannot navigate away (no href, ``#`` or ``javascript:``)."""
    return href_kind(record)[0] in ("none", "fragment", "javascript")
