"""Extractor specifications on the command line: ``NAME`` or ``NAME:key=value,...``.

A spec names a registered extractor and the keyword options to build it with
(e.g. ``template:path=t/site.txt``); commands and the evaluation runner pass
specs around instead of extractor objects, which need not be picklable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.base import Extractor, ExtractorError


@dataclass(frozen=True, slots=True)
class ExtractorSpec:
    """A registry name plus the keyword options to build it with."""

    name: str
    options: tuple[tuple[str, str], ...] = ()

    def build(self) -> Extractor:
        """Build the extractor through the registry (raises ExtractorError on bad input)."""
        options: dict[str, Any] = dict(self.options)
        return get_extractor(self.name, None, **options)


def parse_spec(text: str) -> ExtractorSpec:
    """Parse ``NAME`` or ``NAME:key=value,key=value`` (e.g. ``template:path=t/site.txt``)."""
    name, _, rest = text.partition(":")
    options: list[tuple[str, str]] = []
    for part in filter(None, rest.split(",")):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ExtractorError(f"bad extractor option {part!r} in {text!r}: expected key=value")
        options.append((key.strip(), value.strip()))
    if not name.strip():
        raise ExtractorError(f"bad extractor spec {text!r}: no name")
    return ExtractorSpec(name.strip(), tuple(options))


__all__ = ["ExtractorSpec", "parse_spec"]
