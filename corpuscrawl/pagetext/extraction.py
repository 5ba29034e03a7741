"""Extraction of one page as the crawl does it: the domain's extractor, metadata, language.

One :class:`Extraction` object per crawl, built from settings, chooses the
extractor for each page by the domain rules — a template for the domain beats a
per-domain extractor setting, which beats the crawl's default — and never lets
an extractor's exception escape: the error is returned in the result so the
caller can count it and keep the raw page.

Each extraction has a budget (:mod:`corpuscrawl.pagetext.budget`): a page over the size
cap is first trimmed of markup that is never text; one still over it goes to
the oversized-page extractor when one is configured, else fails as
``OversizedPage``; an extraction over the time limit fails as
``ExtractionTimeout``.  Failed pages are kept by the pipeline.  A page whose
body is not text is skipped (``skipped = "binary"``), never extracted.

Reader comments, which an extractor such as ``auto`` gives apart from the main
text (:func:`corpuscrawl.extract.base.extract_parts`), go where
``CORPUSCRAWL_COMMENTS`` says (:data:`COMMENT_MODES`): their own ``comments``
field, the end of the text after a blank line (trafilatura's
``include_comments``), or nowhere.

Plain library code: no Scrapy.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpuscrawl.config.crawl_checks import CrawlSetupError
from corpuscrawl.config.setting_values import flag_setting
from corpuscrawl.extract import get_extractor, load_factory, names, registry
from corpuscrawl.extract.base import Extracted, Extractor, ExtractorError, extract_parts, normalized
from corpuscrawl.extract.classic.linkblocks import coherent_texts
from corpuscrawl.extract.classic.template import TemplateError, TemplateExtractor, load_template
from corpuscrawl.extract.lines.structure import encode_roles, roles_for
from corpuscrawl.extract.meta.metadata import extract_metadata
from corpuscrawl.extract.meta.page_info import PageInfo, extract_page_info
from corpuscrawl.extract.meta.title import own_title, with_headline
from corpuscrawl.extract.page_typing.listing import listing_verdict
from corpuscrawl.extract.page_typing.page_type import page_type
from corpuscrawl.extract.segment.cdom import page_blocks
from corpuscrawl.html.language import detect
from corpuscrawl.html.page import Page
from corpuscrawl.html.text import normalize_line, normalize_text
from corpuscrawl.pagetext.budget import ExtractionTimeout, time_limit, trim_markup
from corpuscrawl.pagetext.rules import DomainRule, DomainRules
from corpuscrawl.resources.shipped import find_model

logger = logging.getLogger("corpuscrawl.extraction")


#: Coherent-text splitters (Dorosz's coherent-text paper) for ``CORPUSCRAWL_SPLIT_METHOD``.
SPLIT_METHODS = ("linkblocks", "energy")


#: Where reader comments go (``CORPUSCRAWL_COMMENTS``, spider argument ``comments``): the
#: document's ``comments`` field; the end of its text after a blank line; nowhere.
COMMENT_MODES = ("field", "text", "drop")


#: The page every extractor runs on once at start-up when a time budget is set.
WARM_UP_HTML = ("<html><head><title>Warm-up page</title></head><body><h1>Warm-up</h1><p>"
                + "This paragraph loads the models and language profiles before the crawl. " * 8
                + "</p></body></html>")


class ConfigError(CrawlSetupError):
    """A setting has an invalid value; the message names the setting."""


@dataclass
class ExtractionResult:
    """What extraction found on one page; ``error`` is set when the extractor raised."""

    text: str = ""
    #: The page's reader comments with ``CORPUSCRAWL_COMMENTS = "field"`` ("" when none).
    comments: str = ""
    extractor: str = ""
    title: str = ""
    language: str = ""
    language_prob: float = 0.0
    date: str = ""
    author: str = ""
    #: The page's type (:mod:`corpuscrawl.extract.page_typing.page_type`: article, forum, ...; "" when
    #: not predicted).
    page_type: str = ""
    #: Why the page is a listing (teasers of other pages of its site:
    #: :func:`corpuscrawl.extract.page_typing.listing.listing_verdict`), "" when it is not (or in split
    #: mode, whose units are the page's coherent texts).
    listing: str = ""
    error: str = ""
    #: With ``CORPUSCRAWL_SPLIT_COHERENT``: the page's coherent texts as (kind, text) pairs.
    units: list[tuple[str, str]] = field(default_factory=list)
    #: Why the page was not extracted at all ("binary": the body is not text), else "".
    skipped: str = ""
    #: What was unusual about the page and its extraction (Page notes, "trimmed", ...).
    notes: tuple[str, ...] = ()
    #: Site name, description, categories, tags, licence, image, modified date, canonical URL.
    info: PageInfo = field(default_factory=PageInfo)
    #: With ``ExtractionConfig.structure``: the role of each line of ``text`` then of
    #: ``comments`` (:func:`corpuscrawl.extract.lines.structure.encode_roles`), else [].
    structure: list[str] = field(default_factory=list)
    #: The same for each of ``units``' texts.
    unit_structures: list[list[str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the extractor ran without raising (an empty text is still ok)."""
        return not self.error


