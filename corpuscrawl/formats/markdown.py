"""An extracted text as Markdown: headings, lists, tables, quotations and code keep their form.

CommonMark with GitHub's pipe tables (the Markdown trafilatura's ``output_format="markdown"``
writes): ``#`` headings, ``-`` and ``1.`` list items indented two spaces per nesting
level, ``> `` quotations, fenced code, and tables whose first row is the header row
(a table without a ``<th>`` row gets its first row as header, as Markdown has no
header-less table).  Blocks are separated by a blank line; a paragraph that would
read as Markdown syntax (``# ``, ``- ``, ``1. ``, ``> ``, a fence) is escaped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from corpuscrawl.extract.lines.structure import Role
from corpuscrawl.formats.line_blocks import (
    Block,
    CodeBlock,
    Heading,
    ListBlock,
    Paragraph,
    QuoteBlock,
    TableBlock,
    group_blocks,
)

_BLOCK_START_RE = re.compile(r"^(?:#{1,6}(?:\s|$)|[-+*](?:\s|$)|\d{1,9}[.)](?:\s|$)|>|```|~~~|={3,}\s*$|-{3,}\s*$)")


def escape_line(line: str) -> str:
    """``line`` as paragraph text: a leading Markdown block marker is backslash-escaped."""
    return "\\" + line if _BLOCK_START_RE.match(line) else line


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|") or " "


def _table(block: TableBlock) -> list[str]:
    width = max(len(r) for r in block.rows)
    rows = [r + [""] * (width - len(r)) for r in block.rows]
    out = ["| " + " | ".join(_cell(c) for c in rows[0]) + " |",
           "|" + "|".join(" --- " for _ in range(width)) + "|"]
    out.extend("| " + " | ".join(_cell(c) for c in r) + " |" for r in rows[1:])
    return out


def _list(block: ListBlock, indent: int = 0) -> list[str]:
    out: list[str] = []
    for n, item in enumerate(block.items, 1):
        marker = f"{n}." if block.ordered else "-"
        out.append(" " * indent + f"{marker} {item.text}")
        for child in item.children:
            out.extend(_list(child, indent + len(marker) + 1))
    return out


def _fence(lines: list[str]) -> str:
    longest = max((len(m) for line in lines for m in re.findall(r"`+", line)), default=0)
    return "`" * max(3, longest + 1)


def render_block(block: Block) -> list[str]:
    """The Markdown lines of one block."""
    if isinstance(block, Heading):
        return [f"{'#' * block.level} {block.text}"]
    if isinstance(block, ListBlock):
        return _list(block)
    if isinstance(block, TableBlock):
        return _table(block)
    if isinstance(block, QuoteBlock):
        out: list[str] = []
        for i, line in enumerate(block.lines):
            if i:
                out.append(">")
            out.append(f"> {escape_line(line)}")
        return out
    if isinstance(block, CodeBlock):
        fence = _fence(block.lines)
        return [fence, *block.lines, fence]
    assert isinstance(block, Paragraph)
    return [escape_line(block.text)]


def to_markdown(text: str, roles: Sequence[Role]) -> str:
    """``text`` (one paragraph per line, each line with its role) as Markdown."""
    return "\n\n".join("\n".join(render_block(b)) for b in group_blocks(text, roles))
