"""Crawl scope: which discovered pages are followed (URL rules, a blocklist, a page cap per domain).

What a user sets (spider arguments, settings, or per domain in the rules file):

* ``allow`` — regular expressions (Python ``re``, searched anywhere in the URL); when any is
  given, a page URL is followed only if one matches (``-a allow=/news/,/blog/``;
  ``CORPUSCRAWL_ALLOW``).  The seeds themselves are always fetched: they are where links are
  found, as in Heritrix's and Scrapy's ``LinkExtractor(allow=...)`` scope.
* ``deny`` — regular expressions; a URL any of them matches is never fetched, seeds
  included (``-a deny=/tag/,\\?replytocom=``; ``CORPUSCRAWL_DENY``).  Deny beats allow.
* ``blocklist`` — a file, one entry per line (``#`` comments): a URL prefix
  (``https://example.org/private/`` blocks it and everything under it) or a host name
  (``ads.example.com`` blocks it and its subdomains); ``-a blocklist=FILE``,
  ``CORPUSCRAWL_BLOCKLIST``.  Seeds included.
* ``max_pages_per_domain`` — at most this many documents per domain (``www.`` ignored); its
  further pages are not followed and pages already in flight are not extracted
  (``-a max_pages_per_domain=N``; ``CORPUSCRAWL_MAX_PAGES_PER_DOMAIN``).
* per domain, in ``CORPUSCRAWL_RULES_FILE`` (:mod:`corpuscrawl.pagetext.rules`)::

      [domains."example.com"]
      allow = ["/articles/"]     # added to the crawl-wide lists for this domain's URLs
      deny = ["/print/"]
      max_pages = 500            # this domain's own cap, over max_pages_per_domain

Arguments separate expressions with commas; a comma inside ``{}``, ``[]`` or ``()`` (as in
``\\d{2,4}``) or escaped as ``\\,`` is part of the expression.  What the rules dropped is
counted by reason (``allow``, ``deny``, ``blocklist``, ``domain_cap``) in the crawl's
stats under ``corpuscrawl/scope/`` and in the summary's ``scope``.

Plain library code: no Scrapy.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from corpuscrawl.net.sites import domain_of

#: Why a URL is out of scope (the suffix of its ``corpuscrawl/scope/<reason>`` counter).
REASONS = ("allow", "deny", "blocklist", "domain_cap")
STATS_PREFIX = "corpuscrawl/scope/"


class ScopeError(ValueError):
    """A scope rule is unusable; the message names the argument or setting and why."""


def split_patterns(value: str | Sequence[str] | None) -> list[str]:
    """Expressions of a comma-separated argument (commas inside brackets or escaped kept),
    or of a list as given."""
    if value is None or value == "":
        return []
    if not isinstance(value, str):
        return [str(v) for v in value if str(v).strip()]
    out, current, depth, i = [], [], 0, 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value):
            nxt = value[i + 1]
            current.append(nxt if nxt == "," else ch + nxt)
            i += 2
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            out.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    out.append("".join(current))
    return [p.strip() for p in out if p.strip()]


def compile_patterns(patterns: Iterable[str], source: str) -> tuple[re.Pattern[str], ...]:
    """Compiled expressions; a bad one raises :class:`ScopeError` naming ``source``."""
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            raise ScopeError(f"{source}: {pattern!r} is not a regular expression ({exc})") from exc
    return tuple(compiled)


def read_blocklist(path: str | Path, source: str = "blocklist") -> tuple[tuple[str, ...], frozenset[str]]:
    """(URL prefixes, host names) of a blocklist file."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ScopeError(f"{source}: cannot read {path}: {exc.strerror or exc}") from exc
    prefixes, hosts = [], set()
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.split(" #", 1)[0].strip()  # a trailing comment
        if "://" in line:
            if not urlsplit(line).hostname:
                raise ScopeError(f"{source}: {path} line {n}: {line!r} is not a URL")
            prefixes.append(line)
        elif re.fullmatch(r"[\w.-]+", line):
            hosts.add(line.lower().lstrip("."))
        else:
            raise ScopeError(f"{source}: {path} line {n}: {line!r} is neither a URL nor a host name")
    return tuple(prefixes), frozenset(hosts)


