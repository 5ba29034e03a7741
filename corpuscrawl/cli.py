"""The ``corpuscrawl`` command: offline tools around the crawler.

Each subcommand lives in ``corpuscrawl/commands/<name>.py`` and exposes
``register(subparsers)``, which adds its parser and sets ``func``; the
function returns the process exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: Subcommand modules under corpuscrawl.commands, in the order ``--help`` lists them.
COMMANDS = ("crawl", "extract", "evaluate", "report", "train", "label")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every available subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="corpuscrawl",
        description="Build clean text corpora from the web; evaluate and train extractors.",
    )
    parser.add_argument("-V", "--version", action="version",
                        version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"corpuscrawl.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"corpuscrawl.commands.{name}":
                continue  # subcommand not part of this installation
            raise
        module.register(sub)
    return parser


def version() -> str:
    """The installed distribution's version (package metadata), else the package's own."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("corpuscrawl")
    except PackageNotFoundError:  # a checkout on sys.path, not installed
        from corpuscrawl import __version__

        return __version__


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code.

    Ctrl-C at any moment (the subcommands' imports take seconds) ends with one line and
    exit status 130, never a traceback."""
    try:
        if argv is None:
            argv = sys.argv[1:]
        if list(argv[:1]) in (["--version"], ["-V"]):  # answered before the slow imports
            print(f"corpuscrawl {version()}")
            return 0
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("corpuscrawl: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
