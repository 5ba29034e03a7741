"""Per-domain rules in one place: template, extractor, render mode, interaction limits.

The spider and the pipeline both ask :meth:`DomainRules.for_url`.  Rules come
from the ``CORPUSCRAWL_DOMAINS`` setting (a dict) and/or a TOML file named by
``CORPUSCRAWL_RULES_FILE``::

    [domains."example.com"]
    template = "templates/example.com.txt"   # or just a template name in templates/
    extractor = "justext"
    render = "auto"            # never | always | auto
    max_reveals = 10
    max_scrolls = 5
    follow = "inner"           # inner | all
    extract_continuously = false
    allow = ["/articles/"]     # crawl scope for this domain (corpuscrawl.net.scope)
    deny = ["/print/"]
    max_pages = 500

A rule for ``example.com`` applies to its subdomains too (the most specific
domain wins).  Independently, a file ``templates/<domain>.txt`` is the
template of that domain and its subdomains without any configuration; a
configured rule for the same domain beats the file.  Template files are looked
up in ``CORPUSCRAWL_TEMPLATES_DIR`` first, then in the shipped templates
(:mod:`corpuscrawl.resources.shipped`), so a user's file overrides a shipped one of the
same name.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from corpuscrawl.config.crawl_checks import CrawlSetupError
from corpuscrawl.net.sites import domain_of
from corpuscrawl.resources.shipped import templates_dirs

RENDER_MODES = ("never", "always", "auto")
FOLLOW_MODES = ("inner", "all")


class RulesError(CrawlSetupError):
    """A domain rule is invalid; the message names the domain and the key."""


@dataclass(frozen=True)
class DomainRule:
    """What to do with one domain; ``None`` means "use the crawl-wide default"."""

    domain: str = ""
    template: str | None = None
    extractor: str | None = None
    render: str | None = None
    max_reveals: int | None = None
    max_scrolls: int | None = None
    follow: str | None = None
    extract_continuously: bool | None = None
    #: Scope of the domain's URLs (regular expressions) and its document cap (corpuscrawl.net.scope).
    allow: tuple[str, ...] | None = None
    deny: tuple[str, ...] | None = None
    max_pages: int | None = None


_TYPES: dict[str, tuple[type, ...]] = {
    "template": (str,), "extractor": (str,), "render": (str,), "max_reveals": (int,),
    "max_scrolls": (int,), "follow": (str,), "extract_continuously": (bool,),
    "allow": (list, tuple), "deny": (list, tuple), "max_pages": (int,),
}
#: Keys whose value is a list of strings.
_LIST_KEYS = ("allow", "deny")


def parse_rule(domain: str, raw: Mapping[str, Any], source: str = "CORPUSCRAWL_DOMAINS") -> DomainRule:
    """Validate one domain's table into a :class:`DomainRule`."""
    if not isinstance(raw, Mapping):
        raise RulesError(f"{source}: rule for {domain!r} must be a table/dict, got {type(raw).__name__}")
    known = {f.name for f in fields(DomainRule)} - {"domain"}
    unknown = set(raw) - known
    if unknown:
        raise RulesError(f"{source}: unknown key(s) {sorted(unknown)} for domain {domain!r}; "
                         f"known keys: {sorted(known)}")
    for key, value in raw.items():
        if value is not None and (not isinstance(value, _TYPES[key]) or
                                  (key != "extract_continuously" and isinstance(value, bool))):
            raise RulesError(f"{source}: {domain!r}.{key} must be {_TYPES[key][0].__name__}, "
                             f"got {value!r}")
    if raw.get("render") not in (None, *RENDER_MODES):
        raise RulesError(f"{source}: {domain!r}.render must be one of {RENDER_MODES}")
    if raw.get("follow") not in (None, *FOLLOW_MODES):
        raise RulesError(f"{source}: {domain!r}.follow must be one of {FOLLOW_MODES}")
    for key in ("max_reveals", "max_scrolls", "max_pages"):
        if raw.get(key) is not None and raw[key] < 0:
            raise RulesError(f"{source}: {domain!r}.{key} must be >= 0")
    values = dict(raw)
    for key in _LIST_KEYS:
        if values.get(key) is not None:
            if not all(isinstance(v, str) for v in values[key]):
                raise RulesError(f"{source}: {domain!r}.{key} must be a list of regular "
                                 f"expressions (strings), got {values[key]!r}")
            values[key] = tuple(values[key])
    return DomainRule(domain=normalize_domain(domain), **values)