@dataclass(frozen=True)
class ExtractionConfig:
    """Typed view of the extraction settings."""

    default_extractor: str = "auto"
    #: Where reader comments go (:data:`COMMENT_MODES`): CORPUSCRAWL_COMMENTS.
    comments: str = "field"
    extractors: Mapping[str, str | None] | None = None
    options: Mapping[str, Mapping[str, Any]] | None = None
    split_coherent: bool = False
    split_method: str = "linkblocks"
    #: Where ``default_extractor`` came from, named in start-up errors.
    default_source: str = "CORPUSCRAWL_EXTRACTOR"
    #: Size cap of one extraction in bytes of HTML (0 = none): CORPUSCRAWL_EXTRACTION_MAX_BYTES.
    max_bytes: int = 0
    #: Time budget of one extraction in seconds (0 = none): CORPUSCRAWL_EXTRACTION_TIMEOUT.
    timeout: float = 0.0
    #: Extractor for pages still over the cap after trimming ("" = fail them, keeping the page).
    oversized_extractor: str = ""
    #: A document's text opens with its headline when the extractor left it out
    #: (:func:`~corpuscrawl.extract.meta.title.with_headline`): CORPUSCRAWL_HEADLINE_IN_TEXT.
    headline_in_text: bool = True
    #: Find each text line's role (heading, list item, cell ...) for Markdown and TEI output:
    #: on with CORPUSCRAWL_MARKDOWN or a ``tei`` feed.
    structure: bool = False

    @classmethod
    def from_settings(cls, settings: Any, default_extractor: str | None = None,
                      comments: str | None = None) -> ExtractionConfig:
        """Read ``CORPUSCRAWL_EXTRACTOR``, ``CORPUSCRAWL_EXTRACTORS``, ``CORPUSCRAWL_EXTRACTOR_OPTIONS``,
        ``CORPUSCRAWL_COMMENTS`` (``default_extractor`` and ``comments``: the spider's arguments,
        which win)."""
        extractors = _json_setting(settings, "CORPUSCRAWL_EXTRACTORS")
        options = _json_setting(settings, "CORPUSCRAWL_EXTRACTOR_OPTIONS")
        if not isinstance(extractors, Mapping):
            raise ConfigError("CORPUSCRAWL_EXTRACTORS must be a dict of name -> 'module:Class'")
        if not isinstance(options, Mapping) or not all(isinstance(v, Mapping) for v in options.values()):
            raise ConfigError("CORPUSCRAWL_EXTRACTOR_OPTIONS must be a dict of name -> dict of options")
        split = _flag(settings, "CORPUSCRAWL_SPLIT_COHERENT", False)
        method = settings.get("CORPUSCRAWL_SPLIT_METHOD", "linkblocks") or "linkblocks"
        if method not in SPLIT_METHODS:
            raise ConfigError(f"CORPUSCRAWL_SPLIT_METHOD must be one of {SPLIT_METHODS}, got {method!r}")
        return cls(default_extractor=default_extractor or settings.get("CORPUSCRAWL_EXTRACTOR", "auto"),
                   extractors=dict(extractors), options={k: dict(v) for k, v in options.items()},
                   comments=_comment_mode(settings, comments),
                   split_coherent=split, split_method=method,
                   headline_in_text=_flag(settings, "CORPUSCRAWL_HEADLINE_IN_TEXT", True),
                   default_source=("spider argument extractor" if default_extractor
                                   else "CORPUSCRAWL_EXTRACTOR"),
                   structure=structure_wanted(settings),
                   **_budget_settings(settings))


