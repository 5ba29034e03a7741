"""What a crawl is checked for before it starts: argument and setting names, setting values.

A typo must not crawl silently with a default: ``-a seed=URL`` is not ``seeds`` (without
the check the bundled demo site is crawled), ``-s CORPUSCRAWL_EXTRACTER=bte`` is read by
nothing, and ``-s CONCURRENT_REQUESTS=abc`` would fail deep inside Scrapy with ``invalid
literal for int()`` (that check reads Scrapy's defaults:
:mod:`corpuscrawl.config.scrapy_glue`).  The corpus spider runs
these checks in ``from_crawler`` (before the add-ons run, the crawl state is opened or any
request is made), so ``scrapy crawl corpus``, ``corpuscrawl crawl``, Scrapyd and scripts all refuse
the same mistakes with the same message.

Every such refusal is a :class:`CrawlSetupError`, the one error type whose message is
meant for the user: the crawl commands print it as one line (``corpuscrawl crawl: error:
...``) and exit with :data:`EXIT_SETUP`, with no traceback.
"""

from __future__ import annotations

import difflib
import logging
import sys
from collections.abc import Iterable
from typing import Any

__all__ = ["ERROR_PREFIX", "EXIT_SETUP", "KNOWN_ENVIRONMENT", "SETTING_PREFIX", "CrawlSetupError",
           "check_setting_names", "collect_start_failure",
           "did_you_mean", "environment_warnings", "is_user_error", "known_settings", "one_line",
           "report_start_failure", "run_crawl", "set_command_line_settings",
           "unknown_name"]

#: Exit status of the crawl commands when the crawl cannot start as asked.
EXIT_SETUP = 2
#: Prefix of the settings corpuscrawl owns (an unknown one is a typo).
SETTING_PREFIX = "CORPUSCRAWL_"


class CrawlSetupError(ValueError):
    """The crawl cannot start as asked; the message says what is wrong and how to fix it.

    The base of corpuscrawl's configuration errors (spider arguments, settings, outputs,
    templates): shown to the user as one line, never as a traceback.
    """


def is_user_error(exc: BaseException) -> bool:
    """True when ``exc`` is a problem to tell the user in one line: a
    :class:`CrawlSetupError`, or any error type corpuscrawl defines (their messages
    name the file, setting or argument at fault)."""
    if isinstance(exc, CrawlSetupError):
        return True
    return any(cls.__module__.startswith("corpuscrawl.") and issubclass(cls, Exception)
               for cls in type(exc).__mro__)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest known name (difflib), else ``""``."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    if not close and name.upper() == name:  # settings: compare without the shared prefix
        bare = {k.removeprefix(SETTING_PREFIX): k for k in known}
        close = [bare[c] for c in difflib.get_close_matches(
            name.removeprefix(SETTING_PREFIX), list(bare), n=1, cutoff=0.6)]
    return f"; did you mean {close[0]!r}?" if close else ""


def unknown_name(kind: str, name: str, known: Iterable[str]) -> CrawlSetupError:
    """The error for an unknown argument or setting ``name``, naming the closest known one."""
    known = sorted(known)
    hint = did_you_mean(name, known)
    listing = "" if hint else f" (known: {', '.join(known)})"
    return CrawlSetupError(f"unknown {kind} {name!r}{hint}{listing}")


def known_settings() -> frozenset[str]:
    """Every ``CORPUSCRAWL_*`` setting: those documented, with their defaults, in
    :mod:`corpuscrawl.settings`."""
    from corpuscrawl import settings as defaults

    return frozenset(k for k in vars(defaults) if k.startswith(SETTING_PREFIX))


def check_setting_names(settings: Any) -> None:
    """Refuse a ``CORPUSCRAWL_*`` setting that corpuscrawl does not know (from ``-s``, a
    settings module or a ``SCRAPY_``-prefixed environment variable)."""
    known = known_settings()
    for name in sorted(str(k) for k in settings):
        if name.startswith(SETTING_PREFIX) and name not in known:
            raise unknown_name("setting", name, known)


