"""The structure of an extracted text: what each of its lines is on the page.

Every extractor gives plain text, one paragraph per line (:mod:`corpuscrawl.extract.base`).
Markdown and TEI need more: which line is a heading (and of which level), a list item
(of which list, ordered or not, how deep), a table cell (of which row of which table),
a quotation or preformatted code.  That is read here from the page the extractor kept
the line from, the same way for every extractor, template and plug-in:

1. :func:`page_lines` renders the page's cleaned body as :func:`~corpuscrawl.html.dom.render_text`
   does (one line per block element, ``<br>`` breaks, ``<pre>`` keeps its lines), and
   notes for each line the innermost structural element it stands in (:class:`Role`);
2. :func:`line_roles` aligns the extractor's output lines with those page lines, in
   page order (an output line is found as a page line, as a run of page lines joined,
   e.g. the cells of one table row, or inside a page line); a line found nowhere is a
   paragraph.

An extractor that knows its kept elements better may give the roles itself: a method
``line_roles(page, text) -> list[Role]`` (one per line of ``text``) on the extractor
is used instead of the alignment (:func:`roles_for`).  ``text`` itself is never
changed here: the plain ``text`` field stays byte for byte what the extractor gave.

Roles travel with a document as short strings (:func:`encode_roles`), each carrying a
hash of its line, so that after the export stage removed boilerplate lines the
remaining lines still find their roles (:func:`decode_roles`).

Plain library code: no Scrapy.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lxml import etree

from corpuscrawl.html.dom import BLOCK_TAGS, PREFORMATTED_TAGS, tag_name
from corpuscrawl.html.page import Page
from corpuscrawl.html.text import normalize_text

#: Kinds of line: paragraph, heading, list item, table cell, a whole table row in one
#: line, a line inside a quotation, a line of preformatted code.
KINDS = ("p", "head", "item", "cell", "row", "quote", "code")
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_LISTS = frozenset(("ul", "ol", "menu", "dir"))
#: Longest run of page lines tried as one output line (a table row's cells, a list item's parts).
JOIN_MAX_LINES_DEFAULT = 40
_LINE_BREAK_RE = re.compile(r"[\n\r\v\f\x85\u2028\u2029]")


@dataclass(frozen=True, slots=True)
class Role:
    """What one line of text is: its ``kind`` (:data:`KINDS`) and where it belongs.

    ``level``: a heading's level (1-6) or a list item's depth (1 = top list);
    ``group``: the list, table, quotation or code block it is part of (lines of one
    group belong together; 0 for a paragraph or heading); ``row``: a cell's table row;
    ``ordered``: an item of a numbered list; ``header``: a ``<th>`` cell;
    ``cells``: for a ``row`` line, the length of each cell's text within the line.
    """

    kind: str = "p"
    level: int = 0
    group: int = 0
    row: int = 0
    ordered: bool = False
    header: bool = False
    cells: tuple[int, ...] = ()


PARAGRAPH = Role()


class _Walker:
    """Renders a tree into lines, each with the role of the element it starts in."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, Role]] = []
        self._chunks: list[str] = []
        self._started = False
        self._role: Role = PARAGRAPH
        self._stack: list[Role] = [PARAGRAPH]
        self._ids: dict[int, int] = {}

    def _id(self, el: etree._Element) -> int:
        return self._ids.setdefault(id(el), len(self._ids) + 1)

    def flush(self) -> None:
        line = "".join(self._chunks)
        self._chunks = []
        self._started = False
        if line.strip():
            self.lines.append((line, self._role))

    def text(self, value: str, pre: bool) -> None:
        if not value:
            return
        if pre and "\n" in value:
            first, *rest = value.split("\n")
            self.text(first, pre)
            for part in rest:
                self.flush()
                self.text(part, pre)
            return
        if not self._started and value.strip():
            self._role = self._stack[-1]
            self._started = True
        self._chunks.append(value if pre else _LINE_BREAK_RE.sub(" ", value))

    def role_of(self, el: etree._Element, name: str) -> Role | None:
        outer = self._stack[-1]
        if name in _HEADINGS:
            return Role("head", level=_HEADINGS[name])
        if name == "li":
            parent = el.getparent()
            ordered = parent is not None and tag_name(parent) == "ol"
            depth = sum(1 for a in el.iterancestors() if tag_name(a) in _LISTS) or 1
            return Role("item", level=depth, ordered=ordered,
                        group=self._id(parent if parent is not None else el))
        if name in ("td", "th"):
            row = el.getparent()
            table = next((a for a in el.iterancestors() if tag_name(a) == "table"), row)
            return Role("cell", group=self._id(table if table is not None else el),
                        row=self._id(row if row is not None else el), header=name == "th")
        if name == "blockquote" and outer.kind not in ("item", "cell"):
            return Role("quote", group=self._id(el))
        if name in PREFORMATTED_TAGS:
            return Role("code", group=self._id(el))
        return None

    def walk(self, el: etree._Element, pre: bool = False) -> None:
        name = tag_name(el)
        if not name:
            return
        block = name in BLOCK_TAGS or name == "br"
        pre = pre or name in PREFORMATTED_TAGS
        if block:
            self.flush()
        role = self.role_of(el, name)
        if role is not None:
            self._stack.append(role)
        if el.text:
            self.text(el.text, pre)
        for child in el:
            self.walk(child, pre)
            if child.tail:
                self.text(child.tail, pre)
        if role is not None:
            self._stack.pop()
        if block:
            self.flush()


