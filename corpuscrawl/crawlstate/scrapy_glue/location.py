"""The crawl's state directory: Scrapy's project data directory as the default root.

Where a collection's state lives and how a collection is named is plain code,
:mod:`corpuscrawl.crawlstate.state_paths`; the one part that asks Scrapy is where its
project keeps data (``.scrapy/`` beside ``scrapy.cfg``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scrapy.exceptions import NotConfigured
from scrapy.utils.project import data_path

from corpuscrawl.crawlstate import state_paths

__all__ = ["DATA_SUBDIR", "project_state_root", "state_dir"]

#: Sub-directory of Scrapy's project data directory that holds the collections.
DATA_SUBDIR = "corpuscrawl"


def project_state_root() -> Path:
    """``<Scrapy project data dir>/corpuscrawl``; ``.scrapy/corpuscrawl`` in the working
    directory when the settings module runs without a ``scrapy.cfg`` (an installed package
    run by ``corpuscrawl crawl``, a Scrapyd job: Scrapy's own convention outside a project)."""
    try:
        return Path(data_path(DATA_SUBDIR, createdir=False))
    except NotConfigured:
        return Path(".scrapy", DATA_SUBDIR)


def state_dir(settings: Any, collection: str | None = None, create: bool = True) -> Path:
    """The crawl's state directory of ``collection``
    (:func:`corpuscrawl.crawlstate.state_paths.state_dir`, under
    :func:`project_state_root` when no setting names one)."""
    return state_paths.state_dir(settings, collection, create, project_root=project_state_root)
