"""Where the shipped models and templates are, and the search path that finds them.

The repository keeps them where users look and edit them: ``models/`` (trained
models, their cards, the element classifier) and ``templates/`` (per-site
templates) at the top level.  Built packages carry the same files inside the
package, as ``corpuscrawl/data/models/`` and ``corpuscrawl/data/templates/``
(``setup.py`` maps the two top-level directories there; git holds one copy).

A file is looked up, in order, in

1. the user's override directory: ``CORPUSCRAWL_MODELS_DIR`` (environment) or
   an explicit ``models_dir``; ``CORPUSCRAWL_TEMPLATES_DIR`` (setting) for
   templates;
2. the shipped copy: inside the installed package (wheel, sdist, Scrapyd egg),
   or the checkout's top-level directory when running from source (an editable
   install or ``PYTHONPATH``).

A zipped egg (Scrapyd puts its egg file on ``sys.path``) has no directories on
disk: its shipped copy is unpacked once into a cache directory named by the
content, so every loader can keep opening plain paths.  Plain library code: no
Scrapy.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import corpuscrawl

#: Environment variable naming the user's models directory (searched before the shipped one).
MODELS_DIR_ENV = "CORPUSCRAWL_MODELS_DIR"
#: Kinds of shipped data: the top-level directory of the checkout and of the package copy.
KINDS = ("models", "templates")
#: Sub-package directory that holds the shipped copies in a built package.
SHIPPED_SUBDIR = "data"
#: Environment variable overriding where a zipped egg's shipped copy is unpacked.
CACHE_DIR_ENV = "CORPUSCRAWL_CACHE_DIR"


#: Zipped shipped copies already unpacked by this process: (archive path, kind) -> directory.
_UNPACKED: dict[tuple[str, str], Path] = {}


class ShippedDataError(RuntimeError):
    """The shipped copy exists but cannot be made available on disk."""


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"unknown shipped data kind {kind!r}; known: {', '.join(KINDS)}")


def _package_root() -> Path:
    return Path(corpuscrawl.__file__).resolve().parent


def checkout_dir(kind: str) -> Path | None:
    """The checkout's top-level ``models/`` or ``templates/``, when running from source."""
    _check_kind(kind)
    root = _package_root().parent
    # A source checkout has its pyproject.toml beside the package; site-packages does not
    # (and may hold an unrelated top-level "models" directory of another distribution).
    if (root / "pyproject.toml").is_file() and (root / kind).is_dir():
        return root / kind
    return None


def shipped_dir(kind: str) -> Path | None:
    """The shipped ``models`` or ``templates`` as a directory on disk, or None when absent.

    The installed package's copy wins; from a source checkout it is the
    top-level directory; from a zipped egg it is unpacked into a cache first.
    """
    _check_kind(kind)
    copy = resources.files(corpuscrawl).joinpath(SHIPPED_SUBDIR, kind)
    if isinstance(copy, Path):
        if copy.is_dir():
            return copy
    elif copy.is_dir():  # inside a zip archive (a Scrapyd egg)
        key = (str(copy), kind)
        if key not in _UNPACKED:
            _UNPACKED[key] = _unpacked(copy, kind)
        return _UNPACKED[key]
    return checkout_dir(kind)


def _walk(node: Traversable, prefix: str = "") -> Iterator[tuple[str, Traversable]]:
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        name = f"{prefix}{child.name}"
        if child.is_dir():
            yield from _walk(child, name + "/")
        elif child.is_file():
            yield name, child


def cache_root() -> Path:
    """Parent of unpacked shipped copies: ``$CORPUSCRAWL_CACHE_DIR``, else the temp directory."""
    env = os.environ.get(CACHE_DIR_ENV)
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(env) if env else Path(tempfile.gettempdir()) / f"corpuscrawl-{user}"