def _flag(settings: Any, key: str, default: bool) -> bool:
    """A boolean setting given as a bool or as yes/no text; a :class:`ConfigError` naming the
    key for any other text."""
    return flag_setting(settings, key, default, ConfigError)


def structure_wanted(settings: Any) -> bool:
    """True when a document needs its lines' roles: ``CORPUSCRAWL_MARKDOWN`` is on or a feed
    (``FEEDS``, ``-O out.xml:tei``) has the ``tei`` format."""
    if _flag(settings, "CORPUSCRAWL_MARKDOWN", False):
        return True
    feeds = settings.get("FEEDS") or {}
    if isinstance(feeds, str):
        try:
            feeds = json.loads(feeds)
        except ValueError:
            return False
    get = getattr(feeds, "items", None)
    return any(isinstance(opts, Mapping) and opts.get("format") == "tei"
               for _, opts in (get() if get else []))


def _comment_mode(settings: Any, argument: str | None) -> str:
    """The valid comment mode of the spider argument or ``CORPUSCRAWL_COMMENTS``, or a
    :class:`ConfigError` naming where the bad value came from."""
    where = "spider argument comments" if argument else "CORPUSCRAWL_COMMENTS"
    raw = argument if argument else settings.get("CORPUSCRAWL_COMMENTS", "field")
    mode = str(raw if raw is not None else "field").strip().lower() or "field"
    if mode not in COMMENT_MODES:
        raise ConfigError(f"{where} must be one of {', '.join(COMMENT_MODES)}, got {raw!r}")
    return mode


def place_comments(parts: Extracted, mode: str) -> tuple[str, str]:
    """The text and the ``comments`` field of a page for comment ``mode``: ``field`` keeps
    them apart, ``text`` appends the comments to the text after a blank line, ``drop``
    discards them."""
    if mode == "field":
        return parts.text, parts.comments
    if mode == "text" and parts.comments:
        return (f"{parts.text}\n\n{parts.comments}" if parts.text else parts.comments), ""
    return parts.text, ""


def thread_parts(parts: Extracted) -> Extracted:
    """A forum thread's or Q&A page's parts: what an extractor took for reader comments
    are the replies, the page's main text, so they join the text (reader comments under
    an article stay apart).  The gain on wcxb's forum pages, and the article sets where
    no page with comments is a forum: ``benchmarks/results/wholeweb.md``."""
    return Extracted("\n".join(t for t in (parts.text, parts.comments) if t), "")


def _listing(page: Page, text: str, page_type: str) -> str:
    """:func:`~corpuscrawl.extract.page_typing.listing.listing_verdict` of the page's main text, or of
    its whole visible text when the extractor kept nothing (a front page made of links
    alone), "" when it fails (the verdict is best effort; the page is kept)."""
    try:
        if not text:
            text = "\n".join(b.text for b in page_blocks(page))
        return listing_verdict(page, text, page_type)
    except Exception as exc:
        logger.warning("listing check failed on %s: %r", page.url, exc)
        return ""


