"""What rendering brought per site, kept across crawls of a collection (``render=auto``).

:class:`RenderExperience` counts, per site (``host:port``,
:func:`corpuscrawl.net.sites.state_key`), the pages judged from a plain response,
how many of them were rendered, and how many renders added text; its
:meth:`~RenderExperience.advice` turns that into "render directly",
"stop rendering" or "decide per page" (:mod:`corpuscrawl.browse.decision`).

The counts live in an :class:`ExperienceStore`, so that a second crawl of a
site whose pages needed rendering renders them directly from its first page:

* :class:`SqliteExperienceStore` — ``render-experience.sqlite3`` in the
  collection's state directory (:func:`corpuscrawl.crawlstate.state_paths.state_dir`);
* :class:`RedisExperienceStore` — in cluster mode, hashes under the
  collection's Redis prefix, shared by every worker;
* :class:`MemoryExperienceStore` — this crawl only (the demo crawl, or
  ``CORPUSCRAWL_RENDER_EXPERIENCE = "memory"``).

Counts of a site not updated for ``CORPUSCRAWL_RENDER_EXPERIENCE_MAX_AGE_DAYS``
are forgotten (the site may have been rebuilt).  :func:`open_experience_store`
chooses the store from the settings (``get`` interface; no Scrapy import).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpuscrawl.cluster.config import ClusterConfig
from corpuscrawl.config.crawl_checks import CrawlSetupError
from corpuscrawl.crawlstate.state_paths import state_dir
from corpuscrawl.net.sites import state_key

logger = logging.getLogger("corpuscrawl.browse")

#: Direct rendering needs this many plainly judged pages of the site first...
DIRECT_MIN_PAGES_DEFAULT = 4
#: ... of which at least this share were rendered with a gain (a site of mostly static
#: pages with a few script-built ones keeps deciding page by page).
DIRECT_SHARE_DEFAULT = 0.8
#: Rendering stops for a site after this many renders without any gain.
STOP_MIN_RENDERS_DEFAULT = 4
#: File name of the SQLite store in a collection's state directory.
EXPERIENCE_FILE = "render-experience.sqlite3"
#: Setting: ``state`` (the collection's state; Redis in cluster mode), ``memory`` (this
#: crawl only), a SQLite file path or a ``redis://`` URL.
EXPERIENCE_SETTING = "CORPUSCRAWL_RENDER_EXPERIENCE"
#: Setting: days after which a site's counts not updated since are forgotten.
MAX_AGE_SETTING = "CORPUSCRAWL_RENDER_EXPERIENCE_MAX_AGE_DAYS"
MAX_AGE_DAYS_DEFAULT = 90.0
#: A SQLite store commits at most this often (s); the last counts are committed on close.
COMMIT_INTERVAL_S = 2.0
#: A Redis store re-reads a site's shared counts at most this often (s).
REDIS_REFRESH_S = 2.0


class ExperienceConfigError(CrawlSetupError):
    """A render-experience setting is invalid; the message names the key."""


@dataclass
class SiteCounts:
    """One site's experience."""

    judged: int = 0      # pages decided from a plain response
    renders: int = 0     # of those, rendered
    gains: int = 0       # renders that added text


class ExperienceStore(ABC):
    """Where per-site counts live; :class:`RenderExperience` reads and adds through this."""

    @abstractmethod
    def get(self, site: str) -> SiteCounts | None:
        """The site's counts (None when it has no experience, or only an expired one)."""

    @abstractmethod
    def add(self, site: str, judged: int = 0, renders: int = 0, gains: int = 0) -> None:
        """Add to the site's counts."""

    def close(self) -> None:  # noqa: B027 - optional for stores without resources
        """Write what is pending and release the store."""


@dataclass
class MemoryExperienceStore(ExperienceStore):
    """Counts for this crawl only."""

    sites: dict[str, SiteCounts] = field(default_factory=dict)

    def get(self, site: str) -> SiteCounts | None:
        """The site's counts (None when unknown)."""
        return self.sites.get(site)

    def add(self, site: str, judged: int = 0, renders: int = 0, gains: int = 0) -> None:
        """Add to the site's counts."""
        counts = self.sites.setdefault(site, SiteCounts())
        counts.judged += judged
        counts.renders += renders
        counts.gains += gains