@dataclass
class DomainScope:
    """One domain's own rules (from the rules file)."""

    allow: tuple[re.Pattern[str], ...] = ()
    deny: tuple[re.Pattern[str], ...] = ()
    max_pages: int | None = None


@dataclass
class Scope:
    """The crawl's scope rules and the per-domain document counts the cap needs."""

    allow: tuple[re.Pattern[str], ...] = ()
    deny: tuple[re.Pattern[str], ...] = ()
    blocked_prefixes: tuple[str, ...] = ()
    blocked_hosts: frozenset[str] = frozenset()
    max_pages_per_domain: int | None = None
    domains: dict[str, DomainScope] = field(default_factory=dict)
    documents: Counter[str] = field(default_factory=Counter)

    @classmethod
    def build(cls, allow: Any = None, deny: Any = None, blocklist: str = "",
              max_pages_per_domain: int | None = None, rules: Any = None,
              names: tuple[str, str, str] = ("allow", "deny", "blocklist")) -> Scope:
        """Compile the rules (``rules``: :class:`~corpuscrawl.pagetext.rules.DomainRules` whose rules
        may hold ``allow``, ``deny``, ``max_pages``); ``names``: what the errors call them."""
        prefixes, hosts = read_blocklist(blocklist, names[2]) if blocklist else ((), frozenset())
        domains = {}
        for domain, rule in (getattr(rules, "rules", None) or {}).items():
            allow_d = getattr(rule, "allow", None) or ()
            deny_d = getattr(rule, "deny", None) or ()
            cap = getattr(rule, "max_pages", None)
            if allow_d or deny_d or cap is not None:
                domains[domain] = DomainScope(
                    compile_patterns(allow_d, f"rules for {domain!r}: allow"),
                    compile_patterns(deny_d, f"rules for {domain!r}: deny"), cap)
        return cls(compile_patterns(split_patterns(allow), names[0]),
                   compile_patterns(split_patterns(deny), names[1]), prefixes, hosts,
                   max_pages_per_domain, domains)

    @property
    def active(self) -> bool:
        """True when any rule is set."""
        return bool(self.allow or self.deny or self.blocked_prefixes or self.blocked_hosts
                    or self.max_pages_per_domain is not None or self.domains)

    def _domain(self, domain: str) -> DomainScope | None:
        labels = domain.split(".")
        for k in range(len(labels)):  # most specific configured domain first
            found = self.domains.get(".".join(labels[k:]))
            if found is not None:
                return found
        return None

    def cap(self, domain: str) -> int | None:
        """The document cap of ``domain`` (its own rule, else ``max_pages_per_domain``)."""
        own = self._domain(domain)
        return own.max_pages if own is not None and own.max_pages is not None \
            else self.max_pages_per_domain

    def verdict(self, url: str, seed: bool = False) -> str:
        """"" when ``url`` may be fetched, else the reason (:data:`REASONS`); a seed is not
        held to ``allow``."""
        if not self.active:
            return ""
        host = (urlsplit(url).hostname or "").lower()
        if self.blocked_hosts and any(host == h or host.endswith("." + h) for h in self.blocked_hosts):
            return "blocklist"
        if any(url.startswith(p) for p in self.blocked_prefixes):
            return "blocklist"
        domain = domain_of(url)
        own = self._domain(domain)
        deny = self.deny + (own.deny if own else ())
        if any(p.search(url) for p in deny):
            return "deny"
        allow = self.allow + (own.allow if own else ())
        if allow and not seed and not any(p.search(url) for p in allow):
            return "allow"
        if self.at_cap(domain):
            return "domain_cap"
        return ""

    def at_cap(self, domain: str) -> bool:
        """True when ``domain`` has as many documents as its cap allows."""
        cap = self.cap(domain)
        return cap is not None and self.documents[domain] >= cap

    def count_document(self, url: str) -> None:
        """Count one document of ``url``'s domain towards its cap."""
        self.documents[domain_of(url)] += 1
