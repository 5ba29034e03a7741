"""What the crawl fork server (:mod:`tests.support.crawl_forks`) loads of corpuscrawl itself.

Most of a forked test crawl's CPU went to what every corpus crawl does before its first
request (benchmarks/results/test_suite.md): importing corpuscrawl's components and
Scrapy's, reading the ``auto`` model (skops' trusted-types check and load), loading
py3langid's model and jusText's stoplists on the first page.  The server does that once,
from the tree it runs from (the tree under test), and each fork starts from there:

* the modules the add-on's component tables, the settings, Scrapy's commands and the
  ``corpus`` spider name, and those the default extraction imports;
* the model files the default extraction reads: the first load of the same file (same
  path, device, inode, size and modification time) in a fork gets the object the server
  loaded from it; another file, a changed file or a second load is read as usual;
* py3langid's identifier and jusText's stoplists (data of those packages, which no
  setting or environment variable changes).

Every other change the warm-up made to module state is undone, so a run whose
environment names other models (``CORPUSCRAWL_MODELS_DIR``) finds and loads its own.  A
run whose ``sys.path`` finds another ``corpuscrawl`` (another checkout, another
``PYTHONPATH``) gets none of it: the fork forgets the preloaded package and imports its own.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

PACKAGE = "corpuscrawl"
#: Module-level caches the warm-up fills that a fork keeps: they hold data of py3langid and
#: jusText only (a setting or the environment never changes what they load).
KEPT_STATE = frozenset({
    "corpuscrawl.html.language._identifier",
    "corpuscrawl.extract.learned.sequence._STOPLISTS",
    "corpuscrawl.extract.learned.sequence._STOPLIST_NAMES",
})
#: Where the learned models' file reader lives (wrapped by :class:`_KeptModelFiles`).
MODEL_READER = ("corpuscrawl.extract.learned.models", "read_model_file")
#: Modules a test crawl imports that no setting names: the command line's crawl command.
ENTRY_MODULES = ("corpuscrawl.cli", "corpuscrawl.commands.crawl")


def _file_identity(path: Any) -> tuple[str, int, int, int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    return (os.path.realpath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class _KeptModelFiles:
    """``read_model_file`` that keeps what it read in the server and gives each kept
    object once to a fork: the fork's first load of that unchanged file."""

    def __init__(self, read: Callable[[Any], Any]) -> None:
        self.read = read
        self.server_pid = os.getpid()
        self.kept: dict[tuple[str, int, int, int, int], Any] = {}

    def __call__(self, path: Any) -> Any:
        identity = _file_identity(path)
        if os.getpid() == self.server_pid:
            model = self.read(path)
            if identity is not None:
                self.kept[identity] = model
            return model
        if identity is not None and identity in self.kept:
            return self.kept.pop(identity)  # a second load reads the file: a new object
        return self.read(path)


def _own_paths(module_names: tuple[str, ...]) -> Iterator[str]:
    """Dotted paths named by strings in corpuscrawl's settings and add-on tables."""
    from scrapy.settings import BaseSettings, Settings

    from corpuscrawl.addon import Addon

    settings = Settings()
    settings.setmodule(f"{PACKAGE}.settings", priority="project")
    Addon.update_pre_crawler_settings(settings)
    Addon().update_settings(settings)

    def strings(value: Any) -> Iterator[str]:
        if isinstance(value, BaseSettings):
            value = value.copy_to_dict()
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for key, item in value.items():
                yield from strings(key)
                yield from strings(item)
        elif isinstance(value, list | tuple):
            for item in value:
                yield from strings(item)

    for _, value in settings.items():
        for text in strings(value):
            if "." in text and " " not in text and "/" not in text and text[0].isalpha():
                yield text
    yield from module_names


def _import_own(module_names: tuple[str, ...]) -> None:
    """Import what a corpus crawl imports, so far as the settings name it."""
    from scrapy.utils.misc import load_object, walk_modules_iter

    for package in ("scrapy.commands", f"{PACKAGE}.scrapy_commands", f"{PACKAGE}.spiders"):
        try:
            list(walk_modules_iter(package))
        except ImportError:
            continue
    for path in _own_paths(module_names):
        try:
            if ":" in path or path.count(".") == 0:
                continue
            try:
                importlib.import_module(path)
            except ImportError:
                load_object(path)
        except Exception:  # noqa: BLE001 - a path that is no object costs nothing here
            continue


