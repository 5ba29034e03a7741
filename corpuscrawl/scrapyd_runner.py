"""Scrapyd's runner, with the deployed egg's corpuscrawl before the installed one.

Scrapyd starts every job as ``python -m <runner> crawl ...``; its own runner
(``scrapyd.runner``) activates the project's egg with pkg_resources, which
*appends* the egg to ``sys.path``.  On a server where corpuscrawl is also
installed in Scrapyd's environment (the README's install: the wheel with the
``server`` extra), the installed package comes first and every job runs it:
``scrapyd-deploy`` of changed code, templates or models had no effect.

``deploy/scrapyd.conf`` names this module as ``runner``.  It runs Scrapyd's
runner with one change: the egg goes to the front of ``sys.path`` and any
corpuscrawl module imported before (this one's package) is forgotten, so the
job imports the deployed code and reads the deployed templates and models.
The egg has no C accelerators: the Python code runs instead (same results).
"""

from __future__ import annotations

import sys

from scrapyd import runner as scrapyd_runner

PACKAGE = "corpuscrawl"
_activate_appended = scrapyd_runner.activate_egg


def activate_egg_first(eggpath: str) -> None:
    """Activate the egg as Scrapyd does, then put it before every installed package."""
    _activate_appended(eggpath)
    while eggpath in sys.path:
        sys.path.remove(eggpath)
    sys.path.insert(0, eggpath)
    for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def main() -> None:
    """Scrapyd's runner with :func:`activate_egg_first` in place of its egg activation."""
    scrapyd_runner.activate_egg = activate_egg_first
    scrapyd_runner.main()


if __name__ == "__main__":
    main()
