"""Actionable elements of a rendered page and the features the element classifier reads.

Source: Komporday's thesis, part III §9.1–9.2.  An *element* is anything that
navigates, moves within the page or reveals/modifies part of it — not only
``<a>``: buttons, ``role=button``, ``onclick`` handlers and script-bound
``<div>``s with a pointer cursor and data attributes.  The thesis' training
record holds the tag, standard attributes, non-standard (``data-*``)
attributes and the full source HTML; we keep that record format and add the
visible text and, when the element was collected from a live page, its layout
(geometry, visibility, position in fixed/sticky overlays, z-index).

Training record (JSON Lines, one element per line)::

    {"tag": "a", "attributes": {"href": "#", "role": "button", "class": "UFIPagerLink"},
     "text": "View previous replies", "html": "<a class=...>...</a>",
     "page_url": "https://example.com/post/1", "label": "Revealer",
     "layout": {"visible": true, "fixed": false, "z_index": 0, ...},   # optional
     "page_lang": "en"}                                                # optional

``label`` is one of :data:`LABELS`; ``layout`` and ``page_lang`` may be
absent (features then assume a visible element in the page flow).

Deviation from the thesis: it fed the tree the raw attributes; a decision
tree cannot split on free text, so we derive a fixed numeric vector
(:func:`features`): tag, href kind (with redirect-proxy decoding),
ARIA/role hints, multilingual keyword hits in text and class/id, language
hints and layout.  The keyword lists are ours, not the thesis'.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urljoin

from corpuscrawl.browse.hrefs import (
    HREF_KINDS,
    LANGUAGE_CODES_DEFAULT,
    PROXY_PARAMS_DEFAULT,
    SCRIPT_HREF_ATTRS_DEFAULT,
    decode_proxy,
    href_kind,
    is_clickable_in_place,
    language_switch_code,
    navigation_target,
    scripted_target,
)

#: What this module offers: records and features here, where elements lead from
#: :mod:`corpuscrawl.browse.hrefs` (one import for the element API).
__all__ = ["FEATURE_NAMES", "HREF_KINDS", "LABELS", "LANGUAGE_CODES_DEFAULT",
           "LANGUAGE_NAMES_DEFAULT", "PROXY_PARAMS_DEFAULT", "SCRIPT_HREF_ATTRS_DEFAULT",
           "STRUCTURAL_LAYOUT_KEYS", "ElementRecord", "decode_proxy", "feature_matrix",
           "features", "href_kind", "is_clickable_in_place", "language_switch_code",
           "layout_view", "navigation_target", "records_from_collection",
           "scripted_target"]

#: The classes of Komporday's thesis §9.3 plus LanguageSelection (the thesis' future work) and Other.
LABELS = ("Revealer", "Inner", "Outer", "Closer", "LanguageSelection", "Other")

#: Endonyms and English names of languages as they appear on language switchers.
LANGUAGE_NAMES_DEFAULT = frozenset(
    """english deutsch français francais español espanol italiano magyar polski hrvatski
    srpski slovenščina slovenčina čeština cestina română romana português portugues
    nederlands svenska dansk norsk suomi eesti latviešu lietuvių ελληνικά русский українська
    български türkçe 日本語 中文 한국어 العربية german french spanish italian hungarian polish
    croatian serbian czech slovak romanian portuguese dutch swedish russian ukrainian
    bulgarian turkish chinese japanese korean arabic""".split()
)

# Keyword lists (ours; English, Hungarian, German, Croatian/Serbian, Polish, French,
# Spanish, Italian) matched as substrings of the lower-cased visible text or of the
# class/id/data attribute names and values.
REVEAL_WORDS_DEFAULT = (
    "more", "load", "show", "view", "expand", "previous", "older", "replies", "comments",
    "continue reading", "read more", "see all", "new posts", "new tweets", "több", "tovább",
    "mutat", "korábbi", "mehr", "weitere", "anzeigen", "više", "učitaj", "prikaži",
    "więcej", "pokaż", "załaduj", "plus", "afficher", "voir", "más", "cargar",
    "altri", "mostra",
)
REVEAL_HOOKS_DEFAULT = ("more", "load", "expand", "pager", "toggle", "reveal", "collapse",
                        "show", "replies", "comments", "accordion", "spoiler", "new-",
                        "infinite", "readmore", "read-more")
CLOSE_WORDS_DEFAULT = (
    "close", "dismiss", "accept", "agree", "got it", "no thanks", "not now", "maybe later",
    "reject", "decline", "i understand", "allow all", "continue without", "bezár",
    "elfogad", "rendben", "értem", "schließen", "akzeptieren", "zustimmen", "zatvori",
    "prihvati", "slažem", "zamknij", "akceptuj", "zgadzam", "fermer", "accepter",
    "j'accepte", "cerrar", "aceptar", "chiudi", "accetta", "ok", "×", "✕", "✖", "x",
)
CLOSE_HOOKS_DEFAULT = ("close", "dismiss", "consent", "cookie", "gdpr", "modal", "overlay",
                       "popup", "banner", "accept", "agree", "lightbox", "newsletter",
                       "interstitial", "paywall-close", "cmp")
OTHER_WORDS_DEFAULT = (
    "share", "tweet", "like", "print", "search", "subscribe", "log in", "login", "sign in",
    "sign up", "register", "send", "submit", "reply", "report", "follow", "megoszt",
    "keresés", "teilen", "suche", "podijeli", "udostępnij", "partager", "compartir",
)
OTHER_HOOKS_DEFAULT = ("share", "social", "like", "print", "search", "login", "signin",
                       "facebook", "twitter", "whatsapp", "email", "vote", "rating")

_WORD_RE = re.compile(r"\w+", re.U)


@dataclass
class ElementRecord:
    """One actionable element as collected from a page (the training-record format)."""

    tag: str
    attributes: dict[str, str] = field(default_factory=dict)
    text: str = ""
    html: str = ""
    page_url: str = ""
    label: str | None = None
    layout: dict[str, Any] = field(default_factory=dict)
    page_lang: str = ""
    #: Index of the element in the live page (``window.__corpuscrawl.els``); -1 offline.
    index: int = -1
    #: The element's absolute ``href`` as the browser resolved it (None without href).
    href: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], line: str = "") -> ElementRecord:
        """Build from a JSON record; ``line`` names the source in error messages."""
        where = f"{line}: " if line else ""
        if not isinstance(data, Mapping) or not isinstance(data.get("tag"), str):
            raise ValueError(f"{where}element record needs a string 'tag'")
        label = data.get("label")
        if label is not None and label not in LABELS:
            raise ValueError(f"{where}unknown label {label!r}; known labels: {', '.join(LABELS)}")
        attributes = data.get("attributes") or {}
        if not isinstance(attributes, Mapping):
            raise ValueError(f"{where}'attributes' must be an object")
        return cls(tag=data["tag"].lower(),
                   attributes={str(k).lower(): str(v) for k, v in attributes.items()},
                   text=str(data.get("text") or ""), html=str(data.get("html") or ""),
                   page_url=str(data.get("page_url") or ""), label=label,
                   layout=dict(data.get("layout") or {}),
                   page_lang=str(data.get("page_lang") or ""),
                   index=int(data.get("index", -1)), href=data.get("href"))

    def to_dict(self, with_runtime: bool = False) -> dict[str, Any]:
        """The JSON record; ``with_runtime`` keeps the live-page index and resolved href."""
        data = asdict(self)
        if not with_runtime:
            data.pop("index")
            data.pop("href")
        return data

    @property
    def target_url(self) -> str:
        """The absolute URL the element navigates to ("" when it does not).

        Without an ``href``, a URL in an ``onclick`` navigation or a ``data-href``-like
        attribute counts (links that exist only for scripts).
        """
        if self.href is not None:
            return self.href
        raw = self.attributes.get("href")
        if raw is None:
            raw = scripted_target(self.attributes)
            if not raw:
                return ""
        return urljoin(self.page_url, raw.strip())


def records_from_collection(collected: Mapping[str, Any]) -> list[ElementRecord]:
    """Turn the output of ``COLLECT_JS`` (see :mod:`dom_scripts`) into records."""
    page_url = collected.get("url", "")
    page_lang = collected.get("lang", "")
    return [ElementRecord(tag=e["tag"], attributes=e["attributes"], text=e["text"],
                          html=e["html"], page_url=page_url, layout=e["layout"],
                          page_lang=page_lang, index=e["index"], href=e["href"])
            for e in collected.get("elements", [])]


# --- features --------------------------------------------------------------------------

_TAGS = ("a", "button", "div", "span", "li", "input", "summary", "img")


def _hits(text: str, words: Iterable[str]) -> int:
    tokens = set(_WORD_RE.findall(text))
    count = 0
    for w in words:
        if (len(w) <= 2 and (w in tokens or (not w.isalnum() and w in text))) or \
                (len(w) > 2 and w in text):
            count += 1
    return count


def _hook_text(record: ElementRecord) -> str:
    parts = []
    for name, value in record.attributes.items():
        if name in ("class", "id", "name") or name.startswith(("data-", "aria-", "js")):
            parts.append(name)
            parts.append(value[:100])
    return " ".join(parts).lower()


def features(record: ElementRecord) -> dict[str, float]:
    """The numeric feature vector of one element, by name (see :data:`FEATURE_NAMES`)."""
    attrs = record.attributes
    text = record.text.lower().strip()
    hooks = _hook_text(record)
    kind, target = href_kind(record)
    layout = record.layout
    f: dict[str, float] = {f"tag_{t}": float(record.tag == t) for t in _TAGS}
    f["tag_other"] = float(record.tag not in _TAGS)
    f.update({f"href_{k}": float(kind == k)
              for k in ("none", "fragment", "javascript", "other_scheme")})
    # Where the element leads, proxies decoded (a proxied inner link looks like an inner
    # link: with few proxied examples the tree must not learn "proxy" as a class of its own).
    f["href_via_proxy"] = float(kind.startswith("proxy_"))
    f["leads_inner"] = float(kind in ("inner", "proxy_inner"))
    f["leads_outer"] = float(kind in ("outer", "proxy_outer"))
    lang_code = language_switch_code(target, record.page_url) if target else ""
    attr_lang = (attrs.get("hreflang") or attrs.get("lang") or "").lower()[:2]
    page_lang = (record.page_lang or "").lower()[:2]
    f["has_hreflang"] = float("hreflang" in attrs)
    f["has_lang_attr"] = float("lang" in attrs)
    f["lang_differs_from_page"] = float(bool(attr_lang and page_lang and attr_lang != page_lang))
    f["target_language_switch"] = float(bool(lang_code))
    f["text_is_language"] = float(text in LANGUAGE_NAMES_DEFAULT or
                                  (len(text) == 2 and text in LANGUAGE_CODES_DEFAULT))
    f["role_button"] = float(attrs.get("role", "") in ("button", "tab", "menuitem"))
    f["has_onclick"] = float("onclick" in attrs)
    f["aria_expanded"] = float("aria-expanded" in attrs)
    f["aria_controls"] = float("aria-controls" in attrs)
    f["aria_haspopup"] = float("aria-haspopup" in attrs)
    f["data_attrs"] = float(sum(1 for a in attrs if a.startswith("data-")))
    f["n_attrs"] = float(len(attrs))
    f["target_blank"] = float(attrs.get("target", "") == "_blank")
    rel = attrs.get("rel", "")
    f["rel_external"] = float(any(r in rel for r in ("nofollow", "sponsored", "external",
                                                         "noopener")))
    f["type_submit"] = float(attrs.get("type", "") in ("submit", "image", "reset"))
    f["reveal_text"] = float(_hits(text, REVEAL_WORDS_DEFAULT))
    f["reveal_hook"] = float(_hits(hooks, REVEAL_HOOKS_DEFAULT))
    f["close_text"] = float(_hits(text, CLOSE_WORDS_DEFAULT))
    f["close_hook"] = float(_hits(hooks, CLOSE_HOOKS_DEFAULT))
    f["other_text"] = float(_hits(text, OTHER_WORDS_DEFAULT))
    f["other_hook"] = float(_hits(hooks, OTHER_HOOKS_DEFAULT))
    f["text_chars"] = float(len(text))
    f["text_words"] = float(len(text.split()))
    f["text_has_digit"] = float(any(c.isdigit() for c in text))
    f["text_symbol_only"] = float(bool(text) and not any(c.isalnum() for c in text))
    f["visible"] = float(bool(layout.get("visible", True)))
    f["in_fixed"] = float(bool(layout.get("fixed", False)))
    f["in_dialog"] = float(bool(layout.get("in_dialog", False)))
    f["overlay_cover"] = float(layout.get("overlay_cover", 0.0) or 0.0)
    f["z_index_log"] = math.log10(1 + max(0.0, float(layout.get("z_index", 0) or 0)))
    f["width"] = float(layout.get("width", 0) or 0)
    f["height"] = float(layout.get("height", 0) or 0)
    f["cursor_pointer"] = float(bool(layout.get("cursor_pointer", record.tag in ("a", "button"))))
    f["in_nav"] = float(bool(layout.get("in_nav", False)))
    f["in_footer"] = float(bool(layout.get("in_footer", False)))
    f["in_form"] = float(bool(layout.get("in_form", False)))
    return f


#: Layout keys a page's structure gives (no geometry, no overlay position).  Models fitted
#: on these alone generalise better to unseen sites (leave-one-site-out accuracy 0.85 vs
#: 0.76 with geometry, models/element-classifier.md) and apply to static HTML as well.
STRUCTURAL_LAYOUT_KEYS = ("visible", "in_nav", "in_footer", "in_dialog", "in_form")


def layout_view(record: ElementRecord, keys: Iterable[str]) -> ElementRecord:
    """The record with only the given layout keys (the rest falls back to defaults)."""
    wanted = set(keys)
    return ElementRecord(tag=record.tag, attributes=record.attributes, text=record.text,
                         html=record.html, page_url=record.page_url, label=record.label,
                         layout={k: v for k, v in record.layout.items() if k in wanted},
                         page_lang=record.page_lang, index=record.index, href=record.href)


#: Names of the feature vector's columns, in order.
FEATURE_NAMES: tuple[str, ...] = tuple(features(ElementRecord(tag="a")).keys())


def feature_matrix(records: Iterable[ElementRecord]) -> list[list[float]]:
    """Rows of :func:`features` in :data:`FEATURE_NAMES` order."""
    return [[row[name] for name in FEATURE_NAMES] for row in map(features, records)]