def _state() -> dict[str, tuple[Any, Any]]:
    """Every module-level cache or container of corpuscrawl: name -> (object, copy)."""
    found: dict[str, tuple[Any, Any]] = {}
    for name, module in list(sys.modules.items()):
        if module is None or not (name == PACKAGE or name.startswith(PACKAGE + ".")):
            continue
        for attr, value in list(vars(module).items()):
            key = f"{name}.{attr}"
            if hasattr(value, "cache_clear") and str(getattr(value, "__module__", "")
                                                     ).startswith(PACKAGE):
                found[key] = (value, value.cache_info().currsize)
            elif isinstance(value, dict | list | set):
                found[key] = (value, value.copy())
            else:
                found[key] = (value, None)
    return found


def _undo(before: dict[str, tuple[Any, Any]]) -> list[str]:
    """Put back every module-level change since ``before`` except :data:`KEPT_STATE`."""
    undone = []
    for key, (value, copy) in _state().items():
        if key in KEPT_STATE:
            continue
        module_name, attr = key.rsplit(".", 1)
        if key not in before:
            if isinstance(copy, int) and copy:
                value.cache_clear()
                undone.append(key)
            continue
        old, old_copy = before[key]
        if value is not old:
            setattr(sys.modules[module_name], attr, old)
            undone.append(key)
        elif isinstance(old_copy, int) and value.cache_info().currsize != old_copy:
            value.cache_clear()
            undone.append(key)
        elif isinstance(value, dict | list | set) and _changed(value, old_copy):
            value.clear()
            if isinstance(value, list):
                value.extend(old_copy)
            else:
                value.update(old_copy)
            undone.append(key)
    return undone


def _changed(value: Any, copy: Any) -> bool:
    try:
        return bool(value != copy)
    except Exception:  # noqa: BLE001 - e.g. arrays as values: compared by identity instead
        return len(value) != len(copy) or any(a is not b for a, b in zip(
            value.items() if isinstance(value, dict) else value,
            copy.items() if isinstance(copy, dict) else copy, strict=False))


def warm(module_names: tuple[str, ...] = ENTRY_MODULES) -> None:
    """In the server: import corpuscrawl's crawl modules and build the default extraction
    once (one OpenMP/BLAS thread: a fork cannot use a thread pool its parent started)."""
    from threadpoolctl import threadpool_limits

    threads = len(os.listdir("/proc/self/task"))  # NumPy's BLAS starts its own at import
    _import_own(module_names)
    module_name, attr = MODEL_READER
    models = importlib.import_module(module_name)
    setattr(models, attr, _KeptModelFiles(getattr(models, attr)))
    from corpuscrawl.pagetext.extraction import Extraction

    before = _state()
    with threadpool_limits(limits=1):
        Extraction().warm_up()
    _undo(before)
    if threading.active_count() != 1 or len(os.listdir("/proc/self/task")) != threads:
        raise RuntimeError("the warm-up left a thread running; a fork would not have it")


def package_dir() -> Path | None:
    """The directory of the preloaded corpuscrawl (None when it is not loaded)."""
    module = sys.modules.get(PACKAGE)
    file = getattr(module, "__file__", None)
    return Path(file).resolve().parent if file else None


def keep_or_forget() -> None:
    """In a fork, once its ``sys.path`` and environment are the run's: forget the preloaded
    corpuscrawl when the run's import system would find another one."""
    here = package_dir()
    if here is None:
        return
    spec = None
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is None:
            continue
        spec = find_spec(PACKAGE, None)
        if spec is not None:
            break
    locations = list(getattr(spec, "submodule_search_locations", None) or [])
    if not (locations and Path(locations[0]).resolve() == here):
        forget()


def forget() -> None:
    """Drop the preloaded corpuscrawl: the next import loads it afresh."""
    for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    importlib.invalidate_caches()

