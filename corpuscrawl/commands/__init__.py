"""Offline subcommands of the corpuscrawl CLI."""