#: How the crawl commands begin a one-line error (the same for ``scrapy crawl corpus``).
ERROR_PREFIX = "corpuscrawl crawl: error: "


def one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (a KeyError's message without its quotes)."""
    message = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)
    return " ".join(message.split()) or type(exc).__name__


def report_start_failure(exc: BaseException) -> int:
    """Tell why the crawl could not start; the exit status.

    A user's mistake (:func:`is_user_error`) is one line on standard error and
    :data:`EXIT_SETUP`; anything else is a bug, logged with its traceback, exit 1."""
    if is_user_error(exc):
        sys.stderr.write(f"{ERROR_PREFIX}{one_line(exc)}\n")
        return EXIT_SETUP
    logging.getLogger("corpuscrawl").error("the crawl could not start: %r", exc,
                                           exc_info=(type(exc), exc, exc.__traceback__))
    return 1


def collect_start_failure(result: Any, failures: list[BaseException]) -> None:
    """Append to ``failures`` the exception that ends ``result`` (what
    ``CrawlerProcess.crawl`` returned: an asyncio task or a Twisted Deferred), marking it
    handled so that asyncio does not print "Task exception was never retrieved"."""
    if hasattr(result, "add_done_callback") and hasattr(result, "exception"):
        def done(task: Any) -> None:
            if not task.cancelled() and task.exception() is not None:
                failures.append(task.exception())
        result.add_done_callback(done)
    elif hasattr(result, "addErrback"):
        def failed(failure: Any) -> None:
            failures.append(failure.value)
        result.addErrback(failed)


def set_command_line_settings(settings: Any, pairs: dict[str, str]) -> None:
    """Set ``-s NAME=VALUE`` settings at command-line priority; a value Scrapy cannot take
    (``-s ITEM_PIPELINES={bad json``) is a :class:`CrawlSetupError` naming the setting."""
    for name, value in pairs.items():
        try:
            settings.set(name, value, priority="cmdline")
        except (TypeError, ValueError) as exc:
            raise CrawlSetupError(f"setting {name}={value!r}: {one_line(exc)}") from None


def run_crawl(process: Any, crawler: Any, **spider_args: Any) -> int | None:
    """Run ``crawler`` in ``process`` (a Scrapy ``CrawlerProcess``) to its end; the exit
    status when it could not start (one line told why), None when it ran."""
    failures: list[BaseException] = []
    collect_start_failure(process.crawl(crawler, **spider_args), failures)
    process.start()
    return report_start_failure(failures[0]) if failures else None


#: The environment variables corpuscrawl reads (its settings are never read from the
#: environment: Scrapy reads none since 2.13).
KNOWN_ENVIRONMENT = frozenset({
    "CORPUSCRAWL_CHROMIUM", "CORPUSCRAWL_MODELS_DIR", "CORPUSCRAWL_CACHE_DIR",
    "CORPUSCRAWL_CACHE", "CORPUSCRAWL_DATASETS", "CORPUSCRAWL_SCHEDULE_ENV"})


def environment_warnings(environ: Any) -> list[str]:
    """A line for each ``CORPUSCRAWL_*`` environment variable that nothing reads: a setting
    given in the environment (which Scrapy ignores) or a typo of a variable."""
    known = known_settings()
    lines = []
    for name in sorted(k for k in environ if k.startswith(SETTING_PREFIX)):
        if name in KNOWN_ENVIRONMENT:
            continue
        if name in known:
            lines.append(f"environment variable {name} is ignored: settings are not read from "
                         f"the environment; give -s {name}=... or set it in the settings module")
        else:
            hint = did_you_mean(name, KNOWN_ENVIRONMENT | known)
            lines.append(f"environment variable {name} is not one corpuscrawl reads{hint}")
    return lines
