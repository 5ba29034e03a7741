"""Where a collection's crawl state lives, and how a collection is named.

The state of a collection has one home:

1. ``CORPUSCRAWL_STATE_DIR`` when set: ``<that directory>/<collection>/``;
2. otherwise Scrapy's ``JOBDIR`` when set: that directory itself is the
   state of this crawl (Scrapy's own ``spider.state`` sits beside it; its
   ``requests.queue``/``requests.seen`` are not used: the durable frontier
   replaces them, and unlike them it survives a kill);
3. otherwise under the project root the caller passes: in a crawl, Scrapy's
   project data directory (``.scrapy/corpuscrawl/<collection>/``,
   :func:`corpuscrawl.crawlstate.scrapy_glue.location.project_state_root`, the one
   part that asks Scrapy where its project is).

The collection is the spider argument ``-a collection=NAME``; without it the
name is derived from the seeds, so the same command always finds the same
state and two different crawls never share one.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from corpuscrawl.config.crawl_checks import CrawlSetupError

#: Setting naming the parent directory of all collections' state.
STATE_DIR_SETTING = "CORPUSCRAWL_STATE_DIR"
#: Setting holding the crawl's collection name (the spider sets it from its arguments).
COLLECTION_SETTING = "CORPUSCRAWL_COLLECTION"
#: A collection name: letters, digits, ``.``, ``_``, ``-``; at most 100 characters.
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class CollectionNameError(CrawlSetupError):
    """A collection name that cannot be used as a directory name."""


class StateDirUnknown(CrawlSetupError):
    """No setting names the state directory and no project root was given."""


def check_collection(name: str) -> str:
    """``name`` if it is a valid collection name, else :class:`CollectionNameError`."""
    if not _NAME_RE.match(name or "") or name in (".", ".."):
        raise CollectionNameError(
            f"collection {name!r}: use 1-100 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit")
    return name


def _host_label(url: str) -> str:
    """``host`` or ``host_port`` of a URL, in collection-name characters."""
    parts = urlsplit(url)
    host = (parts.hostname or "").removeprefix("www.")
    try:
        port = parts.port
    except ValueError:
        port = None
    label = f"{host}_{port}" if port else host
    return re.sub(r"[^A-Za-z0-9._-]", "_", label).strip("._-") or "site"


def collection_from_seeds(seeds: Sequence[str]) -> str:
    """A stable collection name for a set of seed URLs.

    One seed host gives its name (``example.com``, ``127.0.0.1_8080`` when the
    URL names a port); several give the first host, the count of the others and
    a short hash of the whole sorted seed list, so adding a seed makes a new
    collection rather than silently mixing two corpora.
    """
    if not seeds:
        raise CollectionNameError("no seeds to derive a collection name from")
    hosts = sorted({_host_label(url) for url in seeds})
    if len(seeds) == 1:
        return check_collection(hosts[0][:100])
    digest = hashlib.sha1("\n".join(sorted(seeds)).encode("utf-8")).hexdigest()[:8]
    return check_collection(f"{hosts[0][:80]}-{len(seeds) - 1}more-{digest}")


def state_dir(settings: Any, collection: str | None = None, create: bool = True,
              project_root: Callable[[], Path] | None = None) -> Path:
    """The state directory of ``collection`` (default: the ``CORPUSCRAWL_COLLECTION`` setting).

    With ``JOBDIR`` set (and no ``CORPUSCRAWL_STATE_DIR``) the crawl's own
    collection lives in JOBDIR itself; an explicitly named other collection
    still goes under the project root.  ``project_root`` gives the directory of all
    collections when neither setting names one (a crawl passes Scrapy's project data
    directory); without it that case is a :class:`StateDirUnknown`.
    """
    parent = settings.get(STATE_DIR_SETTING) or ""
    jobdir = settings.get("JOBDIR") or ""
    if not parent and jobdir and collection is None:
        path = Path(jobdir)
        if create:
            path.mkdir(parents=True, exist_ok=True)
        return path
    name = check_collection(collection or settings.get(COLLECTION_SETTING) or "")
    if parent:
        base = Path(parent)
    elif project_root is not None:
        base = project_root()
    else:
        raise StateDirUnknown(
            f"no state directory for collection {name!r}: set {STATE_DIR_SETTING} (or JOBDIR); "
            "Scrapy's project data directory is the default only inside a crawl")
    path = base / name
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path