class SqliteExperienceStore(ExperienceStore):
    """Counts in a SQLite file (the collection's state directory), read once, written through."""

    def __init__(self, path: str | Path, max_age_days: float = MAX_AGE_DAYS_DEFAULT):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS sites (site TEXT PRIMARY KEY, "
                             "judged INTEGER NOT NULL, renders INTEGER NOT NULL, "
                             "gains INTEGER NOT NULL, updated REAL NOT NULL)")
            cutoff = time.time() - max_age_days * 86400
            self._db.execute("DELETE FROM sites WHERE updated < ?", (cutoff,))
            self._db.commit()
            rows = self._db.execute("SELECT site, judged, renders, gains FROM sites").fetchall()
        except sqlite3.DatabaseError as exc:
            raise ExperienceConfigError(f"render experience store {self.path}: {exc}") from exc
        self._memory = MemoryExperienceStore({site: SiteCounts(j, r, g)
                                              for site, j, r, g in rows})
        self._last_commit = time.monotonic()

    def get(self, site: str) -> SiteCounts | None:
        """The site's counts (from memory: this process is the file's only writer)."""
        return self._memory.get(site)

    def add(self, site: str, judged: int = 0, renders: int = 0, gains: int = 0) -> None:
        """Add to the site's counts and write them (committed every few seconds)."""
        self._memory.add(site, judged, renders, gains)
        counts = self._memory.sites[site]
        self._db.execute("INSERT INTO sites VALUES (?, ?, ?, ?, ?) ON CONFLICT(site) DO UPDATE "
                         "SET judged=excluded.judged, renders=excluded.renders, "
                         "gains=excluded.gains, updated=excluded.updated",
                         (site, counts.judged, counts.renders, counts.gains, time.time()))
        if time.monotonic() - self._last_commit >= COMMIT_INTERVAL_S:
            self._db.commit()
            self._last_commit = time.monotonic()

    def close(self) -> None:
        """Commit and close the file."""
        try:
            self._db.commit()
            self._db.close()
        except sqlite3.Error as exc:
            logger.warning("closing the render experience store %s: %s", self.path, exc)


class RedisExperienceStore(ExperienceStore):
    """Counts in Redis (cluster mode): one hash per site under ``prefix``, shared by workers."""

    def __init__(self, client: Any, prefix: str, max_age_days: float = MAX_AGE_DAYS_DEFAULT):
        self.client = client
        self.prefix = prefix
        self.ttl = max(1, int(max_age_days * 86400))
        self._cache: dict[str, tuple[float, SiteCounts | None]] = {}
        import redis

        self._errors = (redis.RedisError, OSError)

    def _key(self, site: str) -> str:
        return f"{self.prefix}{site}"

    def get(self, site: str) -> SiteCounts | None:
        """The site's shared counts (re-read at most every :data:`REDIS_REFRESH_S`)."""
        cached = self._cache.get(site)
        if cached is not None and time.monotonic() - cached[0] < REDIS_REFRESH_S:
            return cached[1]
        try:
            raw = self.client.hgetall(self._key(site))
        except self._errors as exc:
            logger.warning("render experience: Redis unavailable (%s); deciding per page", exc)
            return cached[1] if cached is not None else None
        counts = None
        if raw:
            values = {k.decode() if isinstance(k, bytes) else k: int(v) for k, v in raw.items()}
            counts = SiteCounts(values.get("judged", 0), values.get("renders", 0),
                                values.get("gains", 0))
        self._cache[site] = (time.monotonic(), counts)
        return counts

    def add(self, site: str, judged: int = 0, renders: int = 0, gains: int = 0) -> None:
        """Add to the site's shared counts (one transaction) and refresh its expiry."""
        key = self._key(site)
        pipe = self.client.pipeline(transaction=True)
        for name, value in (("judged", judged), ("renders", renders), ("gains", gains)):
            if value:
                pipe.hincrby(key, name, value)
        pipe.expire(key, self.ttl)
        try:
            pipe.execute()
        except self._errors as exc:  # advisory counts: the crawl goes on without them
            logger.warning("render experience: Redis unavailable (%s); count lost", exc)
        self._cache.pop(site, None)

    def close(self) -> None:
        """Release the connection."""
        self.client.close()


