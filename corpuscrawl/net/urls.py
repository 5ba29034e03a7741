"""URL normalization for de-duplication: one spelling per page.

Fragments are dropped, tracking parameters (utm_*, fbclid, gclid, …) removed,
the query sorted, scheme and host lower-cased, default ports dropped — so the
same page reached through a newsletter link and a menu link is fetched once.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from urllib.parse import unquote, unquote_plus, urlsplit, urlunsplit

import idna
from w3lib.url import canonicalize_url, safe_url_string

from corpuscrawl.net.addresses import parse_ipv4_host

#: Query parameters that only track the visitor and never change the page.
TRACKING_PARAMS_DEFAULT = frozenset(
    """fbclid gclid dclid gbraid wbraid msclkid mc_cid mc_eid yclid igshid _hsenc _hsmi
    __hssc __hstc __hsfp hsctatracking mkt_tok oly_anon_id oly_enc_id vero_id wickedid
    _ga _gl ref_src ref_url spm share utm_id""".split()
)
#: Parameter name prefixes that are tracking (utm_source, utm_medium, pk_campaign …).
TRACKING_PREFIXES_DEFAULT = ("utm_", "pk_", "mtm_", "piwik_", "matomo_", "ga_", "hmb_")
#: File extensions that are never HTML pages (images, media, archives, documents, code).
NON_HTML_EXTENSIONS_DEFAULT = frozenset(
    """7z ai apk avi bin bmp bz2 css csv deb dmg doc docx eps exe flac flv gif gz ico iso jar
    jpeg jpg js json m4a m4v mid mkv mov mp3 mp4 mpeg mpg msi odp ods odt ogg otf pdf png ppt
    pptx ps psd rar rpm rss rtf svg swf tar tgz tif tiff ttf wav webm webp wma wmv woff woff2
    xls xlsx xz zip""".split()
)
#: Longest URL followed (characters): Scrapy's ``URLLENGTH_LIMIT`` default, the
#: historical limit of Internet Explorer that many servers still assume.
MAX_URL_CHARS_DEFAULT = 2083
#: URLs whose check is remembered: pages of a site repeat their menu links, and a check
#: is costly (w3lib's canonicalisation; benchmarks/results/url_check.md); bounded by
#: MAX_URL_CHARS_DEFAULT * 4 per key.
URL_CACHE_SIZE_DEFAULT = 16384
_DEFAULT_PORTS = {"http": 80, "https": 443}
#: What the WHATWG URL parser strips from both ends, and removes everywhere.
_C0_CONTROL_OR_SPACE = "".join(map(chr, range(0x21)))
_TAB_NEWLINE_RE = re.compile(r"[\t\n\r]")
#: An http(s) URL up to its authority, spelled any way the WHATWG URL parser reads as
#: ``scheme://``: any run of ``/`` and ``\\`` after the scheme, none included
#: (``https:example.com``, ``https:/example.com``, ``https:\\\\example.com``); then the
#: authority, which ends at ``/``, ``\\``, ``?`` or ``#``, and the path up to ``?`` or ``#``.
_SPECIAL_URL_RE = re.compile(
    r"^(?P<scheme>https?):[/\\]*(?P<authority>[^/\\?#]*)(?P<path>[^?#]*)(?P<rest>.*)$",
    re.I | re.S)
#: One DNS label (underscores allowed: real hosts use them although RFC 952 does not).
_LABEL_RE = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")


def is_tracking_param(name: str) -> bool:
    """True for query parameters that only track visitors."""
    name = name.lower()
    return name in TRACKING_PARAMS_DEFAULT or name.startswith(TRACKING_PREFIXES_DEFAULT)


def normalize_url(url: str) -> str:
    """Canonical spelling of an http(s) URL for de-duplication ("" when it is unusable)."""
    return check_url(url)[0]


def check_url(url: str, max_length: int = MAX_URL_CHARS_DEFAULT) -> tuple[str, str]:
    """``(canonical URL, "")`` for a usable http(s) URL, else ``("", reason)``; never raises.

    The URL is read as browsers read an http(s) URL (:func:`special_url_spelling`:
    ``https:example.com/p`` is ``https://example.com/p``); hosts as browsers read them
    (IDNA/UTS #46 to punycode, numeric IPv4
    spellings to dotted quads, IPv6 in brackets); the path and query are
    percent-encoded once and consistently by w3lib (``canonicalize_url``, then
    ``safe_url_string`` so that Scrapy keeps the URL exactly as given)
    (``/päth`` and ``/p%C3%A4th`` are one URL), the query sorted, tracking
    parameters, fragment, user info and default port dropped, ``.``/``..``
    segments resolved.  Reasons (stats-friendly words): ``not_text``, ``empty``,
    ``too_long``, ``unparsable``, ``scheme``, ``no_host``, ``bad_host``, ``bad_port``.
    """
    if not isinstance(url, str):
        return "", "not_text"
    if len(url) > 4 * max_length:  # bounds the work spent on a monster href
        return "", "too_long"
    return _check_url(url, max_length)


@functools.lru_cache(maxsize=URL_CACHE_SIZE_DEFAULT)
def _check_url(url: str, max_length: int) -> tuple[str, str]:
    url = _TAB_NEWLINE_RE.sub("", url.strip(_C0_CONTROL_OR_SPACE))
    if not url:
        return "", "empty"
    url = special_url_spelling(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return "", "bad_port" if "port" in str(exc).lower() else "unparsable"
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        return "", "scheme"
    host, reason = canonical_host(parts.hostname or "", bracketed="[" in parts.netloc)
    if reason:
        return "", reason
    if port == 0:
        return "", "bad_port"
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    query = "&".join(p for p in parts.query.split("&")
                     if p and not is_tracking_param(unquote_plus(p.split("=", 1)[0])))
    path = remove_dot_segments(parts.path or "/")
    try:
        out = safe_url_string(canonicalize_url(urlunsplit((scheme, netloc, path, query, ""))))
    except ValueError:  # what w3lib refuses (from 2.6 on it raises for more URLs)
        return "", "unparsable"
    if len(out) > max_length:
        return "", "too_long"
    return out, ""


def special_url_spelling(url: str) -> str:
    """An http(s) URL in the ``scheme://authority/path`` spelling browsers (the WHATWG URL
    parser's special schemes) and w3lib's ``safe_url_string`` read it as: the slashes and
    backslashes after ``scheme:`` (none, one, three or more) become ``//``, and backslashes
    in the path become ``/`` (``https:example.com\\p`` is ``https://example.com/p``).  Other
    URLs are returned as they are; what the result lacks (a host) is judged by the caller."""
    m = _SPECIAL_URL_RE.match(url)
    if m is None:
        return url
    path = m["path"].replace("\\", "/")
    return f"{m['scheme']}://{m['authority']}{path}{m['rest']}"


def canonical_host(host: str, bracketed: bool = False) -> tuple[str, str]:
    """``(host as it goes in a URL, "")`` or ``("", reason)``: lower-case punycode name,
    dotted-quad IPv4 (any numeric spelling) or bracketed IPv6."""
    host = unquote(host).strip().lower().rstrip(".")
    if not host:
        return "", "no_host"
    if bracketed or ":" in host:
        try:
            ip6 = ipaddress.IPv6Address(host)
        except ValueError:
            return "", "bad_host"
        return f"[{ip6.compressed}]", ""
    if not host.isascii():
        try:
            host = idna.encode(host, uts46=True, transitional=False).decode("ascii")
        except (idna.IDNAError, UnicodeError, ValueError):
            return "", "bad_host"
    ip4 = parse_ipv4_host(host)
    if ip4 is False:
        return "", "bad_host"
    if ip4 is not None:
        return str(ip4), ""
    if len(host) > 253 or not all(_LABEL_RE.match(label) for label in host.split(".")):
        return "", "bad_host"
    return host, ""


def remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4: resolve ``.`` and ``..`` path segments (other slashes kept)."""
    if "." not in path:
        return path
    segments = path.split("/")
    out: list[str] = []
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if segment == ".":
            if last:
                out.append("")
        elif segment == "..":
            if len(out) > 1:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(segment)
    path = "/".join(out)
    return path if path.startswith("/") else "/" + path


def has_non_html_extension(url: str,
                           extensions: frozenset[str] = NON_HTML_EXTENSIONS_DEFAULT) -> bool:
    """True when the URL path ends in a file extension that is never an HTML page."""
    path = urlsplit(url).path.lower()
    last = path.rsplit("/", 1)[-1]
    if "." not in last:
        return False
    return last.rsplit(".", 1)[-1] in extensions


def site_root(url: str) -> str:
    """The root URL (``scheme://host[:port]/``) of ``url``'s site: where robots.txt lives."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/", "", ""))