def _unpacked(copy: Traversable, kind: str) -> Path:
    """Unpack a zipped shipped directory once; the cache key is a hash of its content."""
    files = [(name, node.read_bytes()) for name, node in _walk(copy)]
    digest = hashlib.sha256()
    for name, data in files:
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    target = cache_root() / f"shipped-{digest.hexdigest()[:16]}" / kind
    if target.is_dir():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{kind}-", dir=target.parent))
        for name, data in files:
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        try:
            staging.rename(target)  # atomic: concurrent jobs never see a half-written copy
        except OSError:
            if not target.is_dir():
                raise
    except OSError as exc:
        raise ShippedDataError(
            f"cannot unpack the shipped {kind} from {copy} into {target.parent}: {exc} "
            f"(set {CACHE_DIR_ENV} to a writable directory)") from exc
    return target


def search_path(kind: str, overrides: Sequence[str | Path | None] = ()) -> list[Path]:
    """The directories searched for a ``kind`` file: the overrides given, then the shipped copy."""
    dirs = [Path(d) for d in overrides if d]
    shipped = shipped_dir(kind)
    if shipped is not None and all(shipped != d for d in dirs):
        dirs.append(shipped)
    return dirs


def find(kind: str, filename: str, overrides: Sequence[str | Path | None] = ()) -> Path | None:
    """The first ``<dir>/<filename>`` that exists on the search path, else None."""
    for directory in search_path(kind, overrides):
        path = directory / filename
        if path.is_file():
            return path
    return None


def models_override(explicit: str | Path | None = None) -> Path | None:
    """The user's models directory: ``explicit``, else ``$CORPUSCRAWL_MODELS_DIR``, else None."""
    if explicit:
        return Path(explicit)
    env = os.environ.get(MODELS_DIR_ENV)
    return Path(env) if env else None


def models_dirs(explicit: str | Path | None = None) -> list[Path]:
    """Where models are looked up.

    An ``explicit`` directory is the only one searched (a caller that names a
    directory means it); otherwise ``$CORPUSCRAWL_MODELS_DIR`` (if set), then
    the shipped models.
    """
    if explicit:
        return [Path(explicit)]
    return search_path("models", [models_override()])


def models_dir(explicit: str | Path | None = None) -> Path:
    """The models directory written to and listed: the user's one, else the shipped one.

    ``explicit`` wins, then ``$CORPUSCRAWL_MODELS_DIR``, then the shipped
    models (the checkout's ``models/`` when running from source).
    """
    override = models_override(explicit)
    if override is not None:
        return override
    shipped = shipped_dir("models")
    if shipped is None:
        raise ShippedDataError(
            "no models directory: this installation carries no shipped models and "
            f"{MODELS_DIR_ENV} is not set")
    return shipped


def models_write_dir(explicit: str | Path | None = None) -> Path:
    """Where new models are written: ``explicit``, ``$CORPUSCRAWL_MODELS_DIR`` or the checkout.

    Never the installed package's copy: a file written there changes the
    installation behind the package manager's back (and is lost on upgrade).
    """
    override = models_override(explicit)
    if override is not None:
        return override
    checkout = checkout_dir("models")
    if checkout is not None and checkout == shipped_dir("models"):
        return checkout
    raise ShippedDataError(
        f"where should the model go? Set {MODELS_DIR_ENV} (or pass --models-dir) to a "
        "directory of your own; the installed package's models are not written to, and "
        "models found there are still loaded after yours")


def find_model(filename: str, explicit: str | Path | None = None) -> Path | None:
    """The first ``filename`` (e.g. ``auto.skops``) on :func:`models_dirs`, else None."""
    for directory in models_dirs(explicit):
        path = directory / filename
        if path.is_file():
            return path
    return None


def templates_dirs(setting: str | Path | None = None) -> list[Path]:
    """Where templates are looked up: ``CORPUSCRAWL_TEMPLATES_DIR`` (if set), then the shipped ones."""
    return search_path("templates", [setting])


__all__ = [
    "CACHE_DIR_ENV",
    "KINDS",
    "MODELS_DIR_ENV",
    "ShippedDataError",
    "cache_root",
    "checkout_dir",
    "find",
    "find_model",
    "models_dir",
    "models_dirs",
    "models_override",
    "models_write_dir",
    "search_path",
    "shipped_dir",
    "templates_dirs",
]
