"""The optional C accelerators (``setup.py``), used only when built from the source beside them.

Each accelerator module carries the number of the interface its Python caller speaks
(``API``).  A build of another version of the source — a stale in-place build after an
update, or another checkout's build reached through an editable install — would be called
with arguments it does not take; it is not used: the Python code, which gives the same
results, runs instead, and a warning says to rebuild.
"""

from __future__ import annotations

import importlib
import logging
from types import ModuleType

logger = logging.getLogger(__name__)


def accelerator(module: str, api: int) -> ModuleType | None:
    """The accelerator ``module`` when it is built for interface ``api``, else None."""
    try:
        found = importlib.import_module(module)
    except ImportError:  # not built
        return None
    built = getattr(found, "API", None)
    if built != api:
        logger.warning("%s was built from another version of its source (interface %s, this "
                       "code calls %s): not used, the Python code runs instead; rebuild it "
                       "with `python setup.py build_ext --inplace`", module, built, api)
        return None
    return found


def lxml_release_problem(module: ModuleType) -> str | None:
    """Why an accelerator that reads lxml's tree through its C headers cannot be used (built
    against another lxml or libxml2 release, major.minor, than the running one, whose structs
    may be laid out otherwise), or None when it can; ``module`` carries ``LXML_VERSION`` (a
    dotted string) and ``LIBXML_VERSION`` (libxml2's number, e.g. 21203) of its build."""
    from lxml import etree

    running = tuple(etree.LXML_VERSION[:2])
    built = tuple(int(p) for p in str(module.LXML_VERSION).split(".")[:2])
    libxml = tuple(etree.LIBXML_VERSION[:2])
    built_libxml = (module.LIBXML_VERSION // 10000, module.LIBXML_VERSION // 100 % 100)
    if built == running and built_libxml == libxml:
        return None
    return (f"{module.__name__} was built against lxml {module.LXML_VERSION} / libxml2 "
            f"{'.'.join(map(str, built_libxml))}, running lxml {etree.__version__} / "
            f"libxml2 {'.'.join(map(str, etree.LIBXML_VERSION))}: rebuild it "
            "(`python setup.py build_ext --inplace` or reinstall corpuscrawl)")


def lxml_build_problem(module: ModuleType) -> str | None:
    """:func:`lxml_release_problem`, with a warning when there is one (the Python code runs
    instead)."""
    problem = lxml_release_problem(module)
    if problem:
        logger.warning("%s; the Python code runs instead", problem)
    return problem


__all__ = ["accelerator", "lxml_build_problem", "lxml_release_problem"]
