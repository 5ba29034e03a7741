"""The ``corpus`` spider's ``-a`` arguments: seed URLs, flags and whole numbers, checked at start.

A bad argument raises :class:`SeedError` whose message names the argument and why, before
any request is made.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from corpuscrawl.config.crawl_checks import CrawlSetupError, unknown_name
from corpuscrawl.config.setting_values import YES_NO, yes_no
from corpuscrawl.net.urls import check_url

#: The scope arguments of the ``corpus`` spider (corpuscrawl.net.scope), among its known arguments.
SCOPE_ARGUMENTS = ("allow", "deny", "blocklist", "max_pages_per_domain")


class SeedError(CrawlSetupError):
    """The spider's arguments are unusable (seeds, numbers, flags, names); the message says
    which and why."""


def check_argument_names(given: Iterable[str], known: Iterable[str]) -> None:
    """Refuse a spider argument the spider does not take (``-a seed=URL``), naming the
    closest known one.  Names starting with ``_`` are left alone: tools add them (Scrapyd
    passes ``_job``)."""
    known = set(known)
    for name in given:
        if name not in known and not name.startswith("_"):
            raise SeedError(str(unknown_name("spider argument", name, known)))


def flag_arg(value: Any, name: str) -> bool:
    """A yes/no argument (``1``/``0``, ``true``/``false``, ``yes``/``no``, ``on``/``off``; empty
    is no)."""
    try:
        return yes_no(value if str(value).strip() else False)
    except ValueError:
        raise SeedError(f"argument {name}={value!r}: expected {YES_NO}") from None


def int_arg(value: Any, name: str) -> int | None:
    """A whole number >= 0, or ``None`` when not given."""
    if value in (None, ""):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise SeedError(f"argument {name}={value!r}: expected a whole number") from None
    if number < 0:
        raise SeedError(f"argument {name}={value!r}: must be >= 0")
    return number


def read_seeds(seeds: str | None = None, seeds_file: str | None = None) -> list[str]:
    """Seed URLs from a comma-separated string and/or a file, normalized, in order, unique.

    An argument that is given (not ``None``) but yields no URL is an error: ``-a seeds=``
    from an empty shell variable must not fall back to the demo site."""
    if seeds is not None and not seeds.strip() and not seeds_file:
        raise SeedError("argument seeds is empty: give one or more URLs, comma-separated "
                        "(or seeds_file=FILE)")
    raw = [s for s in (seeds or "").split(",") if s.strip()]
    if seeds_file:
        path = Path(seeds_file)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise SeedError(f"cannot read seeds_file {path}: {exc.strerror or exc}") from exc
        urls = [line for line in lines if line.strip() and not line.strip().startswith("#")]
        if not urls and not raw:
            raise SeedError(f"seeds_file {path} lists no URL")
        raw.extend(urls)
    elif seeds_file is not None and not raw:
        raise SeedError("argument seeds_file is empty: give a file with one URL per line")
    out: list[str] = []
    for item in raw:
        url, reason = check_url(item.strip())
        if not url:
            raise SeedError(f"seed {item.strip()!r} is not an http(s) URL that can be fetched ({reason})")
        if url not in out:
            out.append(url)
    return out