def normalize_domain(domain: str) -> str:
    """Lower-case a domain and drop a leading ``www.`` (accepts a URL too)."""
    domain = domain.strip().lower()
    if "/" in domain:
        domain = domain_of(domain if "//" in domain else "http://" + domain)
    return domain[4:] if domain.startswith("www.") else domain


def load_rules_file(path: str | Path) -> dict[str, DomainRule]:
    """Read the ``[domains."…"]`` tables of a TOML rules file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RulesError(f"cannot read rules file {path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"{path}: invalid TOML: {exc}") from exc
    domains = data.get("domains", {})
    if not isinstance(domains, dict):
        raise RulesError(f"{path}: 'domains' must be a table of domain tables")
    return {normalize_domain(d): parse_rule(d, raw, str(path)) for d, raw in domains.items()}


class DomainRules:
    """Look up the rule of a URL's domain, merged over parent domains and template files."""

    def __init__(self, rules: Mapping[str, DomainRule] | None = None,
                 templates_dir: str | Path | Sequence[str | Path] | None = None):
        self.rules = dict(rules or {})
        if isinstance(templates_dir, str | Path):
            templates_dir = [templates_dir]
        #: Directories searched for template files, first hit wins.
        self.templates_dirs = [Path(d) for d in templates_dir or () if d]
        self._cache: dict[str, DomainRule] = {}

    def _template_file(self, filename: str) -> Path | None:
        for directory in self.templates_dirs:
            if (directory / filename).is_file():
                return directory / filename
        return None

    def template_files(self) -> list[Path]:
        """Every template file on the search path (``*.txt``), the first of each name."""
        found: dict[str, Path] = {}
        for directory in self.templates_dirs:
            try:
                files = sorted(directory.glob("*.txt")) if directory.is_dir() else []
            except OSError:
                continue
            for file in files:
                found.setdefault(file.name, file)
        return list(found.values())

    @classmethod
    def from_settings(cls, settings: Any) -> DomainRules:
        """Build from ``CORPUSCRAWL_DOMAINS``, ``CORPUSCRAWL_RULES_FILE``, ``CORPUSCRAWL_TEMPLATES_DIR``."""
        rules: dict[str, DomainRule] = {}
        path = settings.get("CORPUSCRAWL_RULES_FILE")
        if path:
            rules.update(load_rules_file(path))
        raw = settings.get("CORPUSCRAWL_DOMAINS") or {}
        if not isinstance(raw, Mapping):
            raise RulesError("CORPUSCRAWL_DOMAINS must be a dict of domain -> rule dict")
        for domain, table in raw.items():
            rules[normalize_domain(domain)] = parse_rule(domain, table)
        return cls(rules, templates_dirs(settings.get("CORPUSCRAWL_TEMPLATES_DIR")))

    def template_path(self, template: str) -> Path:
        """Resolve a rule's template: a path, or a name found on the templates search path."""
        path = Path(template)
        if path.suffix != ".txt":
            found = self._template_file(f"{template}.txt")
        elif not path.is_absolute() and not path.exists():
            found = self._template_file(path.name)
        else:
            return path
        if found is not None:
            return found
        # Not found anywhere: name the first directory, so the error says where it was expected.
        return (self.templates_dirs[0] / (path.name if path.suffix == ".txt" else f"{template}.txt")
                if self.templates_dirs else path)

    def for_domain(self, domain: str) -> DomainRule:
        """The effective rule for ``domain`` (most specific configured domain wins)."""
        domain = normalize_domain(domain)
        if domain in self._cache:
            return self._cache[domain]
        rule = DomainRule(domain=domain)
        labels = domain.split(".")
        # Apply parents first so that more specific domains override them.
        for k in range(len(labels) - 1, -1, -1):
            candidate = ".".join(labels[k:])
            file = self._template_file(f"{candidate}.txt")  # <domain>.txt, no config needed
            if file is not None:
                rule = replace(rule, template=str(file))
            found = self.rules.get(candidate)
            if found is not None:  # configuration beats a template file of the same domain
                rule = replace(rule, **{f.name: getattr(found, f.name) for f in fields(found)
                                        if f.name != "domain" and getattr(found, f.name) is not None})
        if rule.template is not None:
            rule = replace(rule, template=str(self.template_path(rule.template)))
        self._cache[domain] = rule
        return rule

    def for_url(self, url: str) -> DomainRule:
        """The effective rule for the domain of ``url``."""
        return self.for_domain(domain_of(url))
