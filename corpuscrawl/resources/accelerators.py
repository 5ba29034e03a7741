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


__all__ = ["accelerator"]
