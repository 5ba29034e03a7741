"""Lines with roles grouped into the blocks a document is made of.

A heading or paragraph is a block of one line; consecutive items of lists form one
:class:`ListBlock` (nested by depth), consecutive cells and rows of one table a
:class:`TableBlock`, consecutive lines of one quotation a :class:`QuoteBlock`, of one
``<pre>`` a :class:`CodeBlock`.  Markdown and TEI render these blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from corpuscrawl.extract.lines.structure import Role


@dataclass
class Heading:
    """A heading line of ``level`` 1-6."""

    text: str
    level: int


@dataclass
class Paragraph:
    """One paragraph line."""

    text: str


@dataclass
class ListItem:
    """An item's text and the lists nested in it."""

    text: str
    children: list[ListBlock] = field(default_factory=list)


@dataclass
class ListBlock:
    """A list: ``ordered`` (numbered) or not, its items in order."""

    ordered: bool
    items: list[ListItem] = field(default_factory=list)


@dataclass
class TableBlock:
    """A table: rows of cell texts; ``header`` rows are those of ``<th>`` cells only."""

    rows: list[list[str]] = field(default_factory=list)
    header: list[bool] = field(default_factory=list)


@dataclass
class QuoteBlock:
    """The paragraphs of one quotation."""

    lines: list[str] = field(default_factory=list)


@dataclass
class CodeBlock:
    """The lines of one preformatted block."""

    lines: list[str] = field(default_factory=list)


Block = Heading | Paragraph | ListBlock | TableBlock | QuoteBlock | CodeBlock


def _split_row(line: str, cells: tuple[int, ...]) -> list[str]:
    out, pos = [], 0
    for length in cells:
        out.append(line[pos:pos + length])
        pos += length + 1
    return out if pos - 1 == len(line) else [line]


def _add_item(blocks: list[Block], line: str, role: Role,
              stack: list[tuple[int, int, ListBlock]]) -> None:
    """Put an item into the list open at its depth (opening a nested or a new list as needed)."""
    depth = max(role.level, 1)
    while stack and stack[-1][0] > depth:
        stack.pop()
    if stack and stack[-1][0] == depth:
        if stack[-1][1] == role.group:
            stack[-1][2].items.append(ListItem(line))
            return
        stack.pop()
    new = ListBlock(role.ordered, [ListItem(line)])
    if stack:
        stack[-1][2].items[-1].children.append(new)
    else:
        blocks.append(new)
    stack.append((depth, role.group, new))


def group_blocks(text: str, roles: Sequence[Role]) -> list[Block]:
    """The blocks of ``text`` whose lines have ``roles`` (a missing role is a paragraph)."""
    blocks: list[Block] = []
    stack: list[tuple[int, int, ListBlock]] = []  # open lists: (depth, group, list)
    table_key: tuple[int, int] | None = None  # (table group, row) of the last cell
    last_group = (None, 0)
    for i, line in enumerate(text.split("\n") if text else []):
        role = roles[i] if i < len(roles) else Role()
        key = (role.kind, role.group)
        if role.kind != "item":
            stack.clear()
        if role.kind == "head":
            blocks.append(Heading(line, min(max(role.level, 1), 6)))
        elif role.kind == "item":
            if last_group[0] != "item":
                stack.clear()
            _add_item(blocks, line, role, stack)
        elif role.kind in ("cell", "row"):
            cells = _split_row(line, role.cells) if role.kind == "row" else [line]
            table = blocks[-1] if blocks and isinstance(blocks[-1], TableBlock) \
                and last_group[0] in ("cell", "row") and last_group[1] == role.group else None
            if table is None:
                table = TableBlock()
                blocks.append(table)
                table_key = None
            if role.kind == "cell" and table_key == (role.group, role.row):
                table.rows[-1].extend(cells)
                table.header[-1] = table.header[-1] and role.header
            else:
                table.rows.append(cells)
                table.header.append(role.header)
            table_key = (role.group, role.row)
            key = ("cell", role.group)
        elif role.kind == "quote":
            if isinstance(blocks[-1:] and blocks[-1], QuoteBlock) and last_group == key:
                blocks[-1].lines.append(line)  # type: ignore[union-attr]
            else:
                blocks.append(QuoteBlock([line]))
        elif role.kind == "code":
            if isinstance(blocks[-1:] and blocks[-1], CodeBlock) and last_group == key:
                blocks[-1].lines.append(line)  # type: ignore[union-attr]
            else:
                blocks.append(CodeBlock([line]))
        else:
            blocks.append(Paragraph(line))
        last_group = key
    return blocks
