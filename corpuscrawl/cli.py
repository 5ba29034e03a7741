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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
