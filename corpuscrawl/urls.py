"""URL normalization for de-duplication: one spelling per page.

Fragments are dropped, tracking parameters (utm_*, fbclid, gclid, …) removed,
the query sorted, scheme and host lower-cased, default ports dropped — so the
same page reached through a newsletter link and a menu link is fetched once.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

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
_DEFAULT_PORTS = {"http": 80, "https": 443}
_SCHEME_RE = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def is_tracking_param(name: str) -> bool:
    """True for query parameters that only track visitors."""
    name = name.lower()
    return name in TRACKING_PARAMS_DEFAULT or name.startswith(TRACKING_PREFIXES_DEFAULT)


def normalize_url(url: str) -> str:
    """Canonical spelling of an http(s) URL for de-duplication ("" for other schemes)."""
    url = url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return ""
    host = parts.hostname.lower().rstrip(".")
    try:
        port = parts.port
    except ValueError:
        return ""
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = parts.path or "/"
    if "/." in path:  # resolve ./ and ../ segments, keeping a trailing slash
        trailing = path.endswith("/")
        path = posixpath.normpath(path)
        path = "/" if path in (".", "/") else path + ("/" if trailing else "")
        path = path if path.startswith("/") else "/" + path
    query = urlencode(sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                             if not is_tracking_param(k)))
    return urlunsplit((scheme, netloc, path, query, ""))


def has_non_html_extension(url: str,
                           extensions: frozenset[str] = NON_HTML_EXTENSIONS_DEFAULT) -> bool:
    """True when the URL path ends in a file extension that is never an HTML page."""
    path = urlsplit(url).path.lower()
    last = path.rsplit("/", 1)[-1]
    if "." not in last:
        return False
    return last.rsplit(".", 1)[-1] in extensions


def same_site(host: str, domains: set[str]) -> bool:
    """True when ``host`` is one of ``domains`` or a subdomain of one (``www.`` ignored)."""
    host = host.lower()
    host = host[4:] if host.startswith("www.") else host
    return any(host == d or host.endswith("." + d) for d in domains)


def site_root(url: str) -> str:
    """The root URL (``scheme://host[:port]/``) of ``url``'s site: where robots.txt lives."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/", "", ""))


def looks_absolute(url: str) -> bool:
    """True when the string starts with a URL scheme."""
    return bool(_SCHEME_RE.match(url))