def _json_setting(settings: Any, key: str) -> Any:
    """A dict setting; given as a string (``-s KEY='{...}'``) it is read as JSON."""
    value = settings.get(key) or {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise ConfigError(f"{key} is not valid JSON: {exc}") from None
    return value


def _budget_settings(settings: Any) -> dict[str, Any]:
    """The budget keys of :class:`ExtractionConfig`, validated, from settings."""
    values: dict[str, Any] = {}
    for key, name, kind in (("CORPUSCRAWL_EXTRACTION_MAX_BYTES", "max_bytes", int),
                            ("CORPUSCRAWL_EXTRACTION_TIMEOUT", "timeout", float)):
        raw = settings.get(key, 0)
        try:
            value = kind(raw or 0)
        except (TypeError, ValueError):
            raise ConfigError(f"{key} must be a number >= 0, got {raw!r}") from None
        if value < 0:
            raise ConfigError(f"{key} must be a number >= 0, got {raw!r}")
        values[name] = value
    values["oversized_extractor"] = str(settings.get("CORPUSCRAWL_EXTRACTION_OVERSIZED") or "")
    return values


class TextShapes:
    """What shapes a page's text under an extraction's settings and domain rules, told
    without building an extractor or loading a model (the crawl process asks it of every
    page while its extraction workers hold the models)."""

    def __init__(self, config: ExtractionConfig, rules: DomainRules) -> None:
        self.config = config
        self.rules = rules
        self._shapes: dict[tuple[str | None, str | None], str] = {}
        self._file_digests: dict[str, str] = {}
        #: :meth:`_extractor_shape` by extractor name (telling a learned extractor imports it).
        self._extractors: dict[str, dict[str, Any]] = {}

    def extractor_shapes(self) -> dict[str, dict[str, Any]]:
        """The shape of every extractor the settings name (the default, the oversized-page
        one, each domain rule's), for :meth:`know` in a process that has not imported them."""
        names = {self.config.default_extractor, self.config.oversized_extractor,
                 *(rule.extractor for rule in self.rules.rules.values())}
        return {name: self._extractor_shape(name) for name in sorted(n for n in names if n)}

    def know(self, extractor_shapes: dict[str, dict[str, Any]]) -> None:
        """Take extractors' shapes told by :meth:`extractor_shapes` of the same settings."""
        self._extractors.update(extractor_shapes)

    @classmethod
    def from_settings(cls, settings: Any, default_extractor: str | None = None,
                      comments: str | None = None) -> TextShapes:
        """As :meth:`Extraction.from_settings` reads the settings."""
        return cls(ExtractionConfig.from_settings(settings, default_extractor, comments),
                   DomainRules.from_settings(settings))

    def shape_for(self, url: str) -> str:
        """A digest of everything that shapes the text of ``url``'s page (16 hex digits).

        The extractor the domain's rule chooses (its registered name and class,
        its options), the content of its model file (learned extractors) and of
        the other model files its text depends on (``other_model_files``) or of
        the domain's template file, and the settings that change a text: where
        comments go, the coherent split, the size cap and the oversized-page
        extractor.  Two crawls shape a page's text alike exactly when their
        shapes are equal (the recrawl keeps it per page:
        :mod:`corpuscrawl.crawlstate.pages`).  Computed once per domain rule.
        """
        rule = self.rules.for_url(url)
        key = (rule.template, rule.extractor)
        shape = self._shapes.get(key)
        if shape is None:
            shape = self._shapes[key] = self._shape(rule)
        return shape

    def _shape(self, rule: DomainRule) -> str:
        config = self.config
        parts: dict[str, Any] = {"comments": config.comments,
                                 "split": [config.split_coherent, config.split_method],
                                 "max_bytes": config.max_bytes,
                                 "oversized": self._extractor_shape(config.oversized_extractor)
                                 if config.oversized_extractor else None}
        if rule.template:
            parts["template"] = self._file_digest(rule.template)
        else:
            parts["extractor"] = self._extractor_shape(rule.extractor
                                                       or config.default_extractor)
            if config.headline_in_text:
                parts["headline"] = True
        data = json.dumps(parts, sort_keys=True, default=str).encode("utf-8")
        return hashlib.blake2b(data, digest_size=8).hexdigest()

    def _extractor_shape(self, name: str) -> dict[str, Any]:
        """An extractor's name, class, options and model file content digest."""
        if name not in self._extractors:
            self._extractors[name] = self._new_extractor_shape(name)
        return self._extractors[name]

    def _new_extractor_shape(self, name: str) -> dict[str, Any]:
        from corpuscrawl.extract.learned.models import LearnedModel, find_model_path

        options = dict((self.config.options or {}).get(name, {}))
        table = registry(self.config.extractors)
        shape: dict[str, Any] = {"name": name, "class": table.get(name, ""), "options": options}
        try:
            factory = load_factory(table[name])
        except (KeyError, ExtractorError):
            return shape
        model_class = getattr(factory, "model_class", None)
        if isinstance(model_class, type) and issubclass(model_class, LearnedModel):
            path = find_model_path(str(options.get("model") or getattr(factory, "name", "")
                                       or name), options.get("models_dir"))
            shape["model"] = self._file_digest(str(path)) if path is not None else ""
        for file in getattr(factory, "other_model_files", ()):  # e.g. auto's page types
            found = find_model(file)
            shape.setdefault("other_models", {})[file] = (self._file_digest(str(found))
                                                          if found is not None else "")
        return shape

    def _file_digest(self, path: str) -> str:
        """BLAKE2b of a file's bytes ("" when it cannot be read), once per path."""
        if path not in self._file_digests:
            digest = hashlib.blake2b(digest_size=16)
            try:
                with Path(path).open("rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        digest.update(block)
                self._file_digests[path] = digest.hexdigest()
            except OSError:
                self._file_digests[path] = ""
        return self._file_digests[path]


class Extraction:
    """Chooses and runs the extractor for each page within its budget; caches built extractors."""

    def __init__(self, config: ExtractionConfig | None = None, rules: DomainRules | None = None):
        self.config = config or ExtractionConfig()
        self.rules = rules or DomainRules()
        self._by_name: dict[str, Extractor] = {}
        self._by_template: dict[str, Extractor] = {}
        self.shapes = TextShapes(self.config, self.rules)
        for path in self.rules.template_files():  # fail at start-up, naming file and line
            try:
                load_template(path)
            except ExtractorError as exc:
                raise ConfigError(f"template {exc}" if isinstance(exc, TemplateError)
                                  else str(exc)) from exc
        self.default = self._named(self.config.default_extractor, self.config.default_source)
        self.oversized = (self._named(self.config.oversized_extractor,
                                      "CORPUSCRAWL_EXTRACTION_OVERSIZED")
                          if self.config.oversized_extractor else None)
        for rule in self.rules.rules.values():  # fail at start-up, naming the domain
            self.extractor_for_rule(self.rules.for_domain(rule.domain))
        if self.config.timeout:
            self.warm_up()

    def warm_up(self) -> None:
        """Run every built extractor, metadata and language identification once, unbudgeted.

        Models and language profiles load on first use (identification alone
        takes seconds); loaded under a time budget, an interrupted load would
        start again, and time out again, on every page.
        """
        page = Page.from_html(WARM_UP_HTML, url="http://warm-up.invalid/")
        extractors = {id(e): e for e in (self.default, self.oversized, *self._by_name.values(),
                                         *self._by_template.values()) if e is not None}
        rule = self.rules.for_url(page.url)
        for extractor in extractors.values():
            self._extract(page, extractor, rule)

    @classmethod
    def from_settings(cls, settings: Any, default_extractor: str | None = None,
                      comments: str | None = None) -> Extraction:
        """Build from Scrapy settings (or any mapping with ``get``) and the spider's
        ``extractor`` and ``comments`` arguments."""
        return cls(ExtractionConfig.from_settings(settings, default_extractor, comments),
                   DomainRules.from_settings(settings))

    def _named(self, name: str, where: str) -> Extractor:
        if name not in self._by_name:
            options = dict((self.config.options or {}).get(name, {}))
            try:
                self._by_name[name] = get_extractor(name, self.config.extractors, **options)
            except ExtractorError as exc:
                raise ConfigError(f"{where}: {exc}") from exc
        return self._by_name[name]

    def extractor_for_rule(self, rule: DomainRule) -> Extractor:
        """Template beats the domain's extractor, which beats the default."""
        if rule.template:
            if rule.template not in self._by_template:
                try:
                    template = load_template(rule.template)
                except ExtractorError as exc:
                    raise ConfigError(f"template for domain {rule.domain!r}: {exc}") from exc
                self._by_template[rule.template] = normalized(TemplateExtractor(template))
            return self._by_template[rule.template]
        if rule.extractor:
            return self._named(rule.extractor, f"extractor rule for domain {rule.domain!r}")
        return self.default

    def extractor_for(self, url: str) -> Extractor:
        """The extractor the rules choose for ``url``."""
        return self.extractor_for_rule(self.rules.for_url(url))

    def shape_for(self, url: str) -> str:
        """:meth:`TextShapes.shape_for` of this extraction's settings and rules."""
        return self.shapes.shape_for(url)

    def run(self, page: Page) -> ExtractionResult:
        """Extract text, title/date/author and language of ``page``; errors are returned, never raised."""
        rule = self.rules.for_url(page.url)
        extractor = self.extractor_for_rule(rule)
        if page.unreadable:
            return ExtractionResult(extractor=extractor.name, skipped=page.unreadable,
                                    notes=page.notes)
        notes = list(page.notes)
        if self.config.max_bytes and page.size > self.config.max_bytes:
            page, extractor, error = self._within_size(page, extractor, notes)
            if error:
                return ExtractionResult(extractor=extractor.name, error=error, notes=tuple(notes))
        try:
            with time_limit(self.config.timeout):
                result = self._extract(page, extractor, rule)
        except ExtractionTimeout:
            logger.warning("extraction of %s by %s took over %s s: given up, page kept",
                           page.url, extractor.name, self.config.timeout)
            result = ExtractionResult(extractor=extractor.name, error=(
                f"ExtractionTimeout: over CORPUSCRAWL_EXTRACTION_TIMEOUT={self.config.timeout} s"))
        result.notes = tuple(notes)
        return result

    def _within_size(self, page: Page, extractor: Extractor,
                     notes: list[str]) -> tuple[Page, Extractor, str]:
        """The page trimmed under the size cap, the extractor to use, and an error if neither fits."""
        cap = self.config.max_bytes
        html = trim_markup(page.html)
        size = len(html) if html.isascii() else len(html.encode("utf-8", "replace"))
        notes.append("trimmed")
        if size > cap and self.oversized is None:
            logger.warning("%s has %d bytes of HTML (%d after trimming markup), over "
                           "CORPUSCRAWL_EXTRACTION_MAX_BYTES=%d: not extracted, page kept",
                           page.url, page.size, size, cap)
            return page, extractor, (f"OversizedPage: {size} bytes after trimming markup, "
                                     f"over CORPUSCRAWL_EXTRACTION_MAX_BYTES={cap}")
        trimmed = Page.from_html(html, url=page.url, status=page.status)
        if size <= cap:
            return trimmed, extractor, ""
        notes.append("oversized")
        return trimmed, self.oversized, ""  # type: ignore[return-value]

    def _extract(self, page: Page, extractor: Extractor, rule: DomainRule) -> ExtractionResult:
        """``extractor``'s result on ``page``, with metadata; ``rule``: the page's domain rule."""
        result = ExtractionResult(extractor=extractor.name)
        try:
            # Typed before extraction: an extractor whose decoding reads the type (auto)
            # finds it on the page (Page.page_type), so the page is typed once.
            result.page_type = page_type(page)
            parts = extract_parts(extractor, page)
            if result.page_type == "forum" and parts.comments:
                parts = thread_parts(parts)
            if not self.config.split_coherent:
                result.listing = _listing(page, parts.text, result.page_type)
            result.text, result.comments = place_comments(parts, self.config.comments)
        except Exception as exc:  # an extractor bug must never kill the crawl
            logger.warning("extractor %s failed on %s: %r", extractor.name, page.url, exc,
                           exc_info=logger.isEnabledFor(logging.DEBUG))
            result.error = f"{type(exc).__name__}: {exc}"
            return result
        try:
            meta = extract_metadata(page)
            result.title, result.date = normalize_line(normalize_text(meta.title)), meta.date
            result.title = own_title(page, result.title, result.text)
            if self.config.headline_in_text and result.title and not rule.template:
                # a site's template states what its text is
                result.text = with_headline(page, result.title, result.text)
            result.author = normalize_line(normalize_text(meta.author))
            if result.text:  # the article's language, not the comments'
                result.language, result.language_prob = detect(parts.text or result.text)
            result.info = extract_page_info(page)
        except Exception as exc:  # metadata is best effort; keep the text
            logger.warning("metadata failed on %s: %r", page.url, exc)
        if self.config.structure:
            self._structure(page, extractor, result)
        if self.config.split_coherent:
            try:
                result.units = [(kind, normalize_text(text)) for kind, text
                                in coherent_texts(page, method=self.config.split_method)]
            except Exception as exc:  # fall back to the whole page's text
                logger.warning("coherent split failed on %s: %r", page.url, exc)
        return result

    def _structure(self, page: Page, extractor: Extractor, result: ExtractionResult) -> None:
        """Fill ``result.structure`` (and ``unit_structures``): the roles of its lines."""
        try:
            result.structure = (encode_roles(roles_for(extractor, page, result.text), result.text)
                                + encode_roles(roles_for(None, page, result.comments),
                                               result.comments))
            result.unit_structures = [encode_roles(roles_for(None, page, text), text)
                                      for _, text in result.units]
        except Exception as exc:  # structure is best effort: the text is kept, as paragraphs
            logger.warning("structure of %s failed: %r", page.url, exc)


def known_extractors(overrides: Mapping[str, str | None] | None = None) -> list[str]:
    """Names a user may pass as ``extractor``."""
    return names(overrides)