def page_lines(page: Page) -> list[tuple[str, Role]]:
    """The lines of ``page``'s cleaned body in the normal form of extracted text, each with
    its :class:`Role` (empty lines dropped)."""
    walker = _Walker()
    root = page.clean_tree
    body = root.find(".//body")
    walker.walk(body if body is not None else root)
    walker.flush()
    out: list[tuple[str, Role]] = []
    for line, role in walker.lines:
        for part in normalize_text(line).split("\n"):
            if part:
                out.append((part, role))
    return out


class _Aligner:
    """Finds output lines among a page's lines, moving forward through the page."""

    def __init__(self, lines: Sequence[tuple[str, Role]]):
        self.texts = [t for t, _ in lines]
        self.roles = [r for _, r in lines]
        self.index: dict[str, list[int]] = {}
        for i, text in enumerate(self.texts):
            self.index.setdefault(text, []).append(i)
        self.cursor = 0

    def _order(self) -> Iterable[int]:
        n = len(self.texts)
        return (*range(self.cursor, n), *range(0, min(self.cursor, n)))

    def role(self, line: str) -> Role:
        hits = self.index.get(line)
        if hits:
            i = next((h for h in hits if h >= self.cursor), hits[0])
            self.cursor = i + 1
            return self.roles[i]
        for i in self._order():
            if line.startswith(self.texts[i]):
                end = self._joined_end(line, i)
                if end:
                    self.cursor = end
                    return self._joined_role(i, end, line)
        for i in self._order():
            if line in self.texts[i]:
                self.cursor = i
                return self.roles[i]
        return PARAGRAPH

    def _joined_end(self, line: str, start: int) -> int:
        """End (exclusive) of the run of page lines from ``start`` that joined with
        spaces (or nothing) is ``line``; 0 when there is none."""
        pos = 0
        for j in range(start, min(len(self.texts), start + JOIN_MAX_LINES_DEFAULT)):
            text = self.texts[j]
            if not line.startswith(text, pos):
                return 0
            pos += len(text)
            if pos == len(line):
                return j + 1
            if line.startswith(" ", pos):
                pos += 1
        return 0

    def _joined_role(self, start: int, end: int, line: str) -> Role:
        first = self.roles[start]
        roles = self.roles[start:end]
        if first.kind == "cell" and all(r.kind == "cell" and r.row == first.row for r in roles):
            lengths = tuple(len(t) for t in self.texts[start:end])
            if sum(lengths) + len(lengths) - 1 == len(line):
                return Role("row", group=first.group, row=first.row,
                            header=all(r.header for r in roles), cells=lengths)
        return first


def line_roles(page: Page, text: str) -> list[Role]:
    """One :class:`Role` per line of ``text`` (an extractor's output of ``page``)."""
    if not text:
        return []
    aligner = _Aligner(page_lines(page))
    return [aligner.role(line) for line in text.split("\n")]


def roles_for(extractor: object, page: Page, text: str) -> list[Role]:
    """The roles of ``text``: the extractor's own ``line_roles(page, text)`` when it has
    one (and it gives one role per line), else :func:`line_roles`."""
    own = getattr(extractor, "line_roles", None)
    if own is not None:
        roles = list(own(page, text))
        if len(roles) == len(text.split("\n")) if text else not roles:
            return roles
    return line_roles(page, text)


def line_hash(line: str) -> str:
    """A short hash of a line (CRC-32, 8 hex digits): finds its role again after lines
    before it were removed."""
    return f"{zlib.crc32(line.encode('utf-8')):08x}"


def encode_role(role: Role, line: str) -> str:
    """``role`` of ``line`` as a short string: ``kind level group row flags cells hash``."""
    flags = ("o" if role.ordered else "") + ("h" if role.header else "") or "-"
    cells = ",".join(map(str, role.cells)) or "-"
    return f"{role.kind} {role.level} {role.group} {role.row} {flags} {cells} {line_hash(line)}"


def encode_roles(roles: Sequence[Role], text: str) -> list[str]:
    """The roles of ``text``'s lines as strings (:func:`encode_role`)."""
    return [encode_role(r, line) for r, line in zip(roles, text.split("\n"), strict=False)]


def _decode(value: str) -> tuple[Role, str]:
    kind, level, group, row, flags, cells, digest = value.split(" ")
    return Role(kind=kind if kind in KINDS else "p", level=int(level), group=int(group),
                row=int(row), ordered="o" in flags, header="h" in flags,
                cells=tuple(int(c) for c in cells.split(",")) if cells != "-" else ()), digest


def decode_roles(encoded: Sequence[str], text: str) -> list[Role]:
    """One role per line of ``text`` from roles encoded for a text it was cut from.

    Each line takes the next encoded role whose hash is the line's (lines removed
    from the text are skipped over); a line with none is a paragraph.
    """
    decoded: list[tuple[Role, str]] = []
    for value in encoded:
        try:
            decoded.append(_decode(value))
        except ValueError:
            decoded.append((PARAGRAPH, ""))
    roles: list[Role] = []
    pos = 0
    for line in text.split("\n") if text else []:
        digest = line_hash(line)
        for j in range(pos, len(decoded)):
            if decoded[j][1] == digest:
                roles.append(decoded[j][0])
                pos = j + 1
                break
        else:
            roles.append(PARAGRAPH)
    return roles