@dataclass
class RenderExperience:
    """Per-site memory of what rendering brought, and the advice drawn from it."""

    direct_min_pages: int = DIRECT_MIN_PAGES_DEFAULT
    direct_share: float = DIRECT_SHARE_DEFAULT
    stop_min_renders: int = STOP_MIN_RENDERS_DEFAULT
    store: ExperienceStore = field(default_factory=MemoryExperienceStore)

    def judged(self, url: str) -> None:
        """A page of the site was decided from its plain response."""
        self.store.add(state_key(url), judged=1)

    def rendered(self, url: str, gained: bool) -> None:
        """A plainly judged page was rendered; ``gained``: rendering added text."""
        self.store.add(state_key(url), renders=1, gains=int(gained))

    def advice(self, url: str) -> str:
        """``render`` (render directly), ``plain`` (stop rendering) or "" (decide per page)."""
        site = self.store.get(state_key(url))
        if site is None:
            return ""
        if site.renders >= self.stop_min_renders and site.gains == 0:
            return "plain"
        if site.judged >= self.direct_min_pages and \
                site.gains >= self.direct_share * site.judged:
            return "render"
        return ""

    def close(self) -> None:
        """Close the store."""
        self.store.close()


@dataclass(frozen=True)
class ExperienceConfig:
    """Where the experience is kept and how long it counts (validated at start)."""

    where: str = "state"
    max_age_days: float = MAX_AGE_DAYS_DEFAULT

    @classmethod
    def from_settings(cls, settings: Any) -> ExperienceConfig:
        """Read :data:`EXPERIENCE_SETTING` and :data:`MAX_AGE_SETTING`; errors name the key."""
        where = str(settings.get(EXPERIENCE_SETTING) or "state").strip()
        raw_age = settings.get(MAX_AGE_SETTING, MAX_AGE_DAYS_DEFAULT)
        try:
            max_age = float(raw_age)
        except (TypeError, ValueError):
            max_age = -1.0
        if not max_age > 0:
            raise ExperienceConfigError(f"{MAX_AGE_SETTING} must be a positive number of "
                                        f"days, got {raw_age!r}")
        if where not in ("state", "memory") and not where.startswith(
                ("redis://", "rediss://", "unix://")) and (
                    where.endswith("/") or Path(where).is_dir()):
            raise ExperienceConfigError(f"{EXPERIENCE_SETTING}={where!r}: expected 'state', "
                                        "'memory', a SQLite file path or a redis:// URL")
        return cls(where, max_age)

    def open(self, settings: Any, project_root: Callable[[], Path] | None = None) -> ExperienceStore:
        """The store (see the module docstring); ``settings`` locate the collection's state,
        under ``project_root`` when no setting names its directory
        (:func:`corpuscrawl.crawlstate.state_paths.state_dir`)."""
        if self.where == "memory" or (self.where == "state" and
                                      settings.getbool("CORPUSCRAWL_STATE_TEMPORARY")):
            return MemoryExperienceStore()
        if self.where == "state":
            cluster = ClusterConfig.from_settings(settings)
            if cluster is not None:
                return _redis_store(cluster.url, cluster.prefix + "render:", self.max_age_days)

            return SqliteExperienceStore(state_dir(settings, project_root=project_root)
                                         / EXPERIENCE_FILE,
                                         self.max_age_days)
        if self.where.startswith(("redis://", "rediss://", "unix://")):
            return _redis_store(self.where, "corpuscrawl:render:", self.max_age_days)
        return SqliteExperienceStore(self.where, self.max_age_days)


def open_experience_store(settings: Any,
                          project_root: Callable[[], Path] | None = None) -> ExperienceStore:
    """The store the settings ask for (:class:`ExperienceConfig`)."""
    return ExperienceConfig.from_settings(settings).open(settings, project_root)


def _redis_store(url: str, prefix: str, max_age: float) -> RedisExperienceStore:
    try:
        import redis
    except ImportError as exc:  # pragma: no cover - redis is a declared dependency
        raise ExperienceConfigError(f"{EXPERIENCE_SETTING}: Redis needs the 'redis' "
                                    "package") from exc
    return RedisExperienceStore(redis.Redis.from_url(url), prefix, max_age)
